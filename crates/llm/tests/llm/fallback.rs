use serde_json::json;
use sift_llm::{ChatRequest, ErrorCategory, Message, ModelRoute, complete_first};
use sift_scripted_server::{Reply, Script};

use crate::{openai_client, server};

#[tokio::test]
async fn the_next_model_answers_when_the_first_fails() {
    let script = Script::new()
        .with(
            "bad-model",
            [Reply::fault(
                400,
                r#"{"error":{"message":"no such model"}}"#,
            )],
        )
        .with("good-model", [Reply::text("hello")]);
    let server = server(script).await;
    let client = openai_client(&server);
    let routes = [
        ModelRoute {
            client: &client,
            model: "bad-model",
        },
        ModelRoute {
            client: &client,
            model: "good-model",
        },
    ];
    let mut failures = Vec::new();
    let (index, response) = complete_first(
        &routes,
        &ChatRequest::new("", vec![Message::user("hi")]),
        |i, e| {
            failures.push((i, e.category));
        },
    )
    .await
    .unwrap();

    assert_eq!(
        (index, response.message.text_content().as_str()),
        (1, "hello")
    );
    assert_eq!(failures, vec![(0, ErrorCategory::Model)]);
    let bodies: Vec<_> = server.requests().into_iter().map(|r| r.body).collect();
    // Neither request is streamed.
    assert_eq!(
        bodies,
        vec![
            json!({"model": "bad-model", "messages": [{"role": "user", "content": "hi"}]}),
            json!({"model": "good-model", "messages": [{"role": "user", "content": "hi"}]}),
        ]
    );
}

#[tokio::test]
async fn when_all_fail_the_last_error_is_reported() {
    let script = Script::new()
        .with("a", [Reply::fault(400, r#"{"error":{"message":"bad a"}}"#)])
        .with("b", [Reply::fault(401, r#"{"error":{"message":"bad b"}}"#)]);
    let server = server(script).await;
    let client = openai_client(&server);
    let routes = [
        ModelRoute {
            client: &client,
            model: "a",
        },
        ModelRoute {
            client: &client,
            model: "b",
        },
    ];
    let error = complete_first(
        &routes,
        &ChatRequest::new("", vec![Message::user("hi")]),
        |_, _| {},
    )
    .await
    .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Auth);
    assert_eq!(error.message, "all 2 models exhausted: HTTP 401: bad b");
}
