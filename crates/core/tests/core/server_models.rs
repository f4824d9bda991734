//! A server's model list and the connection test, against the scripted
//! server and a port nothing listens on.

use sift_core::models::provider::{ProviderKind, ProviderSettings};
use sift_core::models::server::{list_models, test_connection};
use sift_scripted_server::{Reply, Script, ScriptedServer};

fn openai(base_url: String) -> ProviderSettings {
    ProviderSettings {
        provider: Some(ProviderKind::OpenAi),
        base_url: Some(base_url),
        extra_base_urls: Vec::new(),
        api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
        api_key_account: None,
        key_scope: Default::default(),
    }
}

#[tokio::test]
async fn the_model_list_is_the_servers_sorted() {
    let server = ScriptedServer::start(
        Script::new()
            .with("zeta", [Reply::text("z")])
            .with("alpha", [Reply::text("a")]),
    )
    .await
    .unwrap();
    let provider = openai(server.openai_base_url());
    assert_eq!(list_models(&provider).await.unwrap(), ["alpha", "zeta"]);
    let report = test_connection(&provider).await;
    assert!(report.ok, "{report:?}");
    assert_eq!(report.message, "connected: 2 models listed");
    assert_eq!(report.models, ["alpha", "zeta"]);
    assert_eq!(report.url, format!("{}/models", server.openai_base_url()));
    assert_eq!(report.code, None);
}

#[tokio::test]
async fn an_unreachable_server_is_a_failed_test_not_an_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    let provider = openai(format!("http://127.0.0.1:{port}/v1"));
    let error = list_models(&provider).await.unwrap_err();
    assert_eq!(error.code(), "network");
    let report = test_connection(&provider).await;
    assert!(!report.ok);
    assert_eq!(report.code.as_deref(), Some("network"));
    assert!(
        report
            .message
            .starts_with(&format!("cannot reach http://127.0.0.1:{port}/v1/models: ")),
        "{}",
        report.message
    );
    assert!(report.models.is_empty());
}

#[tokio::test]
async fn a_server_without_a_model_list_says_so() {
    let server = ScriptedServer::start(Script::new().with("m", [Reply::text("x")]))
        .await
        .unwrap();
    // The scripted server answers 404 on a path it does not serve.
    let provider = openai(format!("{}/nothing", server.openai_base_url()));
    let error = list_models(&provider).await.unwrap_err();
    assert_eq!(error.code(), "model", "{error}");
    assert!(error.to_string().contains("/nothing/models"), "{error}");
}

/// A loopback port that answers every request with `reply` and counts
/// the connections made to it.
async fn answering(
    reply: String,
) -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::atomic::AtomicU32>,
    tokio::task::JoinHandle<()>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let count = std::sync::Arc::new(std::sync::atomic::AtomicU32::new(0));
    let counted = std::sync::Arc::clone(&count);
    let task = tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            // A GET's head fits in one read; what it says does not matter.
            let mut head = [0u8; 4096];
            let _ = stream.read(&mut head).await;
            let _ = stream.write_all(reply.as_bytes()).await;
        }
    });
    (addr, count, task)
}

#[tokio::test]
async fn a_redirected_model_list_is_not_followed() {
    let list = r#"{"data":[{"id":"elsewhere"}]}"#;
    let (witness, reached, witness_task) = answering(format!(
        "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{list}",
        list.len()
    ))
    .await;
    let target = format!("http://{witness}/v1/models");
    let (server, _, server_task) = answering(format!(
        "HTTP/1.1 302 Found\r\nlocation: {target}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
    ))
    .await;
    let provider = openai(format!("http://{server}/v1"));

    let report = test_connection(&provider).await;

    assert!(!report.ok);
    assert_eq!(report.code.as_deref(), Some("other"));
    assert_eq!(
        report.message,
        format!(
            "http://{server}/v1/models: HTTP 302: the model server redirected to {target}; redirects are not followed, so that a key goes only where it was set up (if that address is right, make it the base URL)"
        )
    );
    assert_eq!(reached.load(std::sync::atomic::Ordering::SeqCst), 0);
    witness_task.abort();
    server_task.abort();
}
