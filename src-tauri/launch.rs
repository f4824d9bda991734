//! The app's command line: `--db` and `--config`, for the workspace it
//! opens.

use std::path::PathBuf;

use sift_core::WorkspaceOptions;

/// Where the app reads its configuration and database, from its command
/// line: `--config PATH` (else `SIFT_CONFIG`, else the default), `--db
/// PATH` (else `SIFT_DB`, else `sift.db` in the data folder of the
/// settings, else in the data directory).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchOptions {
    pub config: Option<PathBuf>,
    pub db: Option<PathBuf>,
}

impl LaunchOptions {
    /// Reads `--db` and `--config` (as `--db PATH` or `--db=PATH`) and
    /// ignores everything else, such as arguments a WebDriver passes.
    pub fn from_args(args: impl IntoIterator<Item = String>) -> Self {
        let mut options = Self::default();
        let mut args = args.into_iter();
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((name, value)) => (name.to_owned(), Some(value.to_owned())),
                None => (arg, None),
            };
            let slot = match name.as_str() {
                "--db" => &mut options.db,
                "--config" => &mut options.config,
                _ => continue,
            };
            if let Some(value) = inline.or_else(|| args.next()) {
                *slot = Some(PathBuf::from(value));
            }
        }
        options.config = options.config.or_else(|| env_path("SIFT_CONFIG"));
        options.db = options.db.or_else(|| env_path("SIFT_DB"));
        options
    }

    /// The app's workspace: these files, and paths from the webview
    /// written only where a dialog granted them.
    pub fn workspace_options(self) -> WorkspaceOptions {
        WorkspaceOptions::app(self.config, self.db)
    }
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn launch_options_read_db_and_config_in_both_forms() {
        let options = LaunchOptions::from_args(args(&[
            "sift-app",
            "--db",
            "/tmp/a.db",
            "--config=/tmp/c.toml",
        ]));
        assert_eq!(options.db, Some(PathBuf::from("/tmp/a.db")));
        assert_eq!(options.config, Some(PathBuf::from("/tmp/c.toml")));
    }

    #[test]
    fn unknown_arguments_are_ignored() {
        let options = LaunchOptions::from_args(args(&["sift-app", "--webdriver", "x", "--db"]));
        // A trailing --db without a value sets nothing.
        assert_eq!(options.db, env_path("SIFT_DB"));
    }
}
