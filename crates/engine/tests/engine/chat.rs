//! Chat turns: the events in order, the exact requests, approvals, the
//! turn limit, and refusals handed along a tier.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use sift_engine::{
    ChatEvent, ChatInput, ChatOutcome, ChatTurn, DENIED_TOOL_CALL, Engine, FnTool, SuspendedChat,
    ToolError, ToolOutput, Toolkit, run_chat_turn,
};
use sift_llm::{ErrorCategory, Message, Part, Role, ToolCall, ToolResult, ToolSpec, Usage};
use sift_scripted_server::{Finish, Reply, Script, ScriptedServer};

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

/// The first reply calls `lookup` and `send_mail`; `lookup` runs, and the
/// turn waits on `send_mail`.
async fn suspend_on_send_mail(server: &ScriptedServer, kit: &Toolkit) -> SuspendedChat {
    let turn = chat(
        &[engine(server)],
        false,
        std::slice::from_ref(kit),
        &[],
        ChatInput::Message(Message::user("Mail the total")),
        10,
    )
    .await;
    assert_eq!(
        turn.events,
        vec![
            ChatEvent::ToolCallStarted {
                id: "call_1".into(),
                name: "lookup".into()
            },
            ChatEvent::ToolCallStarted {
                id: "call_2".into(),
                name: "send_mail".into()
            },
            ChatEvent::Usage(usage(10, 5)),
            ChatEvent::ToolCallFinished {
                id: "call_1".into(),
                name: "lookup".into(),
                content: "5 for \"t\"".into(),
                is_error: false,
            },
            ChatEvent::ApprovalRequired {
                id: "call_2".into(),
                name: "send_mail".into(),
                arguments: "{\"to\":\"bo@example.com\"}".into(),
            },
        ]
    );
    let calls = [
        call("call_1", "lookup", "{\"q\":\"t\"}"),
        call("call_2", "send_mail", "{\"to\":\"bo@example.com\"}"),
    ];
    let expected = SuspendedChat {
        transcript: vec![Message::user("Mail the total"), calls_message(&calls)],
        results: vec![result("call_1", "5 for \"t\"", false)],
        approvals: vec![calls[1].clone()],
        model: "m".into(),
        requests: 1,
    };
    assert_eq!(
        turn.outcome,
        ChatOutcome::AwaitingApproval {
            suspended: expected.clone(),
            usage: usage(10, 5),
        }
    );
    assert_eq!(server.requests().len(), 1, "nothing sent while waiting");
    // What a caller stores and reads back after a restart.
    let stored = serde_json::to_value(&expected).unwrap();
    serde_json::from_value(stored).unwrap()
}

fn approval_server() -> Script {
    Script::new().with(
        "m",
        [
            Reply::tool_call("lookup", json!({"q": "t"}))
                .and_tool_call("send_mail", json!({"to": "bo@example.com"}))
                .usage(10, 5),
            Reply::text("Done.").usage(30, 1),
        ],
    )
}

#[tokio::test]
async fn an_approved_call_runs_and_the_turn_carries_on() {
    let server = ScriptedServer::start(approval_server()).await.unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let kit = toolkit(runs.clone());
    let suspended = suspend_on_send_mail(&server, &kit).await;
    assert_eq!(runs.load(Ordering::SeqCst), 0);

    let turn = chat(
        &[engine(&server)],
        false,
        std::slice::from_ref(&kit),
        &[],
        ChatInput::Approval {
            suspended,
            call_id: "call_2".into(),
            approved: true,
        },
        10,
    )
    .await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(
        turn.events,
        vec![
            ChatEvent::ToolCallFinished {
                id: "call_2".into(),
                name: "send_mail".into(),
                content: "sent".into(),
                is_error: false,
            },
            text("Done"),
            text("."),
            ChatEvent::Usage(usage(30, 1)),
            ChatEvent::Done {
                usage: usage(30, 1)
            },
        ]
    );
    let calls = [
        call("call_1", "lookup", "{\"q\":\"t\"}"),
        call("call_2", "send_mail", "{\"to\":\"bo@example.com\"}"),
    ];
    assert_eq!(
        turn.outcome,
        ChatOutcome::Completed {
            new_messages: vec![
                Message::user("Mail the total"),
                calls_message(&calls),
                results_message(&[
                    result("call_1", "5 for \"t\"", false),
                    result("call_2", "sent", false),
                ]),
                Message::assistant("Done."),
            ],
            usage: usage(30, 1),
            model: "m".into(),
        }
    );
    assert_eq!(
        server.requests()[1].body["messages"],
        json!([
            {"role": "user", "content": "Mail the total"},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": "{\"q\":\"t\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "send_mail", "arguments": "{\"to\":\"bo@example.com\"}"}},
            ]},
            {"role": "tool", "tool_call_id": "call_1", "content": "5 for \"t\""},
            {"role": "tool", "tool_call_id": "call_2", "content": "sent"},
        ])
    );
}

#[tokio::test]
async fn a_denied_call_does_not_run_and_the_model_is_told() {
    let server = ScriptedServer::start(approval_server()).await.unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let kit = toolkit(runs.clone());
    let suspended = suspend_on_send_mail(&server, &kit).await;

    let turn = chat(
        &[engine(&server)],
        false,
        std::slice::from_ref(&kit),
        &[],
        ChatInput::Approval {
            suspended,
            call_id: "call_2".into(),
            approved: false,
        },
        10,
    )
    .await;
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(DENIED_TOOL_CALL, "the user denied this tool call");
    assert_eq!(
        turn.events[0],
        ChatEvent::ToolCallFinished {
            id: "call_2".into(),
            name: "send_mail".into(),
            content: "the user denied this tool call".into(),
            is_error: true,
        }
    );
    let ChatOutcome::Completed { new_messages, .. } = &turn.outcome else {
        panic!("not completed: {:?}", turn.outcome);
    };
    assert_eq!(
        new_messages[2],
        results_message(&[
            result("call_1", "5 for \"t\"", false),
            result("call_2", "the user denied this tool call", true),
        ])
    );
    assert_eq!(
        server.requests()[1].body["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_2", "content": "the user denied this tool call"})
    );
}

#[tokio::test]
async fn a_decision_on_a_call_that_is_not_waiting_fails_before_any_request() {
    let server = ScriptedServer::start(approval_server()).await.unwrap();
    let kit = toolkit(Arc::default());
    let suspended = suspend_on_send_mail(&server, &kit).await;
    let turn = chat(
        &[engine(&server)],
        false,
        std::slice::from_ref(&kit),
        &[],
        ChatInput::Approval {
            suspended,
            call_id: "call_1".into(),
            approved: true,
        },
        10,
    )
    .await;
    let message = "no approval is pending for call call_1 (pending: call_2)";
    assert_eq!(
        turn.events,
        vec![ChatEvent::Error {
            category: ErrorCategory::Other,
            message: message.into()
        }]
    );
    assert!(matches!(&turn.outcome, ChatOutcome::Failed { error, .. } if error.message == message));
    assert_eq!(server.requests().len(), 1);
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
