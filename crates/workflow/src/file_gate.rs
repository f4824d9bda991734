//! Which files a run's `chat.completion` steps may read. A step's
//! `files:` can name any path (`~/.ssh/id_rsa`, a glob, `../..`) and its
//! model any address, so an embedder running a stranger's workflow (the
//! app) checks each file before it is read; the CLI runs what its user
//! typed and lets every file through. The gate is the run's, so the
//! DAGs it runs (`dag.run`, tools) read through the same one.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

/// The embedder's check of one file: `Err` holds the step's error message.
pub type FileCheck = dyn Fn(&Path) -> Result<(), String> + Send + Sync;

/// The check every file a step reads passes first; the default lets all through.
#[derive(Clone, Default)]
pub struct FileGate(Option<Arc<FileCheck>>);

impl FileGate {
    /// Every file may be read (the CLI's runs).
    pub fn allow_all() -> Self {
        Self(None)
    }

    /// Only the files `check` passes may be read.
    pub fn new(check: impl Fn(&Path) -> Result<(), String> + Send + Sync + 'static) -> Self {
        Self(Some(Arc::new(check)))
    }

    /// `path` as resolved (`~`, variables, globs, `..`; links are the
    /// check's to follow), or why it may not be read.
    pub fn check(&self, path: &Path) -> Result<(), String> {
        match &self.0 {
            None => Ok(()),
            Some(check) => check(path),
        }
    }
}

impl fmt::Debug for FileGate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "FileGate(checked)"
        } else {
            "FileGate(allow all)"
        })
    }
}
