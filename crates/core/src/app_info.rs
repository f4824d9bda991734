//! [`AppInfo`]: what the app shows about itself and where its files are
//! (filled by [`crate::Workspace::app_info`]).

use serde::Serialize;

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
