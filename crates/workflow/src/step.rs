//! One step's execution: a shell command, a chat.completion call or a
//! sub-run, its output captured and passed on as events, and its record.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use sift_llm::Message;
use tokio_util::sync::CancellationToken;

use crate::chat::{ChatContext, run_chat};
use crate::interpolate::{Scope, interpolate, interpolate_command};
use crate::output::{StepOutput, report_unknown};
use crate::record::{
    EventSink, RunStatus, StepError, StepRecord, StepStatus, run_error, run_outputs,
};
use crate::runtime::{Runtime, SubRunner};
use crate::shell::{ShellEnd, Stream, run_shell};
use crate::spec::{Step, StepAction};

/// A step ready to run: what it may refer to, and the conversations of
/// its direct dependencies.
pub(crate) struct StepTask {
    pub runtime: Arc<Runtime>,
    /// Runs the named DAGs a `dag.run` step or a tool call asks for.
    pub runner: Arc<dyn SubRunner>,
    pub dag_index: usize,
    pub step_index: usize,
    pub scope: Scope,
    pub inherited: Vec<Message>,
    pub cancel: CancellationToken,
    pub sink: EventSink,
}

impl StepTask {
    pub async fn execute(self) -> StepRecord {
        let started = Instant::now();
        let dag = &self.runtime.workflow.dags[self.dag_index];
        let step = &dag.steps[self.step_index];
        let output = StepOutput::new(&step.name, self.sink.clone());
        let mut unknown = Vec::new();
        let dir = self.step_dir(step, &mut unknown);
        let mut record = StepRecord::new(step, StepStatus::Succeeded);
        let result: Result<(), StepError> = match &step.action {
            StepAction::Command(command) => {
                match self.shell(step, command, &dir, &output, &mut unknown).await {
                    Ok(ShellEnd::Succeeded) => Ok(()),
                    Ok(ShellEnd::Failed(why)) => Err(StepError::new(why)),
                    Ok(ShellEnd::Cancelled) => {
                        record.status = StepStatus::Cancelled;
                        Ok(())
                    }
                    Err(refused) => Err(refused),
                }
            }
            StepAction::Chat(chat) => {
                let context = ChatContext {
                    runtime: self.runtime.clone(),
                    runner: self.runner.as_ref(),
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
                        record.served = done.served;
                        Ok(())
                    }
                    Err(failure) => {
                        record.usage = failure.usage;
                        record.served = failure.served;
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
                    .map(|(k, v)| (k.clone(), interpolate(v, &self.scope, &mut unknown)))
                    .collect();
                report_unknown(&output, &mut unknown);
                match self
                    .runner
                    .run_named(
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
                    Err(e) => Err(StepError::new(e.to_string())),
                }
            }
            StepAction::Unsupported(what) => Err(StepError::new(format!(
                "Sift cannot run this step ({what})"
            ))),
        };
        let (stdout, stderr) = output.take();
        record.stdout = stdout;
        record.stderr = stderr;
        if let Err(error) = result {
            record.status = StepStatus::Failed;
            record.error = Some(error.message);
            record.error_category = error.category;
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

    /// Runs a shell step's command, its references passed as variables
    /// of the process (see `interpolate::command`).
    async fn shell(
        &self,
        step: &Step,
        command: &str,
        dir: &Path,
        output: &StepOutput,
        unknown: &mut Vec<String>,
    ) -> Result<ShellEnd, StepError> {
        let command = interpolate_command(command, &self.scope, unknown);
        report_unknown(output, unknown);
        let command = command.map_err(|refused| StepError::new(refused.to_string()))?;
        let mut env = self.scope.shell_env();
        for (k, v) in &step.env {
            env.push((k.clone(), interpolate(v, &self.scope, unknown)));
        }
        // Last, so that no param or env entry of the same name replaces one.
        env.extend(command.variables);
        Ok(run_shell(
            &command.text,
            dir,
            &env,
            &self.cancel,
            &|stream, text| match stream {
                Stream::Stdout => output.stdout(text),
                Stream::Stderr => output.stderr(text),
            },
        )
        .await)
    }

    fn step_dir(&self, step: &Step, unknown: &mut Vec<String>) -> PathBuf {
        match &step.dir {
            None => self.runtime.base_dir.clone(),
            Some(dir) => {
                let dir = interpolate(dir, &self.scope, unknown);
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
