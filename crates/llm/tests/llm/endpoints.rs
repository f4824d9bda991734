//! Several endpoints behind one client: requests spread by free capacity,
//! failover at once from a failing endpoint, its cooldown, and the error
//! when every endpoint is down. Each endpoint is a scripted server of its
//! own on loopback.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sift_llm::{
    ApiKey, ChatRequest, Client, ClientConfig, ErrorCategory, Message, ProviderKind, RetryPolicy,
    StreamDelta,
};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use tokio::net::TcpSocket;

use crate::{Deltas, KEY, fast_retries, server};

/// Longer than any test: an endpoint that failed stays passed over.
const LONG: Duration = Duration::from_secs(3600);

fn hi() -> ChatRequest {
    ChatRequest::new("m", vec![Message::user("hi")])
}

fn config(base_urls: &[String], cooldown: Duration) -> ClientConfig {
    let mut config = ClientConfig::new(ProviderKind::OpenAi, base_urls[0].clone());
    config.extra_base_urls = base_urls[1..].to_vec();
    config.endpoint_cooldown = cooldown;
    config.api_key = Some(ApiKey::new(KEY));
    config.retry = fast_retries();
    config
}

/// The client, and the error of each retry it waited for: a failover is
/// not a retry, so none is expected while an endpoint is up.
fn observed(config: ClientConfig) -> (Client, Arc<Mutex<Vec<String>>>) {
    let retries = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&retries);
    let client = Client::new(config)
        .unwrap()
        .with_retry_observer(move |notice| sink.lock().unwrap().push(notice.error.message.clone()));
    (client, retries)
}

/// An address that refuses connections. The socket is bound but never
/// listens, so it holds the port (no other test's server can take it)
/// and every connection to it is refused.
fn refusing() -> (TcpSocket, String) {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let url = format!("http://{}/v1", socket.local_addr().unwrap());
    (socket, url)
}

fn answering(text: &str) -> Reply {
    Reply::text(text).held("go").repeated()
}

/// Waits for `done`; the deadline is far above what any machine needs.
async fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done() {
        assert!(Instant::now() < deadline, "still waiting for {what}");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Sends `n` requests at once, each held at its server until `release`
/// says so; gives the answers' texts, sorted.
async fn at_once(client: &Client, n: usize, servers: &[&ScriptedServer]) -> Vec<String> {
    let calls: Vec<_> = (0..n)
        .map(|_| {
            let client = client.clone();
            tokio::spawn(async move { client.complete(&hi()).await })
        })
        .collect();
    let arrived = || servers.iter().map(|s| s.requests().len()).sum::<usize>();
    wait_until("every request to arrive", || arrived() == n).await;
    let counts: Vec<usize> = servers.iter().map(|s| s.requests().len()).collect();
    for server in servers {
        server.gate("go").release();
    }
    let mut texts = Vec::new();
    for call in calls {
        texts.push(call.await.unwrap().unwrap().message.text_content());
    }
    texts.sort();
    assert_eq!(
        counts,
        servers
            .iter()
            .map(|s| s.requests().len())
            .collect::<Vec<_>>(),
        "no request may arrive after the answers were let go"
    );
    texts
}

/// Capacity 1 each: the first request goes to the first endpoint, the
/// second to the one with a free slot, and the two past the capacity to
/// the least loaded, the first listed on a tie. They are all held until
/// the four arrived, so each was placed with the others in flight.
#[tokio::test]
async fn concurrent_requests_spread_over_the_endpoints_by_free_capacity() {
    let a = server(Script::new().with("m", [answering("a")])).await;
    let b = server(Script::new().with("m", [answering("b")])).await;
    let (client, retries) = observed(config(&[a.openai_base_url(), b.openai_base_url()], LONG));
    let texts = at_once(&client, 4, &[&a, &b]).await;
    assert_eq!((a.requests().len(), b.requests().len()), (2, 2));
    assert_eq!(texts, ["a", "a", "b", "b"]);
    assert!(retries.lock().unwrap().is_empty());
}

/// An endpoint taking two at once gets two of three requests.
#[tokio::test]
async fn an_endpoint_with_more_capacity_takes_more() {
    let a = server(Script::new().with("m", [answering("a")])).await;
    let b = server(Script::new().with("m", [answering("b")])).await;
    let mut config = config(&[a.openai_base_url(), b.openai_base_url()], LONG);
    config.endpoint_capacity = vec![2, 1];
    let client = Client::new(config).unwrap();
    assert_eq!(at_once(&client, 3, &[&a, &b]).await, ["a", "a", "b"]);
    assert_eq!((a.requests().len(), b.requests().len()), (2, 1));
}

/// Refused by the first endpoint, the request goes at once to the second
/// (no retry wait); the first is then passed over, streams included.
#[tokio::test]
async fn a_refusing_endpoint_is_failed_over_and_then_skipped() {
    let (_socket, down) = refusing();
    let b = server(Script::new().with(
        "m",
        [Reply::text("one"), Reply::text("two"), Reply::text("three")],
    ))
    .await;
    let (client, retries) = observed(config(&[down, b.openai_base_url()], LONG));
    for expected in ["one", "two"] {
        let response = client.complete(&hi()).await.unwrap();
        assert_eq!(response.message.text_content(), expected);
    }
    let deltas = Deltas::default();
    let response = client.stream(&hi(), &mut deltas.sink()).await.unwrap();
    assert_eq!(response.message.text_content(), "three");
    assert_eq!(deltas.text(), "three");
    assert_eq!(b.requests().len(), 3);
    assert!(retries.lock().unwrap().is_empty());
}

/// A 503 from the first endpoint: the same request, sent to the second,
/// succeeds; the first got that one request and no other.
#[tokio::test]
async fn a_5xx_fails_over_to_the_next_endpoint() {
    let a = server(Script::new().with("m", [Reply::fault(503, "busy"), Reply::text("a")])).await;
    let b = server(Script::new().with("m", [Reply::text("b1"), Reply::text("b2")])).await;
    let (client, retries) = observed(config(&[a.openai_base_url(), b.openai_base_url()], LONG));
    let response = client.complete(&hi()).await.unwrap();
    assert_eq!(response.message.text_content(), "b1");
    assert_eq!((a.requests().len(), b.requests().len()), (1, 1));
    assert_eq!(b.requests()[0].body, a.requests()[0].body);
    let deltas = Deltas::default();
    client.stream(&hi(), &mut deltas.sink()).await.unwrap();
    assert_eq!(deltas.text(), "b2");
    assert_eq!((a.requests().len(), b.requests().len()), (1, 2));
    assert!(retries.lock().unwrap().is_empty());
}

/// A stream cut after its first piece is not sent again anywhere (the
/// user would see the text twice), but its endpoint is passed over next.
#[tokio::test]
async fn a_stream_cut_after_a_delta_is_final_and_its_endpoint_passed_over() {
    let a = server(
        Script::new().with(
            "m",
            [Reply::text("partial answer")
                .chunk_chars(7)
                .cut_after_events(2)],
        ),
    )
    .await;
    let b = server(Script::new().with("m", [Reply::text("b")])).await;
    let (client, _) = observed(config(&[a.openai_base_url(), b.openai_base_url()], LONG));
    let deltas = Deltas::default();
    let error = client.stream(&hi(), &mut deltas.sink()).await.unwrap_err();
    assert_eq!(deltas.all(), vec![StreamDelta::Text("partial".into())]);
    assert_eq!(error.category, ErrorCategory::Network);
    assert_eq!(error.attempts, 1);
    assert_eq!(b.requests().len(), 0);
    let response = client.complete(&hi()).await.unwrap();
    assert_eq!(response.message.text_content(), "b");
    assert_eq!((a.requests().len(), b.requests().len()), (1, 1));
}

/// With no cooldown the endpoint that failed is up again for the next
/// request (and first listed, so it gets it); with a long one it is not.
#[tokio::test]
async fn a_failed_endpoint_is_used_again_after_its_cooldown() {
    let script = |texts: &[&str]| {
        Script::new().with(
            "m",
            texts.iter().map(|t| match *t {
                "503" => Reply::fault(503, "busy"),
                text => Reply::text(text),
            }),
        )
    };
    for (cooldown, second, counts) in [(Duration::ZERO, "a", (2, 1)), (LONG, "b2", (1, 2))] {
        let a = server(script(&["503", "a"])).await;
        let b = server(script(&["b1", "b2"])).await;
        let client = Client::new(config(
            &[a.openai_base_url(), b.openai_base_url()],
            cooldown,
        ))
        .unwrap();
        let first = client.complete(&hi()).await.unwrap();
        assert_eq!(first.message.text_content(), "b1", "{cooldown:?}");
        let next = client.complete(&hi()).await.unwrap();
        assert_eq!(next.message.text_content(), second, "{cooldown:?}");
        assert_eq!(
            (a.requests().len(), b.requests().len()),
            counts,
            "{cooldown:?}"
        );
    }
}

/// Every endpoint down: without retries the error is the last one's
/// (naming it); with one retry the least recently failed is tried again,
/// and its error is final. Network in both, the key nowhere.
#[tokio::test]
async fn with_every_endpoint_down_the_last_failure_is_the_error() {
    let echo = format!(r#"{{"error":{{"message":"busy for {KEY}"}}}}"#);
    for max_retries in [0, 1] {
        let (_socket, down) = refusing();
        let b = server(Script::new().with("m", [Reply::fault(503, echo.clone()).repeated()])).await;
        let mut config = config(&[down.clone(), b.openai_base_url()], LONG);
        config.retry = RetryPolicy {
            max_retries,
            ..fast_retries()
        };
        let (client, retries) = observed(config);
        let error = client.complete(&hi()).await.unwrap_err();
        assert_eq!(error.category, ErrorCategory::Network);
        assert_eq!(b.requests().len(), 1);
        let b_failed = format!("HTTP 503: busy for [redacted] (at {})", b.openai_base_url());
        if max_retries == 0 {
            assert_eq!(error.message, b_failed);
            assert_eq!(error.status, Some(503));
            assert_eq!(error.attempts, 2);
            assert!(retries.lock().unwrap().is_empty());
        } else {
            assert!(
                error
                    .message
                    .starts_with("cannot connect to the model server")
                    && error.message.contains(&down),
                "{}",
                error.message
            );
            assert_eq!(error.status, None);
            assert_eq!(error.attempts, 3);
            // The one wait came after both endpoints had failed.
            assert_eq!(*retries.lock().unwrap(), [b_failed]);
        }
        for shown in [error.to_string(), format!("{error:?}")] {
            assert!(!shown.contains(KEY), "key leaked in {shown}");
        }
    }
}
