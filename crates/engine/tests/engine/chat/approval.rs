//! Approvals: a call that needs the user suspends the turn; approved it
//! runs, denied the model is told; both carry the turn on.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::json;
use sift_engine::{ChatEvent, ChatInput, ChatOutcome, DENIED_TOOL_CALL, SuspendedChat, Toolkit};
use sift_llm::{ErrorCategory, Message};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use super::{call, calls_message, chat, result, results_message, text, toolkit, usage};
use crate::engine;

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
async fn a_call_that_cannot_run_is_answered_at_once_not_put_to_the_user() {
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::raw_tool_call("send_mail", "{to: bo}").usage(3, 3),
            Reply::text("Sorry.").usage(4, 1),
        ],
    ))
    .await
    .unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let kit = toolkit(runs.clone());
    let turn = chat(
        &[engine(&server)],
        false,
        std::slice::from_ref(&kit),
        &[],
        ChatInput::Message(Message::user("Mail it")),
        10,
    )
    .await;
    let error = "the arguments are not valid JSON: key must be a string at line 1 column 2";
    assert_eq!(
        turn.events[2],
        ChatEvent::ToolCallFinished {
            id: "call_1".into(),
            name: "send_mail".into(),
            content: error.into(),
            is_error: true,
        }
    );
    assert!(
        !turn
            .events
            .iter()
            .any(|e| matches!(e, ChatEvent::ApprovalRequired { .. }))
    );
    assert!(matches!(turn.outcome, ChatOutcome::Completed { .. }));
    assert_eq!(runs.load(Ordering::SeqCst), 0);
    assert_eq!(
        server.requests()[1].body["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_1", "content": error})
    );
}

#[tokio::test]
async fn with_two_calls_waiting_the_turn_carries_on_once_both_are_decided() {
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::tool_call("send_mail", json!({"to": "a"}))
                    .and_tool_call("send_mail", json!({"to": "b"}))
                    .usage(5, 5),
                Reply::text("One sent.").usage(7, 2),
            ],
        ),
    )
    .await
    .unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let kit = toolkit(runs.clone());
    let kits = std::slice::from_ref(&kit);
    let tier = [engine(&server)];
    let first = chat(
        &tier,
        false,
        kits,
        &[],
        ChatInput::Message(Message::user("Mail both")),
        10,
    )
    .await;
    let ChatOutcome::AwaitingApproval { suspended, .. } = first.outcome else {
        panic!("not waiting: {:?}", first.outcome);
    };
    assert_eq!(suspended.approvals.len(), 2);

    let second = chat(
        &tier,
        false,
        kits,
        &[],
        ChatInput::Approval {
            suspended,
            call_id: "call_2".into(),
            approved: true,
        },
        10,
    )
    .await;
    let ChatOutcome::AwaitingApproval { suspended, usage } = second.outcome else {
        panic!("not waiting: {:?}", second.outcome);
    };
    assert_eq!(usage, super::usage(0, 0));
    assert_eq!(suspended.results, [result("call_2", "sent", false)]);
    assert_eq!(
        suspended.approvals,
        [call("call_1", "send_mail", "{\"to\":\"a\"}")]
    );
    assert_eq!(
        server.requests().len(),
        1,
        "no request until both are decided"
    );

    let third = chat(
        &tier,
        false,
        kits,
        &[],
        ChatInput::Approval {
            suspended,
            call_id: "call_1".into(),
            approved: false,
        },
        10,
    )
    .await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let ChatOutcome::Completed { new_messages, .. } = third.outcome else {
        panic!("not completed: {:?}", third.outcome);
    };
    // The results go in the order of the calls, not of the decisions.
    assert_eq!(
        new_messages[2],
        results_message(&[
            result("call_1", DENIED_TOOL_CALL, true),
            result("call_2", "sent", false),
        ])
    );
}
