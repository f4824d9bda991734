//! A redirect is never followed: reqwest keeps `x-api-key` (and the
//! request's documents) on a redirect to another host, so a model server
//! that redirects gets an error naming where it pointed, and the address
//! it names gets nothing.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use sift_llm::{ChatRequest, ErrorCategory, LlmError, Message};
use sift_scripted_server::{Reply, Script};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

use crate::{Deltas, KEY, anthropic_client, openai_client, server};

/// A loopback port that counts the connections made to it, and answers
/// each with `{}` so that a client that came would not hang.
struct Witness {
    addr: SocketAddr,
    connections: Arc<Mutex<u32>>,
    task: JoinHandle<()>,
}

impl Witness {
    async fn start() -> Witness {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let connections = Arc::new(Mutex::new(0));
        let counted = Arc::clone(&connections);
        let task = tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                *counted.lock().unwrap() += 1;
                let _ = stream
                    .write_all(
                        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
                    )
                    .await;
            }
        });
        Witness {
            addr,
            connections,
            task,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn connections(&self) -> u32 {
        *self.connections.lock().unwrap()
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        self.task.abort();
    }
}

fn hi(model: &str) -> ChatRequest {
    ChatRequest::new(model, vec![Message::user("hi")])
}

fn redirected_to(status: u16, target: &str) -> String {
    format!(
        "HTTP {status}: the model server redirected to {target}; redirects are not followed, so that a key goes only where it was set up (if that address is right, make it the base URL)"
    )
}

fn assert_redirect(error: &LlmError, status: u16, target: &str) {
    assert_eq!(error.message, redirected_to(status, target));
    assert_eq!(error.category, ErrorCategory::Other);
    assert_eq!(error.status, Some(status));
    assert_eq!(error.attempts, 1, "a redirect is not retried");
}

#[tokio::test]
async fn a_302_to_another_port_is_an_error_and_is_not_followed() {
    let witness = Witness::start().await;
    let target = witness.url("/v1/chat/completions");
    let redirect = Reply::fault(302, "").header("location", &target);
    let server = server(Script::new().with("m", [redirect])).await;

    let error = openai_client(&server).complete(&hi("m")).await.unwrap_err();

    assert_redirect(&error, 302, &target);
    assert_eq!(server.requests().len(), 1);
    assert_eq!(witness.connections(), 0);
}

#[tokio::test]
async fn an_anthropic_key_is_not_sent_on_by_a_307_to_a_stream() {
    let witness = Witness::start().await;
    let target = witness.url("/v1/messages");
    let redirect = Reply::fault(307, "").header("location", &target);
    let server = server(Script::new().with("claude", [redirect])).await;
    let deltas = Deltas::default();

    let error = anthropic_client(&server)
        .stream(&hi("claude"), &mut deltas.sink())
        .await
        .unwrap_err();

    assert_redirect(&error, 307, &target);
    assert_eq!(server.requests()[0].header("x-api-key"), Some(KEY));
    assert_eq!(witness.connections(), 0);
    assert!(deltas.all().is_empty());
}

#[tokio::test]
async fn a_relative_location_is_named_in_full() {
    let redirect = Reply::fault(301, "").header("location", "/elsewhere/chat");
    let server = server(Script::new().with("m", [redirect])).await;

    let error = openai_client(&server).complete(&hi("m")).await.unwrap_err();

    assert_redirect(&error, 301, &format!("{}/elsewhere/chat", server.url()));
    assert_eq!(server.requests().len(), 1);
}
