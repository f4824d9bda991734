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
