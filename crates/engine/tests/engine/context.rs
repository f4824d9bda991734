use serde_json::json;
use sift_engine::context::stub;
use sift_engine::{
    CallStatus, ContextSettings, EngineContext, FnTool, ToolOutput, Toolkit, build_context,
    initial_transcript, run_structured_call,
};
use sift_llm::{Image, Message, Part, Role, ToolCall, ToolSpec};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::{engine, invoice_spec};

/// A conversation with `n` calls of `tool`, each result `size` characters
/// long (result i is made of the digit i % 10).
fn conversation(n: usize, size: usize) -> Vec<Message> {
    let mut messages = vec![Message::system("s"), Message::user("u")];
    for i in 0..n {
        messages.push(Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall::new(
                format!("c{i}"),
                "fetch",
                &json!({"i": i}),
            ))],
        });
        let digit = char::from(b'0' + (i % 10) as u8);
        messages.push(Message::tool_result(
            format!("c{i}"),
            digit.to_string().repeat(size),
            false,
        ));
    }
    messages
}

fn result_contents(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|p| match p {
            Part::ToolResult(r) => Some(r.content.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_newest_large_results_stay_whole_and_older_ones_become_stubs() {
    let messages = conversation(8, 600);
    let settings = ContextSettings {
        tool_results_in_context: Some(6),
        tool_results_chars_in_context: Some(0),
        ..ContextSettings::default()
    };
    let sent = build_context(&messages, &settings, &EngineContext::new(8192));
    let contents = result_contents(&sent);
    let stubbed = stub("fetch", &"0".repeat(600));
    assert_eq!(
        stubbed,
        "[fetch result, 1 line, 600 chars; trimmed from context to save space. Note what you need; call the tool again only if you still need detail.]"
    );
    assert_eq!(contents[0], stubbed);
    assert_eq!(contents[1], stub("fetch", &"1".repeat(600)));
    for (i, content) in contents.iter().enumerate().skip(2) {
        assert_eq!(
            *content,
            i.to_string().repeat(600),
            "result {i} stays whole"
        );
    }
    // Only the request changes.
    assert_eq!(result_contents(&messages)[0], "0".repeat(600));
}

#[test]
fn the_budget_keeps_older_results_while_they_fit() {
    let messages = conversation(5, 1000);
    // Newest 1 always; then older ones while all the whole ones fit 3,000 characters.
    let chars = ContextSettings {
        tool_results_in_context: Some(1),
        tool_results_chars_in_context: Some(3000),
        ..ContextSettings::default()
    };
    let whole = |sent: &[Message]| {
        result_contents(sent)
            .iter()
            .map(|c| c.len() == 1000)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        whole(&build_context(&messages, &chars, &EngineContext::new(8192))),
        vec![false, false, true, true, true]
    );

    // A token budget (the setting) wins over the characters one: 750 tokens = 3 results of 250.
    let tokens = ContextSettings {
        tool_results_tokens: Some(750),
        ..chars.clone()
    };
    assert_eq!(
        whole(&build_context(
            &messages,
            &tokens,
            &EngineContext::new(8192)
        )),
        vec![false, false, true, true, true]
    );
    // The engine's own budget wins over both.
    let mut engine = EngineContext::new(8192);
    engine.tool_results_tokens = Some(1000);
    assert_eq!(
        whole(&build_context(&messages, &tokens, &engine)),
        vec![false, true, true, true, true]
    );
    // With no budget set, 20% of the context window: 6,250 tokens give 1,250 (5 results), 3,000 give 600 (2).
    let none = ContextSettings {
        tool_results_in_context: Some(1),
        ..ContextSettings::default()
    };
    assert_eq!(
        whole(&build_context(&messages, &none, &EngineContext::new(6250))),
        vec![true, true, true, true, true]
    );
    assert_eq!(
        whole(&build_context(&messages, &none, &EngineContext::new(3000))),
        vec![false, false, false, true, true]
    );
}

#[test]
fn errors_short_results_and_none_are_sent_as_they_are() {
    let mut messages = conversation(3, 600);
    messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall::new("e", "fetch", &json!({})))],
    });
    messages.push(Message::tool_result("e", "x".repeat(900), true));
    messages.push(Message {
        role: Role::Assistant,
        parts: vec![Part::ToolCall(ToolCall::new("s", "fetch", &json!({})))],
    });
    messages.push(Message::tool_result("s", "short", false));
    let zero = ContextSettings {
        tool_results_in_context: Some(0),
        tool_results_chars_in_context: Some(0),
        ..ContextSettings::default()
    };
    let contents = result_contents(&build_context(&messages, &zero, &EngineContext::new(8192)));
    assert!(
        contents[..3]
            .iter()
            .all(|c| c.starts_with("[fetch result, 1 line, 600 chars"))
    );
    assert_eq!(contents[3], "x".repeat(900));
    assert_eq!(contents[4], "short");

    // `None` sends every result whole, and the engine may say so too.
    let all = ContextSettings {
        tool_results_in_context: None,
        ..zero.clone()
    };
    assert_eq!(
        result_contents(&build_context(&messages, &all, &EngineContext::new(8192))),
        result_contents(&messages)
    );
    let mut engine = EngineContext::new(8192);
    engine.tool_results_in_context = Some(None);
    assert_eq!(
        result_contents(&build_context(&messages, &zero, &engine)),
        result_contents(&messages)
    );
}

#[test]
fn images_have_their_own_window() {
    let image = |n: u8| {
        Part::Image(Image {
            mime: "image/png".into(),
            data: vec![n],
        })
    };
    let messages = vec![
        Message {
            role: Role::User,
            parts: vec![image(1), image(2)],
        },
        Message {
            role: Role::User,
            parts: vec![image(3)],
        },
    ];
    let settings = ContextSettings {
        images_in_context: Some(2),
        ..ContextSettings::default()
    };
    let sent = build_context(&messages, &settings, &EngineContext::new(8192));
    assert_eq!(
        sent[0].parts[0],
        Part::Text {
            text: "[an earlier image (image/png) left out of context]".into()
        }
    );
    assert_eq!(sent[0].parts[1], image(2));
    assert_eq!(sent[1].parts[0], image(3));
}

#[tokio::test]
async fn in_a_call_only_the_request_is_trimmed() {
    let spec_tool = ToolSpec {
        name: "page".into(),
        description: "A page".into(),
        parameters: json!({"type": "object"}),
    };
    let tool = FnTool::new(spec_tool, |args| async move {
        Ok(ToolOutput::text(format!("{args}").repeat(100)))
    });
    let script = Script::new().with(
        "m",
        [
            Reply::tool_call("page", json!({"n": 1})),
            Reply::tool_call("page", json!({"n": 2})),
            Reply::tool_call("submit_output", json!({"number": "P", "total": 2})),
        ],
    );
    let server = ScriptedServer::start(script).await.unwrap();
    let mut engine = engine(&server);
    engine.settings = ContextSettings {
        tool_results_in_context: Some(1),
        tool_results_chars_in_context: Some(0),
        ..ContextSettings::default()
    };
    let mut spec = invoice_spec();
    spec.toolkits = vec![Toolkit::new().with(tool)];
    let outcome = run_structured_call(
        &engine,
        &spec,
        initial_transcript(&spec, Message::user("go")).await,
    )
    .await;
    assert_eq!(outcome.status, CallStatus::Completed);
    let third = server.requests()[2].body["messages"].clone();
    assert_eq!(
        third[3]["content"],
        json!(stub("page", &"{\"n\":1}".repeat(100)))
    );
    assert_eq!(third[5]["content"], json!("{\"n\":2}".repeat(100)));
    // The transcript keeps both whole, ids paired.
    assert_eq!(
        result_contents(&outcome.transcript)[..2],
        ["{\"n\":1}".repeat(100), "{\"n\":2}".repeat(100)]
    );
}
