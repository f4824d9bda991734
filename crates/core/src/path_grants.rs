//! Which paths a caller may have Sift write to. The webview is not
//! trusted with paths: in the app, a save or an export writes only to a
//! path that a native dialog returned in this session, or inside the open
//! workflow folder. The CLI's paths come from the user's own command line
//! and are trusted as given.

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
    files: Mutex<HashSet<PathBuf>>,
    folders: Mutex<HashSet<PathBuf>>,
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
    /// folder): files inside it may be written.
    pub fn grant_folder(&self, folder: &Path) {
        let entry = folder
            .canonicalize()
            .unwrap_or_else(|_| folder.to_path_buf());
        lock(&self.folders).insert(entry);
    }

    /// Whether `folder` was granted (by a dialog) in this session.
    pub fn is_folder_granted(&self, folder: &Path) -> bool {
        folder
            .canonicalize()
            .is_ok_and(|f| lock(&self.folders).contains(&f))
    }

    /// The path to write, or [`CoreError::PathNotAllowed`] when the policy
    /// does not let it be written. Nothing is written here.
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
        let in_folder = target
            .parent()
            .is_some_and(|parent| lock(&self.folders).iter().any(|f| parent.starts_with(f)));
        if in_folder {
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
    fn only_granted_files_and_files_in_granted_folders_may_be_written() {
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

        grants.grant_folder(&dir.join("flows"));
        assert!(grants.check_write(&dir.join("flows/a.yaml")).is_ok());
        assert!(grants.check_write(&dir.join("flows/sub/b.yaml")).is_ok());
        // `..` cannot climb out of the folder.
        assert!(grants.check_write(&dir.join("flows/../other.csv")).is_err());
        assert!(grants.check_write(Path::new("relative.csv")).is_err());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
