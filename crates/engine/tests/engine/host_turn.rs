//! Host-owned turns (seed 003) against the scripted server: one request per
//! invocation, the exact request bodies, suspension and resumption, the
//! refusal of a new message while calls are pending, and signals.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use serde_json::{Value, json};
use sift_engine::context::stub;
use sift_engine::{
    ContextSettings, HostTurn, HostTurnError, SignalExtractor, TurnInput, TurnOutcome,
    pending_calls, run_host_turn,
};
use sift_llm::{ErrorCategory, Message, Part, Role, ToolCall, ToolResult, ToolSpec, Usage};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::engine;

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script::new().with("m", replies))
        .await
        .unwrap()
}

fn weather_tool() -> ToolSpec {
    ToolSpec {
        name: "weather".into(),
        description: "The weather in a city.".into(),
        parameters: json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
    }
}

fn weather_wire() -> Value {
    json!({"type": "function", "function": {
        "name": "weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    }})
}

fn message(text: &str) -> TurnInput {
    TurnInput::Message(text.into())
}

fn results(items: &[(&str, &str, bool)]) -> TurnInput {
    TurnInput::ToolResults(
        items
            .iter()
            .map(|(id, content, is_error)| ToolResult {
                call_id: (*id).into(),
                content: (*content).into(),
                is_error: *is_error,
            })
            .collect(),
    )
}

/// A turn on `history`, no system prompt, no extractor.
fn turn<'a>(
    history: &'a [Message],
    transcript: Vec<Message>,
    input: TurnInput,
    tools: &'a [ToolSpec],
) -> HostTurn<'a> {
    HostTurn {
        history,
        transcript,
        input,
        tools,
        system_prompt: None,
        extract_signals: None,
    }
}

fn weather_call(id: &str, city: &str) -> ToolCall {
    ToolCall::new(id, "weather", &json!({"city": city}))
}

fn calls_message(calls: &[ToolCall]) -> Message {
    Message {
        role: Role::Assistant,
        parts: calls.iter().cloned().map(Part::ToolCall).collect(),
    }
}

#[tokio::test]
async fn a_fresh_turn_sends_the_system_prompt_once_and_advertises_the_tools() {
    let server = server(vec![Reply::text("Hello.").usage(12, 3)]).await;
    let tools = [weather_tool()];
    let outcome = run_host_turn(
        &[engine(&server)],
        HostTurn {
            system_prompt: Some("Be brief."),
            ..turn(&[], Vec::new(), message("Hi"), &tools)
        },
    )
    .await
    .unwrap();

    assert_eq!(
        outcome,
        TurnOutcome::Completed {
            content: "Hello.".into(),
            signals: vec![],
            messages_to_commit: vec![
                Message::system("Be brief."),
                Message::user("Hi"),
                Message::assistant("Hello."),
            ],
            usage: Usage {
                input_tokens: 12,
                output_tokens: 3
            },
        }
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
            ],
            "tools": [weather_wire()],
        })
    );
}

#[tokio::test]
async fn a_session_with_history_gets_no_second_system_prompt() {
    let server = server(vec![Reply::text("Still brief.")]).await;
    let history = [
        Message::system("Be brief."),
        Message::user("Hi"),
        Message::assistant("Hello."),
    ];
    let outcome = run_host_turn(
        &[engine(&server)],
        HostTurn {
            system_prompt: Some("Be brief."),
            ..turn(&history, Vec::new(), message("Again"), &[])
        },
    )
    .await
    .unwrap();

    let TurnOutcome::Completed {
        messages_to_commit, ..
    } = outcome
    else {
        panic!("not completed: {outcome:?}");
    };
    // Only this turn's messages are to be committed.
    assert_eq!(
        messages_to_commit,
        vec![Message::user("Again"), Message::assistant("Still brief.")]
    );
    // No tools: none advertised.
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Hi"},
                {"role": "assistant", "content": "Hello."},
                {"role": "user", "content": "Again"},
            ],
        })
    );
}

#[tokio::test]
async fn tool_calls_suspend_the_turn_and_the_results_resume_it() {
    let server = server(vec![
        Reply::tool_call("weather", json!({"city": "Oslo"}))
            .and_tool_call("weather", json!({"city": "Rome"}))
            .usage(20, 8),
        Reply::text("Oslo: rain. Rome: sun.").usage(40, 6),
    ])
    .await;
    let engines = [engine(&server)];
    let tools = [weather_tool()];
    let history = [Message::user("Earlier"), Message::assistant("Noted.")];

    let suspended = run_host_turn(
        &engines,
        turn(
            &history,
            Vec::new(),
            message("Weather in Oslo and Rome?"),
            &tools,
        ),
    )
    .await
    .unwrap();
    let calls = vec![
        weather_call("call_1", "Oslo"),
        weather_call("call_2", "Rome"),
    ];
    let transcript = vec![
        Message::user("Weather in Oslo and Rome?"),
        calls_message(&calls),
    ];
    assert_eq!(
        suspended,
        TurnOutcome::Suspended {
            pending: calls.clone(),
            transcript: transcript.clone(),
            usage: Usage {
                input_tokens: 20,
                output_tokens: 8
            },
        }
    );
    assert_eq!(pending_calls(&transcript), calls);
    // One model call per invocation: the tools were not run, nothing more sent.
    assert_eq!(server.requests().len(), 1);

    // Results in another order than the calls, one an error.
    let completed = run_host_turn(
        &engines,
        turn(
            &history,
            transcript.clone(),
            results(&[
                ("call_2", "sun", false),
                ("call_1", "no data for Oslo", true),
            ]),
            &tools,
        ),
    )
    .await
    .unwrap();
    let tool_message = Message {
        role: Role::Tool,
        parts: vec![
            Part::ToolResult(ToolResult {
                call_id: "call_1".into(),
                content: "no data for Oslo".into(),
                is_error: true,
            }),
            Part::ToolResult(ToolResult {
                call_id: "call_2".into(),
                content: "sun".into(),
                is_error: false,
            }),
        ],
    };
    assert_eq!(
        completed,
        TurnOutcome::Completed {
            content: "Oslo: rain. Rome: sun.".into(),
            signals: vec![],
            messages_to_commit: vec![
                Message::user("Weather in Oslo and Rome?"),
                calls_message(&calls),
                tool_message,
                Message::assistant("Oslo: rain. Rome: sun."),
            ],
            usage: Usage {
                input_tokens: 40,
                output_tokens: 6
            },
        }
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "user", "content": "Earlier"},
                {"role": "assistant", "content": "Noted."},
                {"role": "user", "content": "Weather in Oslo and Rome?"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "no data for Oslo"},
                {"role": "tool", "tool_call_id": "call_2", "content": "sun"},
            ],
            "tools": [weather_wire()],
        })
    );
}

#[tokio::test]
async fn a_resumed_turn_can_suspend_again() {
    let server = server(vec![
        Reply::tool_call("weather", json!({"city": "Oslo"})),
        Reply::text("Done."),
    ])
    .await;
    let first = weather_call("call_0", "Bergen");
    let transcript = vec![Message::user("Go"), calls_message(&[first])];
    let tools = [weather_tool()];
    let outcome = run_host_turn(
        &[engine(&server)],
        turn(
            &[],
            transcript.clone(),
            results(&[("call_0", "fog", false)]),
            &tools,
        ),
    )
    .await
    .unwrap();
    let second = weather_call("call_1", "Oslo");
    let mut expected = transcript;
    expected.push(Message::tool_result("call_0", "fog", false));
    expected.push(calls_message(std::slice::from_ref(&second)));
    let TurnOutcome::Suspended {
        pending,
        transcript,
        ..
    } = outcome
    else {
        panic!("not suspended: {outcome:?}");
    };
    assert_eq!(pending, vec![second]);
    assert_eq!(transcript, expected);
}

#[tokio::test]
async fn a_new_message_while_calls_are_pending_is_refused_with_their_ids() {
    let server = server(vec![Reply::text("never sent")]).await;
    let calls = [weather_call("c1", "Oslo"), weather_call("c2", "Rome")];
    let transcript = vec![Message::user("Weather?"), calls_message(&calls)];
    let error = run_host_turn(
        &[engine(&server)],
        turn(&[], transcript, message("Hello?"), &[]),
    )
    .await
    .unwrap_err();
    assert_eq!(
        error,
        HostTurnError::ToolResultsRequired {
            ids: vec!["c1".into(), "c2".into()]
        }
    );
    assert_eq!(
        error.to_string(),
        "tool results are required first for: c1, c2"
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn results_must_answer_exactly_the_pending_calls() {
    let server = server(vec![Reply::text("never sent")]).await;
    let engines = [engine(&server)];
    let calls = [weather_call("c1", "Oslo"), weather_call("c2", "Rome")];
    let transcript = vec![Message::user("Weather?"), calls_message(&calls)];
    let cases = [
        (
            results(&[("c1", "rain", false)]),
            HostTurnError::MissingResults {
                ids: vec!["c2".into()],
            },
            "tool results are missing for: c2",
        ),
        (
            results(&[
                ("c1", "rain", false),
                ("c2", "sun", false),
                ("c9", "?", false),
            ]),
            HostTurnError::UnknownResults {
                ids: vec!["c9".into()],
                pending: vec!["c1".into(), "c2".into()],
            },
            "tool results for calls that are not pending: c9 (pending: c1, c2)",
        ),
        (
            results(&[
                ("c1", "rain", false),
                ("c2", "sun", false),
                ("c2", "sun", false),
            ]),
            HostTurnError::DuplicateResults {
                ids: vec!["c2".into()],
            },
            "more than one tool result for: c2",
        ),
    ];
    for (input, expected, text) in cases {
        let error = run_host_turn(&engines, turn(&[], transcript.clone(), input, &[]))
            .await
            .unwrap_err();
        assert_eq!(error.to_string(), text);
        assert_eq!(error, expected);
    }
    // Results with no turn suspended.
    let error = run_host_turn(
        &engines,
        turn(&[], Vec::new(), results(&[("c1", "rain", false)]), &[]),
    )
    .await
    .unwrap_err();
    assert_eq!(error, HostTurnError::NothingPending);
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn the_extractor_runs_on_the_final_content_only() {
    let server = server(vec![
        Reply::tool_call("weather", json!({"city": "Oslo"})),
        Reply::text("Rain.\nSIGNAL: umbrella\nSIGNAL: boots"),
    ])
    .await;
    let engines = [engine(&server)];
    let seen = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&seen);
    let extract = move |content: Option<&str>| -> Vec<Value> {
        counter.fetch_add(1, Ordering::SeqCst);
        content
            .unwrap_or_default()
            .lines()
            .filter_map(|line| line.strip_prefix("SIGNAL: "))
            .map(|s| json!({"signal": s}))
            .collect()
    };
    let extractor: &SignalExtractor = &extract;
    let tools = [weather_tool()];

    let suspended = run_host_turn(
        &engines,
        HostTurn {
            extract_signals: Some(extractor),
            ..turn(&[], Vec::new(), message("Weather?"), &tools)
        },
    )
    .await
    .unwrap();
    let TurnOutcome::Suspended { transcript, .. } = suspended else {
        panic!("not suspended: {suspended:?}");
    };
    assert_eq!(seen.load(Ordering::SeqCst), 0);

    let completed = run_host_turn(
        &engines,
        HostTurn {
            extract_signals: Some(extractor),
            ..turn(
                &[],
                transcript,
                results(&[("call_1", "rain", false)]),
                &tools,
            )
        },
    )
    .await
    .unwrap();
    let TurnOutcome::Completed {
        content, signals, ..
    } = completed
    else {
        panic!("not completed: {completed:?}");
    };
    assert_eq!(content, "Rain.\nSIGNAL: umbrella\nSIGNAL: boots");
    assert_eq!(
        signals,
        vec![json!({"signal": "umbrella"}), json!({"signal": "boots"})]
    );
    assert_eq!(seen.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_failed_call_or_a_refusal_is_an_error_and_the_same_turn_can_be_sent_again() {
    let server = server(vec![
        Reply::fault(500, r#"{"error":{"message":"boom"}}"#),
        Reply::refusal(None),
        Reply::text("Fine."),
    ])
    .await;
    let engines = [engine(&server)];
    let calls = [weather_call("c1", "Oslo")];
    let transcript = vec![Message::user("Weather?"), calls_message(&calls)];
    let resume = || {
        turn(
            &[],
            transcript.clone(),
            results(&[("c1", "rain", false)]),
            &[],
        )
    };

    let HostTurnError::Llm(error) = run_host_turn(&engines, resume()).await.unwrap_err() else {
        panic!("not a model error");
    };
    assert_eq!(error.category, ErrorCategory::Network);
    let HostTurnError::Llm(error) = run_host_turn(&engines, resume()).await.unwrap_err() else {
        panic!("not a model error");
    };
    assert_eq!(error.category, ErrorCategory::Refusal);
    let outcome = run_host_turn(&engines, resume()).await.unwrap();
    assert!(matches!(outcome, TurnOutcome::Completed { ref content, .. } if content == "Fine."));
    // The three requests were the same.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[0].body, requests[1].body);
    assert_eq!(requests[1].body, requests[2].body);
}

#[tokio::test]
async fn the_request_goes_through_the_tool_result_window() {
    let server = server(vec![Reply::text("ok")]).await;
    let mut engine = engine(&server);
    engine.settings = ContextSettings {
        tool_results_in_context: Some(1),
        tool_results_chars_in_context: Some(0),
        ..ContextSettings::default()
    };
    let old = weather_call("c1", "Oslo");
    let history = [
        Message::user("Weather?"),
        calls_message(std::slice::from_ref(&old)),
        Message::tool_result("c1", "a".repeat(600), false),
        Message::assistant("Done."),
    ];
    let recent = weather_call("c2", "Rome");
    let transcript = vec![
        Message::user("And Rome?"),
        calls_message(std::slice::from_ref(&recent)),
    ];
    let big = "b".repeat(700);
    run_host_turn(
        &[engine],
        turn(&history, transcript, results(&[("c2", &big, false)]), &[]),
    )
    .await
    .unwrap();
    let sent = &server.requests()[0].body["messages"];
    assert_eq!(
        sent[2],
        json!({"role": "tool", "tool_call_id": "c1", "content": stub("weather", &"a".repeat(600))})
    );
    assert_eq!(
        sent[6],
        json!({"role": "tool", "tool_call_id": "c2", "content": big})
    );
}

#[tokio::test]
async fn the_next_engine_answers_when_one_fails() {
    let script = Script::new()
        .with(
            "bad",
            [Reply::fault(
                404,
                r#"{"error":{"message":"no such model"}}"#,
            )],
        )
        .with("m", [Reply::text("from m")]);
    let server = ScriptedServer::start(script).await.unwrap();
    let mut bad = engine(&server);
    bad.model = "bad".into();
    let outcome = run_host_turn(
        &[bad, engine(&server)],
        turn(&[], Vec::new(), message("Hi"), &[]),
    )
    .await
    .unwrap();
    assert!(matches!(outcome, TurnOutcome::Completed { ref content, .. } if content == "from m"));
    let models: Vec<Value> = server
        .requests()
        .iter()
        .map(|r| r.body["model"].clone())
        .collect();
    assert_eq!(models, vec![json!("bad"), json!("m")]);
}
