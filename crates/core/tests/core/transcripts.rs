//! The Transcripts screen's calls and revision trees, from a real file.

use serde_json::{Value, json};
use sift_core::transcripts::{RevisionNode, list_calls, revision_tree};
use sift_store::{CallStatus, NewStructuredCall, Store};

use crate::TempDir;
use crate::sessions::app_workspace;

fn insert(store: &Store, parent: Option<&str>, total: i64) -> String {
    let mut call = NewStructuredCall::new("extract", CallStatus::Completed, json!({"prompt": "p"}));
    call.output = Some(json!({"total": total}));
    call.parent_id = parent.map(str::to_owned);
    store.insert_standalone_call(call).unwrap().id
}

fn shape(node: &RevisionNode) -> Value {
    json!([
        node.call.output,
        node.revisions.iter().map(shape).collect::<Vec<_>>()
    ])
}

#[test]
fn the_tree_starts_at_the_first_call_of_the_line() {
    let dir = TempDir::new("tree");
    let ws = app_workspace(&dir, None);
    let store = ws.store().unwrap();
    let root = insert(&store, None, 1);
    let first = insert(&store, Some(&root), 2);
    let deeper = insert(&store, Some(&first), 3);
    insert(&store, Some(&root), 4);
    let tree = revision_tree(&ws, &deeper).unwrap();
    assert_eq!(tree.call.id, root);
    assert_eq!(
        shape(&tree),
        json!([{"total": 1}, [
            [{"total": 2}, [[{"total": 3}, []]]],
            [{"total": 4}, []],
        ]])
    );
    let listed: Vec<String> = list_calls(&ws, Some("extract"), 2)
        .unwrap()
        .into_iter()
        .map(|c| c.id)
        .collect();
    assert_eq!(listed.len(), 2);
    assert_eq!(
        revision_tree(&ws, "call_nope").unwrap_err().to_string(),
        "no call call_nope"
    );
}
