//! JSON columns give back exactly what was written.

use serde_json::{Value, json};
use sift_store::{
    NewMessage, NewPendingTurn, PendingChange, PendingToolCall, Role, Store, TurnWrite,
};

use crate::{call, fresh, session};

/// Values that are easy to get wrong: escapes, non-ASCII, NUL, extreme
/// integers, floats at the edges, deep nesting, empty containers.
fn tricky() -> Value {
    let mut deep = json!("bottom");
    for i in 0..60 {
        deep = json!({ format!("level{i}"): [deep] });
    }
    json!({
        "text": "quote \" backslash \\ newline \n tab \t nul \u{0} bell \u{7}",
        "unicode": "Grüße, 你好, emoji 🦀, rtl שלום, combining e\u{301}",
        "lone": "\u{FFFF}\u{10FFFF}",
        "ints": [0, -0, 1, -1, i64::MIN, i64::MAX, u64::MAX],
        "floats": [0.1, -2.5, 1e300, -1e-300, 5e-324, 1.7976931348623157e308,
                   std::f64::consts::PI, 0.30000000000000004, 123456.789e-3],
        "bools": [true, false],
        "null": null,
        "empty": {"object": {}, "array": [], "string": ""},
        "key with spaces and \"quotes\"": 1,
        "": "empty key",
        "deep": deep,
    })
}

/// Random finite floats, to catch inexact float parsing.
fn random_floats(n: usize) -> Value {
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let f = f64::from_bits(rng.u64(..));
        if f.is_finite() {
            out.push(json!(f));
        }
    }
    Value::Array(out)
}

#[test]
fn message_parts_and_metadata_round_trip_exactly() {
    let (dir, store) = fresh("json-messages");
    let s = session(&store);
    let parts = json!([
        {"type": "text", "text": tricky()["text"]},
        {"type": "image", "mime": "image/png", "data": "iVBORw0KGgo="},
        {"type": "tool_call", "id": "c1", "name": "n", "arguments": "{\"a\": [1, 2.5]}"},
        {"type": "tool_result", "call_id": "c1", "content": "ok", "is_error": false},
        {"type": "data", "value": tricky()},
        {"type": "floats", "value": random_floats(2000)}
    ]);
    let metadata = tricky();
    let commit = store
        .commit_turn(TurnWrite {
            messages: vec![
                NewMessage::new(Role::Assistant, parts.clone()).with_metadata(metadata.clone()),
            ],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(commit.messages[0].parts, parts);
    drop(store);
    let store = Store::open(dir.db()).unwrap();
    let read = store.messages(&s.id).unwrap();
    assert_eq!(read.len(), 1);
    assert_eq!(read[0].parts, parts);
    assert_eq!(read[0].metadata, metadata);
    assert_eq!(read, commit.messages);
    // Byte for byte too.
    assert_eq!(
        serde_json::to_string(&read[0].parts).unwrap(),
        serde_json::to_string(&parts).unwrap()
    );
}

#[test]
fn call_and_pending_json_round_trip_exactly() {
    let (dir, store) = fresh("json-calls");
    let s = session(&store);
    let mut c = call("planner");
    c.request = tricky();
    c.response = Some(json!([tricky(), null]));
    c.output = Some(random_floats(500));
    c.metadata = json!({"text_answer": true, "nested": tricky()});
    c.transcript = Some(json!([{"role": "user", "parts": [tricky()]}]));
    let standalone = store.insert_standalone_call(c.clone()).unwrap();
    let in_session = store
        .commit_turn(TurnWrite {
            call: Some(c.clone()),
            pending: PendingChange::Set(NewPendingTurn {
                transcript: tricky(),
                state: random_floats(100),
                tool_calls: vec![PendingToolCall {
                    id: "c\u{0}1".into(),
                    name: "ünïcode".into(),
                    arguments: "{\"not closed\": ".into(),
                }],
                approvals: vec![],
            }),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    drop(store);
    let store = Store::open(dir.db()).unwrap();
    for row in [standalone, in_session.call.unwrap()] {
        let read = store.get_call(&row.id).unwrap().unwrap();
        assert_eq!(read, row);
        assert_eq!(read.request, c.request);
        assert_eq!(read.response, c.response);
        assert_eq!(read.output, c.output);
        assert_eq!(read.metadata, c.metadata);
        assert_eq!(read.transcript, c.transcript);
    }
    assert_eq!(store.pending_turn(&s.id).unwrap(), in_session.pending);
    let pending = store.pending_turn(&s.id).unwrap().unwrap();
    assert_eq!(pending.transcript, tricky());
    assert_eq!(pending.state, random_floats(100));
    assert_eq!(pending.tool_calls[0].id, "c\u{0}1");
    assert_eq!(pending.tool_calls[0].arguments, "{\"not closed\": ");
}

#[test]
fn rows_serialise_with_their_documented_names() {
    let (_dir, store) = fresh("json-rows");
    let s = session(&store);
    let commit = store
        .commit_turn(TurnWrite {
            messages: vec![NewMessage::text(Role::Tool, "x").hidden()],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let value = serde_json::to_value(&commit.messages[0]).unwrap();
    assert_eq!(value["role"], "tool");
    assert_eq!(value["hidden"], true);
    assert_eq!(value["seq"], 1);
    assert_eq!(value["parts"], json!([{"type": "text", "text": "x"}]));
    assert_eq!(value["metadata"], json!({}));
    let back: sift_store::Message = serde_json::from_value(value).unwrap();
    assert_eq!(back, commit.messages[0]);
}
