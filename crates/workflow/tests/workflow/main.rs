//! The executor and the folder watch, through the crate's public API:
//! real `sh` processes, real files, a real notify watcher.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

mod file_gate;
mod nesting;
mod step_errors;
mod tool_arguments;
mod values_in_commands;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use sift_workflow::{
    ChangeKind, DirectConnector, RunEvent, RunOptions, RunRecord, RunStatus, Runtime, StepStatus,
    load, run, watch_folder,
};

/// A scratch folder, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-workflow-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn runtime(yaml: &str, dir: &std::path::Path) -> Arc<Runtime> {
    Arc::new(Runtime {
        workflow: load(yaml).unwrap(),
        base_dir: dir.to_path_buf(),
        connector: Arc::new(DirectConnector),
        read_options: Default::default(),
        file_gate: Default::default(),
    })
}

async fn run_with(
    yaml: &str,
    dir: &std::path::Path,
    options: RunOptions,
) -> (RunRecord, Vec<RunEvent>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = {
        let events = events.clone();
        Arc::new(move |e: RunEvent| events.lock().unwrap().push(e))
    };
    let record = tokio::time::timeout(
        Duration::from_secs(120),
        run(runtime(yaml, dir), options, sink),
    )
    .await
    .expect("the run did not end")
    .unwrap();
    let events = events.lock().unwrap().clone();
    (record, events)
}

#[tokio::test]
async fn independent_steps_run_at_the_same_time() {
    let scratch = Scratch::new("parallel");
    // Each step waits for the other's file: run one after the other, they
    // would wait forever (the 30 s limit fails the step instead: far above
    // the moment between two steps' starts, however slow the machine).
    let yaml = "steps:
  - id: a
    run: touch a; for i in $(seq 300); do [ -f b ] && exit 0; sleep 0.1; done; exit 1
  - id: b
    run: touch b; for i in $(seq 300); do [ -f a ] && exit 0; sleep 0.1; done; exit 1
";
    let (record, _) = run_with(yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded);
}

#[tokio::test]
async fn max_active_steps_one_runs_them_one_at_a_time() {
    let scratch = Scratch::new("serial");
    let yaml = "max_active_steps: 1
steps:
  - id: a
    run: touch a; sleep 0.3; [ ! -f b ]
  - id: b
    run: 'true'
";
    let (record, events) = run_with(yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(
        record.steps[0].status,
        StepStatus::Succeeded,
        "{:?}",
        record.steps[0]
    );
    let order: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::StepStarted { name } => Some(format!("start {name}")),
            RunEvent::StepFinished(r) => Some(format!("end {}", r.name)),
            _ => None,
        })
        .collect();
    assert_eq!(order, ["start a", "end a", "start b", "end b"]);
}

#[tokio::test]
async fn output_streams_as_events_and_is_kept_per_stream() {
    let scratch = Scratch::new("streams");
    let yaml = "steps:
  - id: talk
    run: echo out; echo err >&2; echo more
    output: SAID
";
    let (record, events) = run_with(yaml, &scratch.0, RunOptions::default()).await;
    let step = &record.steps[0];
    assert_eq!(step.stdout, "out\nmore\n");
    assert_eq!(step.stderr, "err\n");
    assert_eq!(step.outputs["SAID"], "out\nmore");
    let streamed: String = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::Stdout { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "out\nmore\n");
}

#[tokio::test]
async fn cancelling_kills_running_steps_and_starts_no_new_one() {
    let scratch = Scratch::new("cancel");
    let yaml = "steps:
  - id: slow
    run: touch started; exec sleep 30
  - id: after
    depends: slow
    run: touch after
";
    let options = RunOptions::default();
    let cancel = options.cancel.clone();
    // Cancelled once `slow` is running, not after a guessed delay.
    let started = scratch.0.join("started");
    tokio::spawn(async move {
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while !started.exists() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cancel.cancel();
    });
    let (record, _) = run_with(yaml, &scratch.0, options).await;
    assert_eq!(record.status, RunStatus::Cancelled);
    let statuses: Vec<StepStatus> = record.steps.iter().map(|s| s.status).collect();
    assert_eq!(statuses, [StepStatus::Cancelled, StepStatus::Cancelled]);
    assert!(!scratch.0.join("after").exists());
}

#[tokio::test]
async fn dag_run_runs_a_named_dag_with_params_and_publishes_its_outputs() {
    let scratch = Scratch::new("dagrun");
    let yaml = "steps:
  - id: call
    action: dag.run
    with:
      dag: greet
      params: NAME=Ada
  - id: show
    depends: call
    run: echo \"${steps.call.outputs.GREETING}\"
---
name: greet
params: NAME
steps:
  - run: echo \"hello $NAME\"
    output: GREETING
";
    let (record, _) = run_with(yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Succeeded, "{record:?}");
    assert_eq!(record.steps[1].stdout, "hello Ada\n");
}

#[tokio::test]
async fn a_failed_step_skips_its_dependents_but_not_the_others() {
    let scratch = Scratch::new("skip");
    let yaml = "steps:
  - {id: bad, run: 'exit 4'}
  - {id: child, depends: bad, run: 'true'}
  - {id: grandchild, depends: child, run: 'true'}
  - {id: other, run: 'echo fine'}
";
    let (record, _) = run_with(yaml, &scratch.0, RunOptions::default()).await;
    assert_eq!(record.status, RunStatus::Failed);
    let statuses: Vec<(&str, StepStatus, Option<&str>)> = record
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.status, s.error.as_deref()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("bad", StepStatus::Failed, Some("exit status 4")),
            ("child", StepStatus::Skipped, None),
            ("grandchild", StepStatus::Skipped, None),
            ("other", StepStatus::Succeeded, None),
        ]
    );
}

#[tokio::test]
async fn a_changed_file_is_revalidated_and_announced() {
    let scratch = Scratch::new("watch");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _watch = watch_folder(&scratch.0, move |change| {
        let _ = tx.send(change);
    })
    .unwrap();
    let file = scratch.0.join("flow.yaml");
    // Written aside and renamed into place, as editors save.
    let save = |text: &str| {
        let aside = scratch.0.join(".flow.yaml.tmp");
        std::fs::write(&aside, text).unwrap();
        std::fs::rename(&aside, &file).unwrap();
    };
    save("steps:\n  - {id: a, run: 'true', depends: zzz}\n");
    let change = tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(change.path, file);
    match change.kind {
        ChangeKind::Changed { problems, .. } => {
            assert_eq!(problems, ["step a depends on non-existent step zzz"]);
        }
        ChangeKind::Removed => panic!("announced as removed"),
    }
    // Not a workflow file: not announced. Then the fix is.
    std::fs::write(scratch.0.join("notes.txt"), "x").unwrap();
    save("steps:\n  - {id: a, run: 'true'}\n");
    let change = tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(change.path, file);
    assert!(matches!(change.kind, ChangeKind::Changed { ref problems, .. } if problems.is_empty()));
    std::fs::remove_file(&file).unwrap();
    let change = tokio::time::timeout(Duration::from_secs(60), rx.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(change.kind, ChangeKind::Removed);
}
