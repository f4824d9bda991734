//! `action: chat.completion` requests and output: dagu's
//! `TestChatCompletionLive` and `TestChatCompletion` cases (prompt,
//! system, streaming, sampling fields, model fallback), the DAG-level `llm`
//! block, and the `--json` summary of a chat step.

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script};

use crate::workflow_support::{Scratch, assert_exit, bodies, server, step_json};
use crate::{stderr, stdout};

/// A workflow of one chat step `ask` against the scripted server, with
/// these further `with` lines.
fn ask(with: &[&str]) -> String {
    let mut yaml = String::from(
        "steps:\n  - id: ask\n    action: chat.completion\n    with:\n      provider: local\n      model: test-model\n      base_url: BASE_URL\n",
    );
    for line in with {
        yaml.push_str("      ");
        yaml.push_str(line);
        yaml.push('\n');
    }
    yaml
}

fn streamed(messages: Value) -> Value {
    json!({
        "model": "test-model",
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    })
}

#[tokio::test]
async fn a_prompt_is_one_user_message_and_the_reply_is_streamed_to_stdout() {
    let server =
        server(Script::new().with("test-model", [Reply::text("Hello world").chunk_chars(3)])).await;
    let scratch = Scratch::new("prompt");
    let file = scratch.flow(&ask(&["prompt: hello"]), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "Hello world\n");
    assert_eq!(
        bodies(&server),
        vec![streamed(json!([{"role": "user", "content": "hello"}]))]
    );
}

#[tokio::test]
async fn system_goes_first_ahead_of_the_messages() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("system");
    let file = scratch.flow(
        &ask(&[
            "system: You are a helpful assistant",
            "messages:\n        - role: user\n          content: hi there",
        ]),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "ok\n");
    assert_eq!(
        bodies(&server),
        vec![streamed(json!([
            {"role": "system", "content": "You are a helpful assistant"},
            {"role": "user", "content": "hi there"},
        ]))]
    );
}

#[tokio::test]
async fn messages_keep_their_order_and_roles() {
    let server = server(Script::new().with("test-model", [Reply::text("4")])).await;
    let scratch = Scratch::new("messages");
    let file = scratch.flow(
        &ask(&[
            "stream: false",
            "messages:\n        - role: user\n          content: What is 1+1?\n        - role: assistant\n          content: \"2\"\n        - role: user\n          content: And 2+2?",
        ]),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "4\n");
    assert_eq!(
        bodies(&server),
        vec![json!({"model": "test-model", "messages": [
            {"role": "user", "content": "What is 1+1?"},
            {"role": "assistant", "content": "2"},
            {"role": "user", "content": "And 2+2?"},
        ]})]
    );
}

/// The seed: "When both `with.prompt` and `with.messages` are present,
/// the prompt takes precedence."
#[tokio::test]
async fn the_prompt_wins_over_messages() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("prompt-wins");
    let file = scratch.flow(
        &ask(&[
            "prompt: from the prompt",
            "messages:\n        - role: user\n          content: from the messages",
        ]),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server),
        vec![streamed(
            json!([{"role": "user", "content": "from the prompt"}])
        )]
    );
}

/// dagu's `stream_false.yaml`: not streamed (our client omits `stream`
/// when it is false, as `sift ask --no-stream` does), the same stdout.
#[tokio::test]
async fn stream_false_sends_one_request_and_prints_the_whole_reply() {
    let server = server(Script::new().with("test-model", [Reply::text("Hello world")])).await;
    let scratch = Scratch::new("no-stream");
    let file = scratch.flow(
        &ask(&["system: Be concise", "prompt: hello", "stream: false"]),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "Hello world\n");
    assert_eq!(
        bodies(&server),
        vec![json!({"model": "test-model", "messages": [
            {"role": "system", "content": "Be concise"},
            {"role": "user", "content": "hello"},
        ]})]
    );
}

#[tokio::test]
async fn temperature_max_tokens_and_top_p_are_forwarded() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("sampling");
    let file = scratch.flow(
        &ask(&[
            "prompt: hello",
            "temperature: 0.25",
            "max_tokens: 128",
            "top_p: 0.5",
        ]),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let mut expected = streamed(json!([{"role": "user", "content": "hello"}]));
    expected["temperature"] = json!(0.25);
    expected["max_tokens"] = json!(128);
    expected["top_p"] = json!(0.5);
    assert_eq!(bodies(&server), vec![expected]);
}

/// A model list: entries are tried in order, none streamed. HTTP 400 is
/// not retried, so the fallback is immediate (reference, section 1).
#[tokio::test]
async fn a_model_list_falls_back_to_the_next_model_without_streaming() {
    let server = server(
        Script::new()
            .with(
                "bad-model",
                [Reply::fault(
                    400,
                    r#"{"error":{"message":"unknown model"}}"#,
                )],
            )
            .with("good-model", [Reply::text("from good model")]),
    )
    .await;
    let scratch = Scratch::new("fallback");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      base_url: BASE_URL
      model:
        - provider: local
          name: bad-model
        - provider: local
          name: good-model
      prompt: hello
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "from good model\n");
    let user = json!([{"role": "user", "content": "hello"}]);
    assert_eq!(
        bodies(&server),
        vec![
            json!({"model": "bad-model", "messages": user}),
            json!({"model": "good-model", "messages": user}),
        ]
    );
}

/// "A single model does not activate fallback": a one-entry list streams.
#[tokio::test]
async fn a_one_model_list_still_streams() {
    let server = server(Script::new().with("test-model", [Reply::text("solo")])).await;
    let scratch = Scratch::new("one-model");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      base_url: BASE_URL
      model:
        - provider: local
          name: test-model
      prompt: hello
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "solo\n");
    assert_eq!(
        bodies(&server),
        vec![streamed(json!([{"role": "user", "content": "hello"}]))]
    );
}

#[tokio::test]
async fn a_failed_request_fails_the_step_and_the_run() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::fault(400, r#"{"error":{"message":"bad request"}}"#)],
    ))
    .await;
    let scratch = Scratch::new("request-fails");
    let yaml = ask(&["prompt: hello"]) + "  - id: after\n    depends: ask\n    run: echo never\n";
    let file = scratch.flow(&yaml, Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert_eq!(summary["status"], "failed");
    assert_eq!(summary["steps"][0]["status"], "failed");
    assert!(
        summary["steps"][0]["error"]
            .as_str()
            .is_some_and(|e| e.contains("bad request")),
        "{summary}"
    );
    assert_eq!(
        summary["steps"][1],
        step_json(Some("after"), "after", "skipped", "", json!({}), None)
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn the_json_summary_of_a_chat_step() {
    let server = server(Script::new().with("test-model", [Reply::text("Hello world")])).await;
    let scratch = Scratch::new("chat-json");
    let file = scratch.flow(&ask(&["prompt: hello"]), Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(summary["status"], "succeeded");
    assert_eq!(
        summary["steps"],
        json!([step_json(
            Some("ask"),
            "ask",
            "succeeded",
            "Hello world\n",
            json!({}),
            None
        )])
    );
}

#[tokio::test]
async fn a_chat_steps_output_is_its_trimmed_reply() {
    let server = server(Script::new().with("test-model", [Reply::text("  Paris  ")])).await;
    let scratch = Scratch::new("chat-output");
    let yaml = ask(&["prompt: Capital of France?", "stream: false"])
        + "    output: CAPITAL\n  - id: shout\n    depends: ask\n    run: echo \"<${CAPITAL}>\"\n";
    let file = scratch.flow(&yaml, Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        summary["steps"],
        json!([
            step_json(
                Some("ask"),
                "ask",
                "succeeded",
                "  Paris  \n",
                json!({"CAPITAL": "Paris"}),
                None
            ),
            step_json(
                Some("shout"),
                "shout",
                "succeeded",
                "<Paris>\n",
                json!({}),
                None
            ),
        ])
    );
}

/// Values are resolved in the prompt at run time: params and an earlier
/// step's output.
#[tokio::test]
async fn the_prompt_is_resolved_at_run_time() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("prompt-values");
    let yaml = "params:
  - TOPIC: weather
steps:
  - id: fetch
    run: echo sunny
    output: FORECAST
  - id: ask
    depends: fetch
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      stream: false
      prompt: \"Summarise the ${params.TOPIC}: ${FORECAST} (${steps.fetch.outputs.FORECAST})\"
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &["--param", "TOPIC=forecast"]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "sunny\nok\n");
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([{"role": "user", "content": "Summarise the forecast: sunny (sunny)"}])
    );
}

/// The DAG-level `llm` block is used by a step whose `with` sets no model
/// field (reference, section 3).
#[tokio::test]
async fn a_step_without_model_fields_inherits_the_dag_llm_block() {
    let server = server(Script::new().with("dag-model", [Reply::text("inherited")])).await;
    let scratch = Scratch::new("dag-llm");
    let yaml = "llm:
  provider: local
  model: dag-model
  base_url: BASE_URL
  system: From the DAG
  stream: false
  temperature: 0.5
steps:
  - id: ask
    action: chat.completion
    with:
      prompt: hello
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "inherited\n");
    assert_eq!(
        bodies(&server),
        vec![
            json!({"model": "dag-model", "temperature": 0.5, "messages": [
                {"role": "system", "content": "From the DAG"},
                {"role": "user", "content": "hello"},
            ]})
        ]
    );
}

/// Any model field in `with` replaces the whole block: nothing is merged,
/// so the DAG's system message and temperature are not sent.
#[tokio::test]
async fn a_step_with_model_fields_replaces_the_dag_llm_block() {
    let server = server(Script::new().with("step-model", [Reply::text("own")])).await;
    let scratch = Scratch::new("dag-llm-replaced");
    let yaml = "llm:
  provider: local
  model: dag-model
  base_url: BASE_URL
  system: From the DAG
  temperature: 0.5
steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: step-model
      base_url: BASE_URL
      stream: false
      prompt: hello
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "own\n");
    assert_eq!(
        bodies(&server),
        vec![json!({"model": "step-model", "messages": [{"role": "user", "content": "hello"}]})]
    );
}

/// Step output streams as the step runs, in step order: a chat step, then
/// the shell step that depends on it.
#[tokio::test]
async fn stdout_of_successive_steps_comes_in_order() {
    let server =
        server(Script::new().with("test-model", [Reply::text("first answer").chunk_chars(2)]))
            .await;
    let scratch = Scratch::new("order");
    let yaml = ask(&["prompt: hello"])
        + "  - id: after\n    depends: ask\n    run: echo after; echo to-stderr >&2\n";
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "first answer\nafter\n");
    assert!(
        stderr(&output).contains("to-stderr\n"),
        "{}",
        stderr(&output)
    );
}

/// dagu's quirk, kept for compatibility: a system message in
/// `with.messages` beats `with.system` (the step's last system message
/// wins, then system messages are de-duplicated).
#[tokio::test]
async fn a_system_message_in_messages_beats_with_system() {
    let server = server(Script::new().with("test-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("system-quirk");
    let file = scratch.flow(
        &ask(&[
            "stream: false",
            "system: From with.system",
            "messages:\n        - role: system\n          content: From the messages\n        - role: user\n          content: hi",
        ]),
        Some(&server),
    );
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server)[0]["messages"],
        json!([
            {"role": "system", "content": "From the messages"},
            {"role": "user", "content": "hi"},
        ])
    );
}

/// `${params.*}` resolves in the model fields and in message content
/// (dagu's spec 003 conformance).
#[tokio::test]
async fn params_resolve_in_model_fields_and_messages() {
    let server = server(Script::new().with("param-model", [Reply::text("ok")])).await;
    let scratch = Scratch::new("param-model");
    let yaml = "params:
  - MODEL: test-model
  - URL: http://127.0.0.1:9/v1
  - WHO: world
steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: ${params.MODEL}
      base_url: ${params.URL}
      stream: false
      system: Greet ${params.WHO}.
      messages:
        - role: user
          content: Hello ${params.WHO}
";
    let file = scratch.flow(yaml, None);
    let url = format!("URL={}", server.openai_base_url());
    let output = scratch
        .run(file, &["--param", "MODEL=param-model", "--param", &url])
        .await;
    assert_exit(&output, 0);
    assert_eq!(
        bodies(&server),
        vec![json!({"model": "param-model", "messages": [
            {"role": "system", "content": "Greet world."},
            {"role": "user", "content": "Hello world"},
        ]})]
    );
}

/// A model entry's own fields override the shared ones.
#[tokio::test]
async fn a_model_entrys_fields_override_the_shared_ones() {
    let server = server(
        Script::new()
            .with(
                "bad-model",
                [Reply::fault(400, r#"{"error":{"message":"no"}}"#)],
            )
            .with("good-model", [Reply::text("ok")]),
    )
    .await;
    let scratch = Scratch::new("model-fields");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      base_url: BASE_URL
      temperature: 0.5
      model:
        - provider: local
          name: bad-model
          temperature: 0.1
          max_tokens: 16
        - provider: local
          name: good-model
      prompt: hello
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let sampling: Vec<(Value, Value)> = bodies(&server)
        .iter()
        .map(|b| (b["temperature"].clone(), b["max_tokens"].clone()))
        .collect();
    assert_eq!(
        sampling,
        [(json!(0.1), json!(16)), (json!(0.5), Value::Null)]
    );
}

/// A stream that fails before its first delta is retried; one cut after a
/// delta is not (dagu's `RetriesStreamBeforeFirstDelta` and
/// `DoesNotRetryStreamAfterDelta`).
#[tokio::test]
async fn a_stream_is_retried_only_before_its_first_delta() {
    let first = server(Script::new().with(
        "test-model",
        [Reply::dropped_connection(), Reply::text("done")],
    ))
    .await;
    let scratch = Scratch::new("stream-retry");
    let file = scratch.flow(&ask(&["prompt: hello"]), Some(&first));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "done\n");
    assert_eq!(first.requests().len(), 2);

    let server = server(
        Script::new().with(
            "test-model",
            [
                Reply::text("partial answer")
                    .chunk_chars(4)
                    .cut_after_events(3),
                Reply::text("never sent"),
            ],
        ),
    )
    .await;
    let scratch = Scratch::new("stream-cut");
    let file = scratch.flow(&ask(&["prompt: hello"]), Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert_eq!(summary["steps"][0]["status"], "failed");
    assert_eq!(server.requests().len(), 1);
}
