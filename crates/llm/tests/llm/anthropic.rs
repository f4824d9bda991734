use serde_json::json;
use sift_llm::{
    ChatRequest, ErrorCategory, Image, Message, Part, Role, StopReason, StreamDelta, ToolCall,
    ToolChoice, ToolSpec, Usage,
};
use sift_scripted_server::{Reply, Script};

use crate::{Deltas, KEY, anthropic_client, server};

#[tokio::test]
async fn plain_message_with_system_and_headers() {
    let server = server(Script::new().with("claude", [Reply::text("Hi!").usage(12, 2)])).await;
    let client = anthropic_client(&server);
    let response = client
        .complete(&ChatRequest::new(
            "claude",
            vec![Message::system("Be brief"), Message::user("hello")],
        ))
        .await
        .unwrap();

    assert_eq!(response.message, Message::assistant("Hi!"));
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 12,
            output_tokens: 2
        }
    );
    assert_eq!(response.stop, StopReason::End);
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(
        request.body,
        json!({
            "model": "claude",
            "max_tokens": 4096,
            "system": "Be brief",
            "messages": [{"role": "user", "content": [{"type": "text", "text": "hello"}]}],
        })
    );
}

#[tokio::test]
async fn streamed_text_and_tool_use() {
    let reply = Reply::text("Let me look.")
        .and_tool_call("lookup", json!({"id": 7, "tags": ["a", "b"]}))
        .chunk_chars(2)
        .usage(30, 11);
    let server = server(Script::new().with("claude", [reply])).await;
    let client = anthropic_client(&server);
    let mut req = ChatRequest::new("claude", vec![Message::user("find 7")]);
    req.tools = vec![ToolSpec {
        name: "lookup".into(),
        description: "Find a record".into(),
        parameters: json!({"type": "object", "properties": {"id": {"type": "integer"}}}),
    }];
    req.tool_choice = Some(ToolChoice::Required);
    req.max_tokens = Some(100);
    let deltas = Deltas::default();
    let response = client.stream(&req, &mut deltas.sink()).await.unwrap();

    assert_eq!(deltas.text(), "Let me look.");
    assert!(deltas.all().contains(&StreamDelta::ToolCallStarted {
        index: 0,
        id: "call_1".into(),
        name: "lookup".into()
    }));
    assert_eq!(response.stop, StopReason::ToolCalls);
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 30,
            output_tokens: 11
        }
    );
    assert_eq!(response.message.text_content(), "Let me look.");
    let call = response.message.tool_calls().next().unwrap();
    assert_eq!(
        call.parsed_arguments().unwrap(),
        json!({"id": 7, "tags": ["a", "b"]})
    );
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "claude",
            "max_tokens": 100,
            "messages": [{"role": "user", "content": [{"type": "text", "text": "find 7"}]}],
            "stream": true,
            "tools": [{"name": "lookup", "description": "Find a record",
                       "input_schema": {"type": "object", "properties": {"id": {"type": "integer"}}}}],
            "tool_choice": {"type": "any"},
        })
    );
}

#[tokio::test]
async fn tool_results_and_images_become_blocks_in_alternating_turns() {
    let server = server(Script::new().with("claude", [Reply::text("done")])).await;
    let client = anthropic_client(&server);
    let req = ChatRequest::new(
        "claude",
        vec![
            Message {
                role: Role::User,
                parts: vec![
                    Part::Text {
                        text: "[Image 1 is a.png.]".into(),
                    },
                    Part::Image(Image {
                        mime: "image/png".into(),
                        data: vec![1, 2, 3],
                    }),
                ],
            },
            Message {
                role: Role::Assistant,
                parts: vec![
                    Part::ToolCall(ToolCall::new("t1", "ocr", &json!({"page": 1}))),
                    Part::ToolCall(ToolCall::new("t2", "ocr", &json!({"page": 2}))),
                ],
            },
            Message::tool_result("t1", "INVOICE 42", false),
            Message::tool_result("t2", "page 2 does not exist", true),
        ],
    );
    client.complete(&req).await.unwrap();
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([
            {"role": "user", "content": [
                {"type": "text", "text": "[Image 1 is a.png.]"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AQID"}},
            ]},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "ocr", "input": {"page": 1}},
                {"type": "tool_use", "id": "t2", "name": "ocr", "input": {"page": 2}},
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "INVOICE 42"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "page 2 does not exist", "is_error": true},
            ]},
        ])
    );
}

#[tokio::test]
async fn refusal_is_an_error_with_its_category_and_is_not_retried() {
    let server = server(Script::new().with(
        "claude",
        [Reply::refusal(Some("cyber")), Reply::text("never sent")],
    ))
    .await;
    let client = anthropic_client(&server);
    let error = client
        .complete(&ChatRequest::new("claude", vec![Message::user("x")]))
        .await
        .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Refusal);
    assert_eq!(error.message, "the model refused to answer (cyber)");
    assert_eq!(error.attempts, 1);
    assert_eq!(server.requests().len(), 1);

    // Streamed, without a category.
    server.set_script(Script::new().with("claude", [Reply::refusal(None)]));
    let error = client
        .stream(
            &ChatRequest::new("claude", vec![Message::user("x")]),
            &mut |_| {},
        )
        .await
        .unwrap_err();
    assert_eq!(error.category, ErrorCategory::Refusal);
    assert_eq!(error.message, "the model refused to answer (refusal)");
}

#[tokio::test]
async fn overloaded_529_is_retried() {
    let overloaded =
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#;
    let server = server(Script::new().with(
        "claude",
        [Reply::fault(529, overloaded), Reply::text("fine")],
    ))
    .await;
    let response = anthropic_client(&server)
        .complete(&ChatRequest::new("claude", vec![Message::user("x")]))
        .await
        .unwrap();
    assert_eq!(response.message.text_content(), "fine");
    assert_eq!(server.requests().len(), 2);
}
