//! A model server's reply is read up to a cap, whole or streamed: a
//! larger one is an error, not retried, and never held whole. The caps
//! are lowered here so that a few kilobytes pass them.

use sift_llm::http::{MAX_REPLY_BYTES, MAX_STREAM_BYTES};
use sift_llm::{ApiKey, ChatRequest, Client, ClientConfig, ErrorCategory, Message, ProviderKind};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::{Deltas, KEY, fast_retries, server};

const CAP: usize = 4096;

fn capped_client(server: &ScriptedServer) -> Client {
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.api_key = Some(ApiKey::new(KEY));
    config.retry = fast_retries();
    config.max_reply_bytes = CAP;
    config.max_stream_bytes = CAP;
    Client::new(config).unwrap()
}

fn hi() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("hi")])
}

#[test]
fn the_default_caps_are_16_and_64_mib() {
    let config = ClientConfig::new(ProviderKind::OpenAi, "http://127.0.0.1:1/v1");
    assert_eq!(config.max_reply_bytes, 16 * 1024 * 1024);
    assert_eq!(config.max_stream_bytes, 64 * 1024 * 1024);
    assert_eq!((MAX_REPLY_BYTES, MAX_STREAM_BYTES), (16 << 20, 64 << 20));
}

#[tokio::test]
async fn a_reply_over_the_cap_is_an_error() {
    let server =
        server(Script::new().with("m", [Reply::text("x".repeat(CAP)), Reply::text("small")])).await;
    let client = capped_client(&server);

    let error = client.complete(&hi()).await.unwrap_err();
    assert_eq!(
        error.message,
        "the model server's reply is larger than 4 KiB, the most Sift reads"
    );
    assert_eq!(error.category, ErrorCategory::Other);
    assert_eq!(error.attempts, 1, "the same request gets the same reply");
    assert_eq!(server.requests().len(), 1);

    // A reply under the cap is read as ever.
    let response = client.complete(&hi()).await.unwrap();
    assert_eq!(response.message, Message::assistant("small"));
}

#[tokio::test]
async fn a_stream_over_the_cap_is_an_error() {
    let long = Reply::text("y".repeat(CAP)).chunk_chars(64);
    let server = server(Script::new().with("m", [long, Reply::text("small").chunk_chars(2)])).await;
    let client = capped_client(&server);
    let deltas = Deltas::default();

    let error = client.stream(&hi(), &mut deltas.sink()).await.unwrap_err();
    assert_eq!(
        error.message,
        "the model server's stream is larger than 4 KiB, the most Sift reads"
    );
    assert_eq!(error.category, ErrorCategory::Other);
    assert_eq!(server.requests().len(), 1);
    // Less than the whole text was shown before the cap stopped it.
    assert!(deltas.text().len() < CAP);

    let deltas = Deltas::default();
    let response = client.stream(&hi(), &mut deltas.sink()).await.unwrap();
    assert_eq!(response.message, Message::assistant("small"));
    assert_eq!(deltas.text(), "small");
}
