//! Runs of named DAGs end: `validate` refuses a `dag.run` cycle, and at
//! run time sub-runs nest at most eight levels deep, whether a file that
//! skipped validation calls itself or a model keeps calling a tool DAG
//! that offers itself as a tool.

use std::sync::Arc;

use serde_json::json;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_workflow::{DirectConnector, RunOptions, RunStatus, Runtime, StepStatus, parse, validate};

use crate::{Scratch, run_with};

const TOO_DEEP: &str = "cannot run \"loop\": sub-DAG runs nest at most 8 levels deep";

#[tokio::test]
async fn a_self_calling_dag_run_stops_at_the_depth_limit() {
    let scratch = Scratch::new("nesting-dag-run");
    // Each level marks a line, then runs itself again.
    let yaml = "name: loop
steps:
  - id: mark
    run: echo level >> levels.txt
  - id: again
    depends: mark
    action: dag.run
    with:
      dag: loop
";
    let workflow = parse(yaml).unwrap();
    assert_eq!(
        validate(&workflow),
        ["cyclic dag.run detected: loop -> loop"]
    );
    // Run as an embedder that skipped validation would.
    let runtime = Arc::new(Runtime {
        workflow,
        base_dir: scratch.0.clone(),
        connector: Arc::new(DirectConnector),
        read_options: Default::default(),
        file_gate: Default::default(),
    });
    let record = sift_workflow::run(runtime, RunOptions::default(), Arc::new(|_| {}))
        .await
        .unwrap();
    assert_eq!(record.status, RunStatus::Failed);
    assert_eq!(record.steps[1].status, StepStatus::Failed);
    assert_eq!(record.steps[1].error.as_deref(), Some(TOO_DEEP));
    // The main run and eight nested ones ran their first step.
    let levels = std::fs::read_to_string(scratch.0.join("levels.txt")).unwrap();
    assert_eq!(levels, "level\n".repeat(9));
}

#[tokio::test]
async fn a_tool_dag_a_model_keeps_calling_stops_at_the_depth_limit() {
    // The main run's model and each nested run's model call the tool once,
    // then answer; the ninth nested call is refused and told to the model.
    let mut replies: Vec<Reply> = (0..9)
        .map(|_| Reply::tool_call("loop", json!({})))
        .collect();
    replies.extend((0..9).map(|_| Reply::text("done")));
    let server = ScriptedServer::start(Script::new().with("test-model", replies))
        .await
        .unwrap();
    let scratch = Scratch::new("nesting-tools");
    let ask = format!(
        "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: {}
      stream: false
      prompt: Go deeper.
      tools: [loop]
",
        server.openai_base_url()
    );
    let yaml = format!("{ask}---\nname: loop\n{ask}");
    let (record, _) = run_with(&yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 18);
    // The deepest run's second request carries the refusal.
    assert_eq!(
        requests[9].body["messages"][2]["content"],
        format!("Error: execution failed: {TOO_DEEP}")
    );
    assert_eq!(
        requests[10].body["messages"][2]["content"],
        "Tool execution completed successfully"
    );
}
