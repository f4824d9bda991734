//! The commands that write a file the webview names, invoked through the
//! IPC layer (Tauri's mock runtime): a path no dialog returned is refused
//! with `path_not_allowed` and nothing is written; a granted one is written.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use sift_core::{Workspace, WorkspaceOptions};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{
    INVOKE_KEY, MockRuntime, get_ipc_response, mock_builder, mock_context, noop_assets,
};
use tauri::webview::InvokeRequest;
use tauri::{WebviewWindow, WebviewWindowBuilder};

use crate::commands;

struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-app-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("flows")).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn app_with(ws: &Workspace) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let app = mock_builder()
        .manage(ws.clone())
        .invoke_handler(tauri::generate_handler![
            commands::extract::export_results,
            commands::chat::write_export,
            commands::workflows::save_workflow,
        ])
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    (app, window)
}

fn invoke(window: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(args),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().unwrap())
}

fn refused(path: &Path) -> Value {
    json!({
        "code": "path_not_allowed",
        "message": format!(
            "{} was not chosen in a save dialog of this session: nothing was written",
            path.display()
        ),
    })
}

#[test]
fn writes_to_paths_no_dialog_returned_are_refused_and_write_nothing() {
    let dir = Scratch::new("write-paths");
    let ws = Workspace::open(WorkspaceOptions::app(
        Some(dir.0.join("config.toml")),
        Some(dir.0.join("sift.db")),
    ))
    .unwrap();
    let (_app, window) = app_with(&ws);

    let csv = dir.0.join("results.csv");
    let export = json!({"jobId": "job_1", "format": "csv", "path": csv, "bom": false});
    assert_eq!(
        invoke(&window, "export_results", export),
        Err(refused(&csv))
    );
    assert!(!csv.exists());

    let chat = dir.0.join("chat.md");
    let chat_args = json!({"path": chat, "content": "# A chat\n"});
    assert_eq!(
        invoke(&window, "write_export", chat_args.clone()),
        Err(refused(&chat))
    );
    assert!(!chat.exists());

    let flow = dir.0.join("flows/a.yaml");
    let flow_args = json!({"path": flow, "text": "steps: []\n"});
    assert_eq!(
        invoke(&window, "save_workflow", flow_args),
        Err(refused(&flow))
    );
    assert!(!flow.exists());

    // The save dialog returns the path (what `pick_save_path` grants):
    // now the same command writes it.
    ws.grants().grant_file(&chat);
    assert_eq!(invoke(&window, "write_export", chat_args), Ok(Value::Null));
    assert_eq!(std::fs::read_to_string(&chat).unwrap(), "# A chat\n");
    // Another file beside it is still refused.
    let beside = dir.0.join("other.md");
    let beside_args = json!({"path": beside, "content": "x"});
    assert_eq!(
        invoke(&window, "write_export", beside_args),
        Err(refused(&beside))
    );
    assert!(!beside.exists());
}
