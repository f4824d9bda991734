//! search_messages: text parts only, across sessions, newest first.

use serde_json::json;
use sift_store::{NewMessage, Role, TurnWrite};

use crate::{assistant, fresh, session, user};

#[test]
fn finds_text_parts_across_sessions_newest_first() {
    let (_dir, store) = fresh("search");
    let a = session(&store);
    let b = session(&store);
    let write = |session_id: &str, messages: Vec<NewMessage>| {
        let commit = store
            .commit_turn(TurnWrite {
                messages,
                ..TurnWrite::new(session_id)
            })
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
        commit.messages
    };
    let a1 = write(
        &a.id,
        vec![user("The Invoice from ACME"), assistant("Total: 120 EUR")],
    );
    let b1 = write(
        &b.id,
        vec![
            NewMessage::new(
                Role::Assistant,
                json!([
                    {"type": "tool_call", "id": "c1", "name": "invoice_lookup", "arguments": "{\"q\":\"invoice\"}"},
                    {"type": "text", "text": "checking the invoice"}
                ]),
            ),
            NewMessage::new(
                Role::Tool,
                json!([{"type": "tool_result", "call_id": "c1", "content": "invoice 7", "is_error": false}]),
            ),
            user("no match here").with_metadata(json!({"note": "invoice"})),
            NewMessage::text(Role::Assistant, "hidden invoice copy").hidden(),
        ],
    );
    let a2 = write(&a.id, vec![user("100% sure, a_b and 50%_off")]);

    let ids = |query: &str, limit: u32| -> Vec<String> {
        store
            .search_messages(query, limit)
            .unwrap()
            .into_iter()
            .map(|m| m.id)
            .collect()
    };
    // Text parts only (not tool calls, results or metadata); hidden copies
    // are what chat views show, so they are found; ASCII case-insensitive.
    assert_eq!(
        ids("INVOICE", 100),
        vec![b1[3].id.clone(), b1[0].id.clone(), a1[0].id.clone()]
    );
    assert_eq!(ids("invoice", 2), vec![b1[3].id.clone(), b1[0].id.clone()]);
    assert_eq!(ids("120 eur", 100), vec![a1[1].id.clone()]);
    // LIKE wildcards in the query match themselves.
    assert_eq!(ids("%", 100), vec![a2[0].id.clone()]);
    assert_eq!(ids("0%_o", 100), vec![a2[0].id.clone()]);
    assert_eq!(ids("a_b", 100), vec![a2[0].id.clone()]);
    assert_eq!(ids("a%b", 100), Vec::<String>::new());
    assert_eq!(ids("_", 100), vec![a2[0].id.clone()]);
    assert_eq!(ids("\\", 100), Vec::<String>::new());
    assert_eq!(ids("", 100), Vec::<String>::new());
    assert_eq!(ids("nowhere", 100), Vec::<String>::new());

    let found = store.search_messages("acme", 10).unwrap();
    assert_eq!(found, vec![a1[0].clone()]);
}
