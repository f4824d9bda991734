//! Sessions across steps: a chat step inherits the saved conversation of
//! its direct dependencies, in `depends` order, with system messages
//! de-duplicated (the first kept); the `respond` instruction is never
//! saved (reference, section 3 "Sessions", and `TestRunner_ChatMessagesHandler`).

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::stdout;
use crate::workflow_structured::{
    FORCED_RESPOND, INSTRUCTION, PROMPT, classify_schema, respond_tool,
};
use crate::workflow_support::{Scratch, assert_exit, bodies, server};

/// A chat step against the scripted server, not streamed.
fn chat_step(id: &str, model: &str, depends: &[&str], lines: &[&str]) -> String {
    let mut yaml = format!("  - id: {id}\n");
    if !depends.is_empty() {
        yaml.push_str(&format!("    depends: [{}]\n", depends.join(", ")));
    }
    yaml.push_str(&format!(
        "    action: chat.completion\n    with:\n      provider: local\n      model: {model}\n      base_url: BASE_URL\n      stream: false\n"
    ));
    for line in lines {
        yaml.push_str("      ");
        yaml.push_str(line);
        yaml.push('\n');
    }
    yaml
}

fn flow(steps: &[String]) -> String {
    format!("steps:\n{}", steps.concat())
}

/// The messages of the request made with `model`.
fn messages_for(server: &ScriptedServer, model: &str) -> Value {
    let found: Vec<Value> = bodies(server)
        .into_iter()
        .filter(|b| b["model"] == model)
        .collect();
    assert_eq!(found.len(), 1, "requests for {model}: {found:?}");
    found[0]["messages"].clone()
}

#[tokio::test]
async fn a_dependent_chat_step_continues_the_conversation() {
    let server = server(
        Script::new()
            .with("model-a", [Reply::text("first answer")])
            .with("model-b", [Reply::text("second answer")]),
    )
    .await;
    let scratch = Scratch::new("session-continue");
    let yaml = flow(&[
        chat_step(
            "a",
            "model-a",
            &[],
            &["system: Be brief.", "prompt: first question"],
        ),
        chat_step("b", "model-b", &["a"], &["prompt: second question"]),
    ]);
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "first answer\nsecond answer\n");
    assert_eq!(
        messages_for(&server, "model-b"),
        json!([
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": "first answer"},
            {"role": "user", "content": "second question"},
        ])
    );
}

/// The step's own system message comes first and is the one kept.
#[tokio::test]
async fn the_steps_own_system_message_wins() {
    let server = server(
        Script::new()
            .with("model-a", [Reply::text("first answer")])
            .with("model-b", [Reply::text("second answer")]),
    )
    .await;
    let scratch = Scratch::new("session-system");
    let yaml = flow(&[
        chat_step(
            "a",
            "model-a",
            &[],
            &["system: Be brief.", "prompt: first question"],
        ),
        chat_step(
            "b",
            "model-b",
            &["a"],
            &["system: Be thorough.", "prompt: second question"],
        ),
    ]);
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        messages_for(&server, "model-b"),
        json!([
            {"role": "system", "content": "Be thorough."},
            {"role": "user", "content": "first question"},
            {"role": "assistant", "content": "first answer"},
            {"role": "user", "content": "second question"},
        ])
    );
}

/// Two dependencies: their conversations in `depends` order (whichever
/// finished first), one system message.
#[tokio::test]
async fn two_dependencies_are_joined_in_depends_order() {
    let server = server(
        Script::new()
            .with("model-a", [Reply::text("answer a").delay_ms(300)])
            .with("model-b", [Reply::text("answer b")])
            .with("model-c", [Reply::text("answer c")]),
    )
    .await;
    let scratch = Scratch::new("session-two");
    let yaml = flow(&[
        chat_step(
            "a",
            "model-a",
            &[],
            &["system: System A.", "prompt: question a"],
        ),
        chat_step(
            "b",
            "model-b",
            &[],
            &["system: System B.", "prompt: question b"],
        ),
        chat_step("c", "model-c", &["a", "b"], &["prompt: question c"]),
    ]);
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        messages_for(&server, "model-c"),
        json!([
            {"role": "system", "content": "System A."},
            {"role": "user", "content": "question a"},
            {"role": "assistant", "content": "answer a"},
            {"role": "user", "content": "question b"},
            {"role": "assistant", "content": "answer b"},
            {"role": "user", "content": "question c"},
        ])
    );
}

/// Only direct dependencies count: a shell step in between breaks the
/// conversation.
#[tokio::test]
async fn only_direct_dependencies_are_inherited() {
    let server = server(
        Script::new()
            .with("model-a", [Reply::text("answer a")])
            .with("model-c", [Reply::text("answer c")]),
    )
    .await;
    let scratch = Scratch::new("session-direct");
    let yaml = flow(&[
        chat_step("a", "model-a", &[], &["prompt: question a"]),
        "  - id: between\n    depends: a\n    run: echo between\n".to_owned(),
        chat_step("c", "model-c", &["between"], &["prompt: question c"]),
    ]);
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "answer a\nbetween\nanswer c\n");
    assert_eq!(
        messages_for(&server, "model-c"),
        json!([{"role": "user", "content": "question c"}])
    );
}

/// A structured step's session ends with its answer; the instruction it
/// was sent is not part of it.
#[tokio::test]
async fn the_respond_instruction_is_not_kept_in_the_session() {
    let server = server(
        Script::new()
            .with(
                "model-a",
                [Reply::tool_call(
                    "respond",
                    json!({"category": "refund", "amount": 12.5}),
                )],
            )
            .with("model-b", [Reply::text("A refund.")]),
    )
    .await;
    let scratch = Scratch::new("session-structured");
    let mut classify = chat_step(
        "a",
        "model-a",
        &[],
        &["system: Classify notes.", &format!("prompt: \"{PROMPT}\"")],
    );
    classify.push_str(
        "    output_schema:
      type: object
      properties:
        category:
          type: string
          enum: [refund, complaint, question]
        amount:
          type: number
      required: [category]
",
    );
    let yaml = flow(&[
        classify,
        chat_step("b", "model-b", &["a"], &["prompt: Say it in words."]),
    ]);
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        stdout(&output),
        "{\"amount\":12.5,\"category\":\"refund\"}\nA refund.\n"
    );
    assert_eq!(
        bodies(&server)[0],
        json!({"model": "model-a", "messages": [
            {"role": "system", "content": format!("Classify notes.\n\n{INSTRUCTION}")},
            {"role": "user", "content": PROMPT},
        ], "tools": [respond_tool(classify_schema())], "tool_choice": FORCED_RESPOND.clone()})
    );
    assert_eq!(
        messages_for(&server, "model-b"),
        json!([
            {"role": "system", "content": "Classify notes."},
            {"role": "user", "content": PROMPT},
            {"role": "assistant", "content": "{\"amount\":12.5,\"category\":\"refund\"}"},
            {"role": "user", "content": "Say it in words."},
        ])
    );
}
