//! The window's run of a workflow whose folder holds shell commands,
//! through the IPC layer (Tauri's mock runtime): refused with
//! `consent_needed` until `allow_workflow_commands` records the user's
//! consent to the commands `workflow_commands` listed, then run.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use serde_json::{Value, json};
use sift_core::{Workspace, WorkspaceOptions};
use tauri::WebviewWindow;
use tauri::test::{MockRuntime, mock_builder};

use crate::commands;
use crate::mock_ipc::{Scratch, app_and_window, invoke};

fn app_with(ws: &Workspace) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    app_and_window(
        mock_builder()
            .manage(ws.clone())
            .invoke_handler(tauri::generate_handler![
                commands::workflows::run_workflow,
                commands::workflows::workflow_commands,
                commands::workflows::allow_workflow_commands,
            ]),
    )
}

#[test]
fn a_run_is_refused_until_the_folders_commands_are_allowed() {
    let dir = Scratch::new("workflow-consent");
    let folder = dir.0.join("flows");
    let file = folder.join("hello.yaml");
    std::fs::write(&file, "steps:\n  - id: greet\n    run: echo hello\n").unwrap();
    let ws = Workspace::open(WorkspaceOptions::app(
        Some(dir.0.join("config.toml")),
        Some(dir.0.join("sift.db")),
    ))
    .unwrap();
    let (_app, window) = app_with(&ws);
    let run = json!({"request": {"path": file}, "onEvent": "__CHANNEL__:7"});
    let canonical = folder.canonicalize().unwrap().display().to_string();

    // A folder the page may not read is neither listed nor allowed.
    let listed = invoke(&window, "workflow_commands", json!({"folder": folder}));
    assert_eq!(listed.unwrap_err()["code"], "path_not_allowed");
    let any = json!({"folder": folder, "fingerprint": "0".repeat(64)});
    assert_eq!(
        invoke(&window, "allow_workflow_commands", any).unwrap_err()["code"],
        "path_not_allowed"
    );
    // The folder dialog granted the folder: the page may read it.
    ws.grants().grant_folder(&folder);

    let refused = invoke(&window, "run_workflow", run.clone()).unwrap_err();
    assert_eq!(
        refused,
        json!({
            "code": "consent_needed",
            "message": format!(
                "the workflows in {canonical} run shell commands you have not allowed yet:\n- hello.yaml greet: echo hello"
            ),
        })
    );
    assert!(ws.store().unwrap().workflow_runs(10).unwrap().is_empty());

    let listing = invoke(&window, "workflow_commands", json!({"folder": folder})).unwrap();
    let fingerprint = listing["fingerprint"].as_str().unwrap().to_owned();
    assert_eq!(
        listing,
        json!({
            "folder": canonical,
            "fingerprint": fingerprint,
            "commands": [
                {"file": "hello.yaml", "dag": null, "step": "greet", "command": "echo hello", "env": []}
            ],
        })
    );
    // A fingerprint the user was not shown records nothing.
    let wrong = json!({"folder": folder, "fingerprint": "0".repeat(64)});
    assert_eq!(
        invoke(&window, "allow_workflow_commands", wrong).unwrap_err()["code"],
        "consent_needed"
    );
    assert_eq!(
        invoke(&window, "run_workflow", run.clone()).unwrap_err()["code"],
        "consent_needed"
    );

    let allow = json!({"folder": folder, "fingerprint": fingerprint});
    assert_eq!(
        invoke(&window, "allow_workflow_commands", allow),
        Ok(Value::Null)
    );
    let view = invoke(&window, "run_workflow", run).unwrap();
    assert_eq!(view["status"], "succeeded");
    assert_eq!(view["steps"][0]["stdout"], "hello\n");
}
