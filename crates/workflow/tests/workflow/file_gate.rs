//! The file gate an embedder gives a run: every file a `chat.completion`
//! step reads passes it first, in the main DAG and in a DAG it runs; a
//! refused file fails its step before any request.

use std::sync::{Arc, Mutex};

use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_workflow::{
    DirectConnector, FileGate, RunOptions, RunStatus, Runtime, StepStatus, load, run,
};

use crate::Scratch;

#[tokio::test]
async fn a_file_the_gate_refuses_fails_its_step_and_its_sub_runs_before_any_request() {
    let server = ScriptedServer::start(Script::new().with("test-model", [Reply::text("seen")]))
        .await
        .unwrap();
    let scratch = Scratch::new("file-gate");
    std::fs::write(scratch.0.join("notes.txt"), "the notes").unwrap();
    std::fs::write(scratch.0.join("secret.txt"), "the secret").unwrap();
    let chat = |id: &str, file: &str| {
        format!(
            "  - id: {id}\n    action: chat.completion\n    with:\n      model: test-model\n      \
             base_url: {}\n      stream: false\n      prompt: read it\n      files: [{file}]\n",
            server.openai_base_url()
        )
    };
    // Through `..`: the gate sees the file as resolved.
    let folder = scratch.0.file_name().unwrap().to_str().unwrap();
    let yaml = format!(
        "steps:\n{}{}  - id: nested\n    action: dag.run\n    with:\n      dag: reader\n\
         ---\nname: reader\nsteps:\n{}",
        chat("notes", "notes.txt"),
        // A glob names it too: the gate sees each file it matches.
        chat("secret", "\"s*.txt\""),
        chat("inner", &format!("../{folder}/secret.txt")),
    );
    let checked = Arc::new(Mutex::new(Vec::new()));
    let gate = {
        let checked = checked.clone();
        FileGate::new(move |path| {
            checked.lock().unwrap().push(path.to_path_buf());
            if path.ends_with("secret.txt") {
                Err(format!("may not read {}", path.display()))
            } else {
                Ok(())
            }
        })
    };
    let runtime = Arc::new(Runtime {
        workflow: load(&yaml).unwrap(),
        base_dir: scratch.0.clone(),
        connector: Arc::new(DirectConnector),
        read_options: Default::default(),
        file_gate: gate,
    });
    let record = run(runtime, RunOptions::default(), Arc::new(|_| {}))
        .await
        .unwrap();
    assert_eq!(record.status, RunStatus::Failed);
    let secret = scratch.0.join("secret.txt");
    let refused = format!("may not read {}", secret.display());
    let outcomes: Vec<(&str, StepStatus, Option<&str>)> = record
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.status, s.error.as_deref()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("notes", StepStatus::Succeeded, None),
            ("secret", StepStatus::Failed, Some(refused.as_str())),
            ("nested", StepStatus::Failed, Some(refused.as_str())),
        ]
    );
    // Only the allowed file's step asked the model.
    assert_eq!(server.requests().len(), 1);
    let mut checked = checked.lock().unwrap().clone();
    checked.sort();
    assert_eq!(
        checked,
        [scratch.0.join("notes.txt"), secret.clone(), secret]
    );
}
