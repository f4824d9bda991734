//! Sift's API surface: the one set of functions that the desktop shell,
//! the `sift` CLI and end-to-end tests call. Each takes plain inputs,
//! resolves configuration (flags, then environment, then defaults) and
//! returns [`CoreError`] with a stable code.

#![deny(missing_docs)]
pub mod app_info;
mod atomic_file;
pub mod calls;
pub mod chat;
pub mod config;
mod delimited;
mod error;
pub mod eval;
pub mod evidence;
pub mod extract;
mod interrupted;
pub mod models;
mod path_grants;
pub mod paths;
mod process_owner;
mod running;
pub mod schemas;
pub mod settings;
mod shell_commands;
pub mod transcripts;
pub mod usage;
pub mod workflows;
pub mod workspace;

pub use calls::ask::{AskOutcome, AskRequest, ask};
pub use error::{CoreError, ErrorBody, ErrorCode};
pub use models::local::{
    LocalServerHandle, LocalServerOwner, LocalServerStatus, ensure_local_server,
};
pub use models::provider::{KeyOrigin, LOCAL_DEFAULT_MODEL, ProviderKind, ProviderSettings};
pub use models::{Engines, ModelOverride, ModelSelection};
pub use path_grants::PathPolicy;
pub use running::{RunningGuard, RunningWork, WorkKind};
pub use settings::ask::{AskArgs, AskEvent, ask_streamed};
// The engine's types that callers name, one by one: the shell and the CLI
// reach the other crates only through core.
pub use calls::turns::{
    HostToolResult, PendingCall, TurnRequest, TurnResult, host_turn, new_session, session_messages,
};
pub use sift_documents::{
    Content, Documents, OcrMode, OcrOptions, OcrPage, OnPage, PageProgress, PageWord, TextOrder,
};
pub use sift_documents::{DocumentError, ReadOptions, read_documents, render_text, resolve_files};
// Reading each document in a child process: the CLI and the app start
// themselves as reader processes (sift_documents::reader_process).
pub use sift_documents::{
    READER_ARGUMENT, ReaderCommand, ReaderLimits, ReaderStop, is_reader_invocation,
    isolate_readers, serve_reader, start_reading_in_child_processes,
};
pub use sift_engine::ChatEvent;
pub use sift_llm::{ApiKey, ToolSpec};
pub use sift_store::{CallStatus, StructuredCall};
pub use sift_workflow::{FileGate, RunEvent, RunStatus, StepStatus, parse_param_assignment};
pub use workspace::{Workspace, WorkspaceOptions};
