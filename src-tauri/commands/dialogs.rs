//! The native open and save dialogs, called from Rust so that the web
//! page needs no dialog permission. Paths travel, never file contents.
//! A path a dialog returns is granted in the workspace: the app reads
//! only files picked in an open dialog (or dropped on the window, see
//! `drops.rs`) and what is below a picked folder, and writes only where
//! the user chose.
//!
//! Test hooks, only in a build with the `test-hooks` feature (the window
//! suite's; a WebDriver cannot drive a native dialog, and a release build
//! must have no variable that answers a dialog in the user's place): when
//! `SIFT_TEST_OPEN_PATHS` is set, `pick_files` returns its paths (split
//! like `PATH`, on `:`) without showing a dialog; when
//! `SIFT_TEST_SAVE_PATH` is set, `pick_save_path` returns it; when
//! `SIFT_TEST_FOLDER_PATH` is set, `pick_folder` returns it.

use std::path::PathBuf;

use serde::Deserialize;
use sift_core::{CoreError, Workspace};
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::{DialogExt, FileDialogBuilder, FilePath};
use ts_rs::TS;

use crate::error::IpcResult;

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

/// The dialogs' answers from the environment, in a `test-hooks` build.
#[cfg(feature = "test-hooks")]
pub(crate) mod test_hooks {
    use std::path::PathBuf;

    fn var(name: &str) -> Option<std::ffi::OsString> {
        std::env::var_os(name).filter(|p| !p.is_empty())
    }

    /// The files "picked" in an open dialog.
    pub fn open_paths() -> Option<Vec<PathBuf>> {
        var("SIFT_TEST_OPEN_PATHS").map(|paths| std::env::split_paths(&paths).collect())
    }

    pub fn save_path() -> Option<PathBuf> {
        var("SIFT_TEST_SAVE_PATH").map(PathBuf::from)
    }

    pub fn folder_path() -> Option<PathBuf> {
        var("SIFT_TEST_FOLDER_PATH").map(PathBuf::from)
    }
}

/// A release build: every dialog is shown.
#[cfg(not(feature = "test-hooks"))]
pub(crate) mod test_hooks {
    use std::path::PathBuf;

    pub fn open_paths() -> Option<Vec<PathBuf>> {
        None
    }

    pub fn save_path() -> Option<PathBuf> {
        None
    }

    pub fn folder_path() -> Option<PathBuf> {
        None
    }
}

pub(crate) fn dialog<R: Runtime>(
    app: &AppHandle<R>,
    title: Option<&str>,
    filters: Option<&[FileFilter]>,
) -> FileDialogBuilder<R> {
    let mut dialog = app.dialog().file();
    if let Some(title) = title {
        dialog = dialog.set_title(title);
    }
    for filter in filters.into_iter().flatten() {
        let extensions: Vec<&str> = filter.extensions.iter().map(String::as_str).collect();
        dialog = dialog.add_filter(&filter.name, &extensions);
    }
    dialog
}

/// The paths a dialog answered with, shown on a blocking thread: the
/// blocking variants must not run on the main thread, and a command runs
/// on the async runtime.
pub(crate) async fn shown(
    pick: impl FnOnce() -> Vec<FilePath> + Send + 'static,
) -> IpcResult<Vec<PathBuf>> {
    let picked = tauri::async_runtime::spawn_blocking(pick)
        .await
        .map_err(|e| CoreError::Dialog(format!("the dialog stopped: {e}")))?;
    let paths: Result<_, _> = picked.into_iter().map(FilePath::into_path).collect();
    Ok(paths.map_err(|e| CoreError::Dialog(format!("the dialog gave no file path: {e}")))?)
}

fn text(path: &std::path::Path) -> String {
    path.display().to_string()
}

/// The files the user picked, granted for reading; empty when they
/// cancelled.
#[tauri::command]
pub async fn pick_files<R: Runtime>(
    options: OpenDialogOptions,
    app: AppHandle<R>,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<String>> {
    let picked = match test_hooks::open_paths() {
        Some(paths) => paths,
        None => {
            let dialog = dialog(&app, options.title.as_deref(), options.filters.as_deref());
            shown(move || {
                if options.multiple.unwrap_or(false) {
                    dialog.blocking_pick_files().unwrap_or_default()
                } else {
                    dialog.blocking_pick_file().into_iter().collect()
                }
            })
            .await?
        }
    };
    Ok(picked
        .iter()
        .map(|path| {
            ws.grants().grant_read(path);
            text(path)
        })
        .collect())
}

/// Where the user chose to save, granted for writing; `null` when they
/// cancelled.
#[tauri::command]
pub async fn pick_save_path<R: Runtime>(
    options: SaveDialogOptions,
    app: AppHandle<R>,
    ws: State<'_, Workspace>,
) -> IpcResult<Option<String>> {
    let path = match test_hooks::save_path() {
        Some(path) => Some(path),
        None => {
            let mut dialog = dialog(&app, options.title.as_deref(), options.filters.as_deref());
            if let Some(name) = &options.default_name {
                dialog = dialog.set_file_name(name);
            }
            shown(move || dialog.blocking_save_file().into_iter().collect())
                .await?
                .pop()
        }
    };
    Ok(path.map(|path| {
        ws.grants().grant_file(&path);
        text(&path)
    }))
}

/// A folder the user picked (such as the data folder or a workflow
/// folder), granted: read below, a workflow saved directly in it, the
/// data folder set to it; `null` when they cancelled.
#[tauri::command]
pub async fn pick_folder<R: Runtime>(
    title: Option<String>,
    app: AppHandle<R>,
    ws: State<'_, Workspace>,
) -> IpcResult<Option<String>> {
    let path = match test_hooks::folder_path() {
        Some(path) => Some(path),
        None => {
            let dialog = dialog(&app, title.as_deref(), None);
            shown(move || dialog.blocking_pick_folder().into_iter().collect())
                .await?
                .pop()
        }
    };
    Ok(path.map(|path| {
        ws.grants().grant_folder(&path);
        text(&path)
    }))
}
