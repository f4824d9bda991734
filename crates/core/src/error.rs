//! The one error of the API surface, [`CoreError`], its stable
//! [`ErrorCode`], and [`ErrorBody`], the `{code, message}` form that the
//! app's IPC and the CLI's `--json` send.

use std::path::{Path, PathBuf};

use serde::Serialize;
use sift_documents::DocumentError;
use sift_engine::SchemaError;
use sift_llm::{ErrorCategory, LlmError, local_server::LocalServerError};
use sift_store::StoreError;

/// Every error the API surface returns. [`CoreError::code`] gives callers
/// something stable to branch on; the message is for people and never
/// holds a secret (keys are scrubbed from server bodies before they become
/// errors).
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The caller asked for something that cannot be done as asked.
    #[error("{0}")]
    Usage(String),
    /// A request to a model server that failed; its category gives the code.
    #[error(transparent)]
    Llm(#[from] LlmError),
    /// The local model server is not installed, or did not start or answer in time.
    #[error(transparent)]
    LocalServer(#[from] LocalServerError),
    /// The OS keychain failed while storing or deleting an API key.
    #[error("{0}")]
    Keychain(String),
    /// A configuration file that could not be read, parsed or written.
    #[error("configuration: {0}")]
    Config(String),
    /// A file refused before any request (kind, size, encryption, limits).
    #[error(transparent)]
    Document(#[from] DocumentError),
    /// The database could not be opened, read or written.
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    /// A JSON Schema that Sift cannot extract with: not an object, no
    /// properties, or otherwise invalid.
    #[error("invalid schema: {0}")]
    Schema(#[from] SchemaError),
    /// A session, call or other record that does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A new message while tool calls are pending (seed 003).
    #[error("tool results are required first for: {}", ids.join(", "))]
    ToolResultsRequired {
        /// The ids of the tool calls whose results are missing.
        ids: Vec<String>,
    },
    /// A new chat message while tool calls wait for the user's approval.
    #[error("the user must first approve or deny: {}", ids.join(", "))]
    ApprovalRequired {
        /// The ids of the tool calls that wait for approval.
        ids: Vec<String>,
    },
    /// A workflow file that does not validate: every problem, one message
    /// each, one line each (as the window shows them).
    #[error("the workflow is not valid:\n- {}", .0.join("\n- "))]
    InvalidWorkflow(Vec<String>),
    /// A workflow run from the window whose folder holds shell commands the
    /// user has not allowed as they are now: the commands, to show and allow
    /// (`workflows::consent`).
    #[error(
        "the workflows in {} run shell commands you have not allowed yet:\n{}",
        .0.folder,
        .0.commands.iter().map(|c| format!("- {} {}: {}", c.file, c.step, c.command)).collect::<Vec<_>>().join("\n")
    )]
    ConsentNeeded(Box<crate::shell_commands::WorkflowCommands>),
    /// A file Sift could not read or write.
    #[error("cannot {action} {}: {source}", path.display())]
    Io {
        /// What Sift was doing, as a verb phrase for the message (`"read"`, `"write"`).
        action: &'static str,
        /// The file or folder concerned.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A path to write that no dialog returned in this session and that is
    /// not inside the open workflow folder: nothing was written.
    #[error(
        "{} was not chosen in a save dialog of this session: nothing was written",
        .0.display()
    )]
    PathNotAllowed(PathBuf),
    /// A path to read that no open dialog returned, that was not dropped
    /// on the window, and that is in no folder so chosen: nothing was read.
    #[error(
        "{} was not picked in an open dialog, dropped on the window or found in a folder picked in this session: nothing was read",
        .0.display()
    )]
    ReadNotAllowed(PathBuf),
    /// A file a step of a workflow run from the window names (`files:`)
    /// that no grant covers (its link's target, when it is a link):
    /// the step fails before any file is read or sent.
    #[error(
        "the window may not read {}: {} outside the workflow's folder and was not picked in an open dialog, dropped on the window or found in a folder picked in this session",
        .path.display(),
        where_it_leads(.path, .target)
    )]
    WorkflowFileNotAllowed {
        /// The file as the step names it, resolved (`~`, `..`, globs).
        path: PathBuf,
        /// Where it leads: `path` itself unless it is a link.
        target: PathBuf,
    },
    /// A workflow file to save that is not a `.yaml` or `.yml` file
    /// directly in the open workflow folder: nothing was written.
    #[error(
        "{} is not a .yaml or .yml file directly in the open workflow folder: nothing was written",
        .0.display()
    )]
    WorkflowPathNotAllowed(PathBuf),
    /// A data folder that is not the current one and that no folder dialog
    /// returned in this session: the settings were not saved.
    #[error(
        "{} was not chosen in a folder dialog of this session: the settings were not saved",
        .0.display()
    )]
    DataFolderNotAllowed(PathBuf),
    /// A native dialog that failed to open or answer.
    #[error("{0}")]
    Dialog(String),
    /// A catalogue model that was not installed: a part refused, the
    /// index unreachable, or the fetch cancelled. Its message is the
    /// fetch's own (`models::catalogue_get::GetError`, converted there so
    /// that errors do not depend on models), and its code what went wrong:
    /// `network`, `io`, or `other` for a refused part (as a model's answer
    /// that is not what was asked).
    #[error("{message}")]
    ModelGet {
        /// What the fetch said.
        message: String,
        /// `Network`, `Io` or `Other`.
        code: ErrorCode,
    },
    /// Something inside Sift that should not happen (a task that
    /// panicked, a stored record it cannot read): not the caller's doing.
    #[error("{0}")]
    Internal(String),
}

/// The stable codes of [`CoreError`], the one list of them (the README's
/// "Error codes" table mirrors it). Serialised in snake_case.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// [`CoreError::Usage`]: the request was wrong as asked.
    Usage,
    /// [`CoreError::NotFound`]: the record asked for does not exist.
    NotFound,
    /// [`CoreError::Schema`]: a schema that is not usable.
    Schema,
    /// [`CoreError::Store`]: the database failed.
    Store,
    /// [`CoreError::Config`]: a configuration file that cannot be read, parsed or written.
    Config,
    /// [`CoreError::Keychain`]: the OS keychain failed.
    Keychain,
    /// [`CoreError::Document`]: a document refused before any request.
    Document,
    /// [`CoreError::LocalServer`]: the local model server could not be started.
    LocalServer,
    /// [`CoreError::Io`]: a file that could not be read or written.
    Io,
    /// [`CoreError::Dialog`]: a native dialog failed.
    Dialog,
    /// [`CoreError::PathNotAllowed`], [`CoreError::ReadNotAllowed`],
    /// [`CoreError::WorkflowFileNotAllowed`],
    /// [`CoreError::WorkflowPathNotAllowed`], [`CoreError::DataFolderNotAllowed`]:
    /// a path the user did not choose for this use.
    PathNotAllowed,
    /// [`CoreError::InvalidWorkflow`]: a workflow file that does not validate.
    InvalidWorkflow,
    /// [`CoreError::ConsentNeeded`]: a workflow folder's shell commands wait for the user's consent.
    ConsentNeeded,
    /// [`CoreError::ToolResultsRequired`]: tool calls still wait for their results.
    ToolResultsRequired,
    /// [`CoreError::ApprovalRequired`]: tool calls still wait for the user's approval.
    ApprovalRequired,
    /// [`CoreError::Internal`]: a fault inside Sift.
    Internal,
    /// A model error (this and the four below are `sift_llm::ErrorCategory`'s): the
    /// provider refused the API key, or none was given where one is needed.
    Auth,
    /// A model error: the request does not suit the model (unknown model, context too
    /// long, bad request).
    Model,
    /// A model error: the provider refused to answer.
    Refusal,
    /// A model error: a connection failure, timeout or overloaded server that outlasted the
    /// retries.
    Network,
    /// A model error of no other category.
    Other,
}

impl ErrorCode {
    /// Every code, in the order of the README's table.
    pub const ALL: [ErrorCode; 21] = [
        Self::Usage,
        Self::NotFound,
        Self::Schema,
        Self::Store,
        Self::Config,
        Self::Keychain,
        Self::Document,
        Self::LocalServer,
        Self::Io,
        Self::Dialog,
        Self::PathNotAllowed,
        Self::InvalidWorkflow,
        Self::ConsentNeeded,
        Self::ToolResultsRequired,
        Self::ApprovalRequired,
        Self::Internal,
        Self::Auth,
        Self::Model,
        Self::Refusal,
        Self::Network,
        Self::Other,
    ];

    /// The code as it is serialised (`not_found`, `local_server`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Usage => "usage",
            Self::NotFound => "not_found",
            Self::Schema => "schema",
            Self::Store => "store",
            Self::Config => "config",
            Self::Keychain => "keychain",
            Self::Document => "document",
            Self::LocalServer => "local_server",
            Self::Io => "io",
            Self::Dialog => "dialog",
            Self::PathNotAllowed => "path_not_allowed",
            Self::InvalidWorkflow => "invalid_workflow",
            Self::ConsentNeeded => "consent_needed",
            Self::ToolResultsRequired => "tool_results_required",
            Self::ApprovalRequired => "approval_required",
            Self::Internal => "internal",
            Self::Auth => "auth",
            Self::Model => "model",
            Self::Refusal => "refusal",
            Self::Network => "network",
            Self::Other => "other",
        }
    }

    /// The CLI's exit code for a failure of this kind: 2 for a usage
    /// error (the command was called wrongly), 1 for everything else.
    pub fn exit_code(self) -> u8 {
        match self {
            Self::Usage => 2,
            _ => 1,
        }
    }
}

/// How a refused workflow file stands: "it is" outside, or, for a link,
/// where it leads, which is.
fn where_it_leads(path: &Path, target: &Path) -> String {
    if path == target {
        "it is".to_owned()
    } else {
        format!("it leads to {}, which is", target.display())
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<ErrorCategory> for ErrorCode {
    fn from(category: ErrorCategory) -> Self {
        match category {
            ErrorCategory::Auth => Self::Auth,
            ErrorCategory::Model => Self::Model,
            ErrorCategory::Refusal => Self::Refusal,
            ErrorCategory::Network => Self::Network,
            ErrorCategory::Other => Self::Other,
        }
    }
}

impl CoreError {
    /// A file that could not be read or written.
    pub fn io(action: &'static str, path: &Path, source: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }

    /// The model error category: a model error's own, `auth` for the
    /// keychain, `other` for the rest.
    pub fn category(&self) -> ErrorCategory {
        match self {
            Self::Llm(e) => e.category,
            Self::Keychain(_) => ErrorCategory::Auth,
            Self::ModelGet {
                code: ErrorCode::Network,
                ..
            } => ErrorCategory::Network,
            _ => ErrorCategory::Other,
        }
    }

    /// The stable code of this error; a model error has its category's code.
    pub fn kind(&self) -> ErrorCode {
        match self {
            Self::Usage(_) => ErrorCode::Usage,
            Self::LocalServer(_) => ErrorCode::LocalServer,
            Self::Keychain(_) => ErrorCode::Keychain,
            Self::Store(_) => ErrorCode::Store,
            Self::Config(_) => ErrorCode::Config,
            Self::Document(_) => ErrorCode::Document,
            Self::Schema(_) => ErrorCode::Schema,
            Self::NotFound(_) => ErrorCode::NotFound,
            Self::ToolResultsRequired { .. } => ErrorCode::ToolResultsRequired,
            Self::ApprovalRequired { .. } => ErrorCode::ApprovalRequired,
            Self::InvalidWorkflow(_) => ErrorCode::InvalidWorkflow,
            Self::ConsentNeeded(_) => ErrorCode::ConsentNeeded,
            Self::Io { .. } => ErrorCode::Io,
            Self::PathNotAllowed(_)
            | Self::ReadNotAllowed(_)
            | Self::WorkflowFileNotAllowed { .. }
            | Self::WorkflowPathNotAllowed(_)
            | Self::DataFolderNotAllowed(_) => ErrorCode::PathNotAllowed,
            Self::Dialog(_) => ErrorCode::Dialog,
            Self::Internal(_) => ErrorCode::Internal,
            Self::Llm(e) => e.category.into(),
            Self::ModelGet { code, .. } => *code,
        }
    }

    /// [`Self::kind`] as its serialised string.
    pub fn code(&self) -> &'static str {
        self.kind().as_str()
    }
}

/// An error as the app's IPC and the CLI's `--json` send it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "IpcError"))]
pub struct ErrorBody {
    /// Stable, for the UI to branch on.
    pub code: ErrorCode,
    /// For people. Never holds a secret.
    pub message: String,
}

impl ErrorBody {
    /// An error body with this code and message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl From<CoreError> for ErrorBody {
    fn from(error: CoreError) -> Self {
        Self {
            code: error.kind(),
            message: error.to_string(),
        }
    }
}

impl From<StoreError> for ErrorBody {
    fn from(error: StoreError) -> Self {
        CoreError::from(error).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_serialises_as_its_string() {
        for code in ErrorCode::ALL {
            assert_eq!(
                serde_json::to_value(code).unwrap(),
                serde_json::Value::String(code.as_str().to_owned())
            );
        }
    }

    #[test]
    fn only_usage_errors_exit_2() {
        assert_eq!(CoreError::Usage("x".into()).kind().exit_code(), 2);
        assert_eq!(CoreError::Internal("x".into()).kind().exit_code(), 1);
        assert_eq!(CoreError::NotFound("x".into()).kind().exit_code(), 1);
    }
}
