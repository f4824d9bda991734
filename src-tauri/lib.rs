//! The Sift desktop app: a Tauri shell around the engine crates.
//!
//! Commands stay thin: they read their arguments, call into the engine
//! (`sift-core`) and return serializable values. The UI reaches them only
//! through `ui/src/ipc.ts`.

mod ask;
mod error;
mod local_model;

use serde::Serialize;
use tauri::{AppHandle, Manager, RunEvent, Runtime};

pub use ask::{AskArgs, AskEvent};
pub use error::IpcError;
use local_model::LocalModel;

/// What the UI shows about the running app (`app_info` command).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AppInfo {
    /// The product name from `tauri.conf.json` ("Sift").
    pub name: String,
    /// The package version, e.g. "0.1.0".
    pub version: String,
}

impl AppInfo {
    /// Describes the app `app` belongs to.
    pub fn of<R: Runtime>(app: &AppHandle<R>) -> Self {
        let package = app.package_info();
        Self {
            name: package.name.clone(),
            version: package.version.to_string(),
        }
    }
}

#[tauri::command]
fn app_info<R: Runtime>(app: AppHandle<R>) -> AppInfo {
    AppInfo::of(&app)
}

/// Builds and runs the app; returns when the last window has closed.
pub fn run() -> tauri::Result<()> {
    let app = tauri::Builder::default()
        .manage(LocalModel::default())
        .invoke_handler(tauri::generate_handler![app_info, ask::ask])
        .build(tauri::generate_context!())?;
    app.run(|app, event| {
        if let RunEvent::Exit = event {
            // Stop the local model server before the process goes; its
            // stdin watchdog would end it anyway, but not wait for it.
            tauri::async_runtime::block_on(app.state::<LocalModel>().stop());
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn app_info_serializes_as_the_ui_expects() {
        let info = AppInfo {
            name: "Sift".to_owned(),
            version: "0.1.0".to_owned(),
        };
        // ui/src/ipc.ts reads exactly these two fields.
        assert_eq!(
            serde_json::to_value(&info).unwrap(),
            serde_json::json!({ "name": "Sift", "version": "0.1.0" })
        );
    }
}
