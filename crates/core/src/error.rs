use sift_llm::{ErrorCategory, LlmError, local_server::LocalServerError};

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
}

impl CoreError {
    pub fn category(&self) -> ErrorCategory {
        match self {
            Self::Llm(e) => e.category,
            Self::Usage(_) | Self::LocalServer(_) => ErrorCategory::Other,
            Self::Keychain(_) => ErrorCategory::Auth,
        }
    }

    /// A stable code for the UI: `usage`, `local_server`, `keychain`, or
    /// the model error's category.
    pub fn code(&self) -> &'static str {
        match self {
            Self::Usage(_) => "usage",
            Self::LocalServer(_) => "local_server",
            Self::Keychain(_) => "keychain",
            Self::Llm(e) => e.category.as_str(),
        }
    }
}
