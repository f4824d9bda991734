//! `sift validate`: `ok` for a valid file; for an invalid one, exit 1,
//! `Validation failed for FILE` and one `- message` line per problem, in
//! the order found, with dagu's messages (reference, section 2, and the
//! `TestChatCompletionValidation` / `TestValidateStep` cases). A file that
//! fails validation is not run: `sift run` prints the same and sends
//! nothing.

use sift_scripted_server::{Reply, Script};

use crate::workflow_support::{Scratch, assert_exit, server};
use crate::{stderr, stdout};

/// A one-step workflow whose chat step `ask` has these `with` lines.
fn ask(with: &[&str]) -> String {
    ask_with_schema(with, None)
}

/// The same, with a step-level `output_schema` (YAML, indented for it).
fn ask_with_schema(with: &[&str], schema: Option<&str>) -> String {
    let mut yaml = String::from("steps:\n  - id: ask\n    action: chat.completion\n    with:\n");
    for line in with {
        yaml.push_str("      ");
        yaml.push_str(line);
        yaml.push('\n');
    }
    if let Some(schema) = schema {
        yaml.push_str("    output_schema:\n");
        for line in schema.lines() {
            yaml.push_str("      ");
            yaml.push_str(line);
            yaml.push('\n');
        }
    }
    yaml
}

const MODEL: [&str; 3] = [
    "provider: local",
    "model: test-model",
    "base_url: http://127.0.0.1:9/v1",
];

fn model_and<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut lines = MODEL.to_vec();
    lines.extend_from_slice(extra);
    lines
}

const CLASSIFY_SCHEMA: &str = "type: object
properties:
  category:
    type: string
    enum: [refund, complaint, question]
  amount:
    type: number
required: [category]";

async fn assert_valid(name: &str, yaml: &str) {
    let scratch = Scratch::new(name);
    let file = scratch.flow(yaml, None);
    let output = scratch.validate(file).await;
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output).as_str()
        ),
        (Some(0), "ok\n", ""),
        "{yaml}"
    );
}

async fn assert_invalid(name: &str, yaml: &str, problems: &[&str]) {
    let scratch = Scratch::new(name);
    let file = scratch.flow(yaml, None);
    let output = scratch.validate(file).await;
    let expected: String = std::iter::once("Validation failed for flow.yaml\n".to_owned())
        .chain(problems.iter().map(|p| format!("- {p}\n")))
        .collect();
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output)
        ),
        (Some(1), "", expected),
        "{yaml}"
    );
}

#[tokio::test]
async fn a_valid_file_prints_ok() {
    let yaml = format!(
        "{}    output_schema:\n      type: object\n      properties:\n        city: {{type: string}}\n  - id: record\n    depends: ask\n    run: echo \"${{steps.ask.outputs.city}}\"\n---\nname: get-weather\nparams: CITY\nsteps:\n  - command: echo \"$CITY\"\n    output: WEATHER_JSON\n",
        ask(&model_and(&[
            "prompt: What is the weather in Paris?",
            "tools:\n        - get-weather",
            "max_tool_iterations: 5",
            "temperature: 0.25",
            "max_tokens: 128",
            "top_p: 0.5",
        ]))
    );
    assert_valid("valid", &yaml).await;
}

#[tokio::test]
async fn the_file_is_named_as_given_on_the_command_line() {
    let scratch = Scratch::new("named");
    scratch.flow(&ask(&model_and(&[])), None);
    let absolute = scratch.path("flow.yaml").display().to_string();
    let output = scratch.validate(&absolute).await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(1),
            format!(
                "Validation failed for {absolute}\n- step 'ask': chat.completion requires with.prompt or with.messages\n"
            )
        )
    );
}

#[tokio::test]
async fn invalid_provider() {
    let yaml = ask(&["provider: bogus", "model: test-model", "prompt: hi"]);
    assert_invalid(
        "provider",
        &yaml,
        &["step 'ask': invalid provider \"bogus\""],
    )
    .await;
}

#[tokio::test]
async fn a_provider_without_a_model() {
    let yaml = ask(&["provider: local", "prompt: hi"]);
    assert_invalid(
        "no-model",
        &yaml,
        &["step 'ask': model must be specified when llm config is provided"],
    )
    .await;
}

#[tokio::test]
async fn temperature_out_of_range() {
    let yaml = ask(&model_and(&["prompt: hi", "temperature: 2.5"]));
    assert_invalid(
        "temperature",
        &yaml,
        &["step 'ask': temperature must be between 0.0 and 2.0"],
    )
    .await;
}

#[tokio::test]
async fn max_tokens_less_than_one() {
    let yaml = ask(&model_and(&["prompt: hi", "max_tokens: 0"]));
    assert_invalid(
        "max-tokens",
        &yaml,
        &["step 'ask': max_tokens must be at least 1"],
    )
    .await;
}

#[tokio::test]
async fn top_p_out_of_range() {
    let yaml = ask(&model_and(&["prompt: hi", "top_p: 1.5"]));
    assert_invalid(
        "top-p",
        &yaml,
        &["step 'ask': top_p must be between 0.0 and 1.0"],
    )
    .await;
}

#[tokio::test]
async fn the_range_bounds_themselves_are_valid() {
    let yaml = ask(&model_and(&[
        "prompt: hi",
        "temperature: 2.0",
        "max_tokens: 1",
        "top_p: 1.0",
    ]));
    assert_valid("bounds-high", &yaml).await;
    let yaml = ask(&model_and(&[
        "prompt: hi",
        "temperature: 0.0",
        "top_p: 0.0",
    ]));
    assert_valid("bounds-low", &yaml).await;
}

#[tokio::test]
async fn neither_prompt_nor_messages() {
    let yaml = ask(&model_and(&["system: Be concise"]));
    assert_invalid(
        "no-prompt",
        &yaml,
        &["step 'ask': chat.completion requires with.prompt or with.messages"],
    )
    .await;
}

#[tokio::test]
async fn a_blank_or_non_string_prompt() {
    for (case, prompt) in [
        ("blank", "prompt: \"  \""),
        ("empty", "prompt: \"\""),
        ("list", "prompt: [a, b]"),
    ] {
        let yaml = ask(&model_and(&[prompt]));
        assert_invalid(
            &format!("prompt-{case}"),
            &yaml,
            &["step 'ask': with.prompt must be a non-empty string"],
        )
        .await;
    }
}

#[tokio::test]
async fn empty_or_non_array_messages() {
    for (case, messages) in [("empty", "messages: []"), ("string", "messages: hello")] {
        let yaml = ask(&model_and(&[messages]));
        assert_invalid(
            &format!("messages-{case}"),
            &yaml,
            &["step 'ask': with.messages must be a non-empty array"],
        )
        .await;
    }
}

#[tokio::test]
async fn a_step_named_apart_from_its_id_is_reported_by_name() {
    let yaml = "steps:\n  - id: ask\n    name: summarise\n    action: chat.completion\n    with:\n      provider: bogus\n      model: test-model\n      prompt: hi\n";
    assert_invalid(
        "by-name",
        yaml,
        &["step 'summarise': invalid provider \"bogus\""],
    )
    .await;
}

#[tokio::test]
async fn several_problems_are_listed_in_the_order_found() {
    let yaml = "steps:
  - id: first
    action: chat.completion
    with:
      provider: bogus
      model: test-model
      prompt: hi
  - id: second
    action: chat.completion
    with:
      provider: local
      model: test-model
      prompt: hi
      temperature: 9
";
    assert_invalid(
        "several",
        yaml,
        &[
            "step 'first': invalid provider \"bogus\"",
            "step 'second': temperature must be between 0.0 and 2.0",
        ],
    )
    .await;
}

#[tokio::test]
async fn output_schema_must_declare_type_object() {
    let yaml = ask_with_schema(
        &model_and(&["prompt: hi"]),
        Some("type: array\nitems: {type: string}"),
    );
    assert_invalid(
        "schema-array",
        &yaml,
        &["step 'ask': a chat step's output_schema must declare type: object"],
    )
    .await;
    let yaml = ask_with_schema(
        &model_and(&["prompt: hi"]),
        Some("properties:\n  a: {type: string}"),
    );
    assert_invalid(
        "schema-untyped",
        &yaml,
        &["step 'ask': a chat step's output_schema must declare type: object"],
    )
    .await;
}

#[tokio::test]
async fn output_schema_must_list_a_property() {
    let yaml = ask_with_schema(
        &model_and(&["prompt: hi"]),
        Some("type: object\nproperties: {}"),
    );
    assert_invalid(
        "schema-empty",
        &yaml,
        &["step 'ask': a chat step's output_schema must list at least one property"],
    )
    .await;
}

#[tokio::test]
async fn a_required_name_must_be_a_listed_property() {
    let yaml = ask_with_schema(
        &model_and(&["prompt: hi"]),
        Some("type: object\nproperties:\n  category: {type: string}\nrequired: [category, amount]"),
    );
    assert_invalid(
        "schema-required",
        &yaml,
        &["step 'ask': a required property must be listed in properties: amount"],
    )
    .await;
}

#[tokio::test]
async fn web_search_cannot_go_with_output_schema() {
    let yaml = ask_with_schema(
        &model_and(&["prompt: hi", "web_search: true"]),
        Some(CLASSIFY_SCHEMA),
    );
    assert_invalid(
        "schema-web",
        &yaml,
        &["step 'ask': web search cannot be combined with output_schema"],
    )
    .await;
}

const RESPOND_TOOL_DAG: &str =
    "---\nname: respond\nparams: TEXT\nsteps:\n  - command: echo \"$TEXT\"\n    output: OUT\n";

#[tokio::test]
async fn a_tool_named_respond_is_reserved_with_output_schema() {
    let yaml = ask_with_schema(
        &model_and(&["prompt: hi", "tools:\n        - respond"]),
        Some(CLASSIFY_SCHEMA),
    ) + RESPOND_TOOL_DAG;
    assert_invalid(
        "respond-reserved",
        &yaml,
        &["step 'ask': the tool name \"respond\" is reserved for the output_schema answer"],
    )
    .await;
}

#[tokio::test]
async fn a_tool_named_respond_is_allowed_without_output_schema() {
    let yaml = ask(&model_and(&["prompt: hi", "tools:\n        - respond"])) + RESPOND_TOOL_DAG;
    assert_valid("respond-allowed", &yaml).await;
}

#[tokio::test]
async fn a_step_id_must_match_the_id_format() {
    let yaml = "steps:\n  - id: my-step\n    run: echo hi\n";
    assert_invalid(
        "id-format",
        yaml,
        &[
            "step 'my-step': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')",
        ],
    )
    .await;
}

#[tokio::test]
async fn reserved_words_are_not_step_ids() {
    for word in [
        "env", "params", "args", "stdout", "stderr", "output", "outputs",
    ] {
        let yaml = format!("steps:\n  - id: {word}\n    run: echo hi\n");
        assert_invalid(
            &format!("reserved-{word}"),
            &yaml,
            &[&format!(
                "step '{word}': step ID '{word}' is a reserved word"
            )],
        )
        .await;
    }
}

#[tokio::test]
async fn depends_must_name_an_existing_step() {
    let yaml = "steps:\n  - id: a\n    run: echo a\n  - id: b\n    depends: zzz\n    run: echo b\n";
    assert_invalid(
        "depends",
        yaml,
        &["step b depends on non-existent step zzz"],
    )
    .await;
}

#[tokio::test]
async fn step_ids_are_unique() {
    let yaml = "steps:\n  - id: a\n    name: first\n    run: echo 1\n  - id: a\n    name: second\n    run: echo 2\n";
    assert_invalid("dup-id", yaml, &["duplicate step ID: a"]).await;
}

#[tokio::test]
async fn a_step_id_may_not_be_another_steps_name() {
    let yaml = "steps:\n  - id: a\n    name: first\n    run: echo 1\n  - id: b\n    name: a\n    run: echo 2\n";
    assert_invalid(
        "id-name",
        yaml,
        &["step ID 'a' conflicts with another step's name"],
    )
    .await;
}

#[tokio::test]
async fn step_names_are_unique() {
    let yaml = "steps:\n  - id: a\n    name: x\n    run: echo 1\n  - id: b\n    name: x\n    run: echo 2\n";
    assert_invalid("dup-name", yaml, &["step name must be unique: x"]).await;
}

#[tokio::test]
async fn later_dags_need_a_name() {
    let yaml = "steps:\n  - id: a\n    run: echo a\n---\nsteps:\n  - id: t\n    run: echo t\n";
    assert_invalid(
        "dag-name",
        yaml,
        &["DAG at index 1 must have a name in multi-DAG file"],
    )
    .await;
}

#[tokio::test]
async fn dag_names_are_unique() {
    let yaml = "steps:\n  - id: a\n    run: echo a\n---\nname: t\nsteps:\n  - run: echo 1\n---\nname: t\nsteps:\n  - run: echo 2\n";
    assert_invalid("dag-dup", yaml, &["duplicate DAG name \"t\" found"]).await;
}

#[tokio::test]
async fn files_are_refused_in_a_dag_level_llm_block() {
    let yaml = "llm:\n  provider: local\n  model: test-model\n  files: notes.txt\nsteps:\n  - id: ask\n    action: chat.completion\n    with:\n      prompt: hi\n";
    assert_invalid(
        "dag-files",
        yaml,
        &["files is not allowed in a DAG-level llm block"],
    )
    .await;
}

#[tokio::test]
async fn ocr_is_auto_always_or_off() {
    // Unquoted, YAML 1.1 reads `off` as false: it still means off.
    for mode in ["auto", "always", "off", "\"off\""] {
        let line = format!("ocr: {mode}");
        let yaml = ask(&model_and(&["prompt: hi", "files: notes.txt", &line]));
        assert_valid("ocr-valid", &yaml).await;
    }
    for (mode, shown) in [("sometimes", "sometimes"), ("on", "true")] {
        let line = format!("ocr: {mode}");
        let yaml = ask(&model_and(&["prompt: hi", "files: notes.txt", &line]));
        let problem =
            format!("step 'ask': invalid ocr \"{shown}\": must be one of: auto, always, off");
        assert_invalid("ocr-invalid", &yaml, &[&problem]).await;
    }
}

#[tokio::test]
async fn ocr_is_refused_in_a_dag_level_llm_block() {
    let yaml = "llm:\n  provider: local\n  model: test-model\n  ocr: always\nsteps:\n  - id: ask\n    action: chat.completion\n    with:\n      prompt: hi\n";
    assert_invalid(
        "dag-ocr",
        yaml,
        &["ocr is not allowed in a DAG-level llm block"],
    )
    .await;
}

#[tokio::test]
async fn a_cycle_is_reported() {
    let yaml = "steps:\n  - id: a\n    depends: b\n    run: echo a\n  - id: b\n    depends: a\n    run: echo b\n";
    assert_invalid("cycle", yaml, &["cyclic plan detected: a -> b -> a"]).await;
}

/// dagu's `missing_llm_config.yaml`: no model anywhere is not a load
/// error, only a run-time one.
#[tokio::test]
async fn no_llm_configuration_fails_only_when_the_step_runs() {
    let yaml = "steps:\n  - id: ask\n    action: chat.completion\n    with:\n      prompt: hi\n";
    assert_valid("no-llm", yaml).await;
    let scratch = Scratch::new("no-llm-run");
    let file = scratch.flow(yaml, None);
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert_eq!(summary["status"], "failed");
    assert_eq!(
        summary["steps"][0]["error"],
        "llm configuration is required for chat step"
    );
    assert_eq!(summary["steps"][0]["status"], "failed");
}

#[tokio::test]
async fn an_invalid_file_is_not_run() {
    let server = server(Script::new().with("test-model", [Reply::text("never").repeated()])).await;
    let scratch = Scratch::new("invalid-run");
    let yaml = "steps:
  - id: ok
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: hi
  - id: bad
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: hi
      top_p: 2
";
    let file = scratch.flow(yaml, Some(&server));
    let output = scratch.run(file, &[]).await;
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output).as_str()
        ),
        (
            Some(1),
            "",
            "Validation failed for flow.yaml\n- step 'bad': top_p must be between 0.0 and 1.0\n"
        )
    );
    assert!(server.requests().is_empty());
}

/// Message roles (reference, behaviour checklist: `role is required`,
/// `content is required`, `invalid role %q: must be one of: ...`), each
/// led by the field it is about, as dagu's `TestBuildStepMessages` names
/// them (`messages[0].role`, `messages[0].content`).
#[tokio::test]
async fn messages_need_a_known_role_and_content() {
    for (case, message, problem) in [
        (
            "role",
            "- role: robot\n          content: hi",
            "step 'ask': messages[0].role: invalid role \"robot\": must be one of: system, user, assistant, tool",
        ),
        (
            "no-role",
            "- content: hi",
            "step 'ask': messages[0].role: role is required",
        ),
        (
            "no-content",
            "- role: user\n          content: hi\n        - role: user",
            "step 'ask': messages[1].content: content is required",
        ),
    ] {
        let messages = format!("messages:\n        {message}");
        let yaml = ask(&model_and(&[&messages]));
        assert_invalid(&format!("messages-{case}"), &yaml, &[problem]).await;
    }
}
