//! The llm crate against real HTTP: our scripted model server on loopback
//! for exact requests and every failure, and the real llama.cpp server
//! (ignored by default; `scripts/test.sh` runs it); a bare loopback port
//! for what must never be reached.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

mod anthropic;
mod endpoints;
mod fallback;
mod faults;
mod local_server_key;
mod local_server_log;
mod model_probe;
mod openai;
mod real_peer;
mod redirects;
mod reply_caps;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use sift_llm::{ApiKey, Client, ClientConfig, ProviderKind, RetryPolicy, StreamDelta};
use sift_scripted_server::{Script, ScriptedServer};

pub const KEY: &str = "sk-test-0123456789abcdef";

/// Retries that are quick and exact, so tests can assert each wait.
pub fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 3,
        base_delay: Duration::from_millis(10),
        max_delay: Duration::from_millis(100),
        max_retry_after: Duration::from_secs(5),
        jitter: false,
    }
}

pub fn openai_client(server: &ScriptedServer) -> Client {
    let mut config = ClientConfig::new(ProviderKind::OpenAi, server.openai_base_url());
    config.api_key = Some(ApiKey::new(KEY));
    config.retry = fast_retries();
    Client::new(config).unwrap()
}

pub fn anthropic_client(server: &ScriptedServer) -> Client {
    let mut config = ClientConfig::new(ProviderKind::Anthropic, server.url());
    config.api_key = Some(ApiKey::new(KEY));
    config.retry = fast_retries();
    Client::new(config).unwrap()
}

pub async fn server(script: Script) -> ScriptedServer {
    ScriptedServer::start(script).await.unwrap()
}

/// Collects a stream's deltas.
#[derive(Debug, Default, Clone)]
pub struct Deltas(Arc<Mutex<Vec<StreamDelta>>>);

impl Deltas {
    pub fn sink(&self) -> impl FnMut(StreamDelta) + Send + use<> {
        let store = Arc::clone(&self.0);
        move |delta| store.lock().unwrap().push(delta)
    }

    pub fn all(&self) -> Vec<StreamDelta> {
        self.0.lock().unwrap().clone()
    }

    pub fn text(&self) -> String {
        self.all()
            .into_iter()
            .filter_map(|d| match d {
                StreamDelta::Text(t) => Some(t),
                _ => None,
            })
            .collect()
    }
}
