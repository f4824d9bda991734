//! The shell commands a folder of workflows can run, as the window shows
//! them before asking the user to allow them (`workflows::consent` finds
//! them; the error that asks, [`crate::CoreError::ConsentNeeded`], carries
//! them, so they live below both).

use serde::Serialize;

/// One shell command a workflow of the folder can run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowCommand {
    /// The workflow file's name in the folder, e.g. `invoices.yaml`.
    pub file: String,
    /// The named DAG the step is in (run by `dag.run` or as a model's
    /// tool); `None` for the file's main DAG.
    pub dag: Option<String>,
    /// The step's id, else its name.
    pub step: String,
    /// The command exactly as written; `sh -c` runs it.
    pub command: String,
    /// The author's `env:` entries (the DAG's, then the step's) that choose
    /// which program runs or what it loads (`PATH`, `LD_PRELOAD`...), as
    /// `NAME=value`: they change what the command does.
    pub env: Vec<String>,
}

/// Every shell command a folder's workflows can run, with the fingerprint
/// a consent is recorded under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowCommands {
    /// The folder's canonical path.
    pub folder: String,
    /// The sha256 of the commands, in lower-case hex: what the user allows.
    pub fingerprint: String,
    /// The commands, by file name, then in the file's order.
    pub commands: Vec<WorkflowCommand>,
}
