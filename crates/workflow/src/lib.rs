//! Workflows: YAML DAGs of steps, compatible with dagu's format for
//! everything Sift's spec covers (`../shared/seeds/001_*.txt`).
//!
//! ```text
//! parse(text) -> Workflow            (several `---` documents: the main DAG, then named DAGs)
//! validate(&workflow) -> Vec<String> (every problem, one message each, in file order)
//! run(runtime, dag, options, sink)   (tokio: independent steps in parallel, cancellable)
//! watch_folder(dir, subscriber)      (notify: a changed file is re-validated and announced)
//! ```
//!
//! A step is a shell command (`run:`/`command:`/`script:`), a
//! `chat.completion` action (a model call with tools, fallback models,
//! files and `output_schema`), or a `dag.run` of a named DAG. Storage is
//! not here: a run reports events and returns its record, and the caller
//! (`sift-core`) keeps them.
//!
//! # Files
//!
//! `run.rs` the scheduler (sub-runs 8 levels deep at most); `step.rs` shell
//! steps; `interpolate/` the `${...}` references (text in values, shell
//! variables in commands, never a value as shell syntax); `chat/`
//! `chat.completion`; `record.rs` the records and events; `runtime.rs` the
//! handle sub-DAG tools run through; `connector.rs` models and their typed
//! errors; the folder watch (notify).

mod chat;
mod connector;
mod file_gate;
mod interpolate;
mod output;
mod params;
mod parse;
mod plan;
mod process_env;
mod record;
mod run;
mod runtime;
mod shell;
mod spec;
mod step;
mod validate;
mod watch;

pub use connector::{ConnectError, DirectConnector, ModelConnector, ModelEndpoint, known_features};
pub use file_gate::{FileCheck, FileGate};
pub use params::{ParamDef, parse_param_assignment};
pub use parse::{ParseError, parse};
pub use plan::cycle;
pub use process_env::steers_process;
pub use record::{
    EventSink, RunError, RunEvent, RunRecord, RunStatus, ServedModel, StepRecord, StepStatus,
};
pub use run::{RunOptions, run, steps_before};
pub use runtime::Runtime;
pub use spec::{ChatStep, Dag, Step, StepAction, Workflow};
pub use validate::validate;
pub use watch::{ChangeKind, FolderWatch, WorkflowChange, watch_folder};

/// Parses and validates: the workflow when it has no problem, else every
/// problem's message.
pub fn load(text: &str) -> Result<Workflow, Vec<String>> {
    let workflow = parse(text).map_err(|e| vec![e.to_string()])?;
    let problems = validate(&workflow);
    if problems.is_empty() {
        Ok(workflow)
    } else {
        Err(problems)
    }
}
