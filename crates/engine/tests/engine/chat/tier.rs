//! Refusals across a tier: handed on in an auto turn, with the refused
//! attempt's events held back; final otherwise.

use std::sync::Arc;

use serde_json::{Value, json};
use sift_engine::{ChatEvent, ChatInput, ChatOutcome};
use sift_llm::{ErrorCategory, Message};
use sift_scripted_server::{Finish, Reply, Script, ScriptedServer};

use super::{chat, named, text, toolkit, usage};

#[tokio::test]
async fn a_refused_turn_goes_to_the_next_model_of_an_auto_tier_and_stays_there() {
    let server = ScriptedServer::start(
        Script::new()
            // The refused attempt streams some text first: it must not show.
            .with(
                "a",
                [Reply::text("I won't")
                    .chunk_chars(2)
                    .finish(Finish::Refusal)],
            )
            .with(
                "b",
                [
                    Reply::text("Let me see.")
                        .chunk_chars(6)
                        .and_tool_call("lookup", json!({"q": "y"}))
                        .usage(8, 4),
                    Reply::text("Five.").chunk_chars(5).usage(9, 1),
                ],
            ),
    )
    .await
    .unwrap();
    let tier = [
        named(&server, "a"),
        named(&server, "b"),
        named(&server, "c"),
    ];
    let kit = toolkit(Arc::default());
    let history = [Message::system("Answer.")];
    let turn = chat(
        &tier,
        true,
        std::slice::from_ref(&kit),
        &history,
        ChatInput::Message(Message::user("y?")),
        10,
    )
    .await;

    // b's first reply was held until it stood, then given in order; its
    // second, after the tool, too: the turn stayed on b.
    assert_eq!(
        turn.events,
        vec![
            text("Let me"),
            text(" see."),
            ChatEvent::ToolCallStarted {
                id: "call_1".into(),
                name: "lookup".into()
            },
            ChatEvent::Usage(usage(8, 4)),
            ChatEvent::ToolCallFinished {
                id: "call_1".into(),
                name: "lookup".into(),
                content: "5 for \"y\"".into(),
                is_error: false,
            },
            text("Five."),
            ChatEvent::Usage(usage(9, 1)),
            ChatEvent::Done {
                usage: usage(17, 5)
            },
        ]
    );
    let requests = server.requests();
    let models: Vec<&Value> = requests.iter().map(|r| &r.body["model"]).collect();
    assert_eq!(models, [&json!("a"), &json!("b"), &json!("b")]);
    let mut to_a = requests[0].body.clone();
    to_a["model"] = json!("b");
    assert_eq!(to_a, requests[1].body, "b gets the request a refused");
    assert_eq!(
        requests[1].body["messages"],
        json!([
            {"role": "system", "content": "Answer."},
            {"role": "user", "content": "y?"},
        ])
    );
    assert!(matches!(
        &turn.outcome,
        ChatOutcome::Completed { model, new_messages, .. }
            if model == "b" && new_messages.len() == 4
    ));
}

#[tokio::test]
async fn the_last_model_of_the_tier_streams_live_after_a_refusal() {
    let server = ScriptedServer::start(
        Script::new()
            .with("a", [Reply::refusal(None)])
            .with("b", [Reply::text("Sure thing").chunk_chars(5).usage(3, 2)]),
    )
    .await
    .unwrap();
    let turn = chat(
        &[named(&server, "a"), named(&server, "b")],
        true,
        &[],
        &[],
        ChatInput::Message(Message::user("please")),
        10,
    )
    .await;
    assert_eq!(
        turn.events,
        vec![
            text("Sure "),
            text("thing"),
            ChatEvent::Usage(usage(3, 2)),
            ChatEvent::Done { usage: usage(3, 2) },
        ]
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].body["messages"], requests[1].body["messages"],
        "the same messages"
    );
    assert_eq!(requests[1].body["model"], json!("b"));
}

#[tokio::test]
async fn a_refusal_with_no_next_model_fails_with_category_refusal() {
    let server = ScriptedServer::start(
        Script::new()
            .with("a", [Reply::refusal(None)])
            .with("b", [Reply::refusal(None)]),
    )
    .await
    .unwrap();
    let turn = chat(
        &[named(&server, "a"), named(&server, "b")],
        true,
        &[],
        &[],
        ChatInput::Message(Message::user("please")),
        10,
    )
    .await;
    let message = "all 2 models exhausted: the model refused to answer (content_filter)";
    assert_eq!(
        turn.events,
        vec![ChatEvent::Error {
            category: ErrorCategory::Refusal,
            message: message.into()
        }]
    );
    let ChatOutcome::Failed { error, .. } = &turn.outcome else {
        panic!("not failed: {:?}", turn.outcome);
    };
    assert_eq!(
        (error.category, error.message.as_str()),
        (ErrorCategory::Refusal, message)
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn without_auto_a_refusal_ends_the_turn_on_the_first_model() {
    let server = ScriptedServer::start(
        Script::new()
            .with("a", [Reply::refusal(None)])
            .with("b", [Reply::text("never asked")]),
    )
    .await
    .unwrap();
    let turn = chat(
        &[named(&server, "a"), named(&server, "b")],
        false,
        &[],
        &[],
        ChatInput::Message(Message::user("please")),
        10,
    )
    .await;
    assert_eq!(
        turn.events,
        vec![ChatEvent::Error {
            category: ErrorCategory::Refusal,
            message: "the model refused to answer (content_filter)".into()
        }]
    );
    assert!(matches!(turn.outcome, ChatOutcome::Failed { .. }));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn other_errors_are_not_handed_on_even_in_an_auto_tier() {
    let server = ScriptedServer::start(
        Script::new()
            .with("a", [Reply::fault(400, r#"{"error":{"message":"bad"}}"#)])
            .with("b", [Reply::text("never asked")]),
    )
    .await
    .unwrap();
    let turn = chat(
        &[named(&server, "a"), named(&server, "b")],
        true,
        &[],
        &[],
        ChatInput::Message(Message::user("please")),
        10,
    )
    .await;
    assert_eq!(
        turn.events,
        vec![ChatEvent::Error {
            category: ErrorCategory::Model,
            message: "HTTP 400: bad".into()
        }]
    );
    assert_eq!(server.requests().len(), 1);
}
