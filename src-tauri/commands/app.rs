//! The app itself: name, version, where its files are; the local model
//! server's state.

use sift_core::Workspace;
use sift_core::app_info::AppInfo;
use tauri::{AppHandle, Runtime, State};

use crate::LocalServerStatus;
use crate::error::IpcResult;

#[tauri::command]
pub fn app_info<R: Runtime>(app: AppHandle<R>, ws: State<'_, Workspace>) -> AppInfo {
    let package = app.package_info();
    ws.app_info(&package.name, &package.version.to_string())
}

#[tauri::command]
pub fn local_server_status(ws: State<'_, Workspace>) -> LocalServerStatus {
    ws.local_server().status()
}

/// Starts the local model server now (it starts on its own when the
/// local provider is the default, or when a job needs it).
#[tauri::command]
pub async fn start_local_server(ws: State<'_, Workspace>) -> IpcResult<LocalServerStatus> {
    ws.local_server().ensure_running().await?;
    Ok(ws.local_server().status())
}
