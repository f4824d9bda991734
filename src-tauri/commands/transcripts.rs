//! What the Transcripts screen lists: structured calls and a call's
//! revision tree (`sift_core::transcripts`). A call's own timeline is
//! `call_transcript` (documents.rs); a chat session's is
//! `session_messages` (chat.rs); a workflow step's is in its `StepView`.

use sift_core::Workspace;
use sift_core::transcripts::{self, CallSummary, RevisionNode};
use tauri::State;

use crate::error::IpcResult;

#[tauri::command]
pub fn list_calls(
    kind: Option<String>,
    limit: u32,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<CallSummary>> {
    Ok(transcripts::list_calls(
        &ws,
        kind.as_deref(),
        limit as usize,
    )?)
}

#[tauri::command]
pub fn call_revisions(call_id: String, ws: State<'_, Workspace>) -> IpcResult<RevisionNode> {
    Ok(transcripts::revision_tree(&ws, &call_id)?)
}
