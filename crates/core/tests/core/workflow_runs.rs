//! Workflow runs as the window starts them, against a real SQLite file,
//! real files and the scripted model server: a run's events in order, the
//! stored run, a re-run, an invalid file, a cancel through the running
//! work.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_core::workflows::consent::{allow_commands, folder_commands};
use sift_core::workflows::runs::{
    ParamValue, WorkflowRunArgs, WorkflowRunEvent, cancel_workflow_run, start_workflow_run,
    stored_run, workflow_runs,
};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::TempDir;
use crate::sessions::app_workspace;

/// A sink that keeps the events as JSON, as the window's channel gets them.
fn collecting() -> (
    impl Fn(WorkflowRunEvent) + Send + Sync + 'static,
    Arc<Mutex<Vec<Value>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    (
        move |e: WorkflowRunEvent| sink.lock().unwrap().push(serde_json::to_value(&e).unwrap()),
        seen,
    )
}

/// The user allows the shell commands of the file's folder, as the
/// window's dialog does.
fn allow(ws: &sift_core::Workspace, file: &std::path::Path) {
    let folder = file.parent().unwrap();
    let listing = folder_commands(folder).unwrap();
    allow_commands(&ws.store().unwrap(), folder, &listing.fingerprint).unwrap();
}

fn args(path: &std::path::Path) -> WorkflowRunArgs {
    WorkflowRunArgs {
        path: path.display().to_string(),
        params: Vec::new(),
        from_step: None,
        from_run: None,
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_reports_its_steps_in_order_and_is_stored() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [Reply::tool_call("respond", json!({"category": "refund"}))],
    ))
    .await
    .unwrap();
    let dir = TempDir::new("wf-run");
    let file = dir.0.join("flow.yaml");
    std::fs::write(
        &file,
        format!(
            "params: WHO=you
steps:
  - id: classify
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: {}
      prompt: please refund my 12.50
    output_schema:
      type: object
      properties:
        category: {{type: string}}
  - id: record
    depends: classify
    run: echo \"${{steps.classify.outputs.category}} for ${{params.WHO}}\"
",
            server.openai_base_url()
        ),
    )
    .unwrap();
    let ws = app_workspace(&dir, None);
    // As the folder dialog grants the folder it returned.
    ws.grants().grant_folder(&dir.0);
    // The window runs the folder's commands only once they are allowed:
    // before, nothing is reported or stored.
    let (sink, seen) = collecting();
    let refused = start_workflow_run(&ws, args(&file), sink).err().unwrap();
    assert_eq!(refused.code(), "consent_needed");
    assert!(seen.lock().unwrap().is_empty());
    assert!(ws.store().unwrap().workflow_runs(10).unwrap().is_empty());
    allow(&ws, &file);
    let (sink, seen) = collecting();
    let request = WorkflowRunArgs {
        params: vec![ParamValue {
            name: "WHO".into(),
            value: "Ada".into(),
        }],
        ..args(&file)
    };
    let (key, run) = start_workflow_run(&ws, request, sink).unwrap();
    let view = run.await.unwrap();
    assert_eq!(view.status, "succeeded");
    assert!(
        !cancel_workflow_run(&ws, &key),
        "an ended run is unregistered"
    );
    let events = seen.lock().unwrap().clone();
    assert_eq!(events[0], json!({"kind": "started", "key": key}));
    let kinds: Vec<String> = events[1..]
        .iter()
        .map(|e| match e["kind"].as_str().unwrap() {
            "stepFinished" => format!("stepFinished {} {}", e["step"]["name"], e["step"]["status"]),
            "stdout" => format!("stdout {} {:?}", e["name"], e["text"].as_str().unwrap()),
            "runCreated" => format!("runCreated {}", e["runId"] == view.run_id.as_str()),
            other => format!("{other} {}", e["name"]),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "runCreated true",
            "stepStarted \"classify\"",
            "stdout \"classify\" \"{\\\"category\\\":\\\"refund\\\"}\\n\"",
            "stepFinished \"classify\" \"succeeded\"",
            "stepStarted \"record\"",
            "stdout \"record\" \"refund for Ada\\n\"",
            "stepFinished \"record\" \"succeeded\"",
        ]
    );
    let stored = stored_run(&ws, &view.run_id).unwrap();
    assert_eq!(stored, view);
    assert_eq!(
        stored.steps[0].messages,
        json!([
            {"role": "user", "parts": [{"type": "text", "text": "please refund my 12.50"}]},
            {"role": "assistant", "parts": [{"type": "text", "text": "{\"category\":\"refund\"}"}]},
        ])
    );

    // Re-run from `record`: the model is not asked again.
    let (sink, _) = collecting();
    let rerun = WorkflowRunArgs {
        from_step: Some("record".into()),
        from_run: Some(view.run_id.clone()),
        ..args(&file)
    };
    let (_, run) = start_workflow_run(&ws, rerun, sink).unwrap();
    let again = run.await.unwrap();
    assert_eq!(server.requests().len(), 1);
    assert!(again.steps[0].reused);
    assert_eq!(again.steps[1].stdout, "refund for you\n");
    let summaries = workflow_runs(&ws, 10).unwrap();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0].from_run.as_deref(), Some(view.run_id.as_str()));
    let (sink, _) = collecting();
    let half = WorkflowRunArgs {
        from_step: Some("record".into()),
        ..args(&file)
    };
    let error = start_workflow_run(&ws, half, sink).err().unwrap();
    assert_eq!(
        (error.code(), error.to_string().as_str()),
        (
            "usage",
            "a re-run needs both the step to start from and the run to reuse"
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_file_is_refused_with_its_problems() {
    let dir = TempDir::new("wf-invalid");
    let file = dir.0.join("flow.yaml");
    std::fs::write(&file, "steps:\n  - {id: my-step, run: 'true'}\n").unwrap();
    let ws = app_workspace(&dir, None);
    // As the folder dialog grants the folder it returned.
    ws.grants().grant_folder(&dir.0);
    let (sink, seen) = collecting();
    let error = start_workflow_run(&ws, args(&file), sink).err().unwrap();
    assert_eq!(error.code(), "invalid_workflow");
    assert_eq!(
        error.to_string(),
        "the workflow is not valid:\n- step 'my-step': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')"
    );
    assert!(seen.lock().unwrap().is_empty());
    assert!(ws.store().unwrap().workflow_runs(10).unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_cancelled_by_its_key_ends_cancelled() {
    let dir = TempDir::new("wf-cancel");
    let file = dir.0.join("flow.yaml");
    // The second step would wait a minute; the run is cancelled as the
    // first one ends.
    std::fs::write(
        &file,
        "steps:\n  - {id: first, run: 'echo one'}\n  - {id: second, depends: first, run: 'sleep 60'}\n",
    )
    .unwrap();
    let ws = app_workspace(&dir, None);
    // As the folder dialog grants the folder it returned.
    ws.grants().grant_folder(&dir.0);
    allow(&ws, &file);
    let canceller = ws.clone();
    let key_seen: Arc<Mutex<Option<String>>> = Arc::default();
    let sink = {
        let key_seen = key_seen.clone();
        move |e: WorkflowRunEvent| match e {
            WorkflowRunEvent::Started { key } => *key_seen.lock().unwrap() = Some(key),
            WorkflowRunEvent::StepFinished { step } if step.name == "first" => {
                let key = key_seen.lock().unwrap().clone().unwrap();
                assert!(cancel_workflow_run(&canceller, &key));
            }
            _ => {}
        }
    };
    let (key, run) = start_workflow_run(&ws, args(&file), sink).unwrap();
    assert!(key.starts_with("run-"), "{key}");
    let view = run.await.unwrap();
    assert_eq!(view.status, "cancelled");
    assert_eq!(view.steps[0].status, "succeeded");
    assert_eq!(stored_run(&ws, &view.run_id).unwrap().status, "cancelled");
}

/// The message a run from the window gives for a file no grant covers.
fn not_granted(path: &str, leads: &str) -> String {
    format!(
        "the window may not read {path}: {leads} outside the workflow's folder and was not \
         picked in an open dialog, dropped on the window or found in a folder picked in this \
         session"
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_from_the_window_reads_only_files_in_its_folder_or_picked() {
    let server = ScriptedServer::start(Script::new().with("m", [Reply::text("seen")]))
        .await
        .unwrap();
    let dir = TempDir::new("wf-files");
    let folder = dir.0.join("flows");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("inside.txt"), "the notes").unwrap();
    std::os::unix::fs::symlink("/etc/hostname", folder.join("link.txt")).unwrap();
    let step = |id: &str, file: &str| {
        format!(
            "  - id: {id}\n    action: chat.completion\n    with:\n      provider: openai\n      \
             model: m\n      base_url: {}\n      api_key_env: SIFT_CORE_TESTS_NO_KEY\n      \
             prompt: read it\n      files: [\"{file}\"]\n",
            server.openai_base_url()
        )
    };
    let file = folder.join("flow.yaml");
    std::fs::write(
        &file,
        format!(
            "steps:\n{}{}{}",
            step("inside", "inside.txt"),
            step("outside", "/etc/hostname"),
            step("link", "link.txt"),
        ),
    )
    .unwrap();
    let ws = app_workspace(&dir, None);
    // As the folder dialog grants the folder it returned.
    ws.grants().grant_folder(&folder);
    let (_, run) = start_workflow_run(&ws, args(&file), |_| {}).unwrap();
    let view = run.await.unwrap();
    assert_eq!(view.status, "failed");
    // Named as the step resolved it; the link is followed only to check it.
    let link = folder.join("link.txt");
    let outcomes: Vec<(&str, &str, Option<String>)> = view
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str(), s.error.clone()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("inside", "succeeded", None),
            (
                "outside",
                "failed",
                Some(not_granted("/etc/hostname", "it is"))
            ),
            (
                "link",
                "failed",
                Some(not_granted(
                    &link.display().to_string(),
                    "it leads to /etc/hostname, which is"
                ))
            ),
        ]
    );
    // Only the file inside the folder went to the model.
    assert_eq!(server.requests().len(), 1);
}
