//! A document beside its values: a page preview, and the transcript of
//! the call that read it.

use sift_core::Workspace;
use sift_core::evidence::preview::{self, DocumentPreview};
use sift_core::transcripts::call::{self, CallTranscript};
use tauri::State;

use crate::error::IpcResult;

/// Page `page` (0-based) of a document of an extraction job, for the row
/// detail.
#[tauri::command]
pub async fn preview_document(
    path: String,
    page: u32,
    ws: State<'_, Workspace>,
) -> IpcResult<DocumentPreview> {
    Ok(preview::preview_document(&ws, &path, page).await?)
}

#[tauri::command]
pub fn call_transcript(call_id: String, ws: State<'_, Workspace>) -> IpcResult<CallTranscript> {
    Ok(call::call_transcript(&ws, &call_id)?)
}
