//! A failed step keeps the kind of its failure: a missing key or a key the
//! server refuses is `auth`, whether the step called the model itself or
//! through a `dag.run` of a named DAG; a shell command's failure has none.

use sift_llm::ErrorCategory;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_workflow::{RunOptions, RunStatus, StepRecord, StepStatus};

use crate::{Scratch, run_with};

/// A chat step `ask` against `base_url`, with these further `with` lines.
fn ask(base_url: &str, with: &[&str]) -> String {
    let mut yaml = format!(
        "steps:\n  - id: ask\n    action: chat.completion\n    with:\n      model: test-model\n      base_url: {base_url}\n      stream: false\n      prompt: hello\n"
    );
    for line in with {
        yaml.push_str("      ");
        yaml.push_str(line);
        yaml.push('\n');
    }
    yaml
}

fn failed(record: &sift_workflow::RunRecord, name: &str) -> StepRecord {
    assert_eq!(record.status, RunStatus::Failed, "{record:?}");
    let step = record
        .steps
        .iter()
        .find(|s| s.name == name)
        .unwrap()
        .clone();
    assert_eq!(step.status, StepStatus::Failed, "{step:?}");
    step
}

#[tokio::test]
async fn a_step_whose_api_key_is_missing_fails_as_auth_before_any_request() {
    let server = ScriptedServer::start(Script::new().with("test-model", [Reply::text("no")]))
        .await
        .unwrap();
    let scratch = Scratch::new("no-key");
    let yaml = ask(
        &server.openai_base_url(),
        &[
            "provider: openai",
            "api_key_name: SIFT_WORKFLOW_TEST_KEY_NOBODY_SETS",
        ],
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    let step = failed(&record, "ask");
    assert_eq!(
        step.error.as_deref(),
        Some(
            "openai/test-model: the environment variable SIFT_WORKFLOW_TEST_KEY_NOBODY_SETS holds no API key"
        )
    );
    assert_eq!(step.error_category, Some(ErrorCategory::Auth));
    assert!(server.requests().is_empty(), "a request was sent");
}

#[tokio::test]
async fn a_key_the_server_refuses_fails_the_step_as_auth() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [Reply::fault(
            401,
            r#"{"error": {"message": "invalid api key"}}"#,
        )],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("refused-key");
    let yaml = ask(&server.openai_base_url(), &["provider: local"]);
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    let step = failed(&record, "ask");
    assert_eq!(
        step.error.as_deref(),
        Some("local/test-model: HTTP 401: invalid api key")
    );
    assert_eq!(step.error_category, Some(ErrorCategory::Auth));
}

#[tokio::test]
async fn a_dag_run_step_keeps_the_category_of_its_sub_run_failure() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [Reply::fault(
            401,
            r#"{"error": {"message": "invalid api key"}}"#,
        )],
    ))
    .await
    .unwrap();
    let scratch = Scratch::new("sub-run-auth");
    let yaml = format!(
        "steps:\n  - id: call\n    action: dag.run\n    with:\n      dag: inner\n---\nname: inner\n{}",
        ask(&server.openai_base_url(), &["provider: local"])
    );
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    let step = failed(&record, "call");
    assert_eq!(
        step.error.as_deref(),
        Some("local/test-model: HTTP 401: invalid api key")
    );
    assert_eq!(step.error_category, Some(ErrorCategory::Auth));
}

#[tokio::test]
async fn a_failed_shell_command_has_no_category() {
    let scratch = Scratch::new("shell-category");
    let (record, _) = run_with(
        "steps:\n  - {id: bad, run: 'exit 3'}\n",
        &scratch.0,
        RunOptions::default(),
    )
    .await;
    let step = failed(&record, "bad");
    assert_eq!(step.error.as_deref(), Some("exit status 3"));
    assert_eq!(step.error_category, None);
}
