//! sift-documents against the shared corpus of real documents and against
//! small fixtures generated here, with exact expectations.

mod assembly;
mod corpus;
mod fixtures;
mod hostile;
mod images;
mod layout;
mod limits;
mod long_pdf;
mod ocr;
mod ocr_fidelity;
mod office;
mod paddle;
mod resolve;
mod robustness;
mod text;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use sift_documents::{DocumentError, Documents, ReadOptions, read_documents};

/// The shared corpus, beside the repository.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

pub fn corpus(name: &str) -> PathBuf {
    corpus_dir().join(name)
}

pub fn read(paths: &[PathBuf]) -> Result<Documents, DocumentError> {
    read_documents(paths, &ReadOptions::default())
}

pub fn read_one(path: &Path) -> Result<Documents, DocumentError> {
    read(&[path.to_path_buf()])
}

/// A directory removed when dropped.
#[derive(Debug)]
pub struct TempDir(pub PathBuf);

impl Default for TempDir {
    fn default() -> Self {
        Self::new()
    }
}

impl TempDir {
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "sift-documents-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the test directory");
        Self(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("the test directory");
        }
        std::fs::write(&path, bytes).expect("the test directory");
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
