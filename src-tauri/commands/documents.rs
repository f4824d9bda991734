//! A document beside its values: a page preview, and the transcript of
//! the call that read it.

use std::path::PathBuf;

use base64::Engine as _;
use serde::Serialize;
use serde_json::Value;
use sift_core::preview::{PreviewContent, preview};
use tauri::State;
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

/// A page of a PDF or an image as a `data:` URL, or the text a model
/// reads for other kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DocumentPreview {
    pub path: String,
    /// 0-based.
    pub page: u32,
    pub page_count: u32,
    /// `data:image/png;base64,...` (the CSP allows `data:` images);
    /// `null` for text.
    pub data_url: Option<String>,
    pub width: u32,
    pub height: u32,
    /// Set for kinds shown as text (spreadsheets, Word, text files).
    pub text: Option<String>,
}

/// The record of the structured call behind a row's values.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CallTranscript {
    pub id: String,
    pub kind: String,
    /// `completed`, `failed` or `turn_limited`.
    pub status: String,
    /// What was asked.
    pub request: Value,
    /// The final model response.
    pub response: Option<Value>,
    /// The accepted output.
    pub output: Option<Value>,
    /// The tool loop as the engine sent it (attachments as placeholders).
    pub transcript: Option<Value>,
    pub error: Option<String>,
    pub error_code: Option<String>,
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number")]
    pub finished_at: i64,
    /// The CLI command that prints the same record.
    pub cli: String,
}

pub(crate) fn preview_of(path: PathBuf, page: u32) -> IpcResult<DocumentPreview> {
    let shown = preview(&path, page as usize)?;
    let (data_url, width, height, text) = match shown.content {
        PreviewContent::Image {
            mime,
            data,
            width,
            height,
        } => (
            Some(format!(
                "data:{mime};base64,{}",
                base64::engine::general_purpose::STANDARD.encode(data)
            )),
            width,
            height,
            None,
        ),
        PreviewContent::Text(text) => (None, 0, 0, Some(text)),
    };
    Ok(DocumentPreview {
        path: path.display().to_string(),
        page: u32::try_from(shown.page).unwrap_or(u32::MAX),
        page_count: u32::try_from(shown.page_count).unwrap_or(u32::MAX),
        data_url,
        width,
        height,
        text,
    })
}

/// Page `page` (0-based) of a document, for the row detail. Rendering
/// a page takes a moment, so it runs off the main thread.
#[tauri::command]
pub async fn preview_document(path: String, page: u32) -> IpcResult<DocumentPreview> {
    tauri::async_runtime::spawn_blocking(move || preview_of(PathBuf::from(path), page))
        .await
        .map_err(|e| IpcError::new("other", format!("the preview stopped: {e}")))?
}

#[tauri::command]
pub fn call_transcript(call_id: String, state: State<'_, AppState>) -> IpcResult<CallTranscript> {
    let call = state
        .store()?
        .get_call(&call_id)?
        .ok_or_else(|| IpcError::not_found(format!("no call {call_id}")))?;
    Ok(CallTranscript {
        cli: format!("sift calls show {}", call.id),
        status: serde_json::to_value(call.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        id: call.id,
        kind: call.kind,
        request: call.request,
        response: call.response,
        output: call.output,
        transcript: call.transcript,
        error: call.error,
        error_code: call.error_category,
        input_tokens: call.input_tokens,
        output_tokens: call.output_tokens,
        created_at: call.created_at,
        finished_at: call.finished_at,
    })
}
