//! `with.tools`: other DAGs of the same file as tools (dagu's
//! `TestToolCallingBasic`, `TestUnknownTool`, `TestFailedTool`,
//! `TestToolIterationLimit`, and the tool-message contents of the
//! reference's behaviour checklist).

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::stdout;
use crate::workflow_support::{Scratch, assert_exit, bodies, server};

/// The seed's weather example: the main DAG asks, `get-weather` runs
/// `fetch-weather.sh "$CITY"` and publishes `WEATHER_JSON`.
fn weather_flow(with: &[&str]) -> String {
    let mut yaml = String::from(
        "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: What is the weather in Paris?
      tools:
        - get-weather
",
    );
    for line in with {
        yaml.push_str("      ");
        yaml.push_str(line);
        yaml.push('\n');
    }
    yaml.push_str(WEATHER_DAG);
    yaml
}

const WEATHER_DAG: &str = "---
name: get-weather
description: Current weather for a city
params: CITY
steps:
  - command: ./fetch-weather.sh \"$CITY\"
    output: WEATHER_JSON
";

fn weather_scratch(name: &str) -> Scratch {
    let scratch = Scratch::new(name);
    scratch.script(
        "fetch-weather.sh",
        "#!/bin/sh\nprintf '{\"temp_c\": 22, \"city\": \"%s\"}\\n' \"$1\"\n",
    );
    scratch
}

/// `get-weather` as the model is offered it: the DAG's name and
/// description; a bare `CITY` param is a required string.
fn weather_tool() -> Value {
    json!({"type": "function", "function": {
        "name": "get-weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"CITY": {"type": "string", "description": "CITY parameter"}},
            "required": ["CITY"],
        },
    }})
}

fn call(id: &str, name: &str, arguments: &str) -> Value {
    json!({"id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

fn tool_message(id: &str, content: &str) -> Value {
    json!({"role": "tool", "tool_call_id": id, "content": content})
}

/// The assistant turn that asked for tools, as it is sent back. Its text
/// content is `""` or `null` by the server's capabilities (llama.cpp
/// refuses `null`), so it is checked apart and set to `""` here.
fn normalise_tool_call_content(mut body: Value) -> Value {
    for message in body["messages"].as_array_mut().unwrap() {
        if message.get("tool_calls").is_some() && message["role"] == "assistant" {
            let content = &message["content"];
            assert!(
                content.is_null() || *content == "",
                "assistant content beside tool calls: {content}"
            );
            message["content"] = json!("");
        }
    }
    body
}

fn normalised(server: &ScriptedServer) -> Vec<Value> {
    bodies(server)
        .into_iter()
        .map(normalise_tool_call_content)
        .collect()
}

const WEATHER_RESULT: &str = r#"{"WEATHER_JSON":"{\"temp_c\": 22, \"city\": \"Paris\"}"}"#;

#[tokio::test]
async fn a_tool_call_runs_the_tool_dag_and_feeds_its_outputs_back() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::tool_call("get-weather", json!({"CITY": "Paris"})),
            Reply::text("It is 22C in Paris."),
        ],
    ))
    .await;
    let scratch = weather_scratch("basic");
    let file = scratch.flow(&weather_flow(&["max_tool_iterations: 5"]), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "It is 22C in Paris.\n");
    let user = json!({"role": "user", "content": "What is the weather in Paris?"});
    // Tool requests are never streamed, though `stream` defaults to true.
    assert_eq!(
        normalised(&server),
        vec![
            json!({"model": "test-model", "messages": [user],
                   "tools": [weather_tool()], "tool_choice": "auto"}),
            json!({"model": "test-model", "messages": [
                user,
                {"role": "assistant", "content": "",
                 "tool_calls": [call("call_1", "get-weather", r#"{"CITY":"Paris"}"#)]},
                tool_message("call_1", WEATHER_RESULT),
            ], "tools": [weather_tool()], "tool_choice": "auto"}),
        ]
    );
}

#[tokio::test]
async fn several_calls_in_one_turn_each_get_a_tool_message_in_order() {
    let server = server(
        Script::new().with(
            "test-model",
            [
                Reply::tool_call("get-weather", json!({"CITY": "Paris"}))
                    .and_tool_call("get-weather", json!({"CITY": "Rome"})),
                Reply::text("Both are 22C."),
            ],
        ),
    )
    .await;
    let scratch = weather_scratch("two-calls");
    let file = scratch.flow(&weather_flow(&[]), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "Both are 22C.\n");
    let second = &normalised(&server)[1];
    assert_eq!(
        second["messages"].as_array().unwrap()[1..],
        [
            json!({"role": "assistant", "content": "", "tool_calls": [
                call("call_1", "get-weather", r#"{"CITY":"Paris"}"#),
                call("call_2", "get-weather", r#"{"CITY":"Rome"}"#),
            ]}),
            tool_message("call_1", WEATHER_RESULT),
            tool_message(
                "call_2",
                r#"{"WEATHER_JSON":"{\"temp_c\": 22, \"city\": \"Rome\"}"}"#
            ),
        ]
    );
}

#[tokio::test]
async fn an_unknown_tool_is_reported_to_the_model_and_the_step_goes_on() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::tool_call("not-a-real-tool", json!({})),
            Reply::text("I could not check."),
        ],
    ))
    .await;
    let scratch = weather_scratch("unknown");
    let file = scratch.flow(&weather_flow(&[]), Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(summary["steps"][0]["status"], "succeeded");
    assert_eq!(summary["steps"][0]["stdout"], "I could not check.\n");
    let requests = normalised(&server);
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[1]["messages"][2],
        tool_message("call_1", r#"Error: tool "not-a-real-tool" not found"#)
    );
}

/// A DAG of the same file that the step does not list under `tools` is
/// not the model's to call: asking for it by name is refused as an
/// unknown tool, and its command never runs (it would leave a file).
#[tokio::test]
async fn a_dag_of_the_file_not_declared_as_a_tool_is_refused_and_never_runs() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::tool_call("wipe", json!({})),
            Reply::text("I cannot do that."),
        ],
    ))
    .await;
    let scratch = weather_scratch("undeclared");
    scratch.script("wipe.sh", "#!/bin/sh\ntouch wiped\n");
    let yaml = format!(
        "{}---\nname: wipe\nsteps:\n  - command: ./wipe.sh\n",
        weather_flow(&[])
    );
    let file = scratch.flow(&yaml, Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(summary["steps"][0]["stdout"], "I cannot do that.\n");
    let requests = normalised(&server);
    assert_eq!(requests.len(), 2);
    // Only the declared DAG is offered.
    assert_eq!(requests[0]["tools"], json!([weather_tool()]));
    assert_eq!(
        requests[1]["messages"][2],
        tool_message("call_1", r#"Error: tool "wipe" not found"#)
    );
    assert!(!scratch.path("wiped").exists(), "the undeclared DAG ran");
}

#[tokio::test]
async fn a_failed_tool_dag_is_reported_to_the_model_and_the_step_goes_on() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::tool_call("broken", json!({"X": "1"})),
            Reply::text("The tool failed."),
        ],
    ))
    .await;
    let scratch = Scratch::new("failed-tool");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: try it
      tools: [broken]
---
name: broken
params: X
steps:
  - command: exit 1
    output: NEVER
";
    let file = scratch.flow(yaml, Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(summary["steps"][0]["status"], "succeeded");
    assert_eq!(summary["steps"][0]["stdout"], "The tool failed.\n");
    assert_eq!(
        normalised(&server)[1]["messages"][2],
        tool_message("call_1", "Error: execution failed: exit status 1")
    );
}

/// Outputs go back as one JSON object with sorted keys.
#[tokio::test]
async fn a_tool_with_several_outputs_returns_them_with_sorted_keys() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call("two", json!({})), Reply::text("done")],
    ))
    .await;
    let scratch = Scratch::new("two-outputs");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: go
      tools: [two]
---
name: two
steps:
  - id: z
    command: echo last
    output: ZETA
  - id: a
    command: echo first
    output: ALPHA
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "done\n");
    assert_eq!(
        normalised(&server)[1]["messages"][2],
        tool_message("call_1", r#"{"ALPHA":"first","ZETA":"last"}"#)
    );
}

#[tokio::test]
async fn a_tool_without_outputs_reports_success() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call("quiet", json!({})), Reply::text("done")],
    ))
    .await;
    let scratch = Scratch::new("no-outputs");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: go
      tools: [quiet]
---
name: quiet
steps:
  - command: \"true\"
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        normalised(&server)[1]["messages"][2],
        tool_message("call_1", "Tool execution completed successfully")
    );
}

/// The model's arguments become the DAG's params, a value with spaces
/// kept whole.
#[tokio::test]
async fn arguments_become_the_tool_dags_params() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::tool_call("echo-tool", json!({"TEXT": "got ping and pong"})),
            Reply::text("done"),
        ],
    ))
    .await;
    let scratch = Scratch::new("params");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: ping
      tools: [echo-tool]
---
name: echo-tool
params: TEXT
steps:
  - command: echo \"[$TEXT]\"
    output: RESULT
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "done\n");
    assert_eq!(
        normalised(&server)[1]["messages"][2],
        tool_message("call_1", r#"{"RESULT":"[got ping and pong]"}"#)
    );
}

/// Reaching `max_tool_iterations` (default 10) is a success that prints
/// the last assistant content.
#[tokio::test]
async fn the_default_limit_is_ten_requests_and_reaching_it_succeeds() {
    let server = server(
        Script::new().with(
            "test-model",
            [Reply::text("still working")
                .and_tool_call("get-weather", json!({"CITY": "Paris"}))
                .repeated()],
        ),
    )
    .await;
    let scratch = weather_scratch("default-limit");
    let file = scratch.flow(&weather_flow(&[]), Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(server.requests().len(), 10);
    assert_eq!(summary["status"], "succeeded");
    assert_eq!(summary["steps"][0]["status"], "succeeded");
    assert_eq!(summary["steps"][0]["stdout"], "still working\n");
}

#[tokio::test]
async fn a_custom_limit_bounds_the_requests() {
    let server = server(
        Script::new().with(
            "test-model",
            [Reply::text("still working")
                .and_tool_call("get-weather", json!({"CITY": "Paris"}))
                .repeated()],
        ),
    )
    .await;
    let scratch = weather_scratch("custom-limit");
    let file = scratch.flow(&weather_flow(&["max_tool_iterations: 3"]), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "still working\n");
    assert_eq!(server.requests().len(), 3);
}

/// When the last turn of a limited loop has no text, a placeholder is
/// printed (reference, tool loop: `[Max tool iterations (%d) reached. ...]`).
#[tokio::test]
async fn reaching_the_limit_without_text_prints_the_placeholder() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call("get-weather", json!({"CITY": "Paris"})).repeated()],
    ))
    .await;
    let scratch = weather_scratch("limit-no-text");
    let file = scratch.flow(&weather_flow(&["max_tool_iterations: 2"]), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(server.requests().len(), 2);
    assert_eq!(
        stdout(&output),
        "[Max tool iterations (2) reached. The LLM may not have provided a complete response.]\n"
    );
}

/// Arguments that are not JSON are reported to the model, not fatal.
#[tokio::test]
async fn arguments_that_are_not_json_are_reported_to_the_model() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::raw_tool_call("get-weather", "{\"CITY\": "),
            Reply::text("Let me try again later."),
        ],
    ))
    .await;
    let scratch = weather_scratch("bad-arguments");
    let file = scratch.flow(&weather_flow(&[]), Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "Let me try again later.\n");
    let tool = &normalised(&server)[1]["messages"][2];
    assert_eq!(
        (&tool["role"], &tool["tool_call_id"]),
        (&json!("tool"), &json!("call_1"))
    );
    let content = tool["content"].as_str().unwrap();
    assert!(
        content.starts_with("Error: failed to parse arguments: "),
        "{content}"
    );
}

/// `NAME=default` params: the type is inferred from the default, which is
/// given; only bare names are required. Numbers given by the model reach
/// the DAG as their plain text (`5`, not `5.0`).
#[tokio::test]
async fn params_with_defaults_become_typed_optional_properties() {
    let server = server(Script::new().with(
        "test-model",
        [
            Reply::tool_call("forecast", json!({"CITY": "Paris", "DAYS": 5})),
            Reply::text("done"),
        ],
    ))
    .await;
    let scratch = Scratch::new("typed-params");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: Forecast for Paris?
      tools: [forecast]
---
name: forecast
description: A forecast
params: CITY DAYS=3 RATIO=0.7 VERBOSE=true UNITS=metric
steps:
  - command: echo \"$CITY $DAYS $RATIO $VERBOSE $UNITS\"
    output: FORECAST
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    let requests = normalised(&server);
    assert_eq!(
        requests[0]["tools"],
        json!([{"type": "function", "function": {
            "name": "forecast",
            "description": "A forecast",
            "parameters": {
                "type": "object",
                "properties": {
                    "CITY": {"type": "string", "description": "CITY parameter"},
                    "DAYS": {"type": "integer", "description": "DAYS parameter", "default": 3},
                    "RATIO": {"type": "number", "description": "RATIO parameter", "default": 0.7},
                    "VERBOSE": {"type": "boolean", "description": "VERBOSE parameter", "default": true},
                    "UNITS": {"type": "string", "description": "UNITS parameter", "default": "metric"},
                },
                "required": ["CITY"],
            },
        }}])
    );
    assert_eq!(
        requests[1]["messages"][2],
        tool_message("call_1", r#"{"FORECAST":"Paris 5 0.7 true metric"}"#)
    );
}

/// A tool DAG is a sub-DAG run with its own env: the parent's `env:` does
/// not reach it (reference, section 3: "sub-DAGs do not inherit the
/// parent's env").
#[tokio::test]
async fn a_tool_dag_does_not_inherit_the_parents_env() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call("peek", json!({})), Reply::text("done")],
    ))
    .await;
    let scratch = Scratch::new("tool-env");
    let yaml = "env:
  - PARENT_ONLY: from-the-parent
steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: go
      tools: [peek]
---
name: peek
env:
  - OWN: from-the-tool
steps:
  - command: echo \"[$PARENT_ONLY] [$OWN]\"
    output: SEEN
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        normalised(&server)[1]["messages"][2],
        tool_message("call_1", r#"{"SEEN":"[] [from-the-tool]"}"#)
    );
}

/// A tool runs once for a step: the first model's call runs the DAG, its
/// next request fails, and the fallback model's identical call gets the
/// same result without running the DAG again (the script counts its runs).
#[tokio::test]
async fn a_fallback_models_identical_call_reuses_the_earlier_result() {
    let server = server(
        Script::new()
            .with(
                "weak-model",
                [
                    Reply::tool_call("get-weather", json!({"CITY": "Paris"})),
                    Reply::fault(400, r#"{"error":{"message":"bad request"}}"#),
                ],
            )
            .with(
                "strong-model",
                [
                    Reply::tool_call("get-weather", json!({"CITY": "Paris"})),
                    Reply::text("It is 22C in Paris."),
                ],
            ),
    )
    .await;
    let scratch = Scratch::new("tool-once");
    scratch.script(
        "fetch-weather.sh",
        "#!/bin/sh\necho ran >> runs.txt\nprintf '{\"temp_c\": 22, \"city\": \"%s\"}\\n' \"$1\"\n",
    );
    let yaml = format!(
        "steps:
  - id: ask
    action: chat.completion
    with:
      base_url: BASE_URL
      prompt: What is the weather in Paris?
      tools:
        - get-weather
      model:
        - provider: local
          name: weak-model
        - provider: local
          name: strong-model
{WEATHER_DAG}"
    );
    let file = scratch.flow(&yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "It is 22C in Paris.\n");
    let runs = std::fs::read_to_string(scratch.path("runs.txt")).unwrap();
    assert_eq!(runs, "ran\n");
    let bodies = normalised(&server);
    assert_eq!(bodies.len(), 4);
    assert_eq!(bodies[3]["model"], "strong-model");
    assert_eq!(
        bodies[3]["messages"][2],
        tool_message("call_2", WEATHER_RESULT)
    );
}
