//! Running a DAG on tokio: a step starts when its dependencies have
//! succeeded (independent steps run in parallel, up to
//! `max_active_steps`), its dependents are skipped when it fails, and
//! cancelling stops running steps and starts no new one.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use sift_llm::Message;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::interpolate::{Scope, interpolate};
use crate::plan::{cycle, dependencies, downstream, find_step};
use crate::record::{EventSink, RunError, RunEvent, RunRecord, RunStatus, StepRecord, StepStatus};
use crate::runtime::{Runtime, SubRun, SubRunner};
use crate::spec::{Dag, Step};
use crate::step::StepTask;

/// Steps running at once when the DAG does not say (`max_active_steps`).
const DEFAULT_MAX_ACTIVE_STEPS: usize = 16;

/// How deep sub-runs nest: the main run is level 0, a DAG it runs (by
/// `dag.run` or as a tool) level 1, and so on; a run deeper than level 8
/// is refused. `validate` refuses a `dag.run` cycle, but a tool DAG that
/// offers itself as a tool recurses as far as a model asks, and an
/// embedder may run a file it did not validate: this is what ends those.
/// Eight: DAGs of a file compose a few levels deep (a tool that runs a
/// helper that runs another is three), so eight leaves room for any
/// composition while keeping a runaway small, since every level holds a
/// running step and, through a model, up to `max_tool_iterations` calls.
const MAX_NESTING: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// `--param K=V`: over the DAG's declared defaults.
    pub params: Vec<(String, String)>,
    /// Steps that do not run again: their records from an earlier run,
    /// by step name (see [`steps_before`]).
    pub reuse: HashMap<String, StepRecord>,
    pub cancel: CancellationToken,
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
    run_dag(runtime, 0, options, sink, 0).await
}

/// The scheduler as the steps see it: a sub-run is a run of another DAG
/// of the same file, its events not reported.
#[derive(Debug)]
struct Scheduler {
    /// The nesting level of the run whose steps hold this (0: the main run).
    level: usize,
}

impl SubRunner for Scheduler {
    fn run_named(
        &self,
        runtime: Arc<Runtime>,
        name: String,
        params: Vec<(String, String)>,
        cancel: CancellationToken,
    ) -> SubRun {
        let level = self.level + 1;
        Box::pin(async move {
            if level > MAX_NESTING {
                return Err(RunError::TooDeep {
                    dag: name,
                    limit: MAX_NESTING,
                });
            }
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
            run_dag(runtime, index, options, Arc::new(|_| {}), level).await
        })
    }
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
    level: usize,
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
                            runner: Arc::new(Scheduler { level }),
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
        let value = interpolate(v, &scope, &mut Vec::new());
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
