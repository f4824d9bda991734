//! Sift's engine: structured calls (a tool loop ending in a validated
//! answer), tools, and what of a conversation goes into each request.
//!
//! - [`structured`]: [`run_structured_call`], its spec, corrections and outcome.
//! - [`tool`]: the [`Tool`] trait that built-in tools and workflow DAGs implement.
//! - [`schema`]: answer schemas, checked, compiled once, with path-led errors.
//! - [`context`]: the tool-result and image windows.

pub mod context;
pub mod schema;
pub mod structured;
pub mod tool;

pub use context::{ContextSettings, EngineContext, build_context};
pub use schema::{OutputSchema, SchemaError};
pub use structured::{
    ANSWER_TOOL, CallOutcome, CallStatus, Engine, StructuredCallSpec, initial_transcript,
    run_structured_call, transcript_for_storage,
};
pub use tool::{FnTool, PreSeedCall, Tool, ToolError, ToolOutput, Toolkit};
