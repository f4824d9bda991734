//! Workflows from the window: a folder of YAML files (watched, so a change
//! on disk reloads), a file's text and problems, saving it, running it
//! with live events, cancelling, and the stored runs; the consent to a
//! folder's shell commands before the window runs them. The behaviour is
//! `sift_core::workflows::files`, `runs` and `consent`.

use std::path::Path;

use sift_core::Workspace;
use sift_core::workflows::consent::{self, WorkflowCommands};
use sift_core::workflows::files::{
    self, WorkflowFile, WorkflowFileEvent, WorkflowFolderWatch, WorkflowText,
};
use sift_core::workflows::runs::{
    self, WorkflowRunArgs, WorkflowRunEvent, WorkflowRunSummary, WorkflowRunView,
};
use tauri::State;
use tauri::ipc::Channel;

use crate::error::IpcResult;

#[tauri::command]
pub fn list_workflows(dir: String, ws: State<'_, Workspace>) -> IpcResult<Vec<WorkflowFile>> {
    Ok(files::list_workflows(&ws, Path::new(&dir))?)
}

#[tauri::command]
pub fn read_workflow(path: String, ws: State<'_, Workspace>) -> IpcResult<WorkflowText> {
    Ok(files::read_workflow(&ws, Path::new(&path))?)
}

/// Saves a file of the open folder; its problems.
#[tauri::command]
pub fn save_workflow(
    path: String,
    text: String,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<String>> {
    Ok(files::save_workflow(&ws, Path::new(&path), &text)?)
}

/// What `sift validate` says of a text not saved yet.
#[tauri::command]
pub fn check_workflow(text: String) -> Vec<String> {
    files::check_workflow(&text)
}

/// Watches `dir` (replacing the previous watch).
#[tauri::command]
pub fn watch_workflows(
    dir: String,
    on_change: Channel<WorkflowFileEvent>,
    watch: State<'_, WorkflowFolderWatch>,
    ws: State<'_, Workspace>,
) -> IpcResult<()> {
    // A closed window's channel: nothing to tell.
    Ok(watch.watch(&ws, Path::new(&dir), move |e| {
        let _ = on_change.send(e);
    })?)
}

/// Runs a workflow file; events go to `on_event` as they happen (the
/// first gives the key to cancel it with), and the run is returned at
/// its end.
#[tauri::command]
pub async fn run_workflow(
    request: WorkflowRunArgs,
    on_event: Channel<WorkflowRunEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<WorkflowRunView> {
    let (_key, run) = runs::start_workflow_run(&ws, request, move |e| {
        let _ = on_event.send(e);
    })?;
    Ok(run.await?)
}

/// The shell commands the workflows of `folder` can run, as the window
/// shows them before asking (a run refused with `consent_needed`).
#[tauri::command]
pub fn workflow_commands(folder: String, ws: State<'_, Workspace>) -> IpcResult<WorkflowCommands> {
    Ok(consent::window_folder_commands(&ws, Path::new(&folder))?)
}

/// Records the user's consent to the commands of `folder` they were shown
/// (`fingerprint`); `consent_needed` when they changed since.
#[tauri::command]
pub fn allow_workflow_commands(
    folder: String,
    fingerprint: String,
    ws: State<'_, Workspace>,
) -> IpcResult<()> {
    Ok(consent::allow_window_commands(
        &ws,
        Path::new(&folder),
        &fingerprint,
    )?)
}

/// Asks a running workflow to stop; false when no run has that key.
#[tauri::command]
pub fn cancel_workflow_run(key: String, ws: State<'_, Workspace>) -> bool {
    runs::cancel_workflow_run(&ws, &key)
}

#[tauri::command]
pub fn workflow_runs(limit: u32, ws: State<'_, Workspace>) -> IpcResult<Vec<WorkflowRunSummary>> {
    Ok(runs::workflow_runs(&ws, limit)?)
}

#[tauri::command]
pub fn workflow_run(run_id: String, ws: State<'_, Workspace>) -> IpcResult<WorkflowRunView> {
    Ok(runs::stored_run(&ws, &run_id)?)
}
