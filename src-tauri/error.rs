//! The one error every command returns: `{code, message}`.

use serde::Serialize;
use sift_core::CoreError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IpcError {
    /// Stable, for the UI to branch on: `usage`, `local_server`, or a model
    /// error's category (`auth`, `model`, `refusal`, `network`, `other`).
    pub code: String,
    /// For people.
    pub message: String,
}

impl From<CoreError> for IpcError {
    fn from(error: CoreError) -> Self {
        Self {
            code: error.code().to_owned(),
            message: error.to_string(),
        }
    }
}
