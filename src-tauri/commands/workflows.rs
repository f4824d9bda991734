//! Workflows from the window: a folder of YAML files (watched, so a change
//! on disk reloads), a file's text and problems, saving it, running it
//! with live events, cancelling, and the stored runs.
//!
//! The file stays the source of truth: the canvas edits the text (keeping
//! comments and key order) and saves it here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_core::store::{StoredStep, WorkflowRun};
use sift_core::workflow::{
    ChangeKind, FolderWatch, RunEvent, StepRecord, WorkflowChange, watch_folder,
};
use sift_core::workflows::{
    RerunFrom, WorkflowError, WorkflowRunRequest as CoreRequest, run_workflow_announced,
};
use tauri::State;
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

/// The watch on the open folder, and the cancel token of each running run.
#[derive(Debug, Default)]
pub struct WorkflowState {
    watch: Mutex<Option<FolderWatch>>,
    runs: Mutex<HashMap<String, CancellationToken>>,
    next_key: AtomicU64,
}

impl WorkflowState {
    /// Cancels every running workflow (on exit).
    pub fn cancel_all(&self) {
        for token in lock(&self.runs).values() {
            token.cancel();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl From<WorkflowError> for IpcError {
    fn from(error: WorkflowError) -> Self {
        match error {
            WorkflowError::Core(core) => core.into(),
            WorkflowError::Invalid(problems) => IpcError::new(
                "invalid_workflow",
                format!("the workflow is not valid:\n- {}", problems.join("\n- ")),
            ),
            WorkflowError::Read { .. } => IpcError::new("io", error.to_string()),
            WorkflowError::Run(e) => IpcError::new("usage", e.to_string()),
        }
    }
}

/// A workflow file of the open folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowFile {
    pub path: String,
    /// The file name, e.g. `invoices.yaml`.
    pub name: String,
}

/// A file's text and what `sift validate` would say of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowText {
    pub path: String,
    pub text: String,
    /// Empty when the file may run.
    pub problems: Vec<String>,
}

/// A change on disk in the watched folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum WorkflowFileEvent {
    Changed {
        path: String,
        text: String,
        problems: Vec<String>,
    },
    Removed {
        path: String,
    },
}

impl From<WorkflowChange> for WorkflowFileEvent {
    fn from(change: WorkflowChange) -> Self {
        let path = change.path.display().to_string();
        match change.kind {
            ChangeKind::Changed { text, problems } => Self::Changed {
                path,
                text,
                problems,
            },
            ChangeKind::Removed => Self::Removed { path },
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ParamValue {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowRunRequest {
    pub path: String,
    #[serde(default)]
    pub params: Vec<ParamValue>,
    /// Re-run from this step of `fromRun`, reusing the steps before it.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub from_step: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub from_run: Option<String>,
}

/// One step of a run, live or stored.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    pub id: Option<String>,
    pub name: String,
    /// `running`, `succeeded`, `failed`, `skipped` or `cancelled`.
    pub status: String,
    pub stdout: String,
    pub stderr: String,
    #[ts(type = "Record<string, unknown>")]
    pub outputs: Value,
    pub error: Option<String>,
    /// The step's conversation (a chat step's), as `sift_llm` messages.
    #[ts(type = "Array<unknown>")]
    pub messages: Value,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub elapsed_ms: u64,
    pub reused: bool,
}

impl From<&StepRecord> for StepView {
    fn from(record: &StepRecord) -> Self {
        Self {
            id: record.id.clone(),
            name: record.name.clone(),
            status: record.status.as_str().to_owned(),
            stdout: record.stdout.clone(),
            stderr: record.stderr.clone(),
            outputs: Value::Object(record.outputs.clone()),
            error: record.error.clone(),
            messages: serde_json::to_value(&record.messages).unwrap_or(Value::Array(Vec::new())),
            input_tokens: record.usage.input_tokens,
            output_tokens: record.usage.output_tokens,
            elapsed_ms: record.elapsed_ms,
            reused: record.reused,
        }
    }
}

impl From<StoredStep> for StepView {
    fn from(step: StoredStep) -> Self {
        Self {
            id: step.step_id,
            name: step.name,
            status: step.status,
            stdout: step.stdout,
            stderr: step.stderr,
            outputs: step.outputs,
            error: step.error,
            messages: step.messages,
            input_tokens: step.input_tokens,
            output_tokens: step.output_tokens,
            elapsed_ms: step.elapsed_ms,
            reused: step.reused,
        }
    }
}

/// What a running workflow reports.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum WorkflowRunEvent {
    /// First: the key `cancel_workflow_run` takes.
    #[serde(rename_all = "camelCase")]
    Started {
        key: String,
    },
    /// Once the run is stored, before any step: its id.
    #[serde(rename_all = "camelCase")]
    RunCreated {
        run_id: String,
    },
    StepStarted {
        name: String,
    },
    Stdout {
        name: String,
        text: String,
    },
    Stderr {
        name: String,
        text: String,
    },
    StepFinished {
        step: Box<StepView>,
    },
}

/// A run: live at its end, or read back from the store.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowRunView {
    pub run_id: String,
    /// `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    pub steps: Vec<StepView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowRunSummary {
    pub id: String,
    pub file: String,
    pub status: String,
    pub from_run: Option<String>,
    pub from_step: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

impl From<WorkflowRun> for WorkflowRunSummary {
    fn from(run: WorkflowRun) -> Self {
        Self {
            id: run.id,
            file: run.file,
            status: run.status,
            from_run: run.from_run,
            from_step: run.from_step,
            created_at: run.created_at,
            finished_at: run.finished_at,
        }
    }
}

fn is_workflow(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// The workflow files directly in `dir`, by name.
pub fn workflows_in(dir: &Path) -> IpcResult<Vec<WorkflowFile>> {
    let entries = std::fs::read_dir(dir).map_err(|e| IpcError::io("read the folder", dir, &e))?;
    let mut files: Vec<WorkflowFile> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && is_workflow(p))
        .map(|p| WorkflowFile {
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: p.display().to_string(),
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

fn problems_of(text: &str) -> Vec<String> {
    sift_core::workflow::load(text).err().unwrap_or_default()
}

/// Writes the text aside and renames it into place, so that a crash
/// never leaves half a file; returns its problems.
pub fn save_text(path: &Path, text: &str) -> IpcResult<Vec<String>> {
    let name = path
        .file_name()
        .ok_or_else(|| IpcError::usage(format!("{} is not a file path", path.display())))?;
    let aside = path.with_file_name(format!(".{}.sift-tmp", name.to_string_lossy()));
    std::fs::write(&aside, text).map_err(|e| IpcError::io("write", &aside, &e))?;
    std::fs::rename(&aside, path).map_err(|e| IpcError::io("replace", path, &e))?;
    Ok(problems_of(text))
}

#[tauri::command]
pub fn list_workflows(dir: String) -> IpcResult<Vec<WorkflowFile>> {
    workflows_in(Path::new(&dir))
}

#[tauri::command]
pub fn read_workflow(path: String) -> IpcResult<WorkflowText> {
    let file = PathBuf::from(&path);
    let text = std::fs::read_to_string(&file).map_err(|e| IpcError::io("read", &file, &e))?;
    Ok(WorkflowText {
        problems: problems_of(&text),
        path,
        text,
    })
}

#[tauri::command]
pub fn save_workflow(path: String, text: String) -> IpcResult<Vec<String>> {
    save_text(Path::new(&path), &text)
}

/// What `sift validate` says of a text not saved yet.
#[tauri::command]
pub fn check_workflow(text: String) -> Vec<String> {
    problems_of(&text)
}

/// Watches `dir` (replacing the previous watch): each change of a
/// workflow file goes to `on_change`.
#[tauri::command]
pub fn watch_workflows(
    dir: String,
    on_change: Channel<WorkflowFileEvent>,
    state: State<'_, WorkflowState>,
) -> IpcResult<()> {
    let watch = watch_folder(Path::new(&dir), move |change| {
        // A closed window's channel: nothing to tell.
        let _ = on_change.send(change.into());
    })
    .map_err(|e| IpcError::new("io", format!("cannot watch {dir}: {e}")))?;
    *lock(&state.watch) = Some(watch);
    Ok(())
}

/// Runs a workflow file; events go to `on_event` as they happen (the
/// first gives the key to cancel it with), and the run is returned at
/// its end. Every step is stored as it ends.
#[tauri::command]
pub async fn run_workflow(
    request: WorkflowRunRequest,
    on_event: Channel<WorkflowRunEvent>,
    app: State<'_, AppState>,
    state: State<'_, WorkflowState>,
) -> IpcResult<WorkflowRunView> {
    let store = app.store()?;
    let key = format!("wfrun-{}", state.next_key.fetch_add(1, Ordering::Relaxed));
    let cancel = CancellationToken::new();
    lock(&state.runs).insert(key.clone(), cancel.clone());
    let _ = on_event.send(WorkflowRunEvent::Started { key: key.clone() });
    let outcome = run_with_events(&store, request, cancel, on_event).await;
    lock(&state.runs).remove(&key);
    outcome
}

/// The command's work, apart from Tauri's state (tests call it).
pub async fn run_with_events(
    store: &sift_core::store::Store,
    request: WorkflowRunRequest,
    cancel: CancellationToken,
    on_event: Channel<WorkflowRunEvent>,
) -> IpcResult<WorkflowRunView> {
    let from = match (request.from_step, request.from_run) {
        (Some(step), Some(run_id)) => Some(RerunFrom { run_id, step }),
        (None, None) => None,
        _ => {
            return Err(IpcError::usage(
                "a re-run needs both the step to start from and the run to reuse",
            ));
        }
    };
    let events = Arc::new(on_event);
    let sink = {
        let events = events.clone();
        Arc::new(move |event: RunEvent| {
            let event = match event {
                RunEvent::StepStarted { name } => WorkflowRunEvent::StepStarted { name },
                RunEvent::Stdout { name, text } => WorkflowRunEvent::Stdout { name, text },
                RunEvent::Stderr { name, text } => WorkflowRunEvent::Stderr { name, text },
                RunEvent::StepFinished(record) => WorkflowRunEvent::StepFinished {
                    step: Box::new(StepView::from(record.as_ref())),
                },
            };
            let _ = events.send(event);
        })
    };
    let request = CoreRequest {
        file: PathBuf::from(&request.path),
        params: request
            .params
            .into_iter()
            .map(|p| (p.name, p.value))
            .collect(),
        from,
        cancel,
    };
    let announce = {
        let events = events.clone();
        move |run_id: &str| {
            let _ = events.send(WorkflowRunEvent::RunCreated {
                run_id: run_id.to_owned(),
            });
        }
    };
    let outcome = run_workflow_announced(store, request, &announce, sink).await?;
    Ok(WorkflowRunView {
        run_id: outcome.run_id,
        status: outcome.record.status.as_str().to_owned(),
        steps: outcome.record.steps.iter().map(StepView::from).collect(),
    })
}

/// Asks a running workflow to stop; false when no run has that key.
#[tauri::command]
pub fn cancel_workflow_run(key: String, state: State<'_, WorkflowState>) -> bool {
    match lock(&state.runs).get(&key) {
        Some(token) => {
            token.cancel();
            true
        }
        None => false,
    }
}

/// The most recent runs first.
#[tauri::command]
pub fn workflow_runs(limit: u32, app: State<'_, AppState>) -> IpcResult<Vec<WorkflowRunSummary>> {
    Ok(app
        .store()?
        .workflow_runs(limit)?
        .into_iter()
        .map(WorkflowRunSummary::from)
        .collect())
}

/// A stored run with its steps (logs, outputs, messages).
#[tauri::command]
pub fn workflow_run(run_id: String, app: State<'_, AppState>) -> IpcResult<WorkflowRunView> {
    stored_run(&app.store()?, &run_id)
}

pub fn stored_run(store: &sift_core::store::Store, run_id: &str) -> IpcResult<WorkflowRunView> {
    let run = store
        .workflow_run(run_id)?
        .ok_or_else(|| IpcError::not_found(format!("no workflow run {run_id}")))?;
    Ok(WorkflowRunView {
        run_id: run.id,
        status: run.status,
        steps: store
            .workflow_steps(run_id)?
            .into_iter()
            .map(StepView::from)
            .collect(),
    })
}
