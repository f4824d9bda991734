//! `sift validate FILE` and `sift run FILE`: workflows.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use sift_core::workflows::{RerunFrom, WorkflowRunRequest, load_file, run_json, run_workflow};
use sift_core::{CoreError, Workspace};
use sift_core::{FileGate, RunEvent, RunStatus, StepStatus};
use tokio_util::sync::CancellationToken;

use crate::Failure;

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The workflow file (YAML).
    pub file: PathBuf,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The workflow file (YAML).
    pub file: PathBuf,
    /// A param, over the workflow's default (repeatable).
    #[arg(long = "param", value_name = "K=V")]
    pub params: Vec<String>,
    /// Print the run as one JSON object at the end instead of streaming
    /// each step's output.
    #[arg(long)]
    pub json: bool,
    /// Re-run from this step, reusing the stored outputs of the steps
    /// before it in the run given with --run.
    #[arg(long, value_name = "STEP", requires = "run")]
    pub from: Option<String>,
    /// The earlier run that --from reuses.
    #[arg(long, value_name = "RUN_ID", requires = "from")]
    pub run: Option<String>,
}

/// Prints `Validation failed for FILE` and a `- problem` line each; exit 1.
#[allow(clippy::print_stderr)]
fn invalid(file: &Path, problems: &[String]) -> Failure {
    let mut text = format!("Validation failed for {}\n", file.display());
    for problem in problems {
        text.push_str("- ");
        text.push_str(problem);
        text.push('\n');
    }
    eprint!("{text}");
    Failure::Reported { code: 1 }
}

/// A workflow's problems as `sift validate` prints them; a run the
/// workflow refused (such as `--from` a step it does not have) as
/// `error (other)`, exit 1, like every failure of the run itself.
fn failed(error: CoreError, file: &Path) -> Failure {
    match error {
        CoreError::InvalidWorkflow(problems) => invalid(file, &problems),
        CoreError::Usage(message) => Failure::Failed {
            category: "other".into(),
            message,
        },
        other => other.into(),
    }
}

#[allow(clippy::print_stdout)]
pub fn validate(args: ValidateArgs) -> Result<(), Failure> {
    load_file(&args.file).map_err(|e| failed(e, &args.file))?;
    println!("ok");
    Ok(())
}

pub async fn run(args: RunArgs, ws: &Workspace) -> Result<(), Failure> {
    let mut params = Vec::new();
    for param in &args.params {
        let (name, value) = sift_core::parse_param_assignment(param);
        match value {
            Some(value) if !name.is_empty() => params.push((name, value)),
            _ => {
                return Err(Failure::Usage(format!(
                    "--param takes NAME=VALUE, not {param:?}"
                )));
            }
        }
    }
    // Validate before opening the database: a bad file changes nothing.
    load_file(&args.file).map_err(|e| failed(e, &args.file))?;
    let store = ws.store()?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.cancel();
        }
    });
    let streaming = !args.json;
    let sink = Arc::new(move |event: RunEvent| {
        if !streaming {
            return;
        }
        // Output goes on as it comes; a closed pipe is the reader's choice.
        match event {
            RunEvent::Stdout { text, .. } => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            RunEvent::Stderr { text, .. } => {
                let _ = std::io::stderr().lock().write_all(text.as_bytes());
            }
            RunEvent::StepStarted { .. } | RunEvent::StepFinished(_) => {}
        }
    });
    let request = WorkflowRunRequest {
        file: args.file.clone(),
        // Read as the run starts: the user typed the command that runs it.
        workflow: None,
        params,
        from: args
            .from
            .zip(args.run)
            .map(|(step, run_id)| RerunFrom { run_id, step }),
        cancel,
        read_options: ws.read_options(),
        providers: ws.settings().providers,
        // The user typed the command: its steps read any file, as its commands do.
        file_gate: FileGate::allow_all(),
    };
    let outcome = run_workflow(&store, request, sink)
        .await
        .map_err(|e| failed(e, &args.file))?;
    if args.json {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{}", run_json(&outcome));
    } else {
        let mut err = std::io::stderr().lock();
        for step in &outcome.record.steps {
            if step.status == StepStatus::Failed {
                let error = step.error.as_deref().unwrap_or("failed");
                let _ = writeln!(err, "step '{}' failed: {error}", step.name);
            }
        }
        let _ = writeln!(
            err,
            "run {} {}",
            outcome.run_id,
            outcome.record.status.as_str()
        );
    }
    match outcome.record.status {
        RunStatus::Succeeded => Ok(()),
        RunStatus::Failed | RunStatus::Cancelled => Err(Failure::Reported { code: 1 }),
    }
}
