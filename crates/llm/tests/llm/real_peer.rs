//! Our client against the real llama.cpp server (llama-cpp-python serving
//! SmolLM2-135M), started the way the app starts it. These need the local
//! server that `scripts/setup.sh` installs, so they are ignored by default
//! and `scripts/test.sh` runs them with `--include-ignored`.

use std::path::PathBuf;

use serde_json::json;
use sift_llm::local_server::{LocalServer, LocalServerConfig};
use sift_llm::{
    Capabilities, ChatRequest, Client, ClientConfig, Message, ProviderKind, ServerFlavor,
    StopReason, ToolSpec,
};
use tokio::sync::OnceCell;

const WHY: &str = "needs the local llama.cpp server: run scripts/test.sh";

fn data_dir() -> PathBuf {
    std::env::var_os("SIFT_DATA_DIR")
        .map(PathBuf::from)
        .or_else(|| dirs_data().map(|d| d.join("sift")))
        .expect("no data directory")
}

fn dirs_data() -> Option<PathBuf> {
    std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
}

/// One server for all cases: starting it takes seconds and the machine has
/// two cores. It lives until the test process exits (and is killed with it).
static SERVER: OnceCell<LocalServer> = OnceCell::const_new();

async fn client() -> (Client, String) {
    let server = SERVER
        .get_or_init(|| async {
            let mut config = LocalServerConfig::in_data_dir(&data_dir());
            config.log_path =
                std::env::temp_dir().join(format!("sift-real-peer-{}.log", std::process::id()));
            LocalServer::start(&config)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .await;
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.base_url());
    config.flavor = ServerFlavor::LlamaCpp;
    (
        Client::new(config).unwrap(),
        server.model_alias().to_owned(),
    )
}

fn request(model: &str, prompt: &str) -> ChatRequest {
    let mut req = ChatRequest::new(
        model,
        vec![
            Message::system("You are a helpful assistant."),
            Message::user(prompt),
        ],
    );
    req.max_tokens = Some(24);
    req.temperature = Some(0.0);
    req
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_plain_completion() {
    let _ = WHY;
    let (client, model) = client().await;
    let response = client
        .complete(&request(&model, "Say hello."))
        .await
        .unwrap();
    assert!(!response.message.text_content().trim().is_empty());
    assert!(
        matches!(response.stop, StopReason::End | StopReason::MaxTokens),
        "{:?}",
        response.stop
    );
    assert!(
        response.usage.input_tokens > 5 && response.usage.output_tokens > 0,
        "{:?}",
        response.usage
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_streamed_completion() {
    let (client, model) = client().await;
    let mut pieces = Vec::new();
    let response = client
        .stream(&request(&model, "Count from one to five."), &mut |d| {
            pieces.push(d);
        })
        .await
        .unwrap();
    let streamed: String = pieces
        .iter()
        .filter_map(|d| match d {
            sift_llm::StreamDelta::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert!(pieces.len() > 2, "expected several deltas, got {pieces:?}");
    assert_eq!(streamed, response.message.text_content());
    assert!(!streamed.trim().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_forced_tool_call_has_json_arguments() {
    let (client, model) = client().await;
    let mut req = request(&model, "Invoice INV-7 totals 12.50 EUR. Record it.");
    req.max_tokens = Some(96);
    req.tools = vec![ToolSpec {
        name: "respond".into(),
        description: "Record the invoice".into(),
        parameters: json!({
            "type": "object",
            "properties": {"invoice_number": {"type": "string"}, "total": {"type": "number"}},
            "required": ["invoice_number", "total"],
        }),
    }];
    // The server ignores "required"; the capability table knows to name it.
    req.tool_choice = Some(
        Capabilities::for_server(ProviderKind::OpenAi, ServerFlavor::LlamaCpp)
            .force_tool("respond"),
    );
    let response = client.complete(&req).await.unwrap();
    let call = response
        .message
        .tool_calls()
        .next()
        .unwrap_or_else(|| panic!("no tool call in {response:?}"));
    assert_eq!(call.name, "respond");
    let arguments = call.parsed_arguments().unwrap();
    assert!(
        arguments
            .get("invoice_number")
            .is_some_and(|v| v.is_string()),
        "{arguments}"
    );
    assert!(
        arguments.get("total").is_some_and(|v| v.is_number()),
        "{arguments}"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_concurrent_requests_queue_instead_of_interrupting() {
    // By default llama-cpp-python ends a streamed answer with an empty
    // `[DONE]` when another request arrives; our launcher turns that off.
    let (client, model) = client().await;
    let first = request(&model, "Name a colour.");
    let second = request(&model, "Name a fruit.");
    let mut sink_a = |_| {};
    let mut sink_b = |_| {};
    let (a, b) = tokio::join!(
        client.stream(&first, &mut sink_a),
        client.stream(&second, &mut sink_b)
    );
    assert!(!a.unwrap().message.text_content().trim().is_empty());
    assert!(!b.unwrap().message.text_content().trim().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_server_takes_a_tool_call_history() {
    // llama-cpp-python answers `content: null` beside tool calls with a 500.
    let (client, model) = client().await;
    let mut req = request(&model, "What is the weather in Oslo?");
    req.messages.push(Message {
        role: sift_llm::Role::Assistant,
        parts: vec![sift_llm::Part::ToolCall(sift_llm::ToolCall::new(
            "call_1",
            "weather",
            &json!({"city": "Oslo"}),
        ))],
    });
    req.messages
        .push(Message::tool_result("call_1", "sunny, 21 C", false));
    req.tools = vec![ToolSpec {
        name: "weather".into(),
        description: "The weather in a city".into(),
        parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}}),
    }];
    let response = client.complete(&req).await.unwrap();
    assert!(
        !response.message.text_content().trim().is_empty()
            || response.message.tool_calls().next().is_some()
    );
}
