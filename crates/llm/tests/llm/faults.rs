use std::sync::{Arc, Mutex};
use std::time::Duration;

use sift_llm::{
    ApiKey, ChatRequest, Client, ClientConfig, ErrorCategory, LlmError, Message, ProviderKind,
    StreamDelta,
};
use sift_scripted_server::{Finish, Reply, Script, ScriptedServer};

use crate::{Deltas, KEY, fast_retries, openai_client, server};

fn hi() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("hi")])
}

/// A client that records each retry's wait.
fn observed(server: &ScriptedServer) -> (Client, Arc<Mutex<Vec<Duration>>>) {
    let waits = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&waits);
    let client = openai_client(server)
        .with_retry_observer(move |notice| sink.lock().unwrap().push(notice.delay));
    (client, waits)
}

async fn fail_with(status: u16, body: &str) -> LlmError {
    let server = server(Script::new().with("m", [Reply::fault(status, body)])).await;
    let error = openai_client(&server).complete(&hi()).await.unwrap_err();
    assert_eq!(
        server.requests().len(),
        1,
        "HTTP {status} must not be retried"
    );
    error
}

#[tokio::test]
async fn each_status_has_its_category_status_and_body() {
    let body = r#"{"error":{"message":"bad key","type":"invalid_request_error"}}"#;
    let error = fail_with(401, body).await;
    assert_eq!(error.category, ErrorCategory::Auth);
    assert_eq!(error.status, Some(401));
    assert_eq!(error.body.as_deref(), Some(body));
    assert_eq!(error.message, "HTTP 401: bad key");

    assert_eq!(fail_with(403, "{}").await.category, ErrorCategory::Auth);
    let error = fail_with(404, r#"{"error":{"message":"model 'm' not found"}}"#).await;
    assert_eq!(
        (error.category, error.message.as_str()),
        (ErrorCategory::Model, "HTTP 404: model 'm' not found")
    );
    assert_eq!(
        fail_with(400, r#"{"error":{"message":"bad"}}"#)
            .await
            .category,
        ErrorCategory::Model
    );
    let error = fail_with(418, "teapot").await;
    assert_eq!(
        (error.category, error.message.as_str()),
        (ErrorCategory::Other, "HTTP 418: teapot")
    );
}

#[tokio::test]
async fn context_length_is_a_model_error_even_as_a_500() {
    let body = r#"{"error":{"message":"Requested tokens (3000) exceed context window of 2048"}}"#;
    let error = fail_with(500, body).await;
    assert_eq!(error.category, ErrorCategory::Model);
}

#[tokio::test]
async fn content_filter_is_a_refusal_and_is_not_retried() {
    let server = server(Script::new().with(
        "m",
        [Reply::text("").finish(Finish::Refusal), Reply::text("x")],
    ))
    .await;
    let error = openai_client(&server).complete(&hi()).await.unwrap_err();
    assert_eq!(error.category, ErrorCategory::Refusal);
    assert_eq!(
        error.message,
        "the model refused to answer (content_filter)"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn transient_failures_back_off_exponentially_then_fail_as_network() {
    let server = server(Script::new().with("m", (0..4).map(|_| Reply::fault(503, "busy")))).await;
    let (client, waits) = observed(&server);
    let error = client.complete(&hi()).await.unwrap_err();

    assert_eq!(error.category, ErrorCategory::Network);
    assert_eq!(error.status, Some(503));
    assert_eq!(error.attempts, 4);
    assert_eq!(server.requests().len(), 4);
    assert_eq!(
        *waits.lock().unwrap(),
        vec![
            Duration::from_millis(10),
            Duration::from_millis(20),
            Duration::from_millis(40)
        ]
    );
}

#[tokio::test]
async fn every_transient_status_is_retried() {
    for status in [429, 500, 502, 503, 529] {
        let server =
            server(Script::new().with("m", [Reply::fault(status, "{}"), Reply::text("ok")])).await;
        let response = openai_client(&server).complete(&hi()).await.unwrap();
        assert_eq!(response.message.text_content(), "ok", "status {status}");
        assert_eq!(server.requests().len(), 2, "status {status}");
    }
}

#[tokio::test]
async fn retry_after_is_honoured() {
    let server = server(Script::new().with(
        "m",
        [
            Reply::fault(429, "{}").header("retry-after", "1"),
            Reply::text("ok"),
        ],
    ))
    .await;
    let (client, waits) = observed(&server);
    let started = std::time::Instant::now();
    client.complete(&hi()).await.unwrap();
    assert_eq!(*waits.lock().unwrap(), vec![Duration::from_secs(1)]);
    assert!(started.elapsed() >= Duration::from_secs(1));
}

#[tokio::test]
async fn retry_after_beyond_the_limit_fails_at_once() {
    let server = server(Script::new().with(
        "m",
        [Reply::fault(429, r#"{"error":{"message":"slow down"}}"#).header("Retry-After", "3600")],
    ))
    .await;
    let error = openai_client(&server).complete(&hi()).await.unwrap_err();
    assert_eq!(error.category, ErrorCategory::Network);
    assert_eq!(
        error.message,
        "HTTP 429: slow down (the server asked to wait longer than 5 s)"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_dropped_connection_is_retried() {
    let server =
        server(Script::new().with("m", [Reply::dropped_connection(), Reply::text("ok")])).await;
    let response = openai_client(&server).complete(&hi()).await.unwrap();
    assert_eq!(response.message.text_content(), "ok");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_refused_connection_fails_as_network_after_retries() {
    // Bind and release a port so that nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = ClientConfig::new(ProviderKind::OpenAi, format!("http://127.0.0.1:{port}/v1"));
    config.retry = fast_retries();
    let error = Client::new(config)
        .unwrap()
        .complete(&hi())
        .await
        .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Network);
    assert_eq!(error.attempts, 4);
    assert!(
        error
            .message
            .starts_with("cannot connect to the model server"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn a_stream_cut_before_its_first_delta_is_retried() {
    // Event 0 is the role-only chunk, which carries no delta.
    let server = server(Script::new().with(
        "m",
        [Reply::text("lost").cut_after_events(1), Reply::text("done")],
    ))
    .await;
    let deltas = Deltas::default();
    let response = openai_client(&server)
        .stream(&hi(), &mut deltas.sink())
        .await
        .unwrap();
    assert_eq!(deltas.text(), "done");
    assert_eq!(response.message.text_content(), "done");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn an_empty_stream_ended_without_a_finish_reason_is_retried() {
    // The role-only chunk, then `[DONE]`: an interrupted answer, not an empty one.
    let server = server(Script::new().with(
        "m",
        [
            Reply::text("lost").done_after_events(1),
            Reply::text("whole"),
        ],
    ))
    .await;
    let deltas = Deltas::default();
    let response = openai_client(&server)
        .stream(&hi(), &mut deltas.sink())
        .await
        .unwrap();
    assert_eq!(response.message.text_content(), "whole");
    assert_eq!(server.requests().len(), 2);

    let once =
        crate::server(Script::new().with("m", [Reply::text("lost").done_after_events(1)])).await;
    let mut config = ClientConfig::new(ProviderKind::OpenAi, once.openai_base_url());
    config.retry = sift_llm::RetryPolicy::none();
    let error = Client::new(config)
        .unwrap()
        .stream(&hi(), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Network);
    assert_eq!(
        error.message,
        "the stream ended before the answer was complete"
    );
}

#[tokio::test]
async fn text_ended_by_done_without_a_finish_reason_is_kept() {
    // Some servers omit the finish reason; the text that came is the answer.
    let server = server(Script::new().with(
        "m",
        [Reply::text("abcdefgh").chunk_chars(4).done_after_events(3)],
    ))
    .await;
    let response = openai_client(&server)
        .stream(&hi(), &mut |_| {})
        .await
        .unwrap();
    assert_eq!(response.message.text_content(), "abcdefgh");
    assert_eq!(response.stop, sift_llm::StopReason::End);
}

#[tokio::test]
async fn a_stream_cut_after_a_delta_is_final() {
    let server = server(
        Script::new().with(
            "m",
            [
                Reply::text("partial answer")
                    .chunk_chars(7)
                    .cut_after_events(2),
                Reply::text("never"),
            ],
        ),
    )
    .await;
    let deltas = Deltas::default();
    let error = openai_client(&server)
        .stream(&hi(), &mut deltas.sink())
        .await
        .unwrap_err();
    assert_eq!(deltas.all(), vec![StreamDelta::Text("partial".into())]);
    assert_eq!(error.category, ErrorCategory::Network);
    assert!(
        error.message.starts_with("the stream was cut"),
        "{}",
        error.message
    );
    assert_eq!(error.attempts, 1);
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_silent_stream_times_out() {
    let server = server(
        Script::new().with(
            "m",
            // Silent for good after the first piece of text: the client's
            // 100 ms go by, however slow the machine.
            [Reply::text("slow text")
                .chunk_chars(2)
                .held_after_events("never", 2)],
        ),
    )
    .await;
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.retry = sift_llm::RetryPolicy::none();
    config.stream_idle_timeout = Duration::from_millis(100);
    let error = Client::new(config)
        .unwrap()
        .stream(&hi(), &mut |_| {})
        .await
        .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Network);
    assert_eq!(error.message, "the stream went silent for 100 ms");
}

#[tokio::test]
async fn a_slow_answer_times_out_and_is_retried() {
    // "late" is held for good, so it always times out; the timeout is far
    // above what "on time" needs on loopback, so that one never does.
    let script = Script::new().with(
        "m",
        [Reply::text("late").held("never"), Reply::text("on time")],
    );
    let server = server(script).await;
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.retry = fast_retries();
    config.request_timeout = Duration::from_secs(2);
    let response = Client::new(config.clone())
        .unwrap()
        .complete(&hi())
        .await
        .unwrap();
    assert_eq!(response.message.text_content(), "on time");
    assert_eq!(server.requests().len(), 2);

    server.set_script(Script::new().with("m", [Reply::text("late").held("never")]));
    config.retry = sift_llm::RetryPolicy::none();
    let error = Client::new(config)
        .unwrap()
        .complete(&hi())
        .await
        .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Network);
    assert!(
        error.message.starts_with("the request timed out"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn the_key_never_appears_in_errors_or_debug_output() {
    let echo =
        format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}. Check it."}}}}"#);
    let server = server(Script::new().with(
        "m",
        [Reply::fault(401, echo.clone()), Reply::fault(503, echo)],
    ))
    .await;
    let client = openai_client(&server);

    let error = client.complete(&hi()).await.unwrap_err();
    assert_eq!(error.category, ErrorCategory::Auth);
    assert_eq!(
        error.message,
        "HTTP 401: Incorrect API key provided: [redacted]. Check it."
    );
    for shown in [
        error.to_string(),
        format!("{error:?}"),
        error.body.clone().unwrap_or_default(),
    ] {
        assert!(!shown.contains(KEY), "key leaked in {shown}");
    }
    let error = client.stream(&hi(), &mut |_| {}).await;
    assert!(!format!("{error:?}").contains(KEY));

    assert!(!format!("{client:?}").contains(KEY));
    assert_eq!(format!("{:?}", ApiKey::new(KEY)), "ApiKey([redacted])");
    // The key still went where it belongs.
    assert_eq!(
        server.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}
