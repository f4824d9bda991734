//! The one error every command returns: `{code, message}`.

use serde::Serialize;
use sift_core::CoreError;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct IpcError {
    /// Stable, for the UI to branch on: `usage`, `not_found`, `schema`,
    /// `store`, `config`, `keychain`, `document`, `local_server`, `io`,
    /// `dialog`, or a model error's category (`auth`, `model`, `refusal`,
    /// `network`, `other`).
    pub code: String,
    /// For people. Never holds a secret: keys are scrubbed from server
    /// bodies before they become errors.
    pub message: String,
}

impl IpcError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Self::new("usage", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new("not_found", message)
    }

    /// A file the app could not read or write.
    pub fn io(what: &str, path: &std::path::Path, error: &std::io::Error) -> Self {
        Self::new("io", format!("cannot {what} {}: {error}", path.display()))
    }
}

impl From<CoreError> for IpcError {
    fn from(error: CoreError) -> Self {
        Self {
            code: error.code().to_owned(),
            message: error.to_string(),
        }
    }
}

impl From<sift_core::store::StoreError> for IpcError {
    fn from(error: sift_core::store::StoreError) -> Self {
        CoreError::from(error).into()
    }
}

/// What every command returns.
pub type IpcResult<T> = Result<T, IpcError>;
