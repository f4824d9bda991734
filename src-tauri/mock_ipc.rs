//! What the shell's tests share: a scratch folder, a window of a mock app
//! (Tauri's mock runtime), and a command invoked through the IPC layer as
//! the page invokes it.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::PathBuf;

use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime, get_ipc_response, mock_context, noop_assets};
use tauri::webview::InvokeRequest;
use tauri::{WebviewWindow, WebviewWindowBuilder};

/// A folder of its own (with an empty `flows/`), removed when dropped.
pub(crate) struct Scratch(pub(crate) PathBuf);

impl Scratch {
    pub(crate) fn new(name: &str) -> Self {
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

/// The app `builder` makes (its state and commands set by the test), and
/// its main window. The app must outlive the window's use.
pub(crate) fn app_and_window(
    builder: tauri::Builder<MockRuntime>,
) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let app = builder.build(mock_context(noop_assets())).unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    (app, window)
}

/// `cmd` with `args`, as the page invokes it: the command's value, or the
/// error it answered with.
pub(crate) fn invoke(
    window: &WebviewWindow<MockRuntime>,
    cmd: &str,
    args: Value,
) -> Result<Value, Value> {
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
