//! Where Sift keeps its files.

use std::path::{Path, PathBuf};

/// The data directory: `SIFT_DATA_DIR`, else the platform's data directory
/// plus `sift` (`~/.local/share/sift` on Linux). The set-up installs the
/// local model server, its model and PDFium here; the database lives here.
/// One rule with the documents reader's, which looks for PDFium there.
pub fn data_dir() -> PathBuf {
    sift_documents::default_data_dir()
}

/// `relative` inside an installed package's bundle directory
/// ([`sift_documents::bundle_dir`]: `/usr/lib/sift` for the `.deb`), when
/// there is one and it holds that file or folder.
pub fn bundled_file(relative: &Path) -> Option<PathBuf> {
    let path = sift_documents::bundle_dir()?.join(relative);
    path.exists().then_some(path)
}
