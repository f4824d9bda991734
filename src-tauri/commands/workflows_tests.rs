//! The workflow commands' logic against a real SQLite file, real files and
//! the scripted model server: listing, saving, a run's events in order,
//! the stored run, a re-run.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::PathBuf;

use serde_json::json;
use sift_core::store::Store;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use tokio_util::sync::CancellationToken;

use super::test_support::collecting;
use super::workflows::{
    ParamValue, WorkflowRunEvent, WorkflowRunRequest, run_with_events, save_text, stored_run,
    workflows_in,
};

struct Folder(PathBuf);

impl Folder {
    fn new(name: &str) -> Self {
        let path = std::env::temp_dir().join(format!("sift-app-wf-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }
}

impl Drop for Folder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn the_folder_lists_its_workflow_files_and_saving_reports_problems() {
    let folder = Folder::new("list");
    std::fs::write(folder.0.join("b.yml"), "steps: []\n").unwrap();
    std::fs::write(folder.0.join("a.yaml"), "steps: []\n").unwrap();
    std::fs::write(folder.0.join("notes.txt"), "x").unwrap();
    let names: Vec<String> = workflows_in(&folder.0)
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect();
    assert_eq!(names, ["a.yaml", "b.yml"]);
    let file = folder.0.join("a.yaml");
    let problems = save_text(
        &file,
        "# kept\nsteps:\n  - {id: a, run: 'true', depends: zzz}\n",
    )
    .unwrap();
    assert_eq!(problems, ["step a depends on non-existent step zzz"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "# kept\nsteps:\n  - {id: a, run: 'true', depends: zzz}\n"
    );
    // Nothing is left beside it.
    assert_eq!(std::fs::read_dir(&folder.0).unwrap().count(), 3);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_reports_its_steps_in_order_and_is_stored() {
    let server = ScriptedServer::start(Script::new().with(
        "test-model",
        [Reply::tool_call("respond", json!({"category": "refund"}))],
    ))
    .await
    .unwrap();
    let folder = Folder::new("run");
    let file = folder.0.join("flow.yaml");
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
    let store = Store::open(folder.0.join("sift.db")).unwrap();
    let (channel, seen) = collecting::<WorkflowRunEvent>();
    let request = WorkflowRunRequest {
        path: file.display().to_string(),
        params: vec![ParamValue {
            name: "WHO".into(),
            value: "Ada".into(),
        }],
        from_step: None,
        from_run: None,
    };
    let view = run_with_events(&store, request, CancellationToken::new(), channel)
        .await
        .unwrap();
    assert_eq!(view.status, "succeeded");
    let kinds: Vec<String> = seen
        .lock()
        .unwrap()
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
    let stored = stored_run(&store, &view.run_id).unwrap();
    assert_eq!(stored, view);
    assert_eq!(
        stored.steps[0].messages,
        json!([
            {"role": "user", "parts": [{"type": "text", "text": "please refund my 12.50"}]},
            {"role": "assistant", "parts": [{"type": "text", "text": "{\"category\":\"refund\"}"}]},
        ])
    );

    // Re-run from `record`: the model is not asked again.
    let (channel, _) = collecting::<WorkflowRunEvent>();
    let rerun = WorkflowRunRequest {
        path: file.display().to_string(),
        params: Vec::new(),
        from_step: Some("record".into()),
        from_run: Some(view.run_id.clone()),
    };
    let again = run_with_events(&store, rerun, CancellationToken::new(), channel)
        .await
        .unwrap();
    assert_eq!(server.requests().len(), 1);
    assert!(again.steps[0].reused);
    assert_eq!(again.steps[1].stdout, "refund for you\n");
    let (channel, _) = collecting::<WorkflowRunEvent>();
    let half = WorkflowRunRequest {
        path: file.display().to_string(),
        params: Vec::new(),
        from_step: Some("record".into()),
        from_run: None,
    };
    let error = run_with_events(&store, half, CancellationToken::new(), channel)
        .await
        .unwrap_err();
    assert_eq!(
        (error.code.as_str(), error.message.as_str()),
        (
            "usage",
            "a re-run needs both the step to start from and the run to reuse"
        )
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_invalid_file_is_refused_with_its_problems() {
    let folder = Folder::new("invalid");
    let file = folder.0.join("flow.yaml");
    std::fs::write(&file, "steps:\n  - {id: my-step, run: 'true'}\n").unwrap();
    let store = Store::open(folder.0.join("sift.db")).unwrap();
    let (channel, seen) = collecting::<WorkflowRunEvent>();
    let request = WorkflowRunRequest {
        path: file.display().to_string(),
        params: Vec::new(),
        from_step: None,
        from_run: None,
    };
    let error = run_with_events(&store, request, CancellationToken::new(), channel)
        .await
        .unwrap_err();
    assert_eq!(error.code, "invalid_workflow");
    assert_eq!(
        error.message,
        "the workflow is not valid:\n- step 'my-step': invalid step ID format: must match ^[a-zA-Z][a-zA-Z0-9_]*$ (use '_' instead of '-')"
    );
    assert!(seen.lock().unwrap().is_empty());
    assert!(store.workflow_runs(10).unwrap().is_empty());
}
