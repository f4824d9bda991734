//! Running a DAG on tokio: a step starts when its dependencies have
//! succeeded (independent steps run in parallel, up to
//! `max_active_steps`), its dependents are skipped when it fails, and
//! cancelling stops running steps and starts no new one.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use sift_documents::ReadOptions;
use sift_llm::{Message, Usage};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::chat::ModelConnector;
use crate::interpolate::{Scope, Target, interpolate};
use crate::plan::{cycle, dependencies, downstream, find_step};
use crate::spec::{Dag, Step, Workflow};
use crate::step::StepTask;

/// Steps running at once when the DAG does not say (`max_active_steps`).
const DEFAULT_MAX_ACTIVE_STEPS: usize = 16;

/// What a run needs besides its DAG.
#[derive(Debug)]
pub struct Runtime {
    pub workflow: Workflow,
    /// The workflow file's directory: relative paths (`dir:`, `files`) start here.
    pub base_dir: PathBuf,
    pub connector: Arc<dyn ModelConnector>,
    pub read_options: ReadOptions,
}

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--param K=V`: over the DAG's declared defaults.
    pub params: Vec<(String, String)>,
    /// Steps that do not run again: their records from an earlier run,
    /// by step name (see [`steps_before`]).
    pub reuse: HashMap<String, StepRecord>,
    pub cancel: CancellationToken,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Succeeded,
    Failed,
    /// A dependency did not succeed, so the step never ran.
    Skipped,
    Cancelled,
}

impl StepStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Skipped => "skipped",
            Self::Cancelled => "cancelled",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Succeeded,
    Failed,
    Cancelled,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

/// One step's outcome.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StepRecord {
    pub id: Option<String>,
    pub name: String,
    pub status: StepStatus,
    pub stdout: String,
    pub stderr: String,
    pub outputs: Map<String, Value>,
    pub error: Option<String>,
    /// A chat step's conversation as later steps inherit it (no images,
    /// no `respond` instruction).
    pub messages: Vec<Message>,
    /// Tokens over every model request of the step.
    pub usage: Usage,
    pub elapsed_ms: u64,
    /// Copied from an earlier run instead of running again.
    pub reused: bool,
    /// Outputs the step declares but did not produce (properties of its
    /// `output_schema` the answer left out): they read as empty text.
    pub absent_outputs: Vec<String>,
}

impl StepRecord {
    pub(crate) fn new(step: &Step, status: StepStatus) -> Self {
        Self {
            id: step.id.clone(),
            name: step.name.clone(),
            status,
            stdout: String::new(),
            stderr: String::new(),
            outputs: Map::new(),
            error: None,
            messages: Vec::new(),
            usage: Usage::default(),
            elapsed_ms: 0,
            reused: false,
            absent_outputs: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunRecord {
    pub status: RunStatus,
    /// In the order of the file.
    pub steps: Vec<StepRecord>,
}

/// What a run reports while it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum RunEvent {
    StepStarted { name: String },
    Stdout { name: String, text: String },
    Stderr { name: String, text: String },
    StepFinished(Box<StepRecord>),
}

pub type EventSink = Arc<dyn Fn(RunEvent) + Send + Sync>;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error("cyclic plan detected: {}", .0.join(" -> "))]
    Cycle(Vec<String>),
    #[error("the workflow has no DAG named {0:?}")]
    NoSuchDag(String),
    #[error("the workflow has no step named {0:?}")]
    NoSuchStep(String),
}

/// The names of the steps a re-run from `from` keeps from the earlier run:
/// all but `from` and the steps that depend on it, directly or not.
pub fn steps_before(dag: &Dag, from: &str) -> Result<Vec<String>, RunError> {
    let start = find_step(dag, from).ok_or_else(|| RunError::NoSuchStep(from.to_owned()))?;
    let rerun = downstream(dag, start);
    Ok(dag
        .steps
        .iter()
        .zip(rerun)
        .filter(|(_, rerun)| !rerun)
        .map(|(s, _)| s.name.clone())
        .collect())
}

/// Runs the main DAG.
pub async fn run(
    runtime: Arc<Runtime>,
    options: RunOptions,
    sink: EventSink,
) -> Result<RunRecord, RunError> {
    run_dag(runtime, 0, options, sink).await
}

/// Runs a named DAG of the file as a sub-run (a tool call or `dag.run`):
/// its events are not reported.
pub(crate) fn run_named(
    runtime: Arc<Runtime>,
    name: String,
    params: Vec<(String, String)>,
    cancel: CancellationToken,
) -> Pin<Box<dyn Future<Output = Result<RunRecord, RunError>> + Send>> {
    Box::pin(async move {
        let index = runtime
            .workflow
            .dags
            .iter()
            .position(|d| d.name.as_deref() == Some(name.as_str()))
            .ok_or(RunError::NoSuchDag(name))?;
        let options = RunOptions {
            params,
            cancel,
            ..RunOptions::default()
        };
        run_dag(runtime, index, options, Arc::new(|_| {})).await
    })
}

/// The outputs a sub-run hands back: every `output:` variable its steps set.
pub(crate) fn run_outputs(record: &RunRecord) -> Map<String, Value> {
    let mut outputs = Map::new();
    for step in &record.steps {
        for (k, v) in &step.outputs {
            outputs.insert(k.clone(), v.clone());
        }
    }
    outputs
}

/// Why a sub-run failed: the first failed step's error.
pub(crate) fn run_error(record: &RunRecord) -> String {
    record
        .steps
        .iter()
        .find_map(|s| {
            (s.status == StepStatus::Failed)
                .then(|| s.error.clone())
                .flatten()
        })
        .unwrap_or_else(|| format!("the run ended {}", record.status.as_str()))
}

#[derive(Debug, Clone, PartialEq)]
enum Slot {
    Waiting,
    Running,
    Done,
}

async fn run_dag(
    runtime: Arc<Runtime>,
    dag_index: usize,
    options: RunOptions,
    sink: EventSink,
) -> Result<RunRecord, RunError> {
    let dag = &runtime.workflow.dags[dag_index];
    if let Some(names) = cycle(dag) {
        return Err(RunError::Cycle(names));
    }
    let deps = dependencies(dag);
    let mut scope = initial_scope(dag, &options.params);
    let max_active = dag.max_active_steps.unwrap_or(DEFAULT_MAX_ACTIVE_STEPS);
    let mut slots = vec![Slot::Waiting; dag.steps.len()];
    let mut records: Vec<Option<StepRecord>> = vec![None; dag.steps.len()];
    let mut running: JoinSet<(usize, StepRecord)> = JoinSet::new();
    loop {
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..dag.steps.len() {
                if slots[i] != Slot::Waiting || !deps[i].iter().all(|&d| slots[d] == Slot::Done) {
                    continue;
                }
                let step = &dag.steps[i];
                let outcome = if options.cancel.is_cancelled() {
                    Some(StepRecord::new(step, StepStatus::Cancelled))
                } else if deps[i]
                    .iter()
                    .any(|&d| records[d].as_ref().map(|r| r.status) != Some(StepStatus::Succeeded))
                {
                    Some(StepRecord::new(step, StepStatus::Skipped))
                } else {
                    options.reuse.get(&step.name).map(|earlier| StepRecord {
                        reused: true,
                        ..earlier.clone()
                    })
                };
                match outcome {
                    Some(record) => {
                        publish(&mut scope, step, &record);
                        sink(RunEvent::StepFinished(Box::new(record.clone())));
                        records[i] = Some(record);
                        slots[i] = Slot::Done;
                        changed = true;
                    }
                    None if running.len() < max_active => {
                        let inherited: Vec<Message> = deps[i]
                            .iter()
                            .flat_map(|&d| records[d].iter().flat_map(|r| r.messages.clone()))
                            .collect();
                        let task = StepTask {
                            runtime: runtime.clone(),
                            dag_index,
                            step_index: i,
                            scope: scope.clone(),
                            inherited,
                            cancel: options.cancel.clone(),
                            sink: sink.clone(),
                        };
                        sink(RunEvent::StepStarted {
                            name: step.name.clone(),
                        });
                        running.spawn(async move { (i, task.execute().await) });
                        slots[i] = Slot::Running;
                    }
                    None => {}
                }
            }
        }
        let Some(joined) = running.join_next().await else {
            break;
        };
        let (i, record) = match joined {
            Ok(done) => done,
            // A step task that panicked: a bug, but the run must still end.
            Err(e) => {
                let Some(i) = slots.iter().position(|s| *s == Slot::Running) else {
                    break;
                };
                let mut record = StepRecord::new(&dag.steps[i], StepStatus::Failed);
                record.error = Some(format!("the step stopped unexpectedly: {e}"));
                (i, record)
            }
        };
        publish(&mut scope, &dag.steps[i], &record);
        sink(RunEvent::StepFinished(Box::new(record.clone())));
        records[i] = Some(record);
        slots[i] = Slot::Done;
    }
    let steps: Vec<StepRecord> = records
        .into_iter()
        .zip(&dag.steps)
        .map(|(r, s)| r.unwrap_or_else(|| StepRecord::new(s, StepStatus::Cancelled)))
        .collect();
    let status = if options.cancel.is_cancelled() {
        RunStatus::Cancelled
    } else if steps.iter().all(|s| s.status == StepStatus::Succeeded) {
        RunStatus::Succeeded
    } else {
        RunStatus::Failed
    };
    Ok(RunRecord { status, steps })
}

/// Params (declared defaults, then the given values) and the DAG's env,
/// each env value resolved against the params and the env before it.
fn initial_scope(dag: &Dag, given: &[(String, String)]) -> Scope {
    let mut scope = Scope::default();
    for def in &dag.params {
        let value = given
            .iter()
            .rev()
            .find(|(k, _)| *k == def.name)
            .map(|(_, v)| v.clone())
            .or_else(|| def.default.clone())
            .unwrap_or_default();
        scope.params.push((def.name.clone(), value));
    }
    for (k, v) in given {
        if !scope.params.iter().any(|(name, _)| name == k) {
            scope.params.push((k.clone(), v.clone()));
        }
    }
    for (k, v) in &dag.env {
        let value = interpolate(v, &scope, Target::Value, &mut Vec::new());
        scope.env.push((k.clone(), value));
    }
    scope
}

/// Makes a finished step's outputs visible to the steps after it.
fn publish(scope: &mut Scope, step: &Step, record: &StepRecord) {
    if record.status != StepStatus::Succeeded {
        return;
    }
    for (k, v) in &record.outputs {
        if step.output.as_deref() == Some(k.as_str()) {
            scope
                .vars
                .insert(k.clone(), crate::interpolate::output_text(v));
        }
    }
    let mut visible = record.outputs.clone();
    for name in &record.absent_outputs {
        visible
            .entry(name.clone())
            .or_insert_with(|| Value::String(String::new()));
    }
    scope.steps.insert(step.key().to_owned(), visible.clone());
    if step.id.is_some() {
        scope.steps.insert(step.name.clone(), visible);
    }
}
