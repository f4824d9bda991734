//! What the app keeps between commands: where its configuration and
//! database are, the open database, and the cancel flags of running jobs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use sift_core::settings::AppSettings;
use sift_core::store::Store;
use sift_core::{Workspace, WorkspaceOptions};

use crate::error::IpcResult;

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
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

#[derive(Debug)]
pub struct AppState {
    workspace: Workspace,
    /// The cancel flag of each running job, by job id.
    jobs: Mutex<HashMap<String, Arc<AtomicBool>>>,
}

/// A poisoned lock only means another command panicked while holding
/// it; the data behind these locks stays consistent, so go on.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AppState {
    pub fn new(launch: LaunchOptions) -> IpcResult<Self> {
        Ok(Self::of(Workspace::open(WorkspaceOptions::app(
            launch.config,
            launch.db,
        ))?))
    }

    pub fn of(workspace: Workspace) -> Self {
        Self {
            workspace,
            jobs: Mutex::new(HashMap::new()),
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// The configuration file the settings live in.
    pub fn config_path(&self) -> Option<&Path> {
        Some(self.workspace.config_path())
    }

    pub fn settings(&self) -> IpcResult<AppSettings> {
        Ok(self.workspace.settings())
    }

    /// The database file in use.
    pub fn db_path(&self, _settings: &AppSettings) -> IpcResult<PathBuf> {
        Ok(self.workspace.db_path())
    }

    pub fn store(&self) -> IpcResult<Store> {
        Ok(self.workspace.store()?)
    }

    /// Registers a running job and returns its cancel flag; `None` when
    /// it runs already (a second run would call its documents twice).
    pub fn job_started(&self, job_id: &str) -> Option<Arc<AtomicBool>> {
        let mut jobs = lock(&self.jobs);
        if jobs.contains_key(job_id) {
            return None;
        }
        let flag = Arc::new(AtomicBool::new(false));
        jobs.insert(job_id.to_owned(), flag.clone());
        Some(flag)
    }

    pub fn job_finished(&self, job_id: &str) {
        lock(&self.jobs).remove(job_id);
    }

    /// Asks a running job to stop; false when no such job runs.
    pub fn cancel_job(&self, job_id: &str) -> bool {
        match lock(&self.jobs).get(job_id) {
            Some(flag) => {
                flag.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    /// Every running job stops starting new documents (on exit).
    pub fn cancel_all_jobs(&self) {
        for flag in lock(&self.jobs).values() {
            flag.store(true, Ordering::SeqCst);
        }
    }
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

    #[test]
    fn jobs_can_be_cancelled_while_registered() {
        let state = AppState::new(LaunchOptions::default()).unwrap();
        let flag = state.job_started("job_1").unwrap();
        assert!(
            state.job_started("job_1").is_none(),
            "a job runs once at a time"
        );
        assert!(!state.cancel_job("job_2"));
        assert!(state.cancel_job("job_1"));
        assert!(flag.load(Ordering::SeqCst));
        state.job_finished("job_1");
        assert!(!state.cancel_job("job_1"));
    }
}
