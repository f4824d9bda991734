//! Watching a folder of workflow files: a file that changes is read,
//! re-validated and announced to the subscriber (the app re-renders its
//! canvas; the file stays the source of truth).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use notify::{EventKind, RecursiveMode, Watcher};

use crate::load;

/// One workflow file that changed on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowChange {
    pub path: PathBuf,
    pub kind: ChangeKind,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    /// Written or created: its text and its problems (empty when valid).
    Changed {
        text: String,
        problems: Vec<String>,
    },
    Removed,
}

/// Stops watching when dropped.
#[derive(Debug)]
pub struct FolderWatch {
    _watcher: notify::RecommendedWatcher,
}

fn is_workflow(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("yaml" | "yml")
    )
}

/// Watches `dir` (not its subfolders). Editors often write a file in
/// several steps; a change is announced once per distinct content.
pub fn watch_folder(
    dir: &Path,
    subscriber: impl Fn(WorkflowChange) + Send + 'static,
) -> Result<FolderWatch, notify::Error> {
    let last: Mutex<HashMap<PathBuf, Option<String>>> = Mutex::new(HashMap::new());
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let Ok(event) = event else { return };
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        for path in event.paths.iter().filter(|p| is_workflow(p)) {
            let text = std::fs::read_to_string(path).ok();
            let Ok(mut last) = last.lock() else { return };
            if last.get(path) == Some(&text) {
                continue;
            }
            last.insert(path.clone(), text.clone());
            let kind = match text {
                Some(text) => {
                    let problems = load(&text).err().unwrap_or_default();
                    ChangeKind::Changed { text, problems }
                }
                None => ChangeKind::Removed,
            };
            subscriber(WorkflowChange {
                path: path.clone(),
                kind,
            });
        }
    })?;
    watcher.watch(dir, RecursiveMode::NonRecursive)?;
    Ok(FolderWatch { _watcher: watcher })
}
