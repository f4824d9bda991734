//! Workflow runs from the window: a run (or a re-run from a step) started
//! with live [`WorkflowRunEvent`]s, registered in the workspace's running
//! work so that it can be cancelled, and the stored runs read back.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_store::{StoredStep, WorkflowRun};
use sift_workflow::{FileGate, RunEvent, StepRecord};

use crate::error::CoreError;
use crate::running::WorkKind;
use crate::workflows::consent::require_consent;
use crate::workflows::{RerunFrom, WorkflowRunRequest, run_workflow_announced};
use crate::workspace::Workspace;

/// One workflow parameter the window sets for a run.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ParamValue {
    /// The parameter's name, as the workflow reads it (`${params.NAME}`).
    pub name: String,
    /// Its value for this run.
    pub value: String,
}

/// A run as the window asks for it: a file, params, and the step and run
/// of a re-run, not checked yet; `start_workflow_run` makes it a
/// `WorkflowRunRequest`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "WorkflowRunRequest"))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowRunArgs {
    /// The workflow file's path.
    pub path: String,
    /// Parameter values, over the workflow's defaults; none when left out.
    #[serde(default)]
    pub params: Vec<ParamValue>,
    /// Re-run from this step of `fromRun`, reusing the steps before it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub from_step: Option<String>,
    /// The id of the earlier run a re-run reuses; set together with `fromStep`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub from_run: Option<String>,
}

/// One step of a run, live or stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    /// The step's `id` in the file, when it has one.
    pub id: Option<String>,
    /// The step's name: its `name` in the file, else its id, else `step_N` by position.
    pub name: String,
    /// `running`, `succeeded`, `failed`, `skipped` or `cancelled`.
    pub status: String,
    /// What the step wrote to its standard output.
    pub stdout: String,
    /// What the step wrote to its standard error.
    pub stderr: String,
    /// The values the step produced, by name (`${steps.ID.outputs.NAME}` in later steps).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub outputs: Value,
    /// Why the step failed; `None` unless it did.
    pub error: Option<String>,
    /// The step's conversation (a chat step's), as `sift_llm` messages.
    #[cfg_attr(feature = "ts", ts(type = "Array<unknown>"))]
    pub messages: Value,
    /// Tokens sent to models, over every model request of the step.
    pub input_tokens: u64,
    /// Tokens the models wrote, over every model request of the step.
    pub output_tokens: u64,
    /// How long the step ran, in milliseconds.
    pub elapsed_ms: u64,
    /// Copied from an earlier run rather than run again.
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum WorkflowRunEvent {
    /// First: the key `cancel_workflow_run` takes.
    #[serde(rename_all = "camelCase")]
    Started {
        /// The run's key in the running work.
        key: String,
    },
    /// Once the run is stored, before any step: its id.
    #[serde(rename_all = "camelCase")]
    RunCreated {
        /// The id the run is stored under.
        run_id: String,
    },
    /// A step began.
    StepStarted {
        /// The step's name.
        name: String,
    },
    /// A step wrote to its standard output.
    Stdout {
        /// The step's name.
        name: String,
        /// What it wrote, as it came.
        text: String,
    },
    /// A step wrote to its standard error.
    Stderr {
        /// The step's name.
        name: String,
        /// What it wrote, as it came.
        text: String,
    },
    /// A step ended, whatever its status; it is stored by then.
    StepFinished {
        /// The step as it ended.
        step: Box<StepView>,
    },
}

impl From<RunEvent> for WorkflowRunEvent {
    fn from(event: RunEvent) -> Self {
        match event {
            RunEvent::StepStarted { name } => Self::StepStarted { name },
            RunEvent::Stdout { name, text } => Self::Stdout { name, text },
            RunEvent::Stderr { name, text } => Self::Stderr { name, text },
            RunEvent::StepFinished(record) => Self::StepFinished {
                step: Box::new(StepView::from(record.as_ref())),
            },
        }
    }
}

/// A run: live at its end, or read back from the store.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowRunView {
    /// The id the run is stored under.
    pub run_id: String,
    /// `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// Its steps, in the file's order.
    pub steps: Vec<StepView>,
}

/// A stored run as the list of runs shows it, without its steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowRunSummary {
    /// The run's id.
    pub id: String,
    /// The workflow file's path, as the run was given it.
    pub file: String,
    /// `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    /// For a re-run, the id of the run whose steps it reused; `None` for a full run.
    pub from_run: Option<String>,
    /// For a re-run, the step it ran from; `None` for a full run.
    pub from_step: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When the run ended, in milliseconds since the Unix epoch; `None` while it has not.
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

/// A run that has started: the key [`cancel_workflow_run`] takes, and the
/// rest of the run to await (or spawn).
pub type StartedRun = (
    String,
    Pin<Box<dyn Future<Output = Result<WorkflowRunView, CoreError>> + Send + 'static>>,
);

/// Checks the request and the file (an invalid file is refused with its
/// problems before anything is stored or reported), registers the run,
/// tells `on_event` its key first, and returns the rest of the run: each
/// step is stored as it ends and reported as it happens.
pub fn start_workflow_run(
    ws: &Workspace,
    args: WorkflowRunArgs,
    on_event: impl Fn(WorkflowRunEvent) + Send + Sync + 'static,
) -> Result<StartedRun, CoreError> {
    let from = match (args.from_step, args.from_run) {
        (Some(step), Some(run_id)) => Some(RerunFrom { run_id, step }),
        (None, None) => None,
        _ => {
            return Err(CoreError::Usage(
                "a re-run needs both the step to start from and the run to reuse".into(),
            ));
        }
    };
    let file = PathBuf::from(&args.path);
    super::files::check_workflow_read(ws, &file)?;
    let store = ws.store()?;
    // The window runs a folder's shell commands only once the user allowed
    // them, and runs the workflow as it was read for that check.
    let workflow = require_consent(&store, &file)?;
    let guard = ws.running().register_new(WorkKind::WorkflowRun);
    let key = guard.key().to_owned();
    on_event(WorkflowRunEvent::Started { key: key.clone() });
    let events = Arc::new(on_event);
    let request = WorkflowRunRequest {
        file,
        workflow: Some(workflow),
        params: args.params.into_iter().map(|p| (p.name, p.value)).collect(),
        from,
        cancel: guard.token().clone(),
        read_options: ws.read_options(),
        providers: ws.settings().providers,
        file_gate: granted_files_only(ws),
    };
    let run = async move {
        // Registered until the run ends.
        let _guard = guard;
        let sink = {
            let events = events.clone();
            Arc::new(move |event: RunEvent| events(event.into()))
        };
        let announce = move |run_id: &str| {
            events(WorkflowRunEvent::RunCreated {
                run_id: run_id.to_owned(),
            });
        };
        let outcome = run_workflow_announced(&store, request, &announce, sink).await?;
        Ok(WorkflowRunView {
            run_id: outcome.run_id,
            status: outcome.record.status.as_str().to_owned(),
            steps: outcome.record.steps.iter().map(StepView::from).collect(),
        })
    };
    Ok((key, Box::pin(run)))
}

/// The check each file a step of a window's run reads passes (the run's
/// sub-runs too): the workspace's read grants, of which the workflow's
/// folder is one, links followed; so a stranger's `files: [~/.ssh/id_rsa]`
/// is refused before anything is read or sent to its model.
fn granted_files_only(ws: &Workspace) -> FileGate {
    let ws = ws.clone();
    FileGate::new(move |path: &Path| {
        ws.grants().check_read(path).map(drop).map_err(|_| {
            let target = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
            CoreError::WorkflowFileNotAllowed {
                path: path.to_path_buf(),
                target,
            }
            .to_string()
        })
    })
}

/// Asks a running workflow to stop; false when no run has that key.
pub fn cancel_workflow_run(ws: &Workspace, key: &str) -> bool {
    ws.running().cancel(WorkKind::WorkflowRun, key)
}

/// The most recent runs first.
pub fn workflow_runs(ws: &Workspace, limit: u32) -> Result<Vec<WorkflowRunSummary>, CoreError> {
    Ok(ws
        .store()?
        .workflow_runs(limit)?
        .into_iter()
        .map(WorkflowRunSummary::from)
        .collect())
}

/// A stored run with its steps (logs, outputs, messages).
pub fn stored_run(ws: &Workspace, run_id: &str) -> Result<WorkflowRunView, CoreError> {
    let store = ws.store()?;
    let run = store
        .workflow_run(run_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no workflow run {run_id}")))?;
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
