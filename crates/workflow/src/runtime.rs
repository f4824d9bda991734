//! What a run needs besides its DAG, and the handle through which a step
//! starts a sub-run of a named DAG (a `dag.run` step, a DAG offered as a
//! tool) without knowing the scheduler that runs it.

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use sift_documents::ReadOptions;
use tokio_util::sync::CancellationToken;

use crate::connector::ModelConnector;
use crate::file_gate::FileGate;
use crate::record::{RunError, RunRecord};
use crate::spec::Workflow;

/// What a run needs besides its DAG.
#[derive(Debug)]
pub struct Runtime {
    pub workflow: Workflow,
    /// The workflow file's directory: relative paths (`dir:`, `files`) start here.
    pub base_dir: PathBuf,
    pub connector: Arc<dyn ModelConnector>,
    pub read_options: ReadOptions,
    /// Every file a step of this run or of a DAG it runs reads passes it first.
    pub file_gate: FileGate,
}

/// A sub-run on its way: the named DAG's record, once it has run.
pub(crate) type SubRun = Pin<Box<dyn Future<Output = Result<RunRecord, RunError>> + Send>>;

/// Runs a named DAG of the file as a sub-run, with these params; its
/// events are not reported. The scheduler passes one to every step.
pub(crate) trait SubRunner: Send + Sync + fmt::Debug {
    fn run_named(
        &self,
        runtime: Arc<Runtime>,
        name: String,
        params: Vec<(String, String)>,
        cancel: CancellationToken,
    ) -> SubRun;
}
