//! Values from documents, models and params reach a shell step's command
//! as shell variables, never as its text: a vendor name read from an
//! invoice, or a model's tool argument, that holds shell syntax is a
//! folder's name, not a command.

use serde_json::json;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_workflow::{RunOptions, RunStatus, StepStatus};

use crate::{Scratch, run_with};

/// A vendor name written to break out of double quotes and run `touch`.
const HOSTILE: &str = r#"ACME"; touch $TMPDIR/pwned; echo ""#;

/// Every path under `root`, relative to it, sorted.
fn tree(root: &std::path::Path) -> Vec<String> {
    let mut paths = Vec::new();
    let mut folders = vec![root.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let relative = path.strip_prefix(root).unwrap();
            paths.push(relative.to_str().unwrap().to_owned());
            if path.is_dir() {
                folders.push(path);
            }
        }
    }
    paths.sort();
    paths
}

/// What `mkdir -p "PREFIX/VALUE"` makes of the hostile value: its `/`
/// is a folder's end, so two folders, named with its text.
fn folders_of(prefix: &str) -> Vec<String> {
    vec![
        prefix.to_owned(),
        format!(r#"{prefix}/ACME"; touch $TMPDIR"#),
        format!("{prefix}/{HOSTILE}"),
    ]
}

/// `TMPDIR` is the scratch folder, so an injected `touch $TMPDIR/pwned`
/// would leave `pwned` beside the workflow's own files.
fn env_block(scratch: &Scratch) -> String {
    format!("env:\n  - TMPDIR: {}\n", scratch.0.display())
}

#[tokio::test]
async fn a_model_answer_used_in_a_later_command_is_a_folder_name_not_a_command() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [Reply::tool_call("respond", json!({"vendor": HOSTILE}))],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("injected-vendor");
    let yaml = format!(
        "{}steps:
  - id: read
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: {}
      prompt: Who is the vendor of this invoice?
    output_schema:
      type: object
      properties:
        vendor: {{type: string}}
      required: [vendor]
  - id: file
    depends: read
    run: mkdir -p \"out/${{steps.read.outputs.vendor}}\"
",
        env_block(&scratch),
        server.openai_base_url()
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    assert_eq!(record.steps[1].stdout, "");
    // No `pwned` beside `out`: the vendor's text did not run.
    assert_eq!(tree(&scratch.0), folders_of("out"));
}

#[tokio::test]
async fn a_param_is_one_word_in_double_quotes_and_literal_in_single_quotes_and_here_documents() {
    let scratch = Scratch::new("injected-param");
    let yaml = format!(
        "{}params: VENDOR
steps:
  - id: file
    run: |
      mkdir -p \"out/${{params.VENDOR}}\"
      echo '[${{params.VENDOR}}]'
      printf '<%s>' ${{VENDOR}} ${{params.VENDOR}}
      cat <<EOF
      it's ${{params.VENDOR}}
      EOF
",
        env_block(&scratch)
    );
    let options = RunOptions {
        params: vec![("VENDOR".into(), HOSTILE.into())],
        ..RunOptions::default()
    };
    let (record, _) = run_with(&yaml, &scratch.0, options).await;
    assert_eq!(record.steps[0].status, StepStatus::Succeeded, "{record:?}");
    // Unquoted, a value is split into words as any shell variable is,
    // and each word stays text: `$TMPDIR` is not expanded again.
    let words =
        r#"<ACME";><touch><$TMPDIR/pwned;><echo><"><ACME";><touch><$TMPDIR/pwned;><echo><">"#;
    assert_eq!(
        record.steps[0].stdout,
        format!("[{HOSTILE}]\n{words}it's {HOSTILE}\n")
    );
    assert_eq!(tree(&scratch.0), folders_of("out"));
}

#[tokio::test]
async fn a_model_tool_argument_reaches_the_tool_dag_command_as_a_variable() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [
            Reply::tool_call("save-note", json!({"q": HOSTILE})),
            Reply::text("Saved."),
        ],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("injected-tool");
    let yaml = format!(
        "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: {}
      stream: false
      prompt: Save a note.
      tools: [save-note]
---
name: save-note
params: q
{}steps:
  - run: mkdir -p \"notes/${{params.q}}\" && echo \"saved ${{params.q}}\"
    output: SAVED
",
        server.openai_base_url(),
        env_block(&scratch)
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    assert_eq!(record.steps[0].stdout, "Saved.\n");
    let requests = server.requests();
    assert_eq!(
        requests[1].body["messages"][2]["content"],
        json!({"SAVED": format!("saved {HOSTILE}")}).to_string()
    );
    assert_eq!(tree(&scratch.0), folders_of("notes"));
}
