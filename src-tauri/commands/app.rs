//! The app itself: name, version, where its files are; the local model
//! server's state.

use serde::Serialize;
use tauri::{AppHandle, Runtime, State};
use ts_rs::TS;

use crate::error::IpcResult;
use crate::state::AppState;
use crate::{LocalModel, LocalServerStatus};

/// What the UI shows about the running app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// The product name from `tauri.conf.json` ("Sift").
    pub name: String,
    /// The package version, e.g. "0.1.0".
    pub version: String,
    /// Sift's data directory (the local model, PDFium).
    pub data_dir: String,
    /// The database in use.
    pub db_path: String,
    /// The configuration file the settings are saved in.
    pub config_path: String,
}

#[tauri::command]
pub fn app_info<R: Runtime>(app: AppHandle<R>, state: State<'_, AppState>) -> IpcResult<AppInfo> {
    let package = app.package_info();
    let settings = state.settings()?;
    Ok(AppInfo {
        name: package.name.clone(),
        version: package.version.to_string(),
        data_dir: sift_core::paths::data_dir().display().to_string(),
        db_path: state.db_path(&settings)?.display().to_string(),
        config_path: state
            .config_path()
            .map_or_else(sift_core::config::config_path, Into::into)
            .display()
            .to_string(),
    })
}

#[tauri::command]
pub fn local_server_status(local: State<'_, LocalModel>) -> LocalServerStatus {
    local.status()
}

/// Starts the local model server now (it starts on its own when the
/// local provider is the default, or when a job needs it).
#[tauri::command]
pub async fn start_local_server(local: State<'_, LocalModel>) -> IpcResult<LocalServerStatus> {
    local.ensure_running().await?;
    Ok(local.status())
}
