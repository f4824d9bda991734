//! Where Sift keeps its files.

use std::path::PathBuf;

/// The data directory: `SIFT_DATA_DIR`, else the platform's data directory
/// plus `sift` (`~/.local/share/sift` on Linux). The set-up installs the
/// local model server, its model and PDFium here; the database lives here.
pub fn data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SIFT_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::data_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("sift-data"))
        .join("sift")
}
