//! The commands that read a path the webview names, invoked through the
//! IPC layer (Tauri's mock runtime): a path no open dialog returned, not
//! dropped on the window and in no folder picked is refused with
//! `path_not_allowed` and nothing is read; the same command takes it once
//! it is granted (by `pick_files`, `pick_folder` or a drop).
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sift_core::workflows::files::WorkflowFolderWatch;
use sift_core::{Workspace, WorkspaceOptions};
use tauri::test::{MockRuntime, mock_builder};
use tauri::{DragDropEvent, PhysicalPosition, WebviewWindow, WindowEvent};

use crate::commands;
use crate::mock_ipc::{Scratch, app_and_window, invoke};

const CHANNEL: &str = "__CHANNEL__:1";

/// A workspace whose default provider is an address nothing answers, so
/// that a job that starts calls no real model and starts no local server.
fn workspace(dir: &Scratch) -> Workspace {
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        "[defaults]\nprovider = \"nowhere\"\nmodel = \"m\"\n\n[[providers]]\nid = \"nowhere\"\n\
         kind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
    )
    .unwrap();
    Workspace::open(WorkspaceOptions::app(
        Some(config),
        Some(dir.0.join("sift.db")),
    ))
    .unwrap()
}

fn app_with(ws: &Workspace) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    app_and_window(
        mock_builder()
            .manage(ws.clone())
            .manage(WorkflowFolderWatch::default())
            .invoke_handler(tauri::generate_handler![
                commands::workflows::list_workflows,
                commands::workflows::read_workflow,
                commands::workflows::watch_workflows,
                commands::workflows::run_workflow,
                commands::chat::new_session,
                commands::chat::describe_attachments,
                commands::chat::send_chat_message,
                commands::extract::start_extraction,
                commands::schemas::import_schema,
                commands::schemas::suggest_schema,
                commands::evaluate::import_labelled_set,
            ]),
    )
}

fn refused(path: &Path) -> Value {
    json!({
        "code": "path_not_allowed",
        "message": format!(
            "{} was not picked in an open dialog, dropped on the window or found in a folder \
             picked in this session: nothing was read",
            path.display()
        ),
    })
}

/// What the native drop event does with a file dropped on the window.
fn drop_on_window(ws: &Workspace, paths: &[PathBuf]) {
    let event = WindowEvent::DragDrop(DragDropEvent::Drop {
        paths: paths.to_vec(),
        position: PhysicalPosition::new(0.0, 0.0),
    });
    crate::drops::grant_dropped(ws, &event);
}

#[test]
fn the_workflow_folder_is_read_only_once_a_folder_dialog_granted_it() {
    let dir = Scratch::new("read-workflows");
    let ws = workspace(&dir);
    let (_app, window) = app_with(&ws);
    let flows = dir.0.join("flows");
    let flow = flows.join("a.yaml");
    std::fs::write(&flow, "steps: []\n").unwrap();
    let list = json!({"dir": flows});
    let read = json!({"path": flow});
    let watch = json!({"dir": flows, "onChange": CHANNEL});
    let run = json!({"request": {"path": flow, "params": []}, "onEvent": CHANNEL});
    assert_eq!(
        invoke(&window, "list_workflows", list.clone()),
        Err(refused(&flows))
    );
    assert_eq!(
        invoke(&window, "read_workflow", read.clone()),
        Err(refused(&flow))
    );
    assert_eq!(
        invoke(&window, "watch_workflows", watch.clone()),
        Err(refused(&flows))
    );
    assert_eq!(
        invoke(&window, "run_workflow", run.clone()),
        Err(refused(&flow))
    );
    assert!(ws.store().unwrap().workflow_runs(10).unwrap().is_empty());

    // What `pick_folder` grants.
    ws.grants().grant_folder(&flows);
    assert_eq!(
        invoke(&window, "list_workflows", list),
        Ok(json!([{"path": flow, "name": "a.yaml"}]))
    );
    assert_eq!(
        invoke(&window, "read_workflow", read),
        Ok(json!({"path": flow, "text": "steps: []\n", "problems": []}))
    );
    assert_eq!(invoke(&window, "watch_workflows", watch), Ok(Value::Null));
    let view = invoke(&window, "run_workflow", run).unwrap();
    assert_eq!(view["status"], "succeeded");
    // A file beside the folder is still refused.
    let beside = dir.0.join("b.yaml");
    std::fs::write(&beside, "steps: []\n").unwrap();
    assert_eq!(
        invoke(&window, "read_workflow", json!({"path": beside})),
        Err(refused(&beside))
    );
}

#[test]
fn attachments_are_read_only_once_picked_or_dropped() {
    let dir = Scratch::new("read-attachments");
    let ws = workspace(&dir);
    let (_app, window) = app_with(&ws);
    let note = dir.0.join("note.txt");
    std::fs::write(&note, "Total 9.00\n").unwrap();
    let describe = json!({"paths": [note]});
    assert_eq!(
        invoke(&window, "describe_attachments", describe.clone()),
        Err(refused(&note))
    );
    let session = invoke(&window, "new_session", json!({"title": "t"})).unwrap();
    let send = json!({
        "sessionId": session["id"],
        "text": "What is the total?",
        "files": [note],
        "choice": {"providerId": "unknown"},
        "onEvent": CHANNEL,
    });
    assert_eq!(
        invoke(&window, "send_chat_message", send.clone()),
        Err(refused(&note))
    );

    drop_on_window(&ws, std::slice::from_ref(&note));
    assert_eq!(
        invoke(&window, "describe_attachments", describe),
        Ok(json!([{"path": note, "name": "note.txt", "chars": 11, "images": 0}]))
    );
    // Past the grant, the message fails on its provider, not its file.
    assert_eq!(
        invoke(&window, "send_chat_message", send).unwrap_err()["code"],
        "not_found"
    );
}

#[test]
fn an_extraction_and_a_suggestion_read_only_granted_documents() {
    let dir = Scratch::new("read-documents");
    let ws = workspace(&dir);
    let (_app, window) = app_with(&ws);
    let scan = dir.0.join("scan.xyz");
    std::fs::write(&scan, "x").unwrap();
    let start = json!({
        "request": {"files": [scan], "schemaName": "invoice"},
        "events": CHANNEL,
    });
    assert_eq!(
        invoke(&window, "start_extraction", start.clone()),
        Err(refused(&scan))
    );
    assert!(
        ws.store()
            .unwrap()
            .list_extraction_jobs(10)
            .unwrap()
            .is_empty()
    );
    let suggest = json!({"request": {"file": scan, "providerId": "unknown"}});
    assert_eq!(
        invoke(&window, "suggest_schema", suggest.clone()),
        Err(refused(&scan))
    );

    // What `pick_files` grants.
    ws.grants().grant_read(&scan);
    let job = invoke(&window, "start_extraction", start).unwrap();
    assert_eq!(job["rows"][0]["path"], json!(scan));
    assert_eq!(
        invoke(&window, "suggest_schema", suggest).unwrap_err()["code"],
        "not_found"
    );
}

#[test]
fn a_schema_and_a_labelled_set_are_imported_only_from_picked_files() {
    let dir = Scratch::new("read-imports");
    let ws = workspace(&dir);
    let (_app, window) = app_with(&ws);
    let schema = dir.0.join("notes.json");
    std::fs::write(
        &schema,
        r#"{"type": "object", "properties": {"total": {"type": "string"}}}"#,
    )
    .unwrap();
    let tsv = dir.0.join("truth.tsv");
    let document = dir.0.join("a.txt");
    std::fs::write(&document, "Total 9.00\n").unwrap();
    std::fs::write(&tsv, format!("file\ttotal\n{}\t9.00\n", document.display())).unwrap();
    let import_schema = json!({"path": schema, "name": null});
    let import_set =
        json!({"name": "s", "path": tsv, "schemaName": "notes", "schemaVersion": null});
    assert_eq!(
        invoke(&window, "import_schema", import_schema.clone()),
        Err(refused(&schema))
    );
    assert_eq!(
        invoke(&window, "import_labelled_set", import_set.clone()),
        Err(refused(&tsv))
    );

    // A folder picked: its files may be read.
    ws.grants().grant_folder(&dir.0);
    assert_eq!(
        invoke(&window, "import_schema", import_schema).unwrap()["name"],
        "notes"
    );
    assert_eq!(
        invoke(&window, "import_labelled_set", import_set).unwrap()["documents"],
        1
    );
}
