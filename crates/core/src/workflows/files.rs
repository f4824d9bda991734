//! The Workflows screen's folder: its YAML files, a file's text and
//! problems, saving one (atomically, and only as a `.yaml` or `.yml` file
//! directly in the open folder), checking a text not saved yet, and the
//! watch that reloads a file changed on disk; each refuses a path outside
//! the open folder.
//!
//! The file stays the source of truth: the canvas edits the text (keeping
//! comments and key order) and saves it here.
//!
//! The open folder: the webview's paths are not trusted, so the folder a
//! save may write into is one the user picked in the folder dialog this
//! session (granted by the dialog) or the one picked last time, which
//! Sift, not the webview, remembers: `[workflows] folder` in the
//! configuration file.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::config::file::{read_workflow_folder, save_workflow_folder};
use serde::Serialize;
use sift_workflow::{ChangeKind, FolderWatch, WorkflowChange, watch_folder};

use crate::atomic_file::write_atomically;
use crate::error::CoreError;
use crate::path_grants::PathPolicy;
use crate::workspace::Workspace;

/// A workflow file of the open folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowFile {
    /// The file's path: the folder as given, joined with the file name.
    pub path: String,
    /// The file name, e.g. `invoices.yaml`.
    pub name: String,
}

/// A file's text and what `sift validate` would say of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WorkflowText {
    /// The file's path, as given.
    pub path: String,
    /// The file's whole text.
    pub text: String,
    /// Empty when the file may run.
    pub problems: Vec<String>,
}

/// A change on disk in the watched folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum WorkflowFileEvent {
    /// A workflow file was created or written.
    Changed {
        /// The file's path.
        path: String,
        /// Its new text.
        text: String,
        /// What `sift validate` says of the new text; empty when it may run.
        problems: Vec<String>,
    },
    /// A workflow file that can no longer be read: deleted or moved away, most often.
    Removed {
        /// The path the file had.
        path: String,
    },
}

impl From<WorkflowChange> for WorkflowFileEvent {
    fn from(change: WorkflowChange) -> Self {
        let path = change.path.display().to_string();
        match change.kind {
            ChangeKind::Changed { text, problems } => Self::Changed {
                path,
                text,
                problems,
            },
            ChangeKind::Removed => Self::Removed { path },
        }
    }
}

fn is_workflow(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// What `sift validate` says of a text: empty when it may run.
pub fn check_workflow(text: &str) -> Vec<String> {
    sift_workflow::load(text).err().unwrap_or_default()
}

/// Opens `dir` as the workflow folder and lists its workflow files, by
/// name. A folder the dialog granted in this session becomes the one
/// remembered for the next launch; the remembered folder is granted
/// (`check_workflow_read`); any other is refused.
pub fn list_workflows(ws: &Workspace, dir: &Path) -> Result<Vec<WorkflowFile>, CoreError> {
    let remembered = remembered_folder(ws)?;
    let canonical = dir.canonicalize().ok();
    if ws.grants().is_folder_granted(dir) && canonical.is_some() && remembered != canonical {
        remember_folder(ws, canonical.as_deref().unwrap_or(dir))?;
    }
    check_workflow_read(ws, dir)?;
    workflows_in(dir)
}

/// Whether the page may read `path` (a workflow file or its folder): it
/// is in a folder granted this session or in the folder remembered in the
/// configuration file, which Sift wrote when the user picked it in an
/// earlier session (so it is granted here, as the dialog would).
/// [`CoreError::ReadNotAllowed`] otherwise.
pub(crate) fn check_workflow_read(ws: &Workspace, path: &Path) -> Result<(), CoreError> {
    if ws.grants().policy() == PathPolicy::GrantedOnly
        && let Some(folder) = remembered_folder(ws)?
    {
        ws.grants().grant_folder(&folder);
    }
    ws.grants().check_read(path).map(drop)
}

/// The workflow files directly in `dir`, by name.
pub(crate) fn workflows_in(dir: &Path) -> Result<Vec<WorkflowFile>, CoreError> {
    let entries = std::fs::read_dir(dir).map_err(|e| CoreError::io("read the folder", dir, e))?;
    let mut files: Vec<WorkflowFile> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && is_workflow(p))
        .map(|p| WorkflowFile {
            name: p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: p.display().to_string(),
        })
        .collect();
    files.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(files)
}

/// Reads the workflow file at `path`, with its problems; fails when it
/// cannot be read, or is outside the folders the page may read
/// (`check_workflow_read`).
pub fn read_workflow(ws: &Workspace, path: &Path) -> Result<WorkflowText, CoreError> {
    check_workflow_read(ws, path)?;
    let text = std::fs::read_to_string(path).map_err(|e| CoreError::io("read", path, e))?;
    Ok(WorkflowText {
        problems: check_workflow(&text),
        path: path.display().to_string(),
        text,
    })
}

/// Writes the text beside the file and renames it into place, so that a
/// crash never leaves half a file; returns its problems. In the app the
/// file must be a `.yaml` or `.yml` file directly in the open folder
/// ([`CoreError::WorkflowPathNotAllowed`] otherwise, and nothing is
/// written).
pub fn save_workflow(ws: &Workspace, path: &Path, text: &str) -> Result<Vec<String>, CoreError> {
    let open = match ws.grants().policy() {
        PathPolicy::Trusted => None,
        PathPolicy::GrantedOnly => remembered_folder(ws)?,
    };
    let target = ws.grants().check_workflow_write(path, open.as_deref())?;
    write_atomically(&target, text.as_bytes())?;
    Ok(check_workflow(text))
}

/// The folder the user last opened in the folder dialog, as remembered in
/// the configuration file.
pub fn remembered_folder(ws: &Workspace) -> Result<Option<PathBuf>, CoreError> {
    read_workflow_folder(ws.config_path())
}

/// Remembers `folder` in the configuration file.
fn remember_folder(ws: &Workspace, folder: &Path) -> Result<(), CoreError> {
    save_workflow_folder(ws.config_path(), folder)
}

/// The watch on the open folder: one at a time, a new one replacing it.
#[derive(Debug, Default)]
pub struct WorkflowFolderWatch {
    watch: Mutex<Option<FolderWatch>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl WorkflowFolderWatch {
    /// Watches `dir` (replacing the previous watch): each change of a
    /// workflow file goes to `on_change`. A folder the page may not read
    /// (`check_workflow_read`) is refused.
    pub fn watch(
        &self,
        ws: &Workspace,
        dir: &Path,
        on_change: impl Fn(WorkflowFileEvent) + Send + 'static,
    ) -> Result<(), CoreError> {
        check_workflow_read(ws, dir)?;
        let watch = watch_folder(dir, move |change| on_change(change.into()))
            .map_err(|e| CoreError::io("watch", dir, std::io::Error::other(e.to_string())))?;
        *lock(&self.watch) = Some(watch);
        Ok(())
    }
}
