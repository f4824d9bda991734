//! Where Sift's files are on this platform: the data directory (the
//! user's: database, models, caches) and the bundle directory (what an
//! installed package ships beside the program: PDFium, the local model
//! server, the default model). The one place that knows a platform's
//! layout; everything else asks here.

use std::path::{Path, PathBuf};

/// `SIFT_DATA_DIR`, else the platform's data directory plus `sift`
/// (`~/.local/share/sift` on Linux): the same directory as the engine's.
pub fn default_data_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SIFT_DATA_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    dirs::data_dir()
        .unwrap_or_else(|| std::env::temp_dir().join("sift-data"))
        .join("sift")
}

/// The directory an installed package keeps Sift's own files in, when
/// there is one: `SIFT_BUNDLE_DIR` when set, else the platform's place
/// for it beside the running program (see [`bundle_dir_beside`]), when
/// that directory exists. `None` for a source checkout, whose files are
/// in the data directory.
pub fn bundle_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("SIFT_BUNDLE_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let exe = std::env::current_exe().ok()?;
    bundle_dir_beside(&exe).filter(|dir| dir.is_dir())
}

/// Where a package puts the bundle for the program `exe`:
/// - Linux (`.deb`): `/usr/bin/sift-app` → `/usr/lib/sift`;
/// - macOS (`.app`): `Sift.app/Contents/MacOS/sift-app` →
///   `Sift.app/Contents/Resources`;
/// - Windows (installer): the program's own folder.
pub fn bundle_dir_beside(exe: &Path) -> Option<PathBuf> {
    let bin = exe.parent()?;
    if cfg!(target_os = "macos") {
        Some(bin.parent()?.join("Resources"))
    } else if cfg!(windows) {
        Some(bin.to_path_buf())
    } else {
        Some(bin.parent()?.join("lib").join("sift"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_deb_keeps_its_bundle_in_usr_lib_sift() {
        assert_eq!(
            bundle_dir_beside(Path::new("/usr/bin/sift-app")),
            Some(PathBuf::from("/usr/lib/sift"))
        );
        assert_eq!(
            bundle_dir_beside(Path::new("/opt/x/bin/sift")),
            Some(PathBuf::from("/opt/x/lib/sift"))
        );
    }
}
