//! Sift's API surface: the one set of functions that the desktop shell,
//! the `sift` CLI and end-to-end tests call. Each takes plain inputs,
//! resolves configuration (flags, then environment, then defaults) and
//! returns [`CoreError`] with a stable code.

mod ask;
pub mod calls;
pub mod chat;
pub mod chat_tools;
pub mod compaction;
pub mod config;
pub mod convert;
mod error;
pub mod eval;
pub mod export;
pub mod extract;
pub mod history;
pub mod job_export;
pub mod keychain;
pub mod local;
pub mod models;
pub mod path_grants;
pub mod paths;
pub mod preview;
pub mod provider;
pub mod running;
pub mod schema_check;
pub mod schemas;
pub mod server_models;
pub mod settings;
pub mod storage;
pub mod turns;
pub mod workflows;
pub mod workspace;

pub use ask::{AskOutcome, AskRequest, LOCAL_DEFAULT_MODEL, ask};
pub use error::{CoreError, ErrorBody, ErrorCode};
pub use local::{LocalServerHandle, LocalServerOwner, LocalServerStatus, ensure_local_server};
pub use models::{Engines, ModelSelection};
pub use path_grants::PathPolicy;
pub use provider::{ProviderChoice, ProviderSettings};
pub use running::{RunningGuard, RunningWork, WorkKind};
pub use sift_documents as documents;
pub use sift_engine as engine;
pub use sift_llm as llm;
pub use sift_store as store;
pub use sift_workflow as workflow;
pub use storage::open_store;
pub use turns::{
    HostToolResult, PendingCall, TurnRequest, TurnResult, host_turn, new_session, session_messages,
};
pub use workspace::{Workspace, WorkspaceOptions};
