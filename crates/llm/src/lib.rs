//! Model clients for Sift.
//!
//! - [`message`]: the provider-neutral message model every layer uses.
//! - [`Client`]: one provider (OpenAI-compatible or Anthropic) at one base
//!   URL or several (spread by free capacity, failing over: `endpoints.rs`);
//!   non-streamed and streamed answers, retries with backoff.
//! - [`Capabilities`]: what each kind of server supports, such as how to
//!   force a tool call.
//! - [`ModelFeatures`]: what one model can take (images, tools), from
//!   [`model_probe::ask_server`] where the server tells, else the table of
//!   known families.
//! - [`complete_first`]: fallback across models.
//! - [`local_server`]: the local llama.cpp server that Sift starts on demand.
//! - [`gguf`]: a GGUF model file's name, quantisation and context, from its header.
//! - [`http`]: what every request to a model server keeps to: no
//!   redirects, replies read up to a cap.

mod anthropic;
mod capabilities;
mod client;
mod endpoints;
mod error;
mod fallback;
#[doc(hidden)]
pub mod fuzzing;
pub mod gguf;
mod host;
pub mod http;
mod json;
pub mod local_server;
pub mod message;
mod model_features;
pub mod model_probe;
mod openai;
mod retry;
mod secret;
pub mod sse;
mod stream;

pub use anthropic::DEFAULT_MAX_TOKENS as ANTHROPIC_DEFAULT_MAX_TOKENS;
pub use capabilities::{Capabilities, ForcedTool, ProviderKind, ServerFlavor};
pub use client::{
    Client, ClientConfig, DEFAULT_ANTHROPIC_VERSION, DEFAULT_ENDPOINT_COOLDOWN, RetryNotice,
    is_retried_status,
};
pub use error::{ErrorCategory, LlmError};
pub use fallback::{ModelRoute, complete_first};
pub use host::server_host;
pub use json::canonical_json;
pub use message::{
    ChatRequest, ChatResponse, Image, JsonAnswerFormat, Message, Part, Role, StopReason,
    StreamDelta, ToolCall, ToolChoice, ToolResult, ToolSpec, Usage,
};
pub use model_features::{MODEL_FAMILIES, ModelFamily, ModelFeatures};
pub use retry::{RetryPolicy, parse_retry_after};
pub use secret::ApiKey;
