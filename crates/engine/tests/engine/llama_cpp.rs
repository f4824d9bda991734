//! Answers from a model on llama.cpp's `llama-server` with a chat template
//! that has tool calls (Qwen2.5-Coder's): the answer tool forced with
//! `"required"` (this server drops a `tool_choice` naming a function), the
//! answer's schema with every key required and the optional ones nullable
//! (a grammar-held small model otherwise writes only the required keys),
//! and a reply in prose corrected once, its next turn held to the schema.

use serde_json::{Value, json};
use sift_engine::structured::{plain_text_correction, schema_instruction};
use sift_engine::{
    AnswerChannel, CallStatus, ContextSettings, Engine, EngineContext, OutputSchema,
    StructuredCallSpec, initial_transcript, run_structured_call,
};
use sift_llm::{Client, ClientConfig, Message, ProviderKind, RetryPolicy, ServerFlavor};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use std::sync::Arc;

fn llama_cpp_engine(server: &ScriptedServer) -> Engine {
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.flavor = ServerFlavor::LlamaCpp;
    config.retry = RetryPolicy::none();
    Engine {
        client: Client::new(config).unwrap(),
        model: "qwen".into(),
        engine_type: "openai".into(),
        context: EngineContext::new(8192),
        settings: ContextSettings::default(),
        answer: AnswerChannel::Tool,
    }
}

/// An invoice whose number and date are optional, as most users' are.
fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "number": {"type": "string"},
            "date": {"type": "string", "format": "date"},
            "total": {"type": "number"},
        },
        "required": ["total"],
    })
}

/// What llama-server is sent for [`schema`]: every key required.
fn every_key_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "number": {"type": ["string", "null"]},
            "date": {"type": ["string", "null"], "format": "date"},
            "total": {"type": "number"},
        },
        "required": ["number", "date", "total"],
    })
}

fn spec() -> StructuredCallSpec {
    let mut spec = StructuredCallSpec::new("invoice", "Read the invoice.");
    spec.response_schema = Some(Arc::new(OutputSchema::new(schema()).unwrap()));
    spec
}

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script::new().with("qwen", replies))
        .await
        .unwrap()
}

#[tokio::test]
async fn the_answer_tool_is_forced_with_required_and_sent_with_every_key() {
    let server = server(vec![Reply::tool_call(
        "submit_output",
        json!({"number": null, "date": "2024-03-01", "total": 12.5}),
    )])
    .await;
    let spec = spec();
    let transcript = initial_transcript(&spec, Message::user("Total 12.50, 1 March 2024")).await;
    let outcome = run_structured_call(&llama_cpp_engine(&server), &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    // The null the every-key schema let the model write is taken out: the
    // answer is what the user's schema describes.
    assert_eq!(
        outcome.output,
        Some(json!({"date": "2024-03-01", "total": 12.5}))
    );
    assert_eq!(outcome.turns, 1);
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "qwen",
            "messages": [
                {"role": "system", "content": "Read the invoice."},
                {"role": "user", "content": "Total 12.50, 1 March 2024"},
            ],
            "tools": [{"type": "function", "function": {
                "name": "submit_output",
                "description": "Submit your final answer. Call this exactly once, when you have the answer.",
                "parameters": every_key_schema(),
            }}],
            "tool_choice": "required",
        })
    );
}

#[tokio::test]
async fn a_reply_in_prose_is_corrected_once_and_the_next_turn_held_to_the_schema() {
    let prose = "The invoice total is 12.50.";
    let server = server(vec![
        Reply::text(prose),
        Reply::text(r#"{"number": "INV-7", "date": null, "total": 12.5}"#),
    ])
    .await;
    let spec = spec();
    let transcript = initial_transcript(&spec, Message::user("Invoice INV-7, total 12.50")).await;
    let outcome = run_structured_call(&llama_cpp_engine(&server), &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(
        outcome.output,
        Some(json!({"number": "INV-7", "total": 12.5}))
    );
    assert_eq!(outcome.turns, 2);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["tool_choice"], json!("required"));
    // Naming the tool would be dropped by this server: the correction's
    // turn is held to the schema by grammar instead, with no tools, at
    // temperature 0 and an eighth of the context at most.
    assert_eq!(
        requests[1].body,
        json!({
            "model": "qwen",
            "messages": [
                {"role": "system", "content": format!(
                    "Read the invoice.\n\n{}", schema_instruction(&every_key_schema())
                )},
                {"role": "user", "content": "Invoice INV-7, total 12.50"},
                {"role": "assistant", "content": prose},
                {"role": "user", "content": plain_text_correction(prose)},
            ],
            "response_format": {"type": "json_schema", "json_schema": {
                "name": "submit_output", "schema": every_key_schema(),
            }},
            "max_tokens": 1024,
            "temperature": 0.0,
            // llama.cpp's DRY sampler, which Sift sends it on a held turn.
            "dry_multiplier": 0.8,
        })
    );
    assert_eq!(outcome.metadata["answer_channel"], json!("json_format"));
}

#[tokio::test]
async fn other_servers_still_name_the_answer_tool_after_prose() {
    let server = server(vec![
        Reply::text("Total 3."),
        Reply::tool_call("submit_output", json!({"total": 3})),
    ])
    .await;
    let mut engine = llama_cpp_engine(&server);
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.retry = RetryPolicy::none();
    engine.client = Client::new(config).unwrap();
    let spec = spec();
    let transcript = initial_transcript(&spec, Message::user("Total 3")).await;
    let outcome = run_structured_call(&engine, &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(outcome.output, Some(json!({"total": 3})));
    let requests = server.requests();
    // A generic server is sent the schema as written and a named tool.
    assert_eq!(
        requests[0].body["tools"][0]["function"]["parameters"],
        schema()
    );
    assert_eq!(
        requests[0].body["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_output"}})
    );
    assert_eq!(
        requests[1].body["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_output"}})
    );
    assert_eq!(requests[1].body.get("response_format"), None);
}
