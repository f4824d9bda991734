//! Structured calls against the scripted model server on loopback: the
//! exact requests (corrections, stubs, forced tools) and the outcomes; and
//! one against the real llama.cpp server (ignored by default).
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

mod chat;
mod context;
mod host_turn;
mod json_format;
mod llama_cpp;
mod real_peer;
mod structured;

use std::sync::Arc;

use serde_json::{Value, json};
use sift_engine::{
    AnswerChannel, ContextSettings, Engine, EngineContext, OutputSchema, StructuredCallSpec,
};
use sift_llm::{Client, ClientConfig, ProviderKind, RetryPolicy};
use sift_scripted_server::ScriptedServer;

pub fn engine(server: &ScriptedServer) -> Engine {
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.retry = RetryPolicy::none();
    Engine {
        client: Client::new(config).unwrap(),
        model: "m".into(),
        engine_type: "openai".into(),
        context: EngineContext::new(8192),
        settings: ContextSettings::default(),
        answer: AnswerChannel::Tool,
    }
}

pub fn invoice_schema() -> Value {
    json!({
        "type": "object",
        "properties": {"number": {"type": "string"}, "total": {"type": "number"}},
        "required": ["number", "total"],
    })
}

pub fn invoice_spec() -> StructuredCallSpec {
    let mut spec = StructuredCallSpec::new("invoice", "Read the invoice.");
    spec.response_schema = Some(Arc::new(OutputSchema::new(invoice_schema()).unwrap()));
    spec
}
