//! Chat turns: the events in order, the exact requests, approvals, the
//! turn limit, and refusals handed along a tier.

mod approval;
mod tier;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use sift_engine::{
    ChatEvent, ChatInput, ChatOutcome, ChatTurn, Engine, FnTool, ToolError, ToolOutput, Toolkit,
    run_chat_turn,
};
use sift_llm::{ErrorCategory, Message, Part, Role, ToolCall, ToolResult, ToolSpec, Usage};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::engine;

fn named(server: &ScriptedServer, model: &str) -> Engine {
    let mut engine = engine(server);
    engine.model = model.into();
    engine
}

fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
    }
}

fn spec(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: format!("The {name} tool."),
        parameters: json!({"type": "object"}),
    }
}

/// `lookup` answers `5`; `broken` fails; `send_mail` needs approval and
/// counts its runs.
fn toolkit(mail_runs: Arc<AtomicUsize>) -> Toolkit {
    Toolkit::new()
        .with(FnTool::new(spec("lookup"), |args: Value| async move {
            Ok(ToolOutput::text(format!("5 for {}", args["q"])))
        }))
        .with(FnTool::new(spec("broken"), |_| async {
            Err(ToolError("the disk is full".into()))
        }))
        .with(
            FnTool::new(spec("send_mail"), move |_| {
                let runs = mail_runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok(ToolOutput::text("sent"))
                }
            })
            .needing_approval(),
        )
}

fn tools_body() -> Value {
    json!([
        {"type": "function", "function": {"name": "lookup", "description": "The lookup tool.", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "broken", "description": "The broken tool.", "parameters": {"type": "object"}}},
        {"type": "function", "function": {"name": "send_mail", "description": "The send_mail tool.", "parameters": {"type": "object"}}},
    ])
}

struct Turn {
    outcome: ChatOutcome,
    events: Vec<ChatEvent>,
}

async fn chat(
    tier: &[Engine],
    auto: bool,
    toolkits: &[Toolkit],
    history: &[Message],
    input: ChatInput,
    max_iterations: u32,
) -> Turn {
    let mut events = Vec::new();
    let mut on_event = |event| events.push(event);
    let outcome = run_chat_turn(
        ChatTurn {
            tier,
            auto,
            toolkits,
            history,
            input,
            max_iterations,
            on_results: None,
        },
        &mut on_event,
    )
    .await;
    Turn { outcome, events }
}

fn text(text: &str) -> ChatEvent {
    ChatEvent::TextDelta(text.into())
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

fn result(id: &str, content: &str, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: id.into(),
        content: content.into(),
        is_error,
    }
}

fn calls_message(calls: &[ToolCall]) -> Message {
    Message {
        role: Role::Assistant,
        parts: calls.iter().cloned().map(Part::ToolCall).collect(),
    }
}

fn results_message(results: &[ToolResult]) -> Message {
    Message {
        role: Role::Tool,
        parts: results.iter().cloned().map(Part::ToolResult).collect(),
    }
}

#[tokio::test]
async fn a_text_reply_streams_its_deltas_then_usage_then_done() {
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::text("Hello there").chunk_chars(5).usage(12, 3)],
    ))
    .await
    .unwrap();
    let history = [
        Message::system("Be brief."),
        Message::user("Hi"),
        Message::assistant("Hello."),
    ];
    let turn = chat(
        &[engine(&server)],
        false,
        &[],
        &history,
        ChatInput::Message(Message::user("Again?")),
        10,
    )
    .await;

    assert_eq!(
        turn.events,
        vec![
            text("Hello"),
            text(" ther"),
            text("e"),
            ChatEvent::Usage(usage(12, 3)),
            ChatEvent::Done {
                usage: usage(12, 3)
            },
        ]
    );
    assert_eq!(
        turn.outcome,
        ChatOutcome::Completed {
            new_messages: vec![Message::user("Again?"), Message::assistant("Hello there")],
            usage: usage(12, 3),
            model: "m".into(),
        }
    );
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "Again?"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
}

#[tokio::test]
async fn a_tool_round_trip_streams_in_order_and_sends_results_as_tool_messages() {
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::text("Checking.")
                    .chunk_chars(9)
                    .and_tool_call("lookup", json!({"q": "x"}))
                    .and_tool_call("nope", json!({}))
                    .and_tool_call("broken", json!({}))
                    .usage(20, 6),
                Reply::text("It is 5.").chunk_chars(4).usage(40, 2),
            ],
        ),
    )
    .await
    .unwrap();
    let kit = toolkit(Arc::default());
    let turn = chat(
        &[engine(&server)],
        false,
        std::slice::from_ref(&kit),
        &[],
        ChatInput::Message(Message::user("What is x?")),
        10,
    )
    .await;

    let started = |id: &str, name: &str| ChatEvent::ToolCallStarted {
        id: id.into(),
        name: name.into(),
    };
    let finished = |id: &str, name: &str, content: &str, is_error| ChatEvent::ToolCallFinished {
        id: id.into(),
        name: name.into(),
        content: content.into(),
        is_error,
    };
    assert_eq!(
        turn.events,
        vec![
            text("Checking."),
            started("call_1", "lookup"),
            started("call_2", "nope"),
            started("call_3", "broken"),
            ChatEvent::Usage(usage(20, 6)),
            finished("call_1", "lookup", "5 for \"x\"", false),
            finished("call_2", "nope", "unknown tool \"nope\"", true),
            finished("call_3", "broken", "the disk is full", true),
            text("It i"),
            text("s 5."),
            ChatEvent::Usage(usage(40, 2)),
            ChatEvent::Done {
                usage: usage(60, 8)
            },
        ]
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[0].body["tools"], tools_body());
    assert_eq!(
        requests[1].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": "What is x?"},
                {"role": "assistant", "content": "Checking.", "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"x\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "nope", "arguments": "{}"}},
                    {"id": "call_3", "type": "function", "function": {"name": "broken", "arguments": "{}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "5 for \"x\""},
                {"role": "tool", "tool_call_id": "call_2", "content": "unknown tool \"nope\""},
                {"role": "tool", "tool_call_id": "call_3", "content": "the disk is full"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": tools_body(),
        })
    );
    let ChatOutcome::Completed { new_messages, .. } = turn.outcome else {
        panic!("not completed: {:?}", turn.outcome);
    };
    let roles: Vec<Role> = new_messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    assert_eq!(
        new_messages[2],
        results_message(&[
            result("call_1", "5 for \"x\"", false),
            result("call_2", "unknown tool \"nope\"", true),
            result("call_3", "the disk is full", true),
        ])
    );
}

#[tokio::test]
async fn a_turn_that_keeps_calling_tools_stops_at_its_limit() {
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call("lookup", json!({"q": "again"})).repeated()],
    ))
    .await
    .unwrap();
    let kit = toolkit(Arc::default());
    let turn = chat(
        &[engine(&server)],
        false,
        std::slice::from_ref(&kit),
        &[],
        ChatInput::Message(Message::user("loop")),
        2,
    )
    .await;
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        turn.events.last(),
        Some(&ChatEvent::Error {
            category: ErrorCategory::Other,
            message: "the turn reached its limit of 2 model requests".into()
        })
    );
    let ChatOutcome::TurnLimited { new_messages, .. } = &turn.outcome else {
        panic!("not turn-limited: {:?}", turn.outcome);
    };
    let roles: Vec<Role> = new_messages.iter().map(|m| m.role).collect();
    // Every call is paired with its result: the messages can be kept.
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool
        ]
    );
}
