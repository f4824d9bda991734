//! Where Sift keeps its files, and [`AppInfo`], what the app shows of
//! them.

use std::path::PathBuf;

use serde::Serialize;

use crate::workspace::Workspace;

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

/// What the UI shows about the running app.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AppInfo {
    /// The product name from `tauri.conf.json` ("Sift").
    pub name: String,
    /// The package version, e.g. "0.1.0".
    pub version: String,
    /// Sift's data directory (the local model, PDFium).
    pub data_dir: String,
    /// The database in use.
    pub db_path: String,
    /// The configuration file the settings are saved in.
    pub config_path: String,
}

/// The app `name` at `version` and where the workspace keeps its files.
pub fn app_info(ws: &Workspace, name: &str, version: &str) -> AppInfo {
    AppInfo {
        name: name.to_owned(),
        version: version.to_owned(),
        data_dir: ws.data_dir().display().to_string(),
        db_path: ws.db_path().display().to_string(),
        config_path: ws.config_path().display().to_string(),
    }
}
