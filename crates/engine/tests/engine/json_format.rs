//! Answers held to the schema by the server's `response_format`
//! ([`AnswerChannel::JsonFormat`]), for models whose chat template has no
//! tool calls: the exact requests, and the transcript that records the
//! reply as the answer tool's call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use sift_engine::structured::{
    invalid_output_message, parse_failure_correction, schema_instruction,
};
use sift_engine::{
    AnswerChannel, CallStatus, Engine, FnTool, ToolOutput, Toolkit, initial_transcript,
    run_structured_call,
};
use sift_llm::{Message, ToolSpec};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::{engine, invoice_schema, invoice_spec};

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script::new().with("m", replies))
        .await
        .unwrap()
}

fn json_format_engine(server: &ScriptedServer) -> Engine {
    let mut engine = engine(server);
    engine.answer = AnswerChannel::JsonFormat { max_tokens: 300 };
    engine
}

fn response_format() -> Value {
    json!({"type": "json_schema", "json_schema": {
        "name": "submit_output", "schema": invoice_schema(),
    }})
}

#[tokio::test]
async fn the_reply_is_held_to_the_schema_and_recorded_as_the_answer_call() {
    let server = server(vec![Reply::text(r#"{"number": "INV-7", "total": 12.5}"#)]).await;
    let spec = invoice_spec();
    let transcript = initial_transcript(&spec, Message::user("Invoice INV-7, total 12.50")).await;
    let outcome = run_structured_call(&json_format_engine(&server), &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(
        outcome.output,
        Some(json!({"number": "INV-7", "total": 12.5}))
    );
    assert_eq!(outcome.turns, 1);
    // No tools and no tool_choice: the grammar is the answer's channel,
    // and the schema is named at the end of the system message.
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": format!(
                    "Read the invoice.\n\n{}", schema_instruction(&invoice_schema())
                )},
                {"role": "user", "content": "Invoice INV-7, total 12.50"},
            ],
            "response_format": response_format(),
            "max_tokens": 300,
            "temperature": 0.0,
        })
    );
    // The schema as written: its keys keep their order.
    assert_eq!(
        schema_instruction(&invoice_schema()),
        "Answer with one JSON object, and nothing else, that matches this JSON Schema:\n\
         {\"type\":\"object\",\"properties\":{\"number\":{\"type\":\"string\"},\
         \"total\":{\"type\":\"number\"}},\"required\":[\"number\",\"total\"]}"
    );
    // The transcript keeps the system prompt as it was given.
    assert_eq!(outcome.transcript[0], Message::system("Read the invoice."));
    assert_eq!(
        outcome.transcript[2..],
        [
            Message {
                role: sift_llm::Role::Assistant,
                parts: vec![sift_llm::Part::ToolCall(sift_llm::ToolCall::new(
                    "text_answer",
                    "submit_output",
                    &json!({"number": "INV-7", "total": 12.5}),
                ))],
            },
            Message::tool_result("text_answer", "Output accepted.", false),
        ]
    );
    assert_eq!(outcome.metadata["answer_channel"], json!("json_format"));
    assert_eq!(outcome.metadata["text_answer"], json!(true));
}

#[tokio::test]
async fn an_answer_that_breaks_the_schema_is_corrected_under_the_same_format() {
    let server = server(vec![
        Reply::text(r#"{"number": "INV-7"}"#),
        Reply::text(r#"{"number": "INV-7", "total": 12.5}"#),
    ])
    .await;
    let spec = invoice_spec();
    let transcript = initial_transcript(&spec, Message::user("Invoice INV-7")).await;
    let outcome = run_structured_call(&json_format_engine(&server), &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(outcome.turns, 2);
    let second = &server.requests()[1].body;
    assert_eq!(second["response_format"], response_format());
    assert_eq!(second["max_tokens"], 300);
    assert_eq!(second["temperature"], 0.0);
    assert_eq!(second.get("tools"), None);
    assert_eq!(
        second["messages"][3],
        json!({"role": "tool", "tool_call_id": "text_answer",
               "content": invalid_output_message(&["/: \"total\" is a required property".to_owned()])})
    );
}

#[tokio::test]
async fn with_other_tools_the_format_holds_only_the_answer_turn() {
    let looked_up = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&looked_up);
    let lookup = FnTool::new(
        ToolSpec {
            name: "lookup".into(),
            description: "Look up a customer".into(),
            parameters: json!({"type": "object"}),
        },
        move |_| {
            let counter = Arc::clone(&counter);
            async move {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(ToolOutput::text("ACME Corp"))
            }
        },
    );
    let server = server(vec![
        Reply::tool_call("lookup", json!({})),
        Reply::text("The customer is ACME Corp."),
        Reply::text(r#"{"number": "ACME-1", "total": 3}"#),
    ])
    .await;
    let mut spec = invoice_spec();
    spec.toolkits = vec![Toolkit::new().with(lookup)];
    let transcript = initial_transcript(&spec, Message::user("go")).await;
    let outcome = run_structured_call(&json_format_engine(&server), &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(looked_up.load(Ordering::SeqCst), 1);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    // Tool turns: tools offered, nothing held.
    for request in &requests[..2] {
        assert_eq!(request.body.get("response_format"), None);
        assert_eq!(request.body.get("max_tokens"), None);
        assert_eq!(request.body["tools"].as_array().map(Vec::len), Some(2));
    }
    // The prose answer is corrected, and the next turn is the answer turn.
    let last = &requests[2].body;
    assert_eq!(last["response_format"], response_format());
    assert_eq!((last.get("tools"), last.get("tool_choice")), (None, None));
    let messages = last["messages"].as_array().unwrap();
    assert_eq!(
        messages[messages.len() - 1],
        json!({"role": "user", "content": parse_failure_correction(
            "not JSON (expected value at line 1 column 1)"
        )})
    );
}
