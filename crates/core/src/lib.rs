//! Sift's API surface: the one set of functions that the desktop shell,
//! the `sift` CLI and end-to-end tests call. Each takes plain inputs,
//! resolves configuration (flags, then environment, then defaults) and
//! returns [`CoreError`] with a stable code.

pub mod app_info;
mod ask;
pub mod atomic_file;
pub mod call_transcript;
pub mod calls;
pub mod chat;
mod chat_files;
pub mod chat_reply;
pub mod chat_stream;
pub mod chat_tools;
pub mod chat_view;
pub mod compaction;
pub mod convert;
mod delimited;
mod error;
pub mod eval;
pub mod evidence;
pub mod export;
pub mod extract;
pub mod history;
pub mod interrupted;
pub mod job_export;
pub mod keychain;
pub mod local;
pub mod local_models;
pub mod model_capabilities;
pub mod models;
pub mod path_grants;
pub mod paths;
pub mod preview;
pub mod prices;
pub mod process_owner;
pub mod provider;
pub mod running;
pub mod schema_check;
pub mod schema_suggestion;
pub mod schemas;
pub mod server_models;
pub mod sessions;
pub mod settings;
pub mod starter_schemas;
pub mod transcripts;
pub mod turns;
pub mod usage;
pub mod workflow_files;
pub mod workflow_runs;
pub mod workflows;
pub mod workspace;

pub use ask::{AskArgs, AskEvent, AskOutcome, AskRequest, ask, ask_streamed};
pub use error::{CoreError, ErrorBody, ErrorCode};
pub use local::{LocalServerHandle, LocalServerOwner, LocalServerStatus, ensure_local_server};
pub use models::{Engines, ModelSelection};
pub use path_grants::PathPolicy;
pub use provider::{KeyOrigin, LOCAL_DEFAULT_MODEL, ProviderKind, ProviderSettings};
pub use running::{RunningGuard, RunningWork, WorkKind};
// The engine's types that callers name, one by one: the shell and the CLI
// reach the other crates only through core.
pub use sift_documents::{
    Content, Documents, OcrMode, OcrOptions, OcrPage, OnPage, PageProgress, PageWord,
};
pub use sift_documents::{DocumentError, ReadOptions, read_documents, render_text, resolve_files};
pub use sift_engine::ChatEvent;
pub use sift_llm::{ApiKey, ToolSpec};
pub use sift_store::{CallStatus, StructuredCall};
pub use sift_workflow::{RunEvent, RunStatus, StepStatus, parse_param_assignment};
pub use turns::{
    HostToolResult, PendingCall, TurnRequest, TurnResult, host_turn, new_session, session_messages,
};
pub use workspace::{Workspace, WorkspaceOptions};
