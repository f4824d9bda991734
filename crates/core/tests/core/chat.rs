//! Chat turns on a session: the context sent, the events, and exactly what
//! is committed: after a completed turn, a suspension, a resume from a
//! freshly opened store, and a failure.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use sift_core::CoreError;
use sift_core::chat::{
    ApprovalRequest, ChatRequest, ChatResult, ChatStatus, chat_turn, resolve_approval,
};
use sift_engine::{ChatEvent, FnTool, ToolOutput, Toolkit};
use sift_llm::{ErrorCategory, ToolSpec, Usage};
use sift_scripted_server::{Finish, Reply, Script, ScriptedServer};
use sift_store::{NewMessage, NewSession, Role, Store, TurnWrite};

use crate::{TempDir, count, selection};

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
    }
}

fn text(text: &str) -> ChatEvent {
    ChatEvent::TextDelta(text.into())
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("The {name} tool."),
        parameters: json!({"type": "object"}),
    }
}

/// `lookup` answers at once; `send_mail` needs approval and counts its runs.
fn toolkit(mail_runs: Arc<AtomicUsize>) -> Toolkit {
    Toolkit::new()
        .with(FnTool::new(spec("lookup"), |_| async {
            Ok(ToolOutput::text("total: 5"))
        }))
        .with(
            FnTool::new(spec("send_mail"), move |_| {
                let runs = mail_runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("sent"))
                }
            })
            .needing_approval(),
        )
}

fn session(store: &Store, system: Option<&str>, model_choice: Option<&str>) -> String {
    store
        .create_session(NewSession {
            title: String::new(),
            system_prompt: system.map(str::to_owned),
            model_choice: model_choice.map(str::to_owned),
        })
        .unwrap()
        .id
}

async fn chat(
    store: &Store,
    request: &ChatRequest,
) -> (Result<ChatResult, CoreError>, Vec<ChatEvent>) {
    let mut events = Vec::new();
    let mut on_event = |event| events.push(event);
    let result = chat_turn(store, request, &mut on_event).await;
    (result, events)
}

async fn resolve(
    store: &Store,
    request: &ApprovalRequest,
) -> (Result<ChatResult, CoreError>, Vec<ChatEvent>) {
    let mut events = Vec::new();
    let mut on_event = |event| events.push(event);
    let result = resolve_approval(store, request, &mut on_event).await;
    (result, events)
}

/// Each stored message as `[seq, role, parts, hidden]`.
fn rows(store: &Store, session_id: &str) -> Vec<Value> {
    store
        .messages(session_id)
        .unwrap()
        .into_iter()
        .map(|m| json!([m.seq, m.role, m.parts, m.hidden]))
        .collect()
}

fn text_parts(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

#[tokio::test]
async fn a_completed_turn_commits_the_user_message_and_the_reply_at_once() {
    let dir = TempDir::new("chat-completed");
    let store = Store::open(dir.db()).unwrap();
    let id = session(&store, Some("Be brief."), None);
    // An earlier turn, with a hidden copy that is never sent.
    let mut earlier = TurnWrite::new(&id);
    earlier.messages = vec![
        NewMessage::text(Role::User, "Hi"),
        NewMessage::text(Role::Assistant, "Hello."),
        NewMessage::text(Role::Assistant, "{\"hidden\":true}").hidden(),
    ];
    store.commit_turn(earlier).unwrap();
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::text("Sure.").chunk_chars(3).usage(20, 2)]),
    )
    .await
    .unwrap();

    let request = ChatRequest::new(&id, "Again?", selection(&server, &["m"]));
    let (result, events) = chat(&store, &request).await;
    let result = result.unwrap();

    assert_eq!(
        events,
        vec![
            text("Sur"),
            text("e."),
            ChatEvent::Usage(usage(20, 2)),
            ChatEvent::Done {
                usage: usage(20, 2)
            },
        ]
    );
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hi"},
            {"role": "assistant", "content": "Hello."},
            {"role": "user", "content": "Again?"},
        ])
    );
    assert_eq!(result.status, ChatStatus::Completed);
    assert_eq!(result.reply, "Sure.");
    assert_eq!(result.usage, usage(20, 2));
    assert_eq!(result.pending, None);
    let seqs: Vec<i64> = result.messages.iter().map(|m| m.seq).collect();
    assert_eq!(seqs, [4, 5]);
    assert_eq!(
        rows(&store, &id)[3..],
        [
            json!([4, "user", text_parts("Again?"), false]),
            json!([5, "assistant", text_parts("Sure."), false]),
        ]
    );
}

/// Suspends a turn on `send_mail` in a new session of the file at `db`;
/// returns the session id.
async fn suspend(db: &std::path::Path, server: &ScriptedServer, kit: &Toolkit) -> String {
    let store = Store::open(db).unwrap();
    let id = session(&store, None, None);
    let mut request = ChatRequest::new(&id, "Mail the total", selection(server, &["m"]));
    request.toolkits = vec![kit.clone()];
    let (result, events) = chat(&store, &request).await;
    let result = result.unwrap();

    assert_eq!(
        events,
        vec![
            ChatEvent::ToolCallStarted {
                id: "call_1".into(),
                name: "lookup".into()
            },
            ChatEvent::ToolCallStarted {
                id: "call_2".into(),
                name: "send_mail".into()
            },
            ChatEvent::Usage(usage(10, 5)),
            ChatEvent::ToolCallFinished {
                id: "call_1".into(),
                name: "lookup".into(),
                content: "total: 5".into(),
                is_error: false,
            },
            ChatEvent::ApprovalRequired {
                id: "call_2".into(),
                name: "send_mail".into(),
                arguments: "{\"to\":\"bo@example.com\"}".into(),
            },
        ]
    );
    assert_eq!(result.status, ChatStatus::AwaitingApproval);
    assert_eq!(result.messages, []);
    assert_eq!(rows(&store, &id), Vec::<Value>::new(), "no message yet");

    let pending = store.pending_turn(&id).unwrap().unwrap();
    assert_eq!(result.pending.as_ref(), Some(&pending));
    assert_eq!(pending.tool_calls, []);
    let approvals: Vec<(&str, &str, &str)> = pending
        .approvals
        .iter()
        .map(|a| (a.id.as_str(), a.name.as_str(), a.arguments.as_str()))
        .collect();
    assert_eq!(
        approvals,
        [("call_2", "send_mail", "{\"to\":\"bo@example.com\"}")]
    );
    assert_eq!(
        pending.transcript,
        json!([
            {"role": "user", "parts": [{"type": "text", "text": "Mail the total"}]},
            {"role": "assistant", "parts": [
                {"type": "tool_call", "id": "call_1", "name": "lookup", "arguments": "{\"q\":\"total\"}"},
                {"type": "tool_call", "id": "call_2", "name": "send_mail", "arguments": "{\"to\":\"bo@example.com\"}"},
            ]},
        ])
    );
    assert_eq!(
        pending.state,
        json!({
            "kind": "chat",
            "results": [{"call_id": "call_1", "content": "total: 5", "is_error": false}],
            "model": "m",
            "requests": 1,
        })
    );

    // A new message is refused while the call waits, before any request.
    let (refused, events) = chat(
        &store,
        &ChatRequest::new(&id, "Hello?", selection(server, &["m"])),
    )
    .await;
    let refused = refused.unwrap_err();
    assert_eq!(refused.code(), "approval_required");
    assert_eq!(
        refused.to_string(),
        "the user must first approve or deny: call_2"
    );
    assert_eq!(
        events,
        vec![ChatEvent::Error {
            category: ErrorCategory::Other,
            message: "the user must first approve or deny: call_2".into()
        }]
    );
    assert_eq!(server.requests().len(), 1);
    id
}

fn approval_script() -> Script {
    Script::new().with(
        "m",
        [
            Reply::tool_call("lookup", json!({"q": "total"}))
                .and_tool_call("send_mail", json!({"to": "bo@example.com"}))
                .usage(10, 5),
            Reply::text("Mailed.").chunk_chars(7).usage(30, 2),
        ],
    )
}

fn call_parts() -> Value {
    json!([
        {"type": "tool_call", "id": "call_1", "name": "lookup", "arguments": "{\"q\":\"total\"}"},
        {"type": "tool_call", "id": "call_2", "name": "send_mail", "arguments": "{\"to\":\"bo@example.com\"}"},
    ])
}

#[tokio::test]
async fn an_approval_resumes_the_turn_from_a_reopened_store_and_commits_it_whole() {
    let dir = TempDir::new("chat-approve");
    let server = ScriptedServer::start(approval_script()).await.unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let kit = toolkit(runs.clone());
    let id = suspend(&dir.db(), &server, &kit).await;
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    // The restart: a new handle on the file, nothing kept in memory.
    let store = Store::open(dir.db()).unwrap();
    let mut request = ApprovalRequest::new(&id, "call_2", true, selection(&server, &["m"]));
    request.toolkits = vec![kit.clone()];
    let (result, events) = resolve(&store, &request).await;
    let result = result.unwrap();

    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        events,
        vec![
            ChatEvent::ToolCallFinished {
                id: "call_2".into(),
                name: "send_mail".into(),
                content: "sent".into(),
                is_error: false,
            },
            text("Mailed."),
            ChatEvent::Usage(usage(30, 2)),
            ChatEvent::Done {
                usage: usage(30, 2)
            },
        ]
    );
    assert_eq!(
        server.requests()[1].body["messages"],
        json!([
            {"role": "user", "content": "Mail the total"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"total\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "send_mail", "arguments": "{\"to\":\"bo@example.com\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "total: 5"},
            {"role": "tool", "tool_call_id": "call_2", "content": "sent"},
        ])
    );
    assert_eq!(result.status, ChatStatus::Completed);
    assert_eq!(result.reply, "Mailed.");
    assert_eq!(result.pending, None);
    assert_eq!(store.pending_turn(&id).unwrap(), None);
    assert_eq!(
        rows(&store, &id),
        [
            json!([1, "user", text_parts("Mail the total"), false]),
            json!([2, "assistant", call_parts(), false]),
            json!([3, "tool", [
                {"type": "tool_result", "call_id": "call_1", "content": "total: 5", "is_error": false},
                {"type": "tool_result", "call_id": "call_2", "content": "sent", "is_error": false},
            ], false]),
            json!([4, "assistant", text_parts("Mailed."), false]),
        ]
    );

    // The turn cannot be resumed twice.
    let (again, _) = resolve(&store, &request).await;
    assert_eq!(
        again.unwrap_err().to_string(),
        format!("no approval is pending for call call_2 in session {id}")
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(count(&dir.db(), "messages"), 4);
}

#[tokio::test]
async fn a_denial_is_committed_as_an_error_result_and_the_tool_never_runs() {
    let dir = TempDir::new("chat-deny");
    let server = ScriptedServer::start(approval_script()).await.unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let kit = toolkit(runs.clone());
    let id = suspend(&dir.db(), &server, &kit).await;

    let store = Store::open(dir.db()).unwrap();
    let mut request = ApprovalRequest::new(&id, "call_2", false, selection(&server, &["m"]));
    request.toolkits = vec![kit];
    let (result, _) = resolve(&store, &request).await;
    assert_eq!(result.unwrap().status, ChatStatus::Completed);
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(
        rows(&store, &id)[2],
        json!([3, "tool", [
            {"type": "tool_result", "call_id": "call_1", "content": "total: 5", "is_error": false},
            {"type": "tool_result", "call_id": "call_2", "content": "the user denied this tool call", "is_error": true},
        ], false])
    );
    assert_eq!(
        server.requests()[1].body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_2", "content": "the user denied this tool call"})
    );
}

#[tokio::test]
async fn a_failed_resume_writes_nothing_and_the_approval_still_waits() {
    let dir = TempDir::new("chat-resume-fails");
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::tool_call("lookup", json!({"q": "total"}))
                    .and_tool_call("send_mail", json!({"to": "bo@example.com"}))
                    .usage(10, 5),
                Reply::fault(400, r#"{"error":{"message":"bad request"}}"#),
            ],
        ),
    )
    .await
    .unwrap();
    let kit = toolkit(Arc::default());
    let id = suspend(&dir.db(), &server, &kit).await;
    let store = Store::open(dir.db()).unwrap();
    let before = store.pending_turn(&id).unwrap();

    let mut request = ApprovalRequest::new(&id, "call_2", false, selection(&server, &["m"]));
    request.toolkits = vec![kit];
    let (result, events) = resolve(&store, &request).await;
    let error = result.unwrap_err();
    assert_eq!(
        (error.code(), error.to_string().as_str()),
        ("model", "HTTP 400: bad request")
    );
    assert_eq!(
        events.last(),
        Some(&ChatEvent::Error {
            category: ErrorCategory::Model,
            message: "HTTP 400: bad request".into()
        })
    );
    assert_eq!(rows(&store, &id), Vec::<Value>::new());
    // The decision was kept before the request: the approval still waits,
    // its denial now beside the first call's result.
    let after = store.pending_turn(&id).unwrap().unwrap();
    let before = before.unwrap();
    let calls = |p: &sift_store::PendingTurn| -> Vec<(String, String, String)> {
        p.approvals
            .iter()
            .map(|a| (a.id.clone(), a.name.clone(), a.arguments.clone()))
            .collect()
    };
    assert_eq!(calls(&after), calls(&before));
    assert_eq!(after.transcript, before.transcript);
    assert_eq!(
        after.state["results"],
        json!([
            {"call_id": "call_1", "content": "total: 5", "is_error": false},
            {"call_id": "call_2", "content": sift_engine::DENIED_TOOL_CALL, "is_error": true},
        ])
    );
}

/// An approved tool runs once: its result is stored before the request
/// that follows it, so when that request fails (a 4xx, a 5xx retried to
/// the end, a dropped connection), approving again reuses the result and
/// the tool does not run a second time.
#[tokio::test]
async fn an_approved_tool_runs_once_when_the_request_after_it_fails() {
    let failures: [(&str, Vec<Reply>); 3] = [
        (
            "400",
            vec![Reply::fault(400, r#"{"error":{"message":"bad request"}}"#)],
        ),
        // The client retries transient failures three times: four in all.
        ("503", (0..4).map(|_| Reply::fault(503, "busy")).collect()),
        (
            "dropped",
            (0..4).map(|_| Reply::dropped_connection()).collect(),
        ),
    ];
    for (name, failure) in failures {
        let dir = TempDir::new(&format!("chat-tool-once-{name}"));
        let mut replies = vec![
            Reply::tool_call("lookup", json!({"q": "total"}))
                .and_tool_call("send_mail", json!({"to": "bo@example.com"}))
                .usage(10, 5),
        ];
        replies.extend(failure);
        let server = ScriptedServer::start(Script::new().with("m", replies))
            .await
            .unwrap();
        let runs = Arc::new(AtomicUsize::new(0));
        let kit = toolkit(runs.clone());
        let id = suspend(&dir.db(), &server, &kit).await;
        let store = Store::open(dir.db()).unwrap();
        let mut request = ApprovalRequest::new(&id, "call_2", true, selection(&server, &["m"]));
        request.toolkits = vec![kit];

        let (failed, _) = resolve(&store, &request).await;
        assert!(failed.is_err(), "{name}");
        assert_eq!(runs.load(Ordering::SeqCst), 1, "{name}");
        assert_eq!(rows(&store, &id), Vec::<Value>::new(), "{name}");

        server.push("m", Reply::text("Mailed.").usage(30, 2));
        let (result, events) = resolve(&store, &request).await;
        let result = result.unwrap();
        assert_eq!(runs.load(Ordering::SeqCst), 1, "{name}: the tool ran again");
        assert_eq!(
            events[0],
            ChatEvent::ToolCallFinished {
                id: "call_2".into(),
                name: "send_mail".into(),
                content: "sent".into(),
                is_error: false,
            },
            "{name}"
        );
        assert_eq!(result.status, ChatStatus::Completed, "{name}");
        assert_eq!(
            rows(&store, &id),
            [
                json!([1, "user", text_parts("Mail the total"), false]),
                json!([2, "assistant", call_parts(), false]),
                json!([3, "tool", [
                    {"type": "tool_result", "call_id": "call_1", "content": "total: 5", "is_error": false},
                    {"type": "tool_result", "call_id": "call_2", "content": "sent", "is_error": false},
                ], false]),
                json!([4, "assistant", text_parts("Mailed."), false]),
            ],
            "{name}"
        );
        assert_eq!(store.pending_turn(&id).unwrap(), None, "{name}");
    }
}

#[tokio::test]
async fn a_failed_turn_writes_nothing_and_a_retry_adds_the_turn_once() {
    let dir = TempDir::new("chat-failed");
    let store = Store::open(dir.db()).unwrap();
    let id = session(&store, None, None);
    let updated_at = store.get_session(&id).unwrap().unwrap().updated_at;
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::fault(400, r#"{"error":{"message":"bad request"}}"#),
            Reply::text("Fine.").usage(5, 1),
        ],
    ))
    .await
    .unwrap();
    let request = ChatRequest::new(&id, "Hello", selection(&server, &["m"]));

    let (result, events) = chat(&store, &request).await;
    let error = result.unwrap_err();
    assert_eq!(error.category(), ErrorCategory::Model);
    assert_eq!(
        events,
        vec![ChatEvent::Error {
            category: ErrorCategory::Model,
            message: "HTTP 400: bad request".into()
        }]
    );
    assert_eq!(count(&dir.db(), "messages"), 0);
    assert_eq!(count(&dir.db(), "pending_turns"), 0);
    assert_eq!(
        store.get_session(&id).unwrap().unwrap().updated_at,
        updated_at
    );

    let (result, _) = chat(&store, &request).await;
    assert_eq!(result.unwrap().status, ChatStatus::Completed);
    assert_eq!(
        rows(&store, &id),
        [
            json!([1, "user", text_parts("Hello"), false]),
            json!([2, "assistant", text_parts("Fine."), false]),
        ]
    );
    assert_eq!(
        server.requests()[0].body["messages"],
        server.requests()[1].body["messages"]
    );
}

#[tokio::test]
async fn an_auto_session_hands_a_refused_turn_to_the_next_model() {
    let dir = TempDir::new("chat-auto");
    let store = Store::open(dir.db()).unwrap();
    let auto = session(&store, None, Some("auto"));
    let fixed = session(&store, None, Some("a"));
    let server = ScriptedServer::start(
        Script::new()
            .with(
                "a",
                [
                    Reply::text("No").finish(Finish::Refusal),
                    Reply::refusal(None),
                ],
            )
            .with("b", [Reply::text("Yes.").usage(4, 1)]),
    )
    .await
    .unwrap();

    let (result, events) = chat(
        &store,
        &ChatRequest::new(&auto, "Go", selection(&server, &["a", "b"])),
    )
    .await;
    assert_eq!(result.unwrap().reply, "Yes.");
    assert_eq!(
        events,
        vec![
            text("Yes."),
            ChatEvent::Usage(usage(4, 1)),
            ChatEvent::Done { usage: usage(4, 1) },
        ]
    );
    assert_eq!(
        rows(&store, &auto),
        [
            json!([1, "user", text_parts("Go"), false]),
            json!([2, "assistant", text_parts("Yes."), false]),
        ]
    );

    // A session that names its model: no selection needed, and a refusal
    // is final.
    let mut none = selection(&server, &[]);
    none.models.clear();
    let (result, _) = chat(&store, &ChatRequest::new(&fixed, "Go", none)).await;
    let error = result.unwrap_err();
    assert_eq!(error.code(), "refusal");
    assert_eq!(
        error.to_string(),
        "the model refused to answer (content_filter)"
    );
    assert_eq!(rows(&store, &fixed), Vec::<Value>::new());
    let models: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.body["model"].clone())
        .collect();
    assert_eq!(models, [json!("a"), json!("b"), json!("a")]);
}

#[tokio::test]
async fn a_turn_stopped_at_its_limit_is_stored_with_every_call_answered() {
    let dir = TempDir::new("chat-limit");
    let store = Store::open(dir.db()).unwrap();
    let id = session(&store, None, None);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call("lookup", json!({"q": "total"})).repeated()],
    ))
    .await
    .unwrap();
    let mut request = ChatRequest::new(&id, "Loop", selection(&server, &["m"]));
    request.toolkits = vec![toolkit(Arc::default())];
    request.max_iterations = 1;
    let (result, events) = chat(&store, &request).await;
    assert_eq!(result.unwrap().status, ChatStatus::TurnLimited);
    assert_eq!(
        events.last(),
        Some(&ChatEvent::Error {
            category: ErrorCategory::Other,
            message: "the turn reached its limit of 1 model request".into()
        })
    );
    let roles: Vec<Value> = rows(&store, &id).iter().map(|r| r[1].clone()).collect();
    assert_eq!(roles, [json!("user"), json!("assistant"), json!("tool")]);
    assert_eq!(store.pending_turn(&id).unwrap(), None);
}
