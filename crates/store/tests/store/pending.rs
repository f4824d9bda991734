//! Suspended turns: a host-owned turn waiting on tool results, and a chat
//! turn waiting on approvals, both surviving a restart.

use serde_json::json;
use sift_store::{
    NewMessage, NewPendingTurn, PendingApproval, PendingChange, PendingGuard, PendingToolCall,
    Role, Store, TurnWrite,
};

use crate::{assistant, counts, fresh, session, user};

fn tool_call(id: &str, name: &str, arguments: &str) -> PendingToolCall {
    PendingToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[test]
fn a_suspended_host_turn_survives_a_restart_then_resumes_and_clears() {
    let (dir, store) = fresh("host-turn");
    let s = session(&store);
    let transcript = json!([
        {"role": "system", "parts": [{"type": "text", "text": "Be brief."}]},
        {"role": "user", "parts": [{"type": "text", "text": "Weather in Oslo and Rome?"}]},
        {"role": "assistant", "parts": [
            {"type": "tool_call", "id": "c1", "name": "weather", "arguments": "{\"city\":\"Oslo\"}"},
            {"type": "tool_call", "id": "c2", "name": "weather", "arguments": "{\"city\":"}
        ]}
    ]);
    let calls = vec![
        tool_call("c1", "weather", "{\"city\":\"Oslo\"}"),
        // Invalid JSON from the model is kept exactly as it came.
        tool_call("c2", "weather", "{\"city\":"),
    ];
    let suspended = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Absent,
            pending: PendingChange::Set(NewPendingTurn {
                transcript: transcript.clone(),
                state: json!({"tools": ["weather"], "system_prompt_added": true}),
                tool_calls: calls.clone(),
                approvals: vec![],
            }),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let pending = suspended.pending.clone().unwrap();
    assert_eq!(pending.session_id, s.id);
    assert_eq!(pending.transcript, transcript);
    assert_eq!(pending.tool_calls, calls);
    assert_eq!(pending.approvals, vec![]);
    assert_eq!(pending.pending_ids(), vec!["c1", "c2"]);
    assert!(suspended.messages.is_empty());
    drop(store);

    // "Restart": a new process opens the file.
    let store = Store::open(dir.db()).unwrap();
    assert_eq!(store.pending_turn(&s.id).unwrap(), Some(pending.clone()));
    assert_eq!(store.messages(&s.id).unwrap(), vec![]);

    // Resume with the results: the whole turn is written, the state cleared.
    let tool_result = |id: &str, text: &str| {
        NewMessage::new(
            Role::Tool,
            json!([{"type": "tool_result", "call_id": id, "content": text, "is_error": false}]),
        )
    };
    let done = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Id(pending.id.clone()),
            messages: vec![
                user("Weather in Oslo and Rome?"),
                NewMessage::new(Role::Assistant, transcript[2]["parts"].clone()),
                tool_result("c1", "rain"),
                tool_result("c2", "bad arguments"),
                assistant("Oslo: rain."),
            ],
            pending: PendingChange::Clear,
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(done.pending, None);
    assert_eq!(
        done.messages.iter().map(|m| m.seq).collect::<Vec<_>>(),
        vec![1, 2, 3, 4, 5]
    );
    drop(store);

    let store = Store::open(dir.db()).unwrap();
    assert_eq!(store.pending_turn(&s.id).unwrap(), None);
    assert_eq!(store.messages(&s.id).unwrap(), done.messages);
    assert_eq!(
        counts(&dir.db()),
        [
            ("sessions", 1),
            ("messages", 5),
            ("structured_calls", 0),
            ("pending_turns", 0),
            ("pending_tool_calls", 0),
            ("pending_approvals", 0),
        ]
    );
}

#[test]
fn a_chat_turn_waiting_on_approval_survives_a_restart() {
    let (dir, store) = fresh("approval");
    let s = session(&store);
    let before = sift_store::now_ms();
    let commit = store
        .commit_turn(TurnWrite {
            pending: PendingChange::Set(NewPendingTurn {
                transcript: json!([{"role": "user", "parts": [{"type": "text", "text": "delete it"}]}]),
                state: json!({}),
                tool_calls: vec![],
                approvals: vec![
                    tool_call("a1", "delete_file", "{\"path\":\"/tmp/x\"}"),
                    tool_call("a2", "send_mail", "{}"),
                ],
            }),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let pending = commit.pending.unwrap();
    let at = pending.created_at;
    assert!(at >= before && at <= sift_store::now_ms());
    assert_eq!(
        pending.approvals,
        vec![
            PendingApproval {
                id: "a1".into(),
                name: "delete_file".into(),
                arguments: "{\"path\":\"/tmp/x\"}".into(),
                created_at: at,
            },
            PendingApproval {
                id: "a2".into(),
                name: "send_mail".into(),
                arguments: "{}".into(),
                created_at: at,
            },
        ]
    );
    assert_eq!(pending.pending_ids(), vec!["a1", "a2"]);
    assert_eq!(commit.session.updated_at, at);
    drop(store);

    let store = Store::open(dir.db()).unwrap();
    assert_eq!(store.pending_turn(&s.id).unwrap(), Some(pending.clone()));

    // Replacing the pending state (one approved, one still waiting)
    // replaces its rows and gives it a new id.
    let replaced = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Id(pending.id.clone()),
            pending: PendingChange::Set(NewPendingTurn {
                transcript: json!([]),
                state: json!({"approved": ["a1"]}),
                tool_calls: vec![],
                approvals: vec![tool_call("a2", "send_mail", "{}")],
            }),
            ..TurnWrite::new(&s.id)
        })
        .unwrap()
        .pending
        .unwrap();
    assert_ne!(replaced.id, pending.id);
    assert_eq!(replaced.pending_ids(), vec!["a2"]);
    assert_eq!(store.pending_turn(&s.id).unwrap(), Some(replaced));
    assert_eq!(
        counts(&dir.db())[3..],
        [
            ("pending_turns", 1),
            ("pending_tool_calls", 0),
            ("pending_approvals", 1),
        ]
    );
}

#[test]
fn keep_leaves_the_pending_turn_and_reports_it() {
    let (_dir, store) = fresh("keep");
    let s = session(&store);
    let other = session(&store);
    let set = store
        .commit_turn(TurnWrite {
            pending: PendingChange::Set(NewPendingTurn {
                transcript: json!([]),
                state: json!(null),
                tool_calls: vec![tool_call("c1", "t", "")],
                approvals: vec![],
            }),
            ..TurnWrite::new(&s.id)
        })
        .unwrap()
        .pending
        .unwrap();
    let kept = store
        .commit_turn(TurnWrite {
            messages: vec![user("note")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(kept.pending, Some(set.clone()));
    assert_eq!(store.pending_turn(&s.id).unwrap(), Some(set));
    // Pending state is per session.
    assert_eq!(store.pending_turn(&other.id).unwrap(), None);
    assert_eq!(store.pending_turn("ses_missing").unwrap(), None);
}
