//! `sift chat --session ID TEXT`: the reply streamed to stdout, the turn
//! stored, failures stored nowhere, refusals handed on in auto sessions.

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_scripted_server::{Finish, Reply, Script, ScriptedServer};
use sift_store::{NewSession, Store};

use crate::{run, sift, stderr, stdout};

/// A database in a fresh folder, removed when dropped.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-chat-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self { dir }
    }

    fn db(&self) -> String {
        self.dir.join("sift.db").display().to_string()
    }

    fn session(&self, system: Option<&str>, model_choice: Option<&str>) -> String {
        Store::open(self.db())
            .unwrap()
            .create_session(NewSession {
                title: String::new(),
                system_prompt: system.map(str::to_owned),
                model_choice: model_choice.map(str::to_owned),
            })
            .unwrap()
            .id
    }

    /// Each stored message as `[seq, role, text]`.
    fn rows(&self, session: &str) -> Vec<Value> {
        Store::open(self.db())
            .unwrap()
            .messages(session)
            .unwrap()
            .into_iter()
            .map(|m| json!([m.seq, m.role, m.parts[0]["text"]]))
            .collect()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn chat_args(scratch: &Scratch, server: &ScriptedServer, session: &str, text: &str) -> Vec<String> {
    vec![
        "--db".into(),
        scratch.db(),
        "chat".into(),
        "--session".into(),
        session.into(),
        text.into(),
        "--provider".into(),
        "openai".into(),
        "--base-url".into(),
        server.openai_base_url(),
    ]
}

fn with_models(mut args: Vec<String>, models: &[&str]) -> Vec<String> {
    for model in models {
        args.extend(["--model".into(), (*model).into()]);
    }
    args
}

#[tokio::test]
async fn a_chat_turn_streams_the_reply_and_stores_the_turn() {
    let scratch = Scratch::new("streams");
    let session = scratch.session(Some("Be brief."), None);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::text("Hi there.").chunk_chars(3),
            Reply::text("Still here."),
        ],
    ))
    .await
    .unwrap();

    let output = run(sift().args(with_models(
        chat_args(&scratch, &server, &session, "Hello"),
        &["m"],
    )))
    .await;
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "Hi there.\n");
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hello"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
    assert_eq!(
        scratch.rows(&session),
        [
            json!([1, "user", "Hello"]),
            json!([2, "assistant", "Hi there."])
        ]
    );

    // The next turn sends the first as history.
    let output = run(sift().args(with_models(
        chat_args(&scratch, &server, &session, "And now?"),
        &["m"],
    )))
    .await;
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "Still here.\n");
    assert_eq!(
        server.requests()[1].body["messages"],
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hello"},
            {"role": "assistant", "content": "Hi there."},
            {"role": "user", "content": "And now?"},
        ])
    );
    assert_eq!(scratch.rows(&session).len(), 4);
}

#[tokio::test]
async fn a_refusal_exits_1_with_its_category_and_stores_nothing() {
    let scratch = Scratch::new("refusal");
    let session = scratch.session(None, None);
    let server = ScriptedServer::start(
        Script::new()
            .with("a", [Reply::refusal(None)])
            .with("b", [Reply::text("never asked")]),
    )
    .await
    .unwrap();
    let output = run(sift().args(with_models(
        chat_args(&scratch, &server, &session, "Hello"),
        &["a", "b"],
    )))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        "error (refusal): the model refused to answer (content_filter)\n"
    );
    assert_eq!(server.requests().len(), 1, "not an auto session");
    assert_eq!(scratch.rows(&session), Vec::<Value>::new());
}

#[tokio::test]
async fn an_auto_session_shows_only_the_reply_of_the_model_that_answered() {
    let scratch = Scratch::new("auto");
    let session = scratch.session(None, Some("auto"));
    let server = ScriptedServer::start(
        Script::new()
            .with(
                "a",
                [Reply::text("I cannot")
                    .chunk_chars(2)
                    .finish(Finish::Refusal)],
            )
            .with("b", [Reply::text("Sure.")]),
    )
    .await
    .unwrap();
    let output = run(sift().args(with_models(
        chat_args(&scratch, &server, &session, "Hello"),
        &["a", "b"],
    )))
    .await;
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "Sure.\n");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].body["model"], json!("b"));
    assert_eq!(requests[0].body["messages"], requests[1].body["messages"]);
    assert_eq!(
        scratch.rows(&session),
        [
            json!([1, "user", "Hello"]),
            json!([2, "assistant", "Sure."])
        ]
    );
}

#[tokio::test]
async fn model_errors_and_unknown_sessions_exit_1() {
    let scratch = Scratch::new("errors");
    let session = scratch.session(None, None);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::fault(
            404,
            r#"{"error":{"message":"no such model"}}"#,
        )],
    ))
    .await
    .unwrap();
    let output = run(sift().args(with_models(
        chat_args(&scratch, &server, &session, "Hello"),
        &["m"],
    )))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert_eq!(stderr(&output), "error (model): HTTP 404: no such model\n");
    assert_eq!(scratch.rows(&session), Vec::<Value>::new());

    let output = run(sift().args(with_models(
        chat_args(&scratch, &server, "ses_nope", "Hello"),
        &["m"],
    )))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error (other): session ses_nope not found\n"
    );
    assert_eq!(server.requests().len(), 1);
}
