//! Which paths a caller may have Sift read or write. The webview is not
//! trusted with paths: in the app, a save or an export writes only to a
//! path that a native dialog returned in this session, or inside the open
//! workflow folder; a read takes only a file an open dialog returned or
//! that was dropped on the window (the native event, not the page, says
//! which), or a file inside a folder so chosen. The CLI's paths come from
//! the user's own command line and are trusted as given.
//!
//! Paths Sift itself recorded are not checked again: a stored job's
//! documents were checked when the job was made, and the store is Sift's
//! own 0600 file, so a job reopened after a restart reads them without a
//! grant; grants themselves last one session and are not stored.

use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

use crate::error::CoreError;

/// Which paths a caller may write to: any it names, or only those granted to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathPolicy {
    /// Every path is the user's own choice (the CLI).
    Trusted,
    /// Only granted paths (the app, whose paths come from the webview).
    GrantedOnly,
}

#[derive(Debug)]
pub struct PathGrants {
    policy: PathPolicy,
    /// Files a save dialog returned: written, and read back.
    files: Mutex<HashSet<PathBuf>>,
    /// Folders a folder dialog returned, and the open workflow folder:
    /// written into, and read anywhere below.
    folders: Mutex<HashSet<PathBuf>>,
    /// Files an open dialog returned or dropped on the window: read only.
    read_files: Mutex<HashSet<PathBuf>>,
    /// Folders dropped on the window: read anywhere below, never written.
    read_folders: Mutex<HashSet<PathBuf>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `path` with its folder resolved (links, `..`), so that two spellings
/// of one file compare equal; the file itself need not exist yet.
fn resolved(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?;
    if matches!(
        Path::new(name).components().next(),
        Some(Component::ParentDir | Component::CurDir)
    ) {
        return None;
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return None,
    };
    Some(parent.canonicalize().ok()?.join(name))
}

impl PathGrants {
    pub fn new(policy: PathPolicy) -> Self {
        Self {
            policy,
            files: Mutex::new(HashSet::new()),
            folders: Mutex::new(HashSet::new()),
            read_files: Mutex::new(HashSet::new()),
            read_folders: Mutex::new(HashSet::new()),
        }
    }

    pub fn policy(&self) -> PathPolicy {
        self.policy
    }

    /// A save dialog returned `path`: it may be written.
    pub fn grant_file(&self, path: &Path) {
        let entry = resolved(path).unwrap_or_else(|| path.to_path_buf());
        lock(&self.files).insert(entry);
    }

    /// A folder dialog returned `folder` (or it is the open workflow
    /// folder): files below it may be read, a workflow saved directly in
    /// it, and it may become the data folder.
    pub fn grant_folder(&self, folder: &Path) {
        let entry = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        lock(&self.folders).insert(entry);
    }

    /// An open dialog returned `path`, or it was dropped on the window: it
    /// may be read, and when it is a folder, everything below it.
    pub fn grant_read(&self, path: &Path) {
        let entry = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
        if entry.is_dir() {
            lock(&self.read_folders).insert(entry);
        } else {
            lock(&self.read_files).insert(entry);
        }
    }

    /// The path to read, or [`CoreError::ReadNotAllowed`] when no grant
    /// covers it. Links are followed first, so a link inside a granted
    /// folder to a file outside it is refused. Nothing is read here.
    pub fn check_read(&self, path: &Path) -> Result<PathBuf, CoreError> {
        if self.policy == PathPolicy::Trusted {
            return Ok(path.to_path_buf());
        }
        let refused = || CoreError::ReadNotAllowed(path.to_path_buf());
        if !path.is_absolute() {
            return Err(refused());
        }
        // A file that is gone is checked by its folder, so that it fails
        // as missing, not as refused, when it was granted.
        let target = path
            .canonicalize()
            .ok()
            .or_else(|| resolved(path))
            .ok_or_else(refused)?;
        let granted_file =
            lock(&self.read_files).contains(&target) || lock(&self.files).contains(&target);
        let below =
            |folders: &Mutex<HashSet<PathBuf>>| lock(folders).iter().any(|f| target.starts_with(f));
        if granted_file || below(&self.read_folders) || below(&self.folders) {
            return Ok(target);
        }
        Err(refused())
    }

    /// Where a workflow file may be saved: a `.yaml` or `.yml` file name
    /// directly in `open_folder` (the open workflow folder, granted), not
    /// in a subfolder, not through `..` or a link, and not over a link;
    /// else [`CoreError::WorkflowPathNotAllowed`]. The folder's other
    /// files (`.git/hooks/...`) are never the page's to write.
    pub fn check_workflow_write(
        &self,
        path: &Path,
        open_folder: Option<&Path>,
    ) -> Result<PathBuf, CoreError> {
        if self.policy == PathPolicy::Trusted {
            return Ok(path.to_path_buf());
        }
        let refused = || CoreError::WorkflowPathNotAllowed(path.to_path_buf());
        let is_yaml = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml")
        );
        let folder = open_folder
            .filter(|f| self.is_folder_granted(f))
            .and_then(|f| f.canonicalize().ok());
        let (true, true, Some(folder)) = (path.is_absolute(), is_yaml, folder) else {
            return Err(refused());
        };
        let target = resolved(path).ok_or_else(refused)?;
        // A link or a folder at the name is not the page's to replace.
        let replaces_other_than_a_file =
            std::fs::symlink_metadata(&target).is_ok_and(|m| !m.is_file());
        if target.parent() != Some(folder.as_path()) || replaces_other_than_a_file {
            return Err(refused());
        }
        Ok(target)
    }

    /// Whether `data_dir` may become the data folder: the one it is now
    /// (`current`, Sift's own), or one a folder dialog returned in this
    /// session; else [`CoreError::DataFolderNotAllowed`]. A database is
    /// created there.
    pub fn check_data_folder(
        &self,
        data_dir: &Path,
        current: Option<&Path>,
    ) -> Result<(), CoreError> {
        let unchanged = current.is_some_and(|current| {
            current == data_dir
                || current
                    .canonicalize()
                    .is_ok_and(|c| data_dir.canonicalize().is_ok_and(|d| c == d))
        });
        if self.policy == PathPolicy::Trusted || unchanged || self.is_folder_granted(data_dir) {
            return Ok(());
        }
        Err(CoreError::DataFolderNotAllowed(data_dir.to_path_buf()))
    }

    /// Whether `folder` was granted (by a dialog) in this session.
    pub fn is_folder_granted(&self, folder: &Path) -> bool {
        folder
            .canonicalize()
            .is_ok_and(|f| lock(&self.folders).contains(&f))
    }

    /// The path to write, or [`CoreError::PathNotAllowed`] when the policy
    /// does not let it be written: only a file a save dialog returned. A
    /// granted folder is not enough (its `.git/hooks`, say): a workflow is
    /// saved through [`Self::check_workflow_write`]. Nothing is written here.
    pub fn check_write(&self, path: &Path) -> Result<PathBuf, CoreError> {
        if self.policy == PathPolicy::Trusted {
            return Ok(path.to_path_buf());
        }
        let refused = || CoreError::PathNotAllowed(path.to_path_buf());
        if !path.is_absolute() {
            return Err(refused());
        }
        let target = resolved(path).ok_or_else(refused)?;
        if lock(&self.files).contains(&target) {
            return Ok(target);
        }
        Err(refused())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch() -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "sift-grants-{}-{}",
            std::process::id(),
            fastrand_suffix()
        ));
        std::fs::create_dir_all(dir.join("flows/sub")).unwrap();
        dir
    }

    fn fastrand_suffix() -> u128 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    }

    #[test]
    fn trusted_paths_pass_as_given() {
        let grants = PathGrants::new(PathPolicy::Trusted);
        assert_eq!(
            grants.check_write(Path::new("out.csv")).unwrap(),
            PathBuf::from("out.csv")
        );
    }

    #[test]
    fn only_files_a_save_dialog_returned_may_be_written() {
        let dir = scratch();
        let grants = PathGrants::new(PathPolicy::GrantedOnly);
        let chosen = dir.join("chosen.csv");
        let other = dir.join("other.csv");
        let refused = grants.check_write(&chosen).unwrap_err();
        assert_eq!(refused.code(), "path_not_allowed");
        assert_eq!(
            refused.to_string(),
            format!(
                "{} was not chosen in a save dialog of this session: nothing was written",
                chosen.display()
            )
        );
        grants.grant_file(&chosen);
        assert!(grants.check_write(&chosen).is_ok());
        // Another spelling of the same file is the same file.
        assert!(grants.check_write(&dir.join("flows/../chosen.csv")).is_ok());
        assert!(grants.check_write(&other).is_err());
        // A granted folder is for reads and workflows, not any write.
        grants.grant_folder(&dir.join("flows"));
        assert!(grants.check_write(&dir.join("flows/a.csv")).is_err());
        assert!(grants.check_write(Path::new("relative.csv")).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn picked_and_dropped_files_and_all_below_granted_folders_may_be_read() {
        let dir = scratch();
        let grants = PathGrants::new(PathPolicy::GrantedOnly);
        for name in ["a.pdf", "b.pdf", "flows/sub/c.yaml", "d.txt"] {
            std::fs::write(dir.join(name), "x").unwrap();
        }
        let a = dir.join("a.pdf");
        let refused = grants.check_read(&a).unwrap_err();
        assert_eq!(refused.code(), "path_not_allowed");
        assert_eq!(
            refused.to_string(),
            format!(
                "{} was not picked in an open dialog, dropped on the window or found in a \
                 folder picked in this session: nothing was read",
                a.display()
            )
        );
        grants.grant_read(&a);
        assert_eq!(grants.check_read(&a).unwrap(), a.canonicalize().unwrap());
        assert!(grants.check_read(&dir.join("b.pdf")).is_err());
        // A file saved this session may be read back.
        grants.grant_file(&dir.join("d.txt"));
        assert!(grants.check_read(&dir.join("d.txt")).is_ok());
        // A dropped folder: all below it, never above.
        grants.grant_read(&dir.join("flows"));
        assert!(grants.check_read(&dir.join("flows/sub/c.yaml")).is_ok());
        assert!(grants.check_read(&dir.join("flows/../b.pdf")).is_err());
        // A link inside a granted folder to a file outside it.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("b.pdf"), dir.join("flows/link.pdf")).unwrap();
            assert!(grants.check_read(&dir.join("flows/link.pdf")).is_err());
        }
        assert!(grants.check_read(Path::new("a.pdf")).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_workflow_is_saved_only_as_yaml_directly_in_the_open_granted_folder() {
        let dir = scratch();
        let grants = PathGrants::new(PathPolicy::GrantedOnly);
        let flows = dir.join("flows");
        let refused = |path: &Path, open: Option<&Path>| {
            let error = grants.check_workflow_write(path, open).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!(
                    "{} is not a .yaml or .yml file directly in the open workflow folder: \
                     nothing was written",
                    path.display()
                )
            );
        };
        // Not granted yet, or no open folder.
        refused(&flows.join("a.yaml"), Some(&flows));
        grants.grant_folder(&flows);
        refused(&flows.join("a.yaml"), None);
        assert!(
            grants
                .check_workflow_write(&flows.join("a.yaml"), Some(&flows))
                .is_ok()
        );
        assert!(
            grants
                .check_workflow_write(&flows.join("b.yml"), Some(&flows))
                .is_ok()
        );
        for path in [
            flows.join("sub/b.yaml"),
            flows.join(".git/hooks/pre-commit"),
            flows.join("run.sh"),
            flows.join("../b.yaml"),
            flows.join("sub/../../b.yaml"),
            dir.join("b.yaml"),
            PathBuf::from("b.yaml"),
        ] {
            refused(&path, Some(&flows));
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.join("outside.yaml"), flows.join("link.yaml")).unwrap();
            refused(&flows.join("link.yaml"), Some(&flows));
        }
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn the_data_folder_is_the_current_one_or_one_a_folder_dialog_returned() {
        let dir = scratch();
        let grants = PathGrants::new(PathPolicy::GrantedOnly);
        let flows = dir.join("flows");
        assert!(grants.check_data_folder(&dir, Some(&dir)).is_ok());
        let error = grants.check_data_folder(&flows, Some(&dir)).unwrap_err();
        assert_eq!(error.code(), "path_not_allowed");
        assert_eq!(
            error.to_string(),
            format!(
                "{} was not chosen in a folder dialog of this session: the settings were not saved",
                flows.display()
            )
        );
        grants.grant_read(&flows);
        assert!(grants.check_data_folder(&flows, None).is_err());
        grants.grant_folder(&flows);
        assert!(grants.check_data_folder(&flows, None).is_ok());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
