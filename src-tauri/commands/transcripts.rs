//! What the Transcripts screen lists: structured calls (an extraction's
//! documents, `sift call`, revisions) and a call's revision tree. A call's
//! own timeline is `call_transcript` (documents.rs); a chat session's is
//! `session_messages` (chat.rs); a workflow step's is in its `StepView`.

use serde::Serialize;
use serde_json::Value;
use sift_core::store::{Store, StructuredCall};
use tauri::State;
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

/// One structured call in a list or a tree.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CallSummary {
    pub id: String,
    pub kind: String,
    /// `completed`, `failed` or `turn_limited`.
    pub status: String,
    pub parent_id: Option<String>,
    pub session_id: Option<String>,
    /// The accepted output, for the tree's differences.
    #[ts(type = "unknown")]
    pub output: Option<Value>,
    pub error: Option<String>,
    pub error_code: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// Milliseconds since the Unix epoch.
    pub finished_at: i64,
}

impl From<StructuredCall> for CallSummary {
    fn from(call: StructuredCall) -> Self {
        Self {
            status: serde_json::to_value(call.status)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            id: call.id,
            kind: call.kind,
            parent_id: call.parent_id,
            session_id: call.session_id,
            output: call.output,
            error: call.error,
            error_code: call.error_category,
            input_tokens: call.input_tokens,
            output_tokens: call.output_tokens,
            finished_at: call.finished_at,
        }
    }
}

/// A call and its revisions, each with theirs.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RevisionNode {
    pub call: CallSummary,
    pub revisions: Vec<RevisionNode>,
}

/// The most recently finished first, at most `limit`, of one kind or all.
pub fn calls(store: &Store, kind: Option<&str>, limit: usize) -> IpcResult<Vec<CallSummary>> {
    Ok(store
        .list_calls(kind)?
        .into_iter()
        .take(limit)
        .map(CallSummary::from)
        .collect())
}

/// The tree of revisions under the root of `call_id`'s line: the call it
/// revises, and that one's parent, up to the first call; then every
/// revision below it, oldest first. (Recursion is fine: a revision chain
/// is made by people, a few levels deep.)
pub fn revision_tree(store: &Store, call_id: &str) -> IpcResult<RevisionNode> {
    let mut root = store
        .get_call(call_id)?
        .ok_or_else(|| IpcError::not_found(format!("no call {call_id}")))?;
    let mut seen = std::collections::HashSet::from([root.id.clone()]);
    while let Some(parent) = root.parent_id.clone() {
        match store.get_call(&parent)? {
            // A cycle cannot be written, but a damaged file must not hang the window.
            Some(call) if seen.insert(call.id.clone()) => root = call,
            _ => break,
        }
    }
    // Walking down, each call once (the line walked up is below the root again).
    let mut visited = std::collections::HashSet::from([root.id.clone()]);
    subtree(store, root, &mut visited)
}

fn subtree(
    store: &Store,
    call: StructuredCall,
    seen: &mut std::collections::HashSet<String>,
) -> IpcResult<RevisionNode> {
    let mut revisions = Vec::new();
    for child in store.revisions(&call.id)? {
        if seen.insert(child.id.clone()) {
            revisions.push(subtree(store, child, seen)?);
        }
    }
    Ok(RevisionNode {
        call: call.into(),
        revisions,
    })
}

#[tauri::command]
pub fn list_calls(
    kind: Option<String>,
    limit: u32,
    state: State<'_, AppState>,
) -> IpcResult<Vec<CallSummary>> {
    calls(&state.store()?, kind.as_deref(), limit as usize)
}

#[tauri::command]
pub fn call_revisions(call_id: String, state: State<'_, AppState>) -> IpcResult<RevisionNode> {
    revision_tree(&state.store()?, &call_id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use serde_json::json;
    use sift_core::store::{CallStatus, NewStructuredCall};

    use super::*;

    fn insert(store: &Store, parent: Option<&str>, total: i64) -> String {
        let mut call =
            NewStructuredCall::new("extract", CallStatus::Completed, json!({"prompt": "p"}));
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
        let dir = std::env::temp_dir().join(format!("sift-app-tree-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = Store::open(dir.join("sift.db")).unwrap();
        let root = insert(&store, None, 1);
        let first = insert(&store, Some(&root), 2);
        let deeper = insert(&store, Some(&first), 3);
        insert(&store, Some(&root), 4);
        let tree = revision_tree(&store, &deeper).unwrap();
        assert_eq!(tree.call.id, root);
        assert_eq!(
            shape(&tree),
            json!([{"total": 1}, [
                [{"total": 2}, [[{"total": 3}, []]]],
                [{"total": 4}, []],
            ]])
        );
        let listed: Vec<String> = calls(&store, Some("extract"), 2)
            .unwrap()
            .into_iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(listed.len(), 2);
        assert_eq!(
            revision_tree(&store, "call_nope").unwrap_err().message,
            "no call call_nope"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
