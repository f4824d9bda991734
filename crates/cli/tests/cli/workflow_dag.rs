//! Shell steps, values and the executor: `run`/`command` with `output`,
//! params (`params:`, `--param`, `${params.X}`, `${X}`, `$X`), `env:`,
//! `${steps.ID.outputs.NAME}`, parallel independent steps, failures and
//! the steps they skip, cycles, and the `--json` summary.

use serde_json::json;
use sift_scripted_server::{Reply, Script};

use crate::workflow_support::{Scratch, assert_exit, server, step, step_json, summary};
use crate::{stderr, stdout};

#[tokio::test]
async fn an_output_variable_feeds_later_steps() {
    let scratch = Scratch::new("dag-output");
    let yaml = "steps:
  - id: greet
    run: echo \"  hello  \"
    output: GREETING
  - id: use
    depends: greet
    command: echo \"<${GREETING}> <$GREETING> <${steps.greet.outputs.GREETING}>\"
";
    let file = scratch.flow(yaml, None);
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(summary["status"], "succeeded");
    assert_eq!(
        summary["steps"],
        json!([
            step_json(
                Some("greet"),
                "greet",
                "succeeded",
                "  hello  \n",
                json!({"GREETING": "hello"}),
                None
            ),
            step_json(
                Some("use"),
                "use",
                "succeeded",
                "<hello> <hello> <hello>\n",
                json!({}),
                None
            ),
        ])
    );
}

#[tokio::test]
async fn step_stdout_streams_to_stdout_without_json() {
    let scratch = Scratch::new("dag-stdout");
    let yaml = "steps:
  - id: one
    run: echo one
  - id: two
    depends: one
    run: echo two; echo warning >&2
";
    let file = scratch.flow(yaml, None);
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "one\ntwo\n");
    assert!(stderr(&output).contains("warning\n"), "{}", stderr(&output));
}

#[tokio::test]
async fn params_have_defaults_that_param_flags_override() {
    let scratch = Scratch::new("dag-params");
    let yaml = "params:
  - NAME: world
  - GREETING: hello
steps:
  - id: say
    run: echo \"${params.GREETING} ${NAME} $NAME\"
";
    let file = scratch.flow(yaml, None);
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "hello world world\n");
    let output = scratch
        .run(
            file,
            &["--param", "NAME=Ada", "--param", "GREETING=hi there"],
        )
        .await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "hi there Ada Ada\n");
}

#[tokio::test]
async fn env_is_set_for_commands() {
    let scratch = Scratch::new("dag-env");
    let yaml = "env:
  - GREETING: bonjour
params:
  - NAME: monde
steps:
  - id: say
    run: echo \"$GREETING ${GREETING} ${params.NAME}\"
";
    let file = scratch.flow(yaml, None);
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "bonjour bonjour monde\n");
}

/// Step `first` can only finish once `second` has run: they must run at
/// the same time. (Run in file order, `first` would give up after 30 s.)
#[tokio::test]
async fn independent_steps_run_in_parallel() {
    let scratch = Scratch::new("dag-parallel");
    let yaml = "steps:
  - id: first
    run: for i in $(seq 1 300); do [ -f second.flag ] && echo saw-second && exit 0; sleep 0.1; done; exit 1
  - id: second
    run: touch second.flag && echo touched
";
    let file = scratch.flow(yaml, None);
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        summary["steps"],
        json!([
            step_json(
                Some("first"),
                "first",
                "succeeded",
                "saw-second\n",
                json!({}),
                None
            ),
            step_json(
                Some("second"),
                "second",
                "succeeded",
                "touched\n",
                json!({}),
                None
            ),
        ])
    );
}

/// A failed step fails the run; its dependents, direct or not, are
/// skipped; a step that does not depend on it still runs.
#[tokio::test]
async fn a_failed_step_skips_its_dependents_and_fails_the_run() {
    let scratch = Scratch::new("dag-failed");
    let yaml = "steps:
  - id: bad
    run: echo partial; echo broken >&2; exit 1
  - id: child
    depends: bad
    run: echo never
  - id: grandchild
    depends: [child]
    run: echo never
  - id: other
    run: echo fine
";
    let file = scratch.flow(yaml, None);
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 1);
    assert_eq!(summary["status"], "failed");
    assert_eq!(
        summary["steps"],
        json!([
            {"id": "bad", "name": "bad", "status": "failed", "stdout": "partial\n",
             "stderr": "broken\n", "outputs": {}, "error": "exit status 1"},
            step_json(Some("child"), "child", "skipped", "", json!({}), None),
            step_json(
                Some("grandchild"),
                "grandchild",
                "skipped",
                "",
                json!({}),
                None
            ),
            step_json(
                Some("other"),
                "other",
                "succeeded",
                "fine\n",
                json!({}),
                None
            ),
        ])
    );
}

/// Without `--json`, a failed run still exits 1.
#[tokio::test]
async fn a_failed_run_exits_1() {
    let scratch = Scratch::new("dag-exit");
    let file = scratch.flow("steps:\n  - id: bad\n    run: exit 3\n", None);
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 1);
}

#[tokio::test]
async fn steps_without_an_id_are_named_and_depended_on_by_name() {
    let scratch = Scratch::new("dag-names");
    let yaml = "steps:
  - name: make greeting
    run: echo hi
    output: WORD
  - name: shout
    depends: make greeting
    run: echo \"${WORD}!\"
";
    let file = scratch.flow(yaml, None);
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(
        summary["steps"],
        json!([
            step_json(
                None,
                "make greeting",
                "succeeded",
                "hi\n",
                json!({"WORD": "hi"}),
                None
            ),
            step_json(None, "shout", "succeeded", "hi!\n", json!({}), None),
        ])
    );
}

/// Steps are listed in file order, whatever order they ran in.
#[tokio::test]
async fn the_summary_lists_steps_in_file_order() {
    let scratch = Scratch::new("dag-order");
    let yaml = "steps:
  - id: last
    depends: [middle]
    run: echo 3
  - id: middle
    depends: first
    run: echo 2
  - id: first
    run: echo 1
";
    let file = scratch.flow(yaml, None);
    let output = scratch.run(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(stdout(&output), "1\n2\n3\n");
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    let names: Vec<&str> = summary["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["last", "middle", "first"]);
    assert_eq!(step(&summary, "last")["stdout"], "3\n");
}

/// Each run has its own id.
#[tokio::test]
async fn each_run_has_its_own_id() {
    let scratch = Scratch::new("dag-run-id");
    let file = scratch.flow("steps:\n  - id: one\n    run: \"true\"\n", None);
    let first = summary(&scratch.run(file, &["--json"]).await);
    let second = summary(&scratch.run(file, &["--json"]).await);
    assert_ne!(first["run_id"], second["run_id"]);
}

#[tokio::test]
async fn a_cycle_is_not_run() {
    let scratch = Scratch::new("dag-cycle");
    let yaml = "steps:
  - id: a
    depends: b
    run: touch a.flag
  - id: b
    depends: a
    run: touch b.flag
";
    let file = scratch.flow(yaml, None);
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
            "Validation failed for flow.yaml\n- cyclic plan detected: a -> b -> a\n"
        )
    );
    assert!(!scratch.path("a.flag").exists() && !scratch.path("b.flag").exists());
}

/// Without `--json`, a step's stdout is written as the step runs, not at
/// the end: the second step waits for a file that the test only creates
/// once it has read the first step's answer.
#[tokio::test]
async fn stdout_is_written_while_the_run_goes_on() {
    use std::process::Stdio;
    use std::time::Duration;
    use tokio::io::{AsyncBufReadExt, BufReader};

    let server = server(Script::new().with("test-model", [Reply::text("first answer")])).await;
    let scratch = Scratch::new("dag-streams");
    let yaml = "steps:
  - id: ask
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: hello
  - id: wait
    depends: ask
    run: for i in $(seq 1 300); do [ -f go.flag ] && echo released && exit 0; sleep 0.1; done; exit 1
";
    let file = scratch.flow(yaml, Some(&server));
    let mut child = scratch
        .run_command(file, &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let first = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
        .await
        .expect("no stdout while the second step waits")
        .unwrap();
    assert_eq!(first.as_deref(), Some("first answer"));
    assert!(child.try_wait().unwrap().is_none(), "the run already ended");
    std::fs::write(scratch.path("go.flag"), "").unwrap();
    assert_eq!(
        lines.next_line().await.unwrap().as_deref(),
        Some("released")
    );
    assert_eq!(lines.next_line().await.unwrap(), None);
    assert_eq!(child.wait().await.unwrap().code(), Some(0));
}
