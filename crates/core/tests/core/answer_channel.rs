//! How an extraction asks for its answer, chosen from what the model's
//! server says: a llama.cpp whose chat template has no tool calls gets a
//! reply held to the schema (`response_format`), one with tool calls gets
//! the answer tool. Either way the stored transcript records the answer as
//! the `submit_output` call and its result.

use serde_json::{Value, json};
use sift_core::ModelOverride;
use sift_core::extract::{ExtractOptions, create_job, run_job};
use sift_engine::structured::schema_instruction;
use sift_scripted_server::{Reply, Script, ScriptedServer, ServerIdentity};
use sift_store::{DocumentStatus, Store};
use tokio_util::sync::CancellationToken;

use crate::{TempDir, selection};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"total": {"type": "string"}},
        "required": ["total"],
    })
}

fn llama_cpp(supports_tools: bool) -> ServerIdentity {
    ServerIdentity::LlamaCpp {
        vision: false,
        supports_tools: Some(supports_tools),
        n_ctx: 8192,
        total_slots: 2,
    }
}

/// Extracts `a.txt` on the model `m` and returns the stored call's
/// transcript.
async fn extract(server: &ScriptedServer, dir: &TempDir) -> Value {
    extract_with(server, dir, Vec::new()).await
}

/// [`extract`] with the configuration file's `[[models]]` tables.
async fn extract_with(
    server: &ScriptedServer,
    dir: &TempDir,
    overrides: Vec<ModelOverride>,
) -> Value {
    let store = Store::open(dir.db()).unwrap();
    let doc = dir.0.join("a.txt");
    std::fs::write(&doc, "Total due: 9.00\n").unwrap();
    let job = create_job(&store, "receipt", &schema(), None, &[doc], &["m".into()]).unwrap();
    let mut options = ExtractOptions::new(selection(server, &["m"]));
    options.selection.overrides = overrides;
    run_job(&store, &job.id, options, |_| {}, CancellationToken::new())
        .await
        .unwrap();
    let document = &store.extraction_documents(&job.id).unwrap()[0];
    assert_eq!(document.status, DocumentStatus::Completed);
    let call = store
        .get_call(document.call_id.as_deref().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(call.output, Some(json!({"total": "9.00"})));
    call.transcript.unwrap()
}

#[tokio::test]
async fn a_template_without_tool_calls_gets_its_reply_held_to_the_schema() {
    let dir = TempDir::new("answer-json-format");
    let server = ScriptedServer::start(
        Script::new()
            .answering_as(llama_cpp(false))
            .with("m", [Reply::text(r#"{"total": "9.00"}"#)]),
    )
    .await
    .unwrap();
    let transcript = extract(&server, &dir).await;

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "submit_output", "schema": schema()}})
    );
    assert_eq!((body.get("tools"), body.get("tool_choice")), (None, None));
    // An eighth of the 128,000-token context assumed for this provider.
    assert_eq!(body["max_tokens"], 16_000);
    // The schema leads the request, the same for every document of a job.
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": schema_instruction(&schema())})
    );
    let transcript = transcript.as_array().unwrap();
    let last_two: Vec<Value> = transcript[transcript.len() - 2..].to_vec();
    assert_eq!(
        last_two,
        [
            json!({"role": "assistant", "parts": [{"type": "tool_call", "id": "text_answer",
                   "name": "submit_output", "arguments": "{\"total\":\"9.00\"}"}]}),
            json!({"role": "tool", "parts": [{"type": "tool_result", "call_id": "text_answer",
                   "content": "Output accepted.", "is_error": false}]}),
        ]
    );
}

#[tokio::test]
async fn a_template_with_tool_calls_gets_the_answer_tool() {
    let dir = TempDir::new("answer-tool");
    let server = ScriptedServer::start(Script::new().answering_as(llama_cpp(true)).with(
        "m",
        [Reply::tool_call("submit_output", json!({"total": "9.00"}))],
    ))
    .await
    .unwrap();
    extract(&server, &dir).await;

    let body = &server.requests()[0].body;
    assert_eq!(body.get("response_format"), None);
    assert_eq!(body["tools"][0]["function"]["name"], "submit_output");
}

#[tokio::test]
async fn the_users_override_that_a_model_takes_no_tools_decides_its_channel() {
    let dir = TempDir::new("answer-override");
    // The server says the template has tool calls; the user says otherwise.
    let server = ScriptedServer::start(
        Script::new()
            .answering_as(llama_cpp(true))
            .with("m", [Reply::text(r#"{"total": "9.00"}"#)]),
    )
    .await
    .unwrap();
    let no_tools = ModelOverride {
        provider: "openai".into(),
        model: "m".into(),
        images: None,
        tools: Some(false),
    };
    extract_with(&server, &dir, vec![no_tools]).await;

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(
        body["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "submit_output", "schema": schema()}})
    );
    assert_eq!((body.get("tools"), body.get("tool_choice")), (None, None));
}
