//! Extraction jobs from the window: start (events over a channel),
//! cancel, resume, the table of results, revisions of a value, export.

use std::path::PathBuf;

use serde_json::Value;
use sift_core::Workspace;
use sift_core::evidence::{self, PageWords};
use sift_core::extract::job_export::{ExportFormat, ExportReport, export_results as export};
use sift_core::extract::{self, ExtractEvent, ExtractRequest, JobRow, JobSummary, JobView};
use tauri::State;
use tauri::ipc::Channel;

use crate::error::IpcResult;

/// Creates a job over the files and starts it; returns at once with the
/// job's table (every row pending). Events follow on `events`, the last
/// one `finished` or `error`.
#[tauri::command]
pub async fn start_extraction(
    request: ExtractRequest,
    events: Channel<ExtractEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<JobView> {
    let (view, run) = extract::start_extraction(&ws, request, move |e| {
        let _ = events.send(e);
    })?;
    tauri::async_runtime::spawn(run);
    Ok(view)
}

/// Runs a job again for its documents not yet completed (after a cancel,
/// a failure or a restart), through the provider given (default: the
/// settings' default) with the model given (default: the job's models).
#[tauri::command]
pub async fn resume_extraction(
    job_id: String,
    provider_id: Option<String>,
    model: Option<String>,
    events: Channel<ExtractEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<JobView> {
    let sink = move |e| {
        let _ = events.send(e);
    };
    let (view, run) =
        extract::resume_extraction(&ws, &job_id, provider_id.as_deref(), model.as_deref(), sink)?;
    tauri::async_runtime::spawn(run);
    Ok(view)
}

/// Stops a running job: no new document starts; those in flight finish.
/// False when the job is not running.
#[tauri::command]
pub fn cancel_extraction(job_id: String, ws: State<'_, Workspace>) -> bool {
    extract::cancel_extraction(&ws, &job_id)
}

/// The most recent jobs (newest first; `limit` null: 50), to reopen one
/// with `job_results`.
#[tauri::command]
pub fn list_jobs(limit: Option<u32>, ws: State<'_, Workspace>) -> IpcResult<Vec<JobSummary>> {
    Ok(extract::recent_jobs(&ws.store()?, limit.unwrap_or(50))?)
}

#[tauri::command]
pub fn job_results(job_id: String, ws: State<'_, Workspace>) -> IpcResult<JobView> {
    Ok(extract::job_view(&ws.store()?, &job_id)?)
}

/// Corrects one field of a document (`path`: property names from the
/// top, and item indexes); saved as a revision beside the model's values,
/// with where the new value is found in the document. The field counts
/// as checked.
#[tauri::command]
pub async fn revise_value(
    job_id: String,
    position: i64,
    path: Vec<String>,
    value: Value,
    ws: State<'_, Workspace>,
) -> IpcResult<JobRow> {
    let store = ws.store()?;
    let read = ws.read_options();
    Ok(extract::revise_field(&store, &read, &job_id, position, &path, value).await?)
}

/// Marks one field of a document (its evidence key, `total` or
/// `items[0].amount`) as checked by the user.
#[tauri::command]
pub fn check_value(
    job_id: String,
    position: i64,
    key: String,
    ws: State<'_, Workspace>,
) -> IpcResult<JobRow> {
    Ok(extract::check_value(&ws.store()?, &job_id, position, &key)?)
}

/// The words with their boxes on page `page` (0-based) of a job's
/// document, to click one; a path that is not a job's document is
/// refused.
#[tauri::command]
pub async fn page_words(path: String, page: u32, ws: State<'_, Workspace>) -> IpcResult<PageWords> {
    Ok(evidence::page_words(&ws, &path, page).await?)
}

/// Writes the job's results to `path` (from `pickSavePath`, which grants
/// it: any other path is refused).
#[tauri::command]
pub fn export_results(
    job_id: String,
    format: ExportFormat,
    path: PathBuf,
    bom: bool,
    ws: State<'_, Workspace>,
) -> IpcResult<ExportReport> {
    Ok(export(&ws, &job_id, format, &path, bom)?)
}
