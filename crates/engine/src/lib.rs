//! Sift's engine: structured calls (a tool loop ending in a validated
//! answer), tools, and what of a conversation goes into each request.
//!
//! - [`structured`]: [`run_structured_call`], its spec, corrections and outcome
//!   (`structured/run.rs`: the loop itself, turn by turn).
//! - [`tool`]: the [`Tool`] trait that built-in tools and workflow DAGs implement.
//! - [`schema`]: answer schemas, checked, compiled once, with path-led errors.
//! - [`context`]: the tool-result and image windows.
//! - [`host_turn`]: [`run_host_turn`], one model call of a turn whose tools the host runs.
//! - [`chat`]: [`run_chat_turn`], a streamed chat turn whose tools run here, with approvals
//!   and refusal fallback across a tier of models.

pub mod chat;
pub mod context;
pub mod host_turn;
pub mod schema;
pub mod structured;
pub mod tool;

pub use chat::{
    ChatEvent, ChatInput, ChatOutcome, ChatTurn, DEFAULT_MAX_ITERATIONS, DENIED_TOOL_CALL,
    ResultsSink, SuspendedChat, run_chat_turn,
};
pub use context::{ContextSettings, EngineContext, build_context};
pub use host_turn::{
    HostTurn, HostTurnError, SignalExtractor, TurnInput, TurnOutcome, pending_calls, run_host_turn,
};
pub use schema::{OutputSchema, SchemaError};
pub use structured::{
    ANSWER_TOOL, AnswerChannel, CallOutcome, CallStatus, Engine, StructuredCallSpec,
    initial_transcript, run_structured_call, transcript_for_storage,
};
pub use tool::{FnTool, PreSeedCall, Tool, ToolError, ToolOutput, Toolkit};
