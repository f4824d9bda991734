//! Settings' local models: the GGUF files of the data directory's
//! `models/` (described from their headers), adding one the user brings
//! (picked in the native open dialog, never a path the webview sends:
//! copied or linked), and choosing the one the local server starts with,
//! which restarts it. Each calls `sift_core::models::local_files`. The
//! catalogue: the models Sift can fetch (`sift_core::models::catalogue`),
//! fetching one with its progress over a channel, and cancelling it
//! (`sift_core::models::catalogue_downloads`).
//!
//! Test hook (a `test-hooks` build only): when `SIFT_TEST_OPEN_PATHS` is
//! set, "Add a model…" takes its first path without showing a dialog (as
//! `pick_files` does).

use std::path::PathBuf;

use sift_core::models::catalogue::{self, CatalogueEntry};
use sift_core::models::catalogue_downloads::{CatalogueDownloads, CatalogueGetEvent};
use sift_core::models::local_files::{self, ImportMode, LocalModel};
use sift_core::{CoreError, LocalServerStatus, Workspace, paths};
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};

use crate::commands::dialogs::{self, FileFilter};
use crate::error::IpcResult;

/// Runs header reads and copies (a model is gigabytes) off the async
/// threads.
async fn blocking<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> Result<T, CoreError> + Send + 'static,
) -> IpcResult<T> {
    let done = tauri::async_runtime::spawn_blocking(work)
        .await
        .map_err(|e| CoreError::Internal(format!("{what} stopped: {e}")))?;
    Ok(done?)
}

/// Every `.gguf` file of `models/`, by name, each with its header's
/// details or the reason it cannot be used.
#[tauri::command]
pub async fn local_models() -> IpcResult<Vec<LocalModel>> {
    blocking("listing the models", || {
        local_files::list(&paths::data_dir())
    })
    .await
}

/// Opens the open dialog (`*.gguf`) and brings the file picked into
/// `models/` (`mode`: copied or linked); `null` when the user cancelled. A
/// damaged or foreign file is refused (`usage`, the message names it) and
/// nothing is written.
#[tauri::command]
pub async fn add_local_model<R: Runtime>(
    mode: ImportMode,
    app: AppHandle<R>,
) -> IpcResult<Option<LocalModel>> {
    let picked = match dialogs::test_hooks::open_paths() {
        Some(paths) => paths.into_iter().next(),
        None => {
            let filter = FileFilter {
                name: "GGUF models".to_owned(),
                extensions: vec!["gguf".to_owned()],
            };
            let dialog = dialogs::dialog(
                &app,
                Some("Add a model"),
                Some(std::slice::from_ref(&filter)),
            );
            dialogs::shown(move || dialog.blocking_pick_file().into_iter().collect())
                .await?
                .pop()
        }
    };
    let Some(source): Option<PathBuf> = picked else {
        return Ok(None);
    };
    let model = blocking("adding the model", move || {
        local_files::import(&paths::data_dir(), &source, mode)
    })
    .await?;
    Ok(Some(model))
}

/// Makes `model` (with `projector`, for a model that takes images) the one
/// the local server starts with, and restarts the server. Resolves with
/// the server's state: `failed` with its message (the log's last lines)
/// when it did not start; a choice `choose` refuses is an error.
#[tauri::command]
pub async fn choose_local_model(
    model: String,
    projector: Option<String>,
    ws: State<'_, Workspace>,
) -> IpcResult<LocalServerStatus> {
    blocking("choosing the model", move || {
        local_files::choose(&paths::data_dir(), &model, projector.as_deref()).map(drop)
    })
    .await?;
    // A start that fails is kept in the status, which the UI shows.
    let _ = ws.local_server().restart().await;
    Ok(ws.local_server().status())
}

/// The models Sift can fetch, each with whether it is installed.
#[tauri::command]
pub async fn model_catalogue(
    downloads: State<'_, CatalogueDownloads>,
) -> IpcResult<Vec<CatalogueEntry>> {
    // Off the async threads: each entry looks at its file in `models/`.
    let data_dir = downloads.data_dir().to_owned();
    blocking("listing the catalogue", move || {
        catalogue::catalogue(&data_dir)
    })
    .await
}

/// Starts fetching the catalogue's model `name` into `models/`; returns at
/// once. Progress follows on `events`, the last event `finished` (the
/// file's path), `cancelled` or `error`. An unknown name, or a model
/// already being fetched, is refused (`usage`).
#[tauri::command]
pub async fn get_catalogue_model(
    name: String,
    events: Channel<CatalogueGetEvent>,
    downloads: State<'_, CatalogueDownloads>,
) -> IpcResult<()> {
    let model = catalogue::find(&name)?;
    let run = downloads.start(model, move |e| {
        // A window closed mid-fetch cannot hear; the fetch goes on.
        let _ = events.send(e);
    })?;
    tauri::async_runtime::spawn(run);
    Ok(())
}

/// Cancels the fetch of `name`: nothing is left in `models/`. False when
/// none is under way.
#[tauri::command]
pub fn cancel_catalogue_model(name: String, downloads: State<'_, CatalogueDownloads>) -> bool {
    downloads.cancel(&name)
}
