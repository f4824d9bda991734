//! The local server answers Sift alone: a key in its environment, a
//! request without it refused, and another process's server used only
//! when its record names it and it proves it is that server. The
//! adoption checks run against scripted servers and plain listeners; the
//! key's path through the real llama-server is ignored by default
//! (`scripts/test.sh` runs it).
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use sift_llm::local_server::record::{self, ServerRecord};
use sift_llm::local_server::{LocalServer, LocalServerConfig, adopt};
use sift_scripted_server::{Script, ScriptedServer, ServerIdentity};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::server;

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "sift-llm-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn llama_cpp() -> Script {
    Script::new().answering_as(ServerIdentity::LlamaCpp {
        vision: false,
        supports_tools: None,
        n_ctx: 8192,
        total_slots: 2,
    })
}

/// The model file a recorded server serves, and the one adoption wants.
fn model() -> PathBuf {
    PathBuf::from("/models/qwen.gguf")
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A scripted llama.cpp server that asks for a fresh key, recorded in
/// `dir` as serving `model`: the server, the record's entry and path.
async fn recorded_server(dir: &TempDir, model: PathBuf) -> (ScriptedServer, ServerRecord, PathBuf) {
    let key = record::fresh_key().unwrap();
    let scripted = server(llama_cpp().requiring_key(key.expose())).await;
    let path = dir.0.join("run/local-server.json");
    let entry = ServerRecord {
        port: scripted.addr().port(),
        // The scripted server listens in this process.
        pid: std::process::id(),
        key,
        model,
    };
    record::write(&path, &entry).unwrap();
    (scripted, entry, path)
}

#[tokio::test]
async fn a_recorded_server_that_asks_for_its_key_is_adopted() {
    let dir = TempDir::new("adopt");
    let (scripted, entry, path) = recorded_server(&dir, model()).await;
    let key = entry.key;
    assert_eq!(mode(&path), 0o600);

    let adopted = adopt(&path, &model()).await.expect("not adopted");
    assert_eq!(adopted.base_url(), scripted.openai_base_url());
    assert_eq!(adopted.api_key(), &key);
    assert_eq!(adopted.props().map(|p| p.slots), Some(2));
    // The one request that passed carried the key.
    let asked = scripted.model_info_requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(
        asked[0].header("authorization"),
        Some(format!("Bearer {}", key.expose()).as_str())
    );
    assert!(adopted.still_recorded(&path));
}

/// A server of another model (the user chose one since it started, or a
/// command names its own) is not used, and is not even asked.
#[tokio::test]
async fn a_recorded_server_of_another_model_is_not_adopted() {
    let dir = TempDir::new("other-model");
    let (scripted, entry, path) =
        recorded_server(&dir, PathBuf::from("/models/smollm2.gguf")).await;

    assert!(adopt(&path, &model()).await.is_none());
    assert!(scripted.model_info_requests().is_empty());
    // The same file by another path (a link) is the same model.
    let linked = dir.0.join("linked.gguf");
    std::fs::write(dir.0.join("real.gguf"), b"GGUF").unwrap();
    std::os::unix::fs::symlink(dir.0.join("real.gguf"), &linked).unwrap();
    let entry = ServerRecord {
        model: dir.0.join("real.gguf"),
        ..entry
    };
    record::write(&path, &entry).unwrap();
    assert!(adopt(&path, &linked).await.is_some());
}

/// A squatter: a plain HTTP server that answers 200 to anything, at the
/// port a stale record names. It is not adopted, and never sees the key.
#[tokio::test]
async fn a_squatter_at_the_recorded_port_is_not_adopted() {
    let dir = TempDir::new("squatter");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let heard = std::sync::Arc::clone(&seen);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buffer = vec![0u8; 8192];
            let n = stream.read(&mut buffer).await.unwrap_or(0);
            heard
                .lock()
                .unwrap()
                .push_str(&String::from_utf8_lossy(&buffer[..n]));
            let body = r#"{"total_slots":1,"default_generation_settings":{"n_ctx":8192}}"#;
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
        }
    });
    let key = record::fresh_key().unwrap();
    let path = dir.0.join("run/local-server.json");
    let entry = ServerRecord {
        port,
        pid: std::process::id(),
        key: key.clone(),
        model: model(),
    };
    record::write(&path, &entry).unwrap();

    assert!(
        adopt(&path, &model()).await.is_none(),
        "the squatter was adopted"
    );
    let seen = seen.lock().unwrap().clone();
    assert!(seen.starts_with("GET /props"), "{seen}");
    assert!(!seen.contains(key.expose()), "the squatter saw the key");
}

/// A squatter that even knows the key (and so refuses without it) is
/// still not adopted when it is not the process the record names: here
/// the record names a `sleep`, which holds no socket.
#[cfg(target_os = "linux")]
#[tokio::test]
async fn a_server_the_recorded_process_does_not_hold_is_not_adopted() {
    let dir = TempDir::new("not-the-process");
    let key = record::fresh_key().unwrap();
    let mimic = server(llama_cpp().requiring_key(key.expose())).await;
    let mut sleeper = tokio::process::Command::new("sleep")
        .arg("30")
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let path = dir.0.join("run/local-server.json");
    let entry = ServerRecord {
        port: mimic.addr().port(),
        pid: sleeper.id().unwrap(),
        key,
        model: model(),
    };
    record::write(&path, &entry).unwrap();

    assert!(adopt(&path, &model()).await.is_none());
    // Nothing was even asked.
    assert!(mimic.model_info_requests().is_empty());
    let _ = sleeper.kill().await;
}

#[tokio::test]
async fn no_record_or_one_naming_nothing_adopts_nothing() {
    let dir = TempDir::new("stale");
    let path = dir.0.join("run/local-server.json");
    assert!(adopt(&path, &model()).await.is_none());
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let entry = ServerRecord {
        port: free,
        pid: std::process::id(),
        key: record::fresh_key().unwrap(),
        model: model(),
    };
    record::write(&path, &entry).unwrap();
    assert!(adopt(&path, &model()).await.is_none());
}

/// The real llama-server with its key: a request without it gets 401, one
/// with it 200; the key is in neither its command line nor its log; its
/// record is 0600 and names it, and goes with it.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local llama.cpp server: run scripts/test.sh"]
async fn real_server_refuses_a_request_without_its_key() {
    let dir = TempDir::new("real-key");
    let home = std::env::var_os("HOME").map(PathBuf::from).unwrap();
    let data_dir = std::env::var_os("SIFT_DATA_DIR")
        .map_or_else(|| home.join(".local/share/sift"), PathBuf::from);
    let mut config = LocalServerConfig::in_data_dir(&data_dir);
    // SmolLM2, the fast real model: this test is of the server, not of the default model.
    config.model_path = data_dir
        .join("models")
        .join("SmolLM2-135M-Instruct.Q4_1.gguf");
    config.slots = 1;
    config.log_path = dir.0.join("logs/llama-server.log");
    let record_path = dir.0.join("run/local-server.json");
    config.record_path = Some(record_path.clone());
    let server = LocalServer::start(&config)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let key = server.api_key().expose().to_owned();
    let models = format!("{}/models", server.base_url());
    let http = reqwest::Client::new();

    let anonymous = http.get(&models).send().await.unwrap();
    assert_eq!(anonymous.status().as_u16(), 401);
    let wrong = http
        .get(&models)
        .bearer_auth("not-the-key")
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status().as_u16(), 401);
    let keyed = http.get(&models).bearer_auth(&key).send().await.unwrap();
    assert_eq!(keyed.status().as_u16(), 200);

    let pid = server.pid().unwrap();
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
    assert!(cmdline.contains("--port"), "{cmdline}");
    assert!(!cmdline.contains(&key), "the key is on the command line");
    let log = std::fs::read_to_string(&config.log_path).unwrap();
    assert!(!log.is_empty());
    assert!(!log.contains(&key), "the key is in the log");

    assert_eq!(mode(&record_path), 0o600);
    assert_eq!(mode(&dir.0.join("run")), 0o700);
    let recorded = record::read(&record_path).unwrap();
    assert_eq!((recorded.port, recorded.pid), (server.port(), pid));
    assert_eq!(recorded.model, config.model_path);
    let adopted = adopt(&record_path, &config.model_path)
        .await
        .expect("not adopted");
    assert_eq!(adopted.base_url(), server.base_url());

    server.stop().await;
    assert!(!record_path.exists(), "the record outlived the server");
}
