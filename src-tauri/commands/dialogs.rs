//! The native open and save dialogs, called from Rust so that the web
//! page needs no dialog permission. Paths travel, never file contents.
//!
//! Test hooks (a WebDriver cannot drive a native dialog): when
//! `SIFT_TEST_OPEN_PATHS` is set, `pick_files` returns its paths (split
//! like `PATH`, on `:`) without showing a dialog; when
//! `SIFT_TEST_SAVE_PATH` is set, `pick_save_path` returns it; when
//! `SIFT_TEST_FOLDER_PATH` is set, `pick_folder` returns it.

use std::path::PathBuf;

use serde::Deserialize;
use tauri::{AppHandle, Runtime};
use tauri_plugin_dialog::{DialogExt, FilePath};
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};

/// A named set of extensions, e.g. `{name: "Documents", extensions: ["pdf", "png"]}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
pub struct FileFilter {
    pub name: String,
    /// Without the dot.
    pub extensions: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct OpenDialogOptions {
    #[ts(optional = nullable)]
    #[serde(default)]
    pub title: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub filters: Option<Vec<FileFilter>>,
    /// Several files at once.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub multiple: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SaveDialogOptions {
    #[ts(optional = nullable)]
    #[serde(default)]
    pub title: Option<String>,
    /// The file name offered, e.g. `invoices.csv`.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub default_name: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub filters: Option<Vec<FileFilter>>,
}

pub const TEST_OPEN_PATHS: &str = "SIFT_TEST_OPEN_PATHS";
pub const TEST_SAVE_PATH: &str = "SIFT_TEST_SAVE_PATH";
pub const TEST_FOLDER_PATH: &str = "SIFT_TEST_FOLDER_PATH";

fn path_text(path: FilePath) -> IpcResult<String> {
    path.into_path()
        .map(|p| p.display().to_string())
        .map_err(|e| IpcError::new("dialog", format!("the dialog gave no file path: {e}")))
}

/// The files the user picked; empty when they cancelled.
#[tauri::command]
pub async fn pick_files<R: Runtime>(
    options: OpenDialogOptions,
    app: AppHandle<R>,
) -> IpcResult<Vec<String>> {
    if let Some(paths) = std::env::var_os(TEST_OPEN_PATHS).filter(|p| !p.is_empty()) {
        return Ok(std::env::split_paths(&paths)
            .map(|p: PathBuf| p.display().to_string())
            .collect());
    }
    let mut dialog = app.dialog().file();
    if let Some(title) = &options.title {
        dialog = dialog.set_title(title);
    }
    for filter in options.filters.iter().flatten() {
        let extensions: Vec<&str> = filter.extensions.iter().map(String::as_str).collect();
        dialog = dialog.add_filter(&filter.name, &extensions);
    }
    // The blocking variants must not run on the main thread; a command
    // runs on the async runtime, so hand it to a blocking thread.
    let picked = tauri::async_runtime::spawn_blocking(move || {
        if options.multiple.unwrap_or(false) {
            dialog.blocking_pick_files().unwrap_or_default()
        } else {
            dialog.blocking_pick_file().into_iter().collect()
        }
    })
    .await
    .map_err(|e| IpcError::new("dialog", format!("the dialog stopped: {e}")))?;
    picked.into_iter().map(path_text).collect()
}

/// Where the user chose to save; `null` when they cancelled.
#[tauri::command]
pub async fn pick_save_path<R: Runtime>(
    options: SaveDialogOptions,
    app: AppHandle<R>,
) -> IpcResult<Option<String>> {
    if let Some(path) = std::env::var_os(TEST_SAVE_PATH).filter(|p| !p.is_empty()) {
        return Ok(Some(PathBuf::from(path).display().to_string()));
    }
    let mut dialog = app.dialog().file();
    if let Some(title) = &options.title {
        dialog = dialog.set_title(title);
    }
    if let Some(name) = &options.default_name {
        dialog = dialog.set_file_name(name);
    }
    for filter in options.filters.iter().flatten() {
        let extensions: Vec<&str> = filter.extensions.iter().map(String::as_str).collect();
        dialog = dialog.add_filter(&filter.name, &extensions);
    }
    let picked = tauri::async_runtime::spawn_blocking(move || dialog.blocking_save_file())
        .await
        .map_err(|e| IpcError::new("dialog", format!("the dialog stopped: {e}")))?;
    picked.map(path_text).transpose()
}

/// A folder the user picked (such as the data folder); `null` when they
/// cancelled.
#[tauri::command]
pub async fn pick_folder<R: Runtime>(
    title: Option<String>,
    app: AppHandle<R>,
) -> IpcResult<Option<String>> {
    if let Some(path) = std::env::var_os(TEST_FOLDER_PATH).filter(|p| !p.is_empty()) {
        return Ok(Some(PathBuf::from(path).display().to_string()));
    }
    let mut dialog = app.dialog().file();
    if let Some(title) = &title {
        dialog = dialog.set_title(title);
    }
    let picked = tauri::async_runtime::spawn_blocking(move || dialog.blocking_pick_folder())
        .await
        .map_err(|e| IpcError::new("dialog", format!("the dialog stopped: {e}")))?;
    picked.map(path_text).transpose()
}
