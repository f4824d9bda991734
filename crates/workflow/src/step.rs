//! One step's execution: a shell command, a chat.completion call or a
//! sub-run, its output captured and passed on as events, and its record.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::{Map, Value};
use sift_llm::Message;
use tokio_util::sync::CancellationToken;

use crate::chat::{ChatContext, run_chat};
use crate::interpolate::{Scope, Target, interpolate, interpolate_value};
use crate::run::{
    EventSink, RunEvent, RunStatus, Runtime, StepRecord, StepStatus, run_error, run_named,
    run_outputs,
};
use crate::shell::{ShellEnd, Stream, run_shell};
use crate::spec::{Step, StepAction};

/// A step ready to run: what it may refer to, and the conversations of
/// its direct dependencies.
pub(crate) struct StepTask {
    pub runtime: Arc<Runtime>,
    pub dag_index: usize,
    pub step_index: usize,
    pub scope: Scope,
    pub inherited: Vec<Message>,
    pub cancel: CancellationToken,
    pub sink: EventSink,
}

/// Collects a step's stdout and stderr while passing them on as events.
pub(crate) struct StepOutput {
    name: String,
    sink: EventSink,
    stdout: Mutex<String>,
    stderr: Mutex<String>,
}

impl StepOutput {
    pub(crate) fn stdout(&self, text: &str) {
        if let Ok(mut out) = self.stdout.lock() {
            out.push_str(text);
        }
        (self.sink)(RunEvent::Stdout {
            name: self.name.clone(),
            text: text.to_owned(),
        });
    }

    pub(crate) fn stderr(&self, text: &str) {
        if let Ok(mut out) = self.stderr.lock() {
            out.push_str(text);
        }
        (self.sink)(RunEvent::Stderr {
            name: self.name.clone(),
            text: text.to_owned(),
        });
    }

    fn take(&self) -> (String, String) {
        let take = |m: &Mutex<String>| {
            m.lock()
                .map(|mut s| std::mem::take(&mut *s))
                .unwrap_or_default()
        };
        (take(&self.stdout), take(&self.stderr))
    }
}

impl StepTask {
    pub async fn execute(self) -> StepRecord {
        let started = Instant::now();
        let dag = &self.runtime.workflow.dags[self.dag_index];
        let step = &dag.steps[self.step_index];
        let output = StepOutput {
            name: step.name.clone(),
            sink: self.sink.clone(),
            stdout: Mutex::new(String::new()),
            stderr: Mutex::new(String::new()),
        };
        let mut unknown = Vec::new();
        let dir = self.step_dir(step, &mut unknown);
        let mut record = StepRecord::new(step, StepStatus::Succeeded);
        let result: Result<(), String> = match &step.action {
            StepAction::Command(command) => {
                let command = interpolate(command, &self.scope, Target::Command, &mut unknown);
                report_unknown(&output, &mut unknown);
                let mut env = self.scope.shell_env();
                for (k, v) in &step.env {
                    env.push((
                        k.clone(),
                        interpolate(v, &self.scope, Target::Value, &mut unknown),
                    ));
                }
                let end = run_shell(
                    &command,
                    &dir,
                    &env,
                    &self.cancel,
                    &|stream, text| match stream {
                        Stream::Stdout => output.stdout(text),
                        Stream::Stderr => output.stderr(text),
                    },
                )
                .await;
                match end {
                    ShellEnd::Succeeded => Ok(()),
                    ShellEnd::Failed(why) => Err(why),
                    ShellEnd::Cancelled => {
                        record.status = StepStatus::Cancelled;
                        Ok(())
                    }
                }
            }
            StepAction::Chat(chat) => {
                let context = ChatContext {
                    runtime: self.runtime.clone(),
                    dag,
                    scope: &self.scope,
                    dir: &dir,
                    inherited: self.inherited.clone(),
                    cancel: self.cancel.clone(),
                    output: &output,
                };
                match run_chat(chat, context).await {
                    Ok(done) => {
                        record.outputs = done.outputs;
                        record.absent_outputs = done.absent_outputs;
                        record.messages = done.messages;
                        record.usage = done.usage;
                        Ok(())
                    }
                    Err(failure) => {
                        record.usage = failure.usage;
                        if self.cancel.is_cancelled() {
                            record.status = StepStatus::Cancelled;
                            Ok(())
                        } else {
                            Err(failure.error)
                        }
                    }
                }
            }
            StepAction::DagRun {
                dag: target,
                params,
            } => {
                let params = params
                    .iter()
                    .map(|(k, v)| {
                        (
                            k.clone(),
                            interpolate(v, &self.scope, Target::Value, &mut unknown),
                        )
                    })
                    .collect();
                report_unknown(&output, &mut unknown);
                match run_named(
                    self.runtime.clone(),
                    target.clone(),
                    params,
                    self.cancel.clone(),
                )
                .await
                {
                    Ok(sub) if sub.status == RunStatus::Succeeded => {
                        record.outputs = run_outputs(&sub);
                        Ok(())
                    }
                    Ok(sub) => Err(run_error(&sub)),
                    Err(e) => Err(e.to_string()),
                }
            }
            StepAction::Unsupported(what) => Err(format!("Sift cannot run this step ({what})")),
        };
        let (stdout, stderr) = output.take();
        record.stdout = stdout;
        record.stderr = stderr;
        if let Err(error) = result {
            record.status = StepStatus::Failed;
            record.error = Some(error);
        } else if record.status == StepStatus::Succeeded
            && let Some(var) = &step.output
        {
            record
                .outputs
                .insert(var.clone(), Value::String(record.stdout.trim().to_owned()));
        }
        record.elapsed_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        record
    }

    fn step_dir(&self, step: &Step, unknown: &mut Vec<String>) -> PathBuf {
        match &step.dir {
            None => self.runtime.base_dir.clone(),
            Some(dir) => {
                let dir = interpolate(dir, &self.scope, Target::Value, unknown);
                expand_home(&self.runtime.base_dir, &dir)
            }
        }
    }
}

/// `~` is the home directory; a relative path is under `base`.
pub(crate) fn expand_home(base: &Path, path: &str) -> PathBuf {
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = std::env::home_dir()
    {
        return home.join(rest);
    }
    base.join(path)
}

/// Notes each `${...}` that named nothing on the step's stderr.
pub(crate) fn report_unknown(output: &StepOutput, unknown: &mut Vec<String>) {
    for reference in unknown.drain(..) {
        output.stderr(&format!(
            "notice: {reference} names nothing known here; it was kept as written\n"
        ));
    }
}

/// Resolves the references in a chat step's `with`.
pub(crate) fn resolve_with(
    with: &Map<String, Value>,
    scope: &Scope,
    unknown: &mut Vec<String>,
) -> Map<String, Value> {
    match interpolate_value(
        &Value::Object(with.clone()),
        scope,
        &["api_key_name", "tools"],
        unknown,
    ) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}
