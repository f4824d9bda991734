use serde_json::json;
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::{run, sift, stderr, stdout};

async fn server(script: Script) -> ScriptedServer {
    ScriptedServer::start(script).await.unwrap()
}

#[tokio::test]
async fn streams_the_reply_then_one_newline() {
    let server = server(Script::new().with("m", [Reply::text("Hello world").chunk_chars(3)])).await;
    let output = run(sift().args([
        "ask",
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "m",
        "hello",
    ]))
    .await;
    assert_eq!(stderr(&output), "");
    assert_eq!(stdout(&output), "Hello world\n");
    assert_eq!(output.status.code(), Some(0));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].body,
        json!({
            "model": "m",
            "messages": [{"role": "user", "content": "hello"}],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert_eq!(requests[0].header("authorization"), None);
}

#[tokio::test]
async fn no_stream_with_a_system_message() {
    let server = server(Script::new().with("m", [Reply::text("Hi.")])).await;
    let output = run(sift().args([
        "ask",
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "m",
        "--system",
        "Be concise",
        "--no-stream",
        "hello",
    ]))
    .await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), "Hi.\n")
    );
    assert_eq!(
        server.requests()[0].body,
        json!({"model": "m", "messages": [{"role": "system", "content": "Be concise"}, {"role": "user", "content": "hello"}]})
    );
}

#[tokio::test]
async fn several_models_fall_back_without_streaming() {
    let script = Script::new()
        .with(
            "bad-model",
            [Reply::fault(
                400,
                r#"{"error":{"message":"unknown model"}}"#,
            )],
        )
        .with("good-model", [Reply::text("from the second")]);
    let server = server(script).await;
    let output = run(sift().args([
        "ask",
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "bad-model",
        "--model",
        "good-model",
        "hi",
    ]))
    .await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), "from the second\n")
    );
    let sent: Vec<_> = server
        .requests()
        .into_iter()
        .map(|r| (r.body["model"].clone(), r.body.get("stream").cloned()))
        .collect();
    assert_eq!(
        sent,
        vec![(json!("bad-model"), None), (json!("good-model"), None)]
    );
}

#[tokio::test]
async fn defaults_come_from_the_environment() {
    let server = server(Script::new().with("env-model", [Reply::text("ok")])).await;
    let output = run(sift()
        .args(["ask", "hi"])
        .env("SIFT_PROVIDER", "openai")
        .env("SIFT_BASE_URL", server.openai_base_url())
        .env("SIFT_MODEL", "env-model")
        .env("OPENAI_API_KEY", "sk-from-env"))
    .await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), "ok\n")
    );
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-from-env")
    );
}

#[tokio::test]
async fn anthropic_with_its_key_and_headers() {
    let server =
        server(Script::new().with("claude", [Reply::text("Bonjour").chunk_chars(2)])).await;
    let output = run(sift()
        .args([
            "ask",
            "--provider",
            "anthropic",
            "--base-url",
            &server.url(),
            "--model",
            "claude",
            "salut",
        ])
        .env("ANTHROPIC_API_KEY", "sk-ant-secret"))
    .await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), "Bonjour\n")
    );
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some("sk-ant-secret"));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
}

#[tokio::test]
async fn a_failure_exits_1_with_its_category_and_without_the_key() {
    let key = "sk-do-not-print-me";
    let body = format!(r#"{{"error":{{"message":"Incorrect API key provided: {key}"}}}}"#);
    let server = server(Script::new().with("m", [Reply::fault(401, body)])).await;
    let output = run(sift()
        .args([
            "ask",
            "--provider",
            "openai",
            "--base-url",
            &server.openai_base_url(),
            "--model",
            "m",
            "hi",
        ])
        .env("SIFT_API_KEY", key))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "error (auth): HTTP 401: Incorrect API key provided: [redacted]\n"
    );
    // The key was sent: SIFT_API_KEY is the fallback for openai.
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {key}").as_str())
    );
}

#[tokio::test]
async fn an_unreachable_server_is_a_network_error() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = run(sift().args([
        "ask",
        "--provider",
        "openai",
        "--base-url",
        &format!("http://127.0.0.1:{port}/v1"),
        "--model",
        "m",
        "--no-stream",
        "hi",
    ]))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("error (network): cannot connect to the model server"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn usage_errors_exit_2() {
    let output = run(sift().args(["ask", "--provider", "bogus", "hi"])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("invalid value 'bogus' for '--provider"),
        "{}",
        stderr(&output)
    );

    let output = run(sift().args(["ask", "--provider", "openai", "hi"])).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: no model given for provider openai: pass --model or set SIFT_MODEL\n"
    );

    let output = run(sift().args(["ask", "hi"]).env("SIFT_PROVIDER", "cohere")).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "error: unknown provider \"cohere\": use openai, anthropic or local\n"
    );

    let output = run(sift().args(["ask"])).await;
    assert_eq!(output.status.code(), Some(2));
}

/// A data folder of its own, with the local server's record where `sift`
/// looks for it when there is no runtime directory.
struct LocalData(std::path::PathBuf);

impl LocalData {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn record(&self, port: u16, key: &sift_llm::ApiKey) {
        let entry = sift_llm::local_server::record::ServerRecord {
            port,
            // The scripted servers listen in this test process.
            pid: std::process::id(),
            key: key.clone(),
            // The model `sift` wants here: the default file in this data
            // folder's models/ (no choice made, no SIFT_LOCAL_MODEL).
            model: self
                .0
                .join("models")
                .join(sift_llm::local_server::DEFAULT_MODEL_FILE),
        };
        sift_llm::local_server::record::write(&self.0.join("run/local-server.json"), &entry)
            .unwrap();
    }

    /// `sift` with this data folder, no runtime directory, and no
    /// llama-server to start.
    fn sift(&self) -> tokio::process::Command {
        let mut command = sift();
        command
            .env("SIFT_DATA_DIR", &self.0)
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("SIFT_LOCAL_MODEL")
            .env("SIFT_LLAMA_SERVER", self.0.join("no-llama-server"));
        command
    }
}

impl Drop for LocalData {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn llama_cpp(script: Script) -> Script {
    script.answering_as(sift_scripted_server::ServerIdentity::LlamaCpp {
        vision: false,
        supports_tools: None,
        n_ctx: 8192,
        total_slots: 1,
    })
}

#[tokio::test]
async fn local_uses_the_server_its_record_names_with_its_key() {
    let data = LocalData::new("local-record");
    let key = sift_llm::local_server::record::fresh_key().unwrap();
    let server = server(llama_cpp(
        Script::new()
            .with("local", [Reply::text("local hello")])
            .requiring_key(key.expose()),
    ))
    .await;
    data.record(server.addr().port(), &key);
    let output = run(data.sift().args(["ask", "--provider", "local", "hi"])).await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), "local hello\n"),
        "{}",
        stderr(&output)
    );
    // Only the model request is recorded (the checks are GET /props), with the default model
    // and the server's key.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].body["model"], json!("local"));
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("Bearer {}", key.expose()).as_str())
    );
    assert!(!stderr(&output).contains(key.expose()));
    // Every request that reached it (the checks and any capability probe)
    // carried the key: one without it is refused and not recorded.
    let bearer = format!("Bearer {}", key.expose());
    assert!(
        server
            .model_info_requests()
            .iter()
            .all(|r| r.header("authorization") == Some(bearer.as_str()))
    );
}

/// A server at the recorded port that answers without the key is not
/// Sift's: `sift` starts its own instead (here there is none to start),
/// and sends the squatter nothing.
#[tokio::test]
async fn local_does_not_adopt_a_squatter_at_the_recorded_port() {
    let data = LocalData::new("local-squatter");
    let key = sift_llm::local_server::record::fresh_key().unwrap();
    let squatter = server(llama_cpp(
        Script::new().with("local", [Reply::text("stolen")]),
    ))
    .await;
    data.record(squatter.addr().port(), &key);
    let output = run(data.sift().args(["ask", "--provider", "local", "hi"])).await;
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("the local model server is not installed"),
        "{}",
        stderr(&output)
    );
    assert!(squatter.requests().is_empty());
    assert!(
        squatter
            .model_info_requests()
            .iter()
            .all(|r| r.header("authorization").is_none()),
        "the squatter was sent the key"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn local_starts_the_real_server_on_demand_and_stops_it() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let output = run(sift()
        .args([
            "ask",
            "--provider",
            "local",
            "--no-stream",
            "Say hello in one word.",
        ])
        .env("SIFT_LOCAL_PORT", port.to_string()))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let reply = stdout(&output);
    assert!(
        reply.ends_with('\n') && !reply.trim().is_empty(),
        "{reply:?}"
    );
    // The server it started is gone with it.
    let still_there = std::net::TcpStream::connect(("127.0.0.1", port)).is_ok();
    assert!(!still_there, "the local server outlived `sift ask`");
}

#[tokio::test]
#[ignore = "needs a Secret Service (GNOME Keyring) on D-Bus: run scripts/test.sh"]
async fn a_key_in_the_keychain_is_sent_and_can_be_removed() {
    use tokio::io::AsyncWriteExt;

    let account = format!("sift-test-{}", std::process::id());
    let mut set = sift();
    set.args(["key", "set", &account])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let mut child = set.spawn().unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"sk-from-keychain\n")
        .await
        .unwrap();
    let output = child.wait_with_output().await.unwrap();
    assert_eq!(
        (output.status.code(), stderr(&output).as_str()),
        (Some(0), "")
    );

    let server = server(Script::new().with("m", [Reply::text("one").repeated()])).await;
    let ask = |account: &str| {
        let mut command = sift();
        command.args([
            "ask",
            "--provider",
            "openai",
            "--base-url",
            &server.openai_base_url(),
            "--model",
            "m",
            "--api-key-account",
            account,
            "hi",
        ]);
        command
    };
    let output = run(&mut ask(&account)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some("Bearer sk-from-keychain")
    );

    let output = run(sift().args(["key", "delete", &account])).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    run(&mut ask(&account)).await;
    assert_eq!(server.requests()[1].header("authorization"), None);
    // Deleting what is not there is fine.
    let output = run(sift().args(["key", "delete", &account])).await;
    assert_eq!(output.status.code(), Some(0));
}
