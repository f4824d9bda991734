//! Extraction jobs from the window: start (events over a channel),
//! cancel, resume, the table of results, revisions of a value, export.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_core::ModelSelection;
use sift_core::config::load_config;
use sift_core::extract::{
    DEFAULT_CONCURRENCY, ExtractOptions, Progress, ProgressStatus, create_job, run_job,
};
use sift_core::job_export::{self, ExportFormat as CoreFormat};
use sift_core::store::{JobStatus, Store};
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, Runtime, State};
use ts_rs::TS;

use super::job_table::{
    JobRow, JobState, JobSummary, JobTotals, JobView, job_of, job_view, recent_jobs, revise, row,
};
use crate::LocalModel;
use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

/// What to extract, with what.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExtractRequest {
    /// Absolute paths, in the table's order.
    pub files: Vec<String>,
    pub schema_name: String,
    /// `null`: the latest version.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub schema_version: Option<i64>,
    /// A provider id from the settings; `null`: the default provider.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub provider_id: Option<String>,
    /// `null`: the default model (or the local server's).
    #[ts(optional = nullable)]
    #[serde(default)]
    pub model: Option<String>,
    /// `null`: "Extract the fields of the schema from this document."
    #[ts(optional = nullable)]
    #[serde(default)]
    pub prompt: Option<String>,
    /// Documents called at once; `null`: 4.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub concurrency: Option<u32>,
}

/// What the UI receives while a job runs, each tagged with its job.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ExtractEvent {
    /// Something slow before the first call, such as starting the local
    /// model server.
    #[serde(rename_all = "camelCase")]
    Status { job_id: String, message: String },
    /// A document's call starts now.
    #[serde(rename_all = "camelCase")]
    Started {
        job_id: String,
        #[ts(type = "number")]
        position: i64,
    },
    /// A document finished (completed or failed): its row as it now is.
    #[serde(rename_all = "camelCase")]
    Row { job_id: String, row: Box<JobRow> },
    /// The run ended: completed, failed (some documents did) or
    /// cancelled. The last event of a run.
    #[serde(rename_all = "camelCase")]
    Finished {
        job_id: String,
        status: JobState,
        totals: JobTotals,
    },
    /// The run stopped on an error that is not one document's (the
    /// database, the local server). The last event of a run.
    #[serde(rename_all = "camelCase")]
    Error { job_id: String, error: IpcError },
}

/// The format of an export file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Csv,
    Jsonl,
}

/// A written export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    pub path: String,
    pub rows: u32,
    #[ts(type = "number")]
    pub bytes: u64,
}

/// Runs (or resumes) a job, sending its events; returns when it ends.
pub(crate) async fn run_and_report<R: Runtime>(
    app: AppHandle<R>,
    store: Store,
    job_id: String,
    options: ExtractOptions,
    cancel: Arc<AtomicBool>,
    events: Channel<ExtractEvent>,
) {
    let local = app.state::<LocalModel>().inner().clone();
    let outcome = run(&local, &store, &job_id, options, cancel, &events).await;
    let last = match outcome.and_then(|()| job_view(&store, &job_id)) {
        Ok(view) => ExtractEvent::Finished {
            job_id: job_id.clone(),
            status: view.status,
            totals: view.totals,
        },
        Err(error) => ExtractEvent::Error {
            job_id: job_id.clone(),
            error,
        },
    };
    app.state::<AppState>().job_finished(&job_id);
    // The window may be gone; nothing else to tell then.
    let _ = events.send(last);
}

pub(crate) async fn run(
    local: &LocalModel,
    store: &Store,
    job_id: &str,
    options: ExtractOptions,
    cancel: Arc<AtomicBool>,
    events: &Channel<ExtractEvent>,
) -> IpcResult<()> {
    let provider = options.selection.provider.clone().with_env_defaults()?;
    if provider.choice() == sift_core::ProviderChoice::Local && provider.base_url.is_none() {
        let _ = events.send(ExtractEvent::Status {
            job_id: job_id.to_owned(),
            message: "Starting the local model…".to_owned(),
        });
        // The app keeps the server for its life, so the job finds it up.
        if let Err(error) = local.ensure_running().await {
            // No document was called: the job stops as failed (a resume
            // calls them all), rather than looking like it still runs.
            store.set_job_status(job_id, JobStatus::Failed)?;
            return Err(error.into());
        }
    }
    let (reader, sender, id) = (store.clone(), events.clone(), job_id.to_owned());
    let on_progress = move |p: Progress| {
        let event = match p.status {
            ProgressStatus::Started => ExtractEvent::Started {
                job_id: id.clone(),
                position: p.position,
            },
            ProgressStatus::Completed | ProgressStatus::Failed => {
                match row(&reader, &id, p.position) {
                    Ok(row) => ExtractEvent::Row {
                        job_id: id.clone(),
                        row: Box::new(row),
                    },
                    // The row is written; the UI reloads the job at the end.
                    Err(_) => return,
                }
            }
        };
        let _ = sender.send(event);
    };
    run_job(store, job_id, options, on_progress, cancel).await?;
    Ok(())
}

pub(crate) fn options_for(
    state: &AppState,
    selection: ModelSelection,
    concurrency: Option<u32>,
) -> IpcResult<ExtractOptions> {
    let config = load_config(state.config_path())?;
    Ok(ExtractOptions {
        concurrency: concurrency.map_or(DEFAULT_CONCURRENCY, |c| c.max(1) as usize),
        selection,
        context: config.context,
    })
}

/// Creates a job over the files and starts it; returns at once with the
/// job's table (every row pending). Events follow on `events`, the last
/// one `finished` or `error`.
#[tauri::command]
pub async fn start_extraction<R: Runtime>(
    request: ExtractRequest,
    events: Channel<ExtractEvent>,
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> IpcResult<JobView> {
    let settings = state.settings()?;
    let selection = settings.selection(request.provider_id.as_deref(), request.model.as_deref())?;
    let store = state.store()?;
    let schema = store
        .get_schema(&request.schema_name, request.schema_version)?
        .ok_or_else(|| IpcError::not_found(format!("no schema {}", request.schema_name)))?;
    let files: Vec<PathBuf> = request.files.iter().map(PathBuf::from).collect();
    let job = create_job(
        &store,
        &schema.name,
        &schema.schema,
        request.prompt.as_deref(),
        &files,
        &selection.models,
    )?;
    let options = options_for(&state, selection, request.concurrency)?;
    let view = job_view(&store, &job.id)?;
    let cancel = state
        .job_started(&job.id)
        .ok_or_else(|| IpcError::usage(format!("job {} is running", job.id)))?;
    tauri::async_runtime::spawn(run_and_report(app, store, job.id, options, cancel, events));
    Ok(view)
}

/// Runs a job again for its documents not yet completed (after a cancel,
/// a failure or a restart), with the provider and model given (default:
/// the settings' defaults).
#[tauri::command]
pub async fn resume_extraction<R: Runtime>(
    job_id: String,
    provider_id: Option<String>,
    model: Option<String>,
    events: Channel<ExtractEvent>,
    app: AppHandle<R>,
    state: State<'_, AppState>,
) -> IpcResult<JobView> {
    let store = state.store()?;
    let job = job_of(&store, &job_id)?;
    let model = model.or_else(|| {
        serde_json::from_value::<Vec<String>>(job.models.clone())
            .ok()
            .and_then(|m| m.into_iter().next())
    });
    let selection = state
        .settings()?
        .selection(provider_id.as_deref(), model.as_deref())?;
    let options = options_for(&state, selection, None)?;
    let cancel = state
        .job_started(&job_id)
        .ok_or_else(|| IpcError::usage(format!("job {job_id} is running")))?;
    // The table comes back as running, as it is from now on.
    let view = store
        .set_job_status(&job_id, JobStatus::Running)
        .map_err(IpcError::from)
        .and_then(|()| job_view(&store, &job_id));
    let view = match view {
        Ok(view) => view,
        Err(error) => {
            state.job_finished(&job_id);
            return Err(error);
        }
    };
    tauri::async_runtime::spawn(run_and_report(app, store, job_id, options, cancel, events));
    Ok(view)
}

/// Stops a running job: no new document starts; those in flight finish.
/// False when the job is not running.
#[tauri::command]
pub fn cancel_extraction(job_id: String, state: State<'_, AppState>) -> bool {
    state.cancel_job(&job_id)
}

/// The most recent jobs (newest first; `limit` null: 50), to reopen one
/// with `job_results`.
#[tauri::command]
pub fn list_jobs(limit: Option<u32>, state: State<'_, AppState>) -> IpcResult<Vec<JobSummary>> {
    recent_jobs(&state.store()?, limit.unwrap_or(50))
}

#[tauri::command]
pub fn job_results(job_id: String, state: State<'_, AppState>) -> IpcResult<JobView> {
    job_view(&state.store()?, &job_id)
}

/// Corrects one field of a document (`path`: property names from the
/// top); saved as a revision beside the model's values.
#[tauri::command]
pub fn revise_value(
    job_id: String,
    position: i64,
    path: Vec<String>,
    value: Value,
    state: State<'_, AppState>,
) -> IpcResult<JobRow> {
    revise(&state.store()?, &job_id, position, &path, value)
}

/// Writes the job's results to `path` (from `pickSavePath`).
#[tauri::command]
pub fn export_results(
    job_id: String,
    format: ExportFormat,
    path: PathBuf,
    bom: bool,
    state: State<'_, AppState>,
) -> IpcResult<ExportReport> {
    export_to(&state.store()?, &job_id, format, &path, bom)
}

pub(crate) fn export_to(
    store: &Store,
    job_id: &str,
    format: ExportFormat,
    path: &std::path::Path,
    bom: bool,
) -> IpcResult<ExportReport> {
    let format = match format {
        ExportFormat::Csv => CoreFormat::Csv,
        ExportFormat::Jsonl => CoreFormat::Jsonl,
    };
    let (text, rows) = job_export::export_job(store, job_id, format, bom)?;
    std::fs::write(path, &text).map_err(|e| IpcError::io("write", path, &e))?;
    Ok(ExportReport {
        path: path.display().to_string(),
        rows: u32::try_from(rows).unwrap_or(u32::MAX),
        bytes: text.len() as u64,
    })
}
