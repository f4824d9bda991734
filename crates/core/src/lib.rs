//! Sift's API surface: the one set of functions that the desktop shell,
//! the `sift` CLI and end-to-end tests call. Each takes plain inputs,
//! resolves configuration (flags, then environment, then defaults) and
//! returns [`CoreError`] with a stable code.

mod ask;
mod error;
pub mod keychain;
mod local;
pub mod paths;
pub mod provider;

pub use ask::{AskOutcome, AskRequest, LOCAL_DEFAULT_MODEL, ask};
pub use error::CoreError;
pub use local::{LocalServerHandle, ensure_local_server};
pub use provider::{ProviderChoice, ProviderSettings};
pub use sift_llm as llm;
