//! Our client against the real llama.cpp server (`llama-server` serving
//! SmolLM2-135M), started the way the app starts it. These need the local
//! server that `scripts/setup.sh` installs, so they are ignored by default
//! and `scripts/test.sh` runs them with `--include-ignored`.

use std::path::PathBuf;

use serde_json::json;
use sift_llm::local_server::{CONTEXT_PER_SLOT, LocalServer, LocalServerConfig, ServerProps};
use sift_llm::{
    ChatRequest, Client, ClientConfig, JsonAnswerFormat, Message, ProviderKind, ServerFlavor,
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

async fn server() -> &'static LocalServer {
    SERVER
        .get_or_init(|| async {
            let mut config = LocalServerConfig::in_data_dir(&data_dir());
            // SmolLM2, the fast real model: this test is of the server, not of the default model.
            config.model_path = data_dir()
                .join("models")
                .join("SmolLM2-135M-Instruct.Q4_1.gguf");
            // Two slots whatever the machine, for the exact checks below.
            config.slots = 2;
            // Not shared with other Sift processes: no record.
            config.record_path = None;
            config.log_path =
                std::env::temp_dir().join(format!("sift-real-peer-{}.log", std::process::id()));
            LocalServer::start(&config)
                .await
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .await
}

fn server_root(server: &LocalServer) -> String {
    format!("http://127.0.0.1:{}", server.port())
}

async fn client() -> (Client, String) {
    let server = server().await;
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.base_url());
    config.flavor = ServerFlavor::LlamaCpp;
    config.api_key = Some(server.api_key().clone());
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
    // llama-server reports usage at the end of a stream when asked.
    assert!(response.usage.output_tokens > 0, "{:?}", response.usage);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_json_schema_reply_is_held_to_the_schema() {
    // SmolLM2's template has no tool calls, so llama-server ignores a
    // forced tool; a `json_schema` response format is held by grammar.
    let (client, model) = client().await;
    let mut req = request(&model, "Invoice INV-7 totals 12.50 EUR. Record it.");
    req.max_tokens = Some(96);
    req.response_format = Some(JsonAnswerFormat {
        name: "respond".into(),
        schema: json!({
            "type": "object",
            "properties": {"invoice_number": {"type": "string"}, "total": {"type": "number"}},
            "required": ["invoice_number", "total"],
        }),
    });
    let response = client.complete(&req).await.unwrap();
    let arguments: serde_json::Value =
        serde_json::from_str(&response.message.text_content()).unwrap();
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
async fn real_server_reports_its_slots_and_template() {
    let server = server().await;
    assert_eq!(
        server.props(),
        Some(&ServerProps {
            slots: 2,
            context_per_slot: CONTEXT_PER_SLOT,
            vision: false,
        })
    );
    let props: serde_json::Value = reqwest::Client::new()
        .get(format!("{}/props", server_root(server)))
        .bearer_auth(server.api_key().expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(props["chat_template_caps"]["supports_tool_calls"], false);
}

/// Two requests at once each get a slot: a long answer is still being
/// generated (its slot busy, as `/slots` says) when a second request, sent
/// after its first token, has been answered. With one slot the second
/// would wait for the first to end, thousands of tokens later, and no slot
/// would be busy after it (checked by running this with one slot).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_concurrent_requests_run_at_once() {
    let server = server().await;
    let (client, model) = client().await;
    let http = reqwest::Client::new();
    let mut long = http
        .post(format!("{}/chat/completions", server.base_url()))
        .bearer_auth(server.api_key().expose())
        .json(&json!({
            "model": model,
            "messages": [{"role": "user", "content": "Write a very long story."}],
            "stream": true,
            "max_tokens": 6000,
            // llama.cpp's own field: no early stop, so the answer is long.
            "ignore_eos": true,
        }))
        .send()
        .await
        .unwrap();
    let first = long.chunk().await.unwrap().unwrap();
    assert!(String::from_utf8_lossy(&first).starts_with("data: "));
    let short = client
        .complete(&request(&model, "Name a fruit."))
        .await
        .unwrap();
    assert!(!short.message.text_content().trim().is_empty());
    let slots: serde_json::Value = http
        .get(format!("{}/slots", server_root(server)))
        .bearer_auth(server.api_key().expose())
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    // The long answer's slot (the one with its 6000-token limit) is busy.
    // Other tests share the server, so no other slot is looked at.
    let long_running = slots
        .as_array()
        .unwrap()
        .iter()
        .any(|slot| slot["is_processing"] == true && slot["params"]["max_tokens"] == 6000);
    assert!(long_running, "{slots}");
    // Dropping the stream ends the long answer.
    drop(long);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_server_takes_a_tool_call_history() {
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

/// `kill -9` of the process that started the server ends the server too.
/// The test runs itself as a child that starts a server, prints its pid
/// and waits; the child is killed, and the server must go.
#[test]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
fn real_server_dies_with_sift_on_kill_9() {
    use std::io::BufRead;
    const CHILD: &str = "SIFT_LLM_TESTS_SERVER_CHILD";
    if std::env::var_os(CHILD).is_some() {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let mut config = LocalServerConfig::in_data_dir(&data_dir());
            // SmolLM2, the fast real model: this test is of the server, not of the default model.
            config.model_path = data_dir()
                .join("models")
                .join("SmolLM2-135M-Instruct.Q4_1.gguf");
            config.record_path = None;
            config.log_path =
                std::env::temp_dir().join(format!("sift-kill-peer-{}.log", std::process::id()));
            let server = LocalServer::start(&config)
                .await
                .unwrap_or_else(|e| panic!("{e}"));
            println!("server pid {}", server.pid().unwrap());
            std::future::pending::<()>().await;
        });
        return;
    }
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "real_peer::real_server_dies_with_sift_on_kill_9",
            "--include-ignored",
            "--nocapture",
        ])
        .env(CHILD, "1")
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let pid: u32 = stdout
        .lines()
        .map_while(Result::ok)
        .find_map(|line| line.strip_prefix("server pid ").map(str::to_owned))
        .expect("the child printed no server pid")
        .parse()
        .unwrap();
    assert!(running(pid), "the server is not running");
    // SIGKILL: nothing in the child runs any more.
    child.kill().unwrap();
    child.wait().unwrap();
    // The kernel kills the server at once; the bound is far above that.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while running(pid) {
        assert!(
            std::time::Instant::now() < deadline,
            "the server {pid} outlived its parent"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// Whether `pid` is alive: its `/proc` entry exists and is not a zombie
/// (a killed process stays one until something reaps it).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z'))
    })
}
