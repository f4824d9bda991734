//! The commands that write a file the webview names, invoked through the
//! IPC layer (Tauri's mock runtime): a path no dialog returned is refused
//! with `path_not_allowed` and nothing is written; a granted one is written.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::{Path, PathBuf};

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
                commands::extract::export_results,
                commands::chat::write_export,
                commands::workflows::save_workflow,
                commands::workflows::list_workflows,
                commands::settings::get_settings,
                commands::settings::save_settings,
            ]),
    )
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

fn not_a_workflow(path: &Path) -> Value {
    json!({
        "code": "path_not_allowed",
        "message": format!(
            "{} is not a .yaml or .yml file directly in the open workflow folder: nothing was written",
            path.display()
        ),
    })
}

fn app_workspace(dir: &Scratch) -> Workspace {
    Workspace::open(WorkspaceOptions::app(
        Some(dir.0.join("config.toml")),
        Some(dir.0.join("sift.db")),
    ))
    .unwrap()
}

#[test]
fn writes_to_paths_no_dialog_returned_are_refused_and_write_nothing() {
    let dir = Scratch::new("write-paths");
    let ws = app_workspace(&dir);
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
        Err(not_a_workflow(&flow))
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

#[test]
fn a_workflow_is_saved_only_as_yaml_directly_in_the_open_folder() {
    let dir = Scratch::new("write-workflows");
    let ws = app_workspace(&dir);
    let (_app, window) = app_with(&ws);
    let flows = dir.0.join("flows");
    std::fs::create_dir_all(flows.join(".git/hooks")).unwrap();
    std::fs::create_dir_all(flows.join("sub")).unwrap();
    // The folder dialog grants it; listing it opens it.
    ws.grants().grant_folder(&flows);
    assert_eq!(
        invoke(&window, "list_workflows", json!({"dir": flows})),
        Ok(json!([]))
    );
    let save = |path: &Path| {
        invoke(
            &window,
            "save_workflow",
            json!({"path": path, "text": "steps: []\n"}),
        )
    };
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.0.join("elsewhere.yaml"), flows.join("link.yaml")).unwrap();
    for path in [
        flows.join(".git/hooks/pre-commit"),
        flows.join(".git/hooks/pre-commit.yaml"),
        flows.join("sub/b.yaml"),
        flows.join("run.sh"),
        flows.join("../b.yaml"),
        flows.join("link.yaml"),
        PathBuf::from("b.yaml"),
    ] {
        assert_eq!(
            save(&path),
            Err(not_a_workflow(&path)),
            "{}",
            path.display()
        );
    }
    assert!(!flows.join(".git/hooks/pre-commit").exists());
    assert!(!flows.join("sub/b.yaml").exists());
    assert!(!dir.0.join("b.yaml").exists());
    assert!(!dir.0.join("elsewhere.yaml").exists());

    assert_eq!(save(&flows.join("a.yaml")), Ok(json!([])));
    assert_eq!(
        std::fs::read_to_string(flows.join("a.yaml")).unwrap(),
        "steps: []\n"
    );
    assert_eq!(save(&flows.join("b.yml")), Ok(json!([])));
}

#[test]
fn the_data_folder_is_only_one_a_folder_dialog_returned() {
    let dir = Scratch::new("write-data-dir");
    let ws = app_workspace(&dir);
    let (_app, window) = app_with(&ws);
    let mut settings = invoke(&window, "get_settings", json!({})).unwrap()["settings"].clone();
    let elsewhere = dir.0.join("flows");
    settings["dataDir"] = json!(elsewhere);
    assert_eq!(
        invoke(&window, "save_settings", json!({"settings": settings})),
        Err(json!({
            "code": "path_not_allowed",
            "message": format!(
                "{} was not chosen in a folder dialog of this session: the settings were not saved",
                elsewhere.display()
            ),
        }))
    );
    assert!(!elsewhere.join("sift.db").exists());
    assert!(!dir.0.join("config.toml").exists());

    // What `pick_folder` grants.
    ws.grants().grant_folder(&elsewhere);
    let view = invoke(&window, "save_settings", json!({"settings": settings})).unwrap();
    assert_eq!(view["settings"]["dataDir"], json!(elsewhere));
    // Saved again unchanged, it needs no new grant.
    let again = app_workspace(&dir);
    let (_app, window) = app_with(&again);
    assert!(invoke(&window, "save_settings", json!({"settings": settings})).is_ok());
}
