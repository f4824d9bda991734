use sift_documents::DocumentError;
use sift_engine::SchemaError;
use sift_llm::{ErrorCategory, LlmError, local_server::LocalServerError};
use sift_store::StoreError;

/// Every error the API surface returns. `category` and `code` give callers
/// something stable to branch on; the message is for people.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// The caller asked for something that cannot be done as asked.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Llm(#[from] LlmError),
    #[error(transparent)]
    LocalServer(#[from] LocalServerError),
    #[error("{0}")]
    Keychain(String),
    #[error("configuration: {0}")]
    Config(String),
    /// A file refused before any request (kind, size, encryption, limits).
    #[error(transparent)]
    Document(#[from] DocumentError),
    #[error("storage: {0}")]
    Store(#[from] StoreError),
    #[error("invalid schema: {0}")]
    Schema(#[from] SchemaError),
    /// A session, call or other record that does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A new message while tool calls are pending (seed 003).
    #[error("tool results are required first for: {}", ids.join(", "))]
    ToolResultsRequired { ids: Vec<String> },
    /// A new chat message while tool calls wait for the user's approval.
    #[error("the user must first approve or deny: {}", ids.join(", "))]
    ApprovalRequired { ids: Vec<String> },
}

impl CoreError {
    pub fn category(&self) -> ErrorCategory {
        match self {
            Self::Llm(e) => e.category,
            Self::Usage(_) | Self::LocalServer(_) => ErrorCategory::Other,
            Self::Keychain(_) => ErrorCategory::Auth,
            Self::Config(_)
            | Self::Document(_)
            | Self::Store(_)
            | Self::Schema(_)
            | Self::NotFound(_)
            | Self::ToolResultsRequired { .. }
            | Self::ApprovalRequired { .. } => ErrorCategory::Other,
        }
    }

    /// A stable code for the UI: `usage`, `local_server`, `keychain`, or
    /// the model error's category.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Usage(_) => "usage",
            Self::LocalServer(_) => "local_server",
            Self::Keychain(_) => "keychain",
            Self::Store(_) => "store",
            Self::Config(_) => "config",
            Self::Document(_) => "document",
            Self::Schema(_) => "schema",
            Self::NotFound(_) => "not_found",
            Self::ToolResultsRequired { .. } => "tool_results_required",
            Self::ApprovalRequired { .. } => "approval_required",
            Self::Llm(e) => e.category.as_str(),
        }
    }
}
