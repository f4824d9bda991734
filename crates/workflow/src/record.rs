//! What a run reports and returns: the run's and each step's record, the
//! events, and the errors. Data only, so every part of a run can name it.

use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use sift_llm::{ErrorCategory, Message, Usage};

use crate::spec::Step;

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
    /// What kind of failure `error` is, when a model or the connection to
    /// it failed (`auth`, `network`, ...); `None` for other failures.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_category: Option<ErrorCategory>,
    /// A chat step's conversation as later steps inherit it (no images,
    /// no `respond` instruction).
    pub messages: Vec<Message>,
    /// Tokens over every model request of the step.
    pub usage: Usage,
    pub elapsed_ms: u64,
    /// Copied from an earlier run instead of running again.
    pub reused: bool,
    /// The model a chat step's tokens were spent on (the one that
    /// answered, or the last one tried).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub served: Option<ServedModel>,
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
            error_category: None,
            messages: Vec::new(),
            usage: Usage::default(),
            elapsed_ms: 0,
            reused: false,
            absent_outputs: Vec::new(),
            served: None,
        }
    }
}

/// Where a chat step's model ran: its provider as the YAML names it
/// (`openai`, `anthropic`, `local`), its server's host and port when the
/// step names a base URL (never the URL: it can hold a key), its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServedModel {
    pub provider: String,
    pub host: Option<String>,
    pub model: String,
}

/// Why a step failed: the text recorded and printed, and the category of
/// the model's or the connection's failure it came from, if any (which a
/// `dag.run` step keeps from its sub-run's failed step).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct StepError {
    pub message: String,
    pub category: Option<ErrorCategory>,
}

impl StepError {
    /// A failure that is not a model's (a shell command, a file, a plan).
    pub fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            category: None,
        }
    }

    pub fn categorised(message: impl Into<String>, category: ErrorCategory) -> Self {
        Self {
            message: message.into(),
            category: Some(category),
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
    /// A sub-run deeper than the limit: a `dag.run` or tool call that keeps
    /// calling DAGs (see `run.rs`'s `MAX_NESTING`).
    #[error("cannot run {dag:?}: sub-DAG runs nest at most {limit} levels deep")]
    TooDeep { dag: String, limit: usize },
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
pub(crate) fn run_error(record: &RunRecord) -> StepError {
    record
        .steps
        .iter()
        .find(|s| s.status == StepStatus::Failed && s.error.is_some())
        .map(|s| StepError {
            message: s.error.clone().unwrap_or_default(),
            category: s.error_category,
        })
        .unwrap_or_else(|| StepError::new(format!("the run ended {}", record.status.as_str())))
}
