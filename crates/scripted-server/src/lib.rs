//! A model server for tests, on loopback. It speaks the OpenAI-compatible
//! chat completions API and Anthropic's Messages API; answers come from a
//! [`Script`] of [`Reply`]s per model (text, tool calls, finish reason,
//! usage, streamed when asked), faults come on demand (a status with body
//! and headers, a delay, a hold until the test releases it ([`Gate`]), a
//! dropped connection, a stream cut short), and
//! every request is recorded for assertions. It can also describe its
//! models as llama.cpp, Ollama or LM Studio do ([`ServerIdentity`]); those
//! requests are recorded apart ([`ScriptedServer::model_info_requests`]).
//!
//! In-process: [`ScriptedServer::start`]. As a process for UI tests: the
//! `sift-scripted-server` binary, controlled over HTTP (`PUT
//! /_scripted/script`, `POST /_scripted/replies`, `GET /_scripted/requests`).

mod http;
mod model_info;
mod script;
mod server;
mod wire;

pub use model_info::{LmStudioModel, ServerIdentity};
pub use script::{Fault, Finish, Reply, Script, ScriptedToolCall, ScriptedUsage};
pub use server::{Gate, RecordedRequest, ScriptedServer};
