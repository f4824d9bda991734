//! Structured call rows: standalone, in a session, revisions, listing.

use serde_json::json;
use sift_store::{CallStatus, NewStructuredCall, StoreError, TurnWrite, new_call_id};

use crate::{assistant, call, count, fresh, session, user};

fn full_call(kind: &str) -> NewStructuredCall {
    NewStructuredCall {
        id: None,
        kind: kind.into(),
        status: CallStatus::Failed,
        request: json!({"prompt": "Plan ticket 7", "files": ["a.pdf"]}),
        response: Some(json!({"stop": "refusal", "parts": []})),
        output: None,
        input_tokens: 1234,
        output_tokens: 56,
        error: Some("refused: violence".into()),
        error_category: Some("refusal".into()),
        metadata: json!({"ticket": 7}),
        parent_id: None,
        system_prompt: Some("Plan the work.".into()),
        engine_type: Some("anthropic".into()),
        transcript: Some(json!([
            {"role": "user", "parts": [{"type": "text", "text": "Plan ticket 7"},
                                        {"type": "text", "text": "[attachment a.pdf]"}]}
        ])),
        created_at: Some(1_700_000_000_000),
    }
}

#[test]
fn a_standalone_call_keeps_every_field() {
    let (_dir, store) = fresh("standalone");
    let before = sift_store::now_ms();
    let row = store.insert_standalone_call(full_call("planner")).unwrap();
    let after = sift_store::now_ms();
    assert!(row.id.starts_with("call_"), "{}", row.id);
    assert_eq!(row.kind, "planner");
    assert_eq!(row.status, CallStatus::Failed);
    assert_eq!(
        row.request,
        json!({"prompt": "Plan ticket 7", "files": ["a.pdf"]})
    );
    assert_eq!(row.response, Some(json!({"stop": "refusal", "parts": []})));
    assert_eq!(row.output, None);
    assert_eq!((row.input_tokens, row.output_tokens), (1234, 56));
    assert_eq!(row.error.as_deref(), Some("refused: violence"));
    assert_eq!(row.error_category.as_deref(), Some("refusal"));
    assert_eq!(row.metadata, json!({"ticket": 7}));
    assert_eq!(row.parent_id, None);
    assert_eq!(row.session_id, None);
    assert_eq!((row.first_seq, row.last_seq), (None, None));
    assert_eq!(row.system_prompt.as_deref(), Some("Plan the work."));
    assert_eq!(row.engine_type.as_deref(), Some("anthropic"));
    assert_eq!(row.transcript, full_call("x").transcript);
    assert_eq!(row.created_at, 1_700_000_000_000);
    assert!(row.finished_at >= before && row.finished_at <= after);
    assert_eq!(store.get_call(&row.id).unwrap().unwrap(), row);
    assert_eq!(store.get_call("call_nope").unwrap(), None);

    // The row serialises with the status in snake case.
    let value = serde_json::to_value(&row).unwrap();
    assert_eq!(value["status"], "failed");
    let back: sift_store::StructuredCall = serde_json::from_value(value).unwrap();
    assert_eq!(back, row);
}

#[test]
fn statuses_round_trip() {
    let (_dir, store) = fresh("statuses");
    for status in [
        CallStatus::Completed,
        CallStatus::Failed,
        CallStatus::TurnLimited,
    ] {
        let row = store
            .insert_standalone_call(NewStructuredCall::new("k", status, json!(null)))
            .unwrap();
        assert_eq!(store.get_call(&row.id).unwrap().unwrap().status, status);
        assert_eq!(
            serde_json::to_value(status).unwrap(),
            json!(status.as_str())
        );
    }
    assert_eq!(CallStatus::TurnLimited.as_str(), "turn_limited");
}

#[test]
fn a_call_names_its_revisions() {
    let (_dir, store) = fresh("revisions");
    let s = session(&store);
    let parent = store.insert_standalone_call(call("planner")).unwrap();

    let mut standalone_fix = call("planner");
    standalone_fix.parent_id = Some(parent.id.clone());
    let standalone_fix = store.insert_standalone_call(standalone_fix).unwrap();

    let mut session_fix = call("planner");
    session_fix.parent_id = Some(parent.id.clone());
    let session_fix = store
        .commit_turn(TurnWrite {
            messages: vec![user("Drop step 3"), assistant("{\"steps\":[]}")],
            call: Some(session_fix),
            ..TurnWrite::new(&s.id)
        })
        .unwrap()
        .call
        .unwrap();

    let mut grandchild = call("planner");
    grandchild.parent_id = Some(standalone_fix.id.clone());
    let grandchild = store.insert_standalone_call(grandchild).unwrap();

    assert_eq!(
        store.revisions(&parent.id).unwrap(),
        vec![standalone_fix.clone(), session_fix.clone()]
    );
    assert_eq!(
        store.revisions(&standalone_fix.id).unwrap(),
        vec![grandchild]
    );
    assert_eq!(store.revisions(&session_fix.id).unwrap(), vec![]);
    assert_eq!(store.revisions("call_unknown").unwrap(), vec![]);
}

#[test]
fn calls_list_by_kind_newest_first_and_by_session_in_order() {
    let (_dir, store) = fresh("list");
    let s = session(&store);
    let other = session(&store);
    let mut ids = Vec::new();
    for (i, kind) in ["planner", "compaction", "planner", "chat"]
        .iter()
        .enumerate()
    {
        let mut c = call(kind);
        c.id = Some(new_call_id());
        let row = if i % 2 == 0 {
            store
                .commit_turn(TurnWrite {
                    messages: vec![user("q"), assistant("a")],
                    call: Some(c),
                    ..TurnWrite::new(&s.id)
                })
                .unwrap()
                .call
                .unwrap()
        } else {
            store.insert_standalone_call(c).unwrap()
        };
        ids.push(row.id);
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    let listed = |kind| -> Vec<String> {
        store
            .list_calls(kind)
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect()
    };
    assert_eq!(
        listed(None),
        vec![
            ids[3].clone(),
            ids[2].clone(),
            ids[1].clone(),
            ids[0].clone()
        ]
    );
    assert_eq!(
        listed(Some("planner")),
        vec![ids[2].clone(), ids[0].clone()]
    );
    assert_eq!(listed(Some("compaction")), vec![ids[1].clone()]);
    assert_eq!(listed(Some("nothing")), Vec::<String>::new());

    let in_session = store.calls_in_session(&s.id).unwrap();
    assert_eq!(
        in_session.iter().map(|c| c.id.clone()).collect::<Vec<_>>(),
        vec![ids[0].clone(), ids[2].clone()]
    );
    assert_eq!(
        in_session
            .iter()
            .map(|c| (c.first_seq, c.last_seq))
            .collect::<Vec<_>>(),
        vec![(Some(1), Some(2)), (Some(3), Some(4))]
    );
    assert_eq!(store.calls_in_session(&other.id).unwrap(), vec![]);
    let err = store.calls_in_session("ses_missing").unwrap_err();
    assert!(matches!(err, StoreError::SessionNotFound(_)), "{err:?}");
}

#[test]
fn deleting_a_session_deletes_its_rows_and_unlinks_revisions() {
    let (dir, store) = fresh("delete");
    let s = session(&store);
    let keep = session(&store);
    let in_session = store
        .commit_turn(TurnWrite {
            messages: vec![user("q"), assistant("a")],
            call: Some(call("planner")),
            ..TurnWrite::new(&s.id)
        })
        .unwrap()
        .call
        .unwrap();
    let mut revision = call("planner");
    revision.parent_id = Some(in_session.id.clone());
    let revision = store.insert_standalone_call(revision).unwrap();
    store
        .commit_turn(TurnWrite {
            messages: vec![user("kept")],
            ..TurnWrite::new(&keep.id)
        })
        .unwrap();

    assert!(store.delete_session(&s.id).unwrap());
    assert!(!store.delete_session(&s.id).unwrap());
    assert_eq!(store.get_session(&s.id).unwrap(), None);
    assert_eq!(count(&dir.db(), "sessions"), 1);
    assert_eq!(count(&dir.db(), "messages"), 1);
    assert_eq!(count(&dir.db(), "structured_calls"), 1);
    assert_eq!(store.get_call(&in_session.id).unwrap(), None);
    let orphan = store.get_call(&revision.id).unwrap().unwrap();
    assert_eq!(orphan.parent_id, None);
    assert_eq!(store.messages(&keep.id).unwrap().len(), 1);
}

#[test]
fn an_engine_can_name_a_call_before_storing_it() {
    let (_dir, store) = fresh("named");
    let id = new_call_id();
    let mut c = call("planner");
    c.id = Some(id.clone());
    let row = store.insert_standalone_call(c).unwrap();
    assert_eq!(row.id, id);
    let mut empty = call("planner");
    empty.id = Some(String::new());
    let err = store.insert_standalone_call(empty).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: a structured call id is empty"
    );
}
