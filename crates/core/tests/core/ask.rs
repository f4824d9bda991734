//! The app's `ask`: the reply streamed as events.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_core::{AskArgs, Workspace, WorkspaceOptions, ask_streamed};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::TempDir;

#[tokio::test]
async fn the_reply_streams_as_text_events_then_done() {
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::text("Hello there").usage(3, 2).chunk_chars(5)]),
    )
    .await
    .unwrap();
    let dir = TempDir::new("ask");
    let ws = Workspace::open(WorkspaceOptions::app(
        Some(dir.0.join("config.toml")),
        Some(dir.db()),
    ))
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = seen.clone();
    let args = AskArgs {
        prompt: "Hi".into(),
        system: Some("  ".into()),
        provider: Some("openai".into()),
        base_url: Some(server.openai_base_url()),
        model: Some("m".into()),
    };
    ask_streamed(&ws, args, move |e| {
        sink.lock().unwrap().push(serde_json::to_value(&e).unwrap());
    })
    .await
    .unwrap();
    let events = seen.lock().unwrap().clone();
    let (done, texts) = events.split_last().unwrap();
    assert_eq!(
        *done,
        json!({"kind": "done", "model": "m", "inputTokens": 3, "outputTokens": 2})
    );
    let text: String = texts
        .iter()
        .map(|e| {
            assert_eq!(e["kind"], "text", "{e}");
            e["text"].as_str().unwrap().to_owned()
        })
        .collect();
    assert_eq!(text, "Hello there");
    assert!(texts.len() > 1, "streamed in pieces: {texts:?}");
    // A blank system message is not sent.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].body["messages"],
        json!([{"role": "user", "content": "Hi"}])
    );
}

#[tokio::test]
async fn an_unknown_provider_is_a_usage_error_before_any_event() {
    let dir = TempDir::new("ask-unknown");
    let ws = Workspace::open(WorkspaceOptions::app(
        Some(dir.0.join("config.toml")),
        Some(dir.db()),
    ))
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let sink = seen.clone();
    let args = AskArgs {
        prompt: "Hi".into(),
        system: None,
        provider: Some("gpt".into()),
        base_url: None,
        model: None,
    };
    let error = ask_streamed(&ws, args, move |e| {
        sink.lock().unwrap().push(serde_json::to_value(&e).unwrap());
    })
    .await
    .unwrap_err();
    assert_eq!(error.code(), "usage");
    assert_eq!(
        error.to_string(),
        "unknown provider \"gpt\": use openai, anthropic or local"
    );
    assert!(seen.lock().unwrap().is_empty());
}
