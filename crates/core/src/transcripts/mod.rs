//! Transcripts: the calls listed and a call's revision tree (here), and
//! [`call`] the record of the call behind a row's values.
//!
//! What the Transcripts screen lists: structured calls (an extraction's
//! documents, `sift call`, revisions) and a call's revision tree. A
//! chat session's timeline is [`crate::chat::sessions::session_messages`]; a
//! workflow step's is in its [`crate::workflows::runs::StepView`].

pub mod call;

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;
use sift_store::{Store, StructuredCall};

use crate::error::CoreError;
use crate::workspace::Workspace;

/// One structured call in a list or a tree.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallSummary {
    /// The call's id (`call_` and a time-sortable id).
    pub id: String,
    /// What the call is for, e.g. `call` or `compaction`.
    pub kind: String,
    /// `completed`, `failed` or `turn_limited`.
    pub status: String,
    /// The call this one revises; `None` for an original call.
    pub parent_id: Option<String>,
    /// The session the call was a turn of; `None` for a standalone call.
    pub session_id: Option<String>,
    /// The accepted output, for the tree's differences.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub output: Option<Value>,
    /// Why the call did not complete; `None` when it did.
    pub error: Option<String>,
    /// The error's category: `auth`, `network`, `model`, `refusal` or `other`.
    pub error_code: Option<String>,
    /// Tokens sent to the model, over all the call's requests.
    pub input_tokens: u64,
    /// Tokens the model generated, over all the call's requests.
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RevisionNode {
    /// The call at this node.
    pub call: CallSummary,
    /// The calls that revise it, oldest first.
    pub revisions: Vec<RevisionNode>,
}

/// The most recently finished first, at most `limit`, of one kind or all.
pub fn list_calls(
    ws: &Workspace,
    kind: Option<&str>,
    limit: usize,
) -> Result<Vec<CallSummary>, CoreError> {
    Ok(ws
        .store()?
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
pub fn revision_tree(ws: &Workspace, call_id: &str) -> Result<RevisionNode, CoreError> {
    let store = ws.store()?;
    let mut root = store
        .get_call(call_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no call {call_id}")))?;
    let mut seen = HashSet::from([root.id.clone()]);
    while let Some(parent) = root.parent_id.clone() {
        match store.get_call(&parent)? {
            // A cycle cannot be written, but a damaged file must not hang the window.
            Some(call) if seen.insert(call.id.clone()) => root = call,
            _ => break,
        }
    }
    // Walking down, each call once (the line walked up is below the root again).
    let mut visited = HashSet::from([root.id.clone()]);
    subtree(&store, root, &mut visited)
}

fn subtree(
    store: &Store,
    call: StructuredCall,
    seen: &mut HashSet<String>,
) -> Result<RevisionNode, CoreError> {
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
