use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use sift_engine::structured::{
    empty_reply_correction, parse_failure_correction, plain_text_correction,
};
use sift_engine::{
    CallStatus, FnTool, PreSeedCall, StructuredCallSpec, ToolError, ToolOutput, Toolkit,
    initial_transcript, run_structured_call, transcript_for_storage,
};
use sift_llm::{ErrorCategory, Image, Message, Part, Role, ToolSpec, Usage};
use sift_scripted_server::{Finish, Reply, Script, ScriptedServer};

use crate::{engine, invoice_schema, invoice_spec};

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script::new().with("m", replies))
        .await
        .unwrap()
}

fn messages(server: &ScriptedServer, request: usize) -> Value {
    server.requests()[request].body["messages"].clone()
}

#[tokio::test]
async fn an_answer_through_the_answer_tool_completes_at_once() {
    let server = server(vec![
        Reply::tool_call("submit_output", json!({"number": "INV-7", "total": 12.5})).usage(40, 9),
    ])
    .await;
    let spec = invoice_spec();
    let transcript = initial_transcript(&spec, Message::user("Invoice INV-7, total 12.50")).await;
    let outcome = run_structured_call(&engine(&server), &spec, transcript).await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(
        outcome.output,
        Some(json!({"number": "INV-7", "total": 12.5}))
    );
    assert_eq!((outcome.error, outcome.error_category), (None, None));
    assert_eq!(
        outcome.usage,
        Usage {
            input_tokens: 40,
            output_tokens: 9
        }
    );
    assert_eq!(outcome.turns, 1);
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Read the invoice."},
                {"role": "user", "content": "Invoice INV-7, total 12.50"},
            ],
            "tools": [{"type": "function", "function": {
                "name": "submit_output",
                "description": "Submit your final answer. Call this exactly once, when you have the answer.",
                "parameters": invoice_schema(),
            }}],
            // A generic OpenAI-compatible server is forced by name.
            "tool_choice": {"type": "function", "function": {"name": "submit_output"}},
        })
    );
    let roles: Vec<Role> = outcome.transcript.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![Role::System, Role::User, Role::Assistant, Role::Tool]
    );
    assert_eq!(
        outcome.transcript[3],
        Message::tool_result("call_1", "Output accepted.", false)
    );
}

#[tokio::test]
async fn invalid_input_goes_back_as_a_tool_error_with_paths() {
    let server = server(vec![
        Reply::tool_call("submit_output", json!({"number": 7, "total": "12.50"})),
        Reply::tool_call("submit_output", json!({"number": "7", "total": 12.5})),
    ])
    .await;
    let spec = invoice_spec();
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(outcome.turns, 2);
    let second = messages(&server, 1);
    assert_eq!(
        second[2],
        json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
            "function": {"name": "submit_output", "arguments": "{\"number\":7,\"total\":\"12.50\"}"}}]})
    );
    assert_eq!(
        second[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content":
            "The output does not match the schema:\n- /number: 7 is not of type \"string\"\n- /total: \"12.50\" is not of type \"number\"\nCall submit_output again with a corrected answer."})
    );
}

#[tokio::test]
async fn plain_text_and_empty_replies_get_corrections() {
    let server = server(vec![
        Reply::text("The number is INV-7.\nThe total is 12.50."),
        Reply::text(""),
        Reply::tool_call("submit_output", json!({"number": "INV-7", "total": 12.5})),
    ])
    .await;
    let spec = invoice_spec();
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!((outcome.status, outcome.turns), (CallStatus::Completed, 3));

    let correction = plain_text_correction("The number is INV-7.\nThe total is 12.50.");
    assert_eq!(
        correction,
        "You answered in plain text instead of calling the submit_output tool:\n\n> The number is INV-7.\n> The total is 12.50.\n\nCall submit_output with your answer."
    );
    assert_eq!(
        messages(&server, 1)[3],
        json!({"role": "user", "content": correction})
    );
    assert_eq!(
        messages(&server, 2)[5],
        json!({"role": "user", "content": "Your reply was empty. Carry on with the task, and call submit_output with your answer when you have it."})
    );
    assert_eq!(
        empty_reply_correction(true),
        messages(&server, 2)[5]["content"]
    );
}

#[tokio::test]
async fn text_output_takes_a_plain_answer_without_a_second_call() {
    let server = server(vec![Reply::text("Sure, happy to help!")]).await;
    let mut spec = StructuredCallSpec::new("chat_reply", "Be helpful.");
    spec.response_schema = Some(Arc::new(
        sift_engine::OutputSchema::new(json!({"type": "object", "properties": {"reply": {"type": "string"}}, "required": ["reply"]})).unwrap(),
    ));
    spec.text_output = Some(Arc::new(|text: &str| json!({"reply": text})));
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("hi")).await,
    )
    .await;

    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(
        outcome.output,
        Some(json!({"reply": "Sure, happy to help!"}))
    );
    assert_eq!(outcome.metadata.get("text_answer"), Some(&json!(true)));
    assert_eq!(server.requests().len(), 1);
    let call = outcome.transcript[2].tool_calls().next().unwrap().clone();
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("text_answer", "submit_output")
    );
    assert_eq!(
        call.parsed_arguments().unwrap(),
        json!({"reply": "Sure, happy to help!"})
    );
    assert_eq!(
        outcome.transcript[3],
        Message::tool_result("text_answer", "Output accepted.", false)
    );
}

fn lookup_tool(calls: Arc<AtomicUsize>) -> FnTool {
    let spec = ToolSpec {
        name: "lookup".into(),
        description: "Look up a customer".into(),
        parameters: json!({"type": "object", "properties": {"id": {"type": "integer"}}}),
    };
    FnTool::new(spec, move |args| {
        let calls = Arc::clone(&calls);
        async move {
            calls.fetch_add(1, Ordering::SeqCst);
            match args["id"].as_i64() {
                Some(7) => Ok(ToolOutput::text("ACME Corp")),
                _ => Err(ToolError("no customer with that id".into())),
            }
        }
    })
}

/// Needs approval, so an unattended call refuses it; `sent` counts its runs.
fn send_tool(sent: Arc<AtomicUsize>) -> FnTool {
    let spec = ToolSpec {
        name: "send_mail".into(),
        description: "Send mail".into(),
        parameters: json!({"type": "object"}),
    };
    FnTool::new(spec, move |_| {
        sent.fetch_add(1, Ordering::SeqCst);
        async { Ok(ToolOutput::text("sent")) }
    })
    .needing_approval()
}

#[tokio::test]
async fn tools_run_and_failures_go_back_as_error_results() {
    let calls = Arc::new(AtomicUsize::new(0));
    let sent = Arc::new(AtomicUsize::new(0));
    let server = server(vec![
        Reply::tool_call("lookup", json!({"id": 7}))
            .and_tool_call("lookup", json!({"id": 8}))
            .and_tool_call("nope", json!({}))
            .and_tool_call("send_mail", json!({"to": "x"})),
        Reply::tool_call("submit_output", json!({"number": "ACME-1", "total": 3})),
    ])
    .await;
    let mut spec = invoice_spec();
    spec.toolkits = vec![
        Toolkit::new()
            .with(lookup_tool(Arc::clone(&calls)))
            .with(send_tool(Arc::clone(&sent))),
    ];
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;

    assert_eq!(outcome.status, CallStatus::Completed);
    // The invented tool ran nothing, and the one needing approval never ran.
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(sent.load(Ordering::SeqCst), 0);
    // With other tools offered, any tool is required rather than the answer one.
    assert_eq!(server.requests()[0].body["tool_choice"], json!("required"));
    let names: Vec<Value> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].clone())
        .collect();
    assert_eq!(
        names,
        vec![json!("lookup"), json!("send_mail"), json!("submit_output")]
    );
    let second = messages(&server, 1);
    assert_eq!(
        second[3],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "ACME Corp"})
    );
    assert_eq!(
        second[4],
        json!({"role": "tool", "tool_call_id": "call_2", "content": "no customer with that id"})
    );
    assert_eq!(
        second[5],
        json!({"role": "tool", "tool_call_id": "call_3", "content": "unknown tool \"nope\""})
    );
    assert_eq!(
        second[6],
        json!({"role": "tool", "tool_call_id": "call_4", "content": "tool \"send_mail\" needs the user's approval, and this call runs unattended"})
    );
    let Part::ToolResult(result) = &outcome.transcript[3].parts[1] else {
        panic!()
    };
    assert!(result.is_error);
}

#[tokio::test]
async fn other_calls_beside_a_valid_answer_do_not_run() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = server(vec![
        Reply::tool_call("lookup", json!({"id": 7}))
            .and_tool_call("submit_output", json!({"number": "A", "total": 1})),
    ])
    .await;
    let mut spec = invoice_spec();
    spec.toolkits = vec![Toolkit::new().with(lookup_tool(Arc::clone(&calls)))];
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert_eq!(
        outcome.transcript[3].parts[0],
        Part::ToolResult(sift_llm::ToolResult {
            call_id: "call_1".into(),
            content: "Not run: the answer was submitted in the same reply.".into(),
            is_error: true,
        })
    );
}

#[tokio::test]
async fn a_refusal_fails_the_call_and_its_tool_calls_never_run() {
    let calls = Arc::new(AtomicUsize::new(0));
    let refusal = Reply::tool_call("lookup", json!({"id": 7})).finish(Finish::Refusal);
    let server = server(vec![refusal, Reply::text("never")]).await;
    let mut spec = invoice_spec();
    spec.toolkits = vec![Toolkit::new().with(lookup_tool(Arc::clone(&calls)))];
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Failed);
    assert_eq!(outcome.error_category, Some(ErrorCategory::Refusal));
    assert_eq!(
        outcome.error.as_deref(),
        Some("the model refused to answer (content_filter)")
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert_eq!(server.requests().len(), 1, "a refusal gets no correction");
}

#[tokio::test]
async fn api_errors_and_max_tokens_fail_with_their_category() {
    let server = server(vec![Reply::fault(
        401,
        r#"{"error":{"message":"bad key"}}"#,
    )])
    .await;
    let spec = invoice_spec();
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Failed);
    assert_eq!(outcome.error_category, Some(ErrorCategory::Auth));
    assert_eq!(outcome.error.as_deref(), Some("HTTP 401: bad key"));

    let server =
        crate::structured::server(vec![Reply::text("cut sh").finish(Finish::Length)]).await;
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Failed);
    assert_eq!(outcome.error_category, Some(ErrorCategory::Model));
    assert_eq!(
        outcome.error.as_deref(),
        Some("the model reached its max_tokens limit before finishing")
    );
}

#[tokio::test]
async fn no_valid_output_within_max_turns_is_turn_limited() {
    let server = server(vec![
        Reply::text("one"),
        Reply::text("two"),
        Reply::text("three"),
    ])
    .await;
    let mut spec = invoice_spec();
    spec.max_turns = 2;
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::TurnLimited);
    assert_eq!(
        outcome.error.as_deref(),
        Some("no valid output within 2 turns")
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn without_a_schema_the_text_is_parsed_and_corrected_when_it_is_not_json() {
    let server = server(vec![
        Reply::text("not json at all"),
        Reply::text("```json\n{\"steps\": [\"a\", \"b\"]}\n```"),
    ])
    .await;
    let spec = StructuredCallSpec::new("planner", "Plan the work. Answer in JSON.");
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("plan")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(outcome.output, Some(json!({"steps": ["a", "b"]})));
    let correction = messages(&server, 1)[3]["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        correction,
        parse_failure_correction("not JSON (expected ident at line 1 column 2)")
    );
    assert!(server.requests()[0].body.get("tools").is_none());
}

#[tokio::test]
async fn pre_seeded_calls_come_before_the_first_model_turn() {
    let server = server(vec![Reply::tool_call(
        "submit_output",
        json!({"number": "T-7", "total": 0}),
    )])
    .await;
    let mut spec = invoice_spec();
    spec.pre_seeds = vec![PreSeedCall {
        name: "get_ticket".into(),
        arguments: json!({"id": 7}),
        loader: Box::new(|args: &Value| {
            let id = args["id"].clone();
            Box::pin(async move { Ok(ToolOutput::text(format!("ticket {id}: refund 0 EUR"))) })
        }),
    }];
    run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("Plan ticket 7")).await,
    )
    .await;
    assert_eq!(
        messages(&server, 0),
        json!([
            {"role": "system", "content": "Read the invoice."},
            {"role": "user", "content": "Plan ticket 7"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "preseed_1", "type": "function",
                "function": {"name": "get_ticket", "arguments": "{\"id\":7}"}}]},
            {"role": "tool", "tool_call_id": "preseed_1", "content": "ticket 7: refund 0 EUR"},
        ])
    );
}

#[tokio::test]
async fn attachments_are_sent_but_stored_as_placeholders() {
    let server = server(vec![Reply::tool_call(
        "submit_output",
        json!({"number": "R-1", "total": 4}),
    )])
    .await;
    let spec = invoice_spec();
    let user = Message {
        role: Role::User,
        parts: vec![
            Part::Text {
                text: "[Image 1 is r.png.]".into(),
            },
            Part::Image(Image {
                mime: "image/png".into(),
                data: vec![7; 1234],
            }),
        ],
    };
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, user).await,
    )
    .await;
    assert!(
        messages(&server, 0)[1]["content"][1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,")
    );
    let stored = transcript_for_storage(&outcome.transcript);
    assert_eq!(
        stored[1].parts[1],
        Part::Text {
            text: "[attachment: image/png, 1234 bytes]".into()
        }
    );
}

#[tokio::test]
async fn after_a_plain_text_answer_the_answer_tool_is_named() {
    let calls = Arc::new(AtomicUsize::new(0));
    let server = server(vec![
        Reply::text("It is ACME-1, total 3."),
        Reply::tool_call("submit_output", json!({"number": "ACME-1", "total": 3})),
    ])
    .await;
    let mut spec = invoice_spec();
    spec.toolkits = vec![Toolkit::new().with(lookup_tool(Arc::clone(&calls)))];
    let outcome = run_structured_call(
        &engine(&server),
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Completed);
    assert_eq!(server.requests()[0].body["tool_choice"], json!("required"));
    assert_eq!(
        server.requests()[1].body["tool_choice"],
        json!({"type": "function", "function": {"name": "submit_output"}})
    );
}
