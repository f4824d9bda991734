//! The [`Workspace`]: what the app and the CLI open first and then call.
//! It loads the configuration file once, resolves the database once (the
//! same rule for both callers), opens the store, owns the local model
//! server, keeps the one registry of running work, and knows which paths
//! a caller may write.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use sift_store::Store;

use crate::app_info::AppInfo;
use crate::atomic_file::write_atomically;
use crate::config::context::Config;
use crate::config::file::{config_path, read as read_config_file};
use crate::config::{AppSettings, save_model_overrides, save_settings};
use crate::error::CoreError;
use crate::models::ModelOverride;
use crate::models::local::LocalServerOwner;
use crate::path_grants::{PathGrants, PathPolicy};
use crate::paths;
use crate::running::RunningWork;

/// The database file's name inside a data folder.
pub const DB_FILE_NAME: &str = "sift.db";
/// The folder of OCR'd pages inside the data directory.
pub const OCR_CACHE_DIR: &str = "ocr-cache";

/// How to open a workspace: the caller's `--config` and `--db`, and
/// whether its paths are trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceOptions {
    /// The configuration file; `None`: `SIFT_CONFIG`, else the default.
    pub config: Option<PathBuf>,
    /// The database; `None`: `SIFT_DB`, else `sift.db` in the settings'
    /// data folder, else in the data directory.
    pub db: Option<PathBuf>,
    /// Which paths the caller may write to: any (the CLI) or only granted ones (the app).
    pub paths: PathPolicy,
    /// Whether a database whose schema library is empty gets the starter
    /// schemas when it opens. The app and the CLI both do, so a library
    /// is the same from every door (a newcomer's first extraction needs no
    /// schema writing; `sift extract --schema invoice` names one); tests
    /// that count the library's schemas turn it off.
    pub starter_schemas: bool,
}

impl WorkspaceOptions {
    /// For the CLI: paths on its command line are the user's own.
    pub fn cli(db: Option<PathBuf>) -> Self {
        Self {
            config: None,
            db,
            paths: PathPolicy::Trusted,
            starter_schemas: true,
        }
    }

    /// For the app: paths come from the webview and must be granted.
    pub fn app(config: Option<PathBuf>, db: Option<PathBuf>) -> Self {
        Self {
            config,
            db,
            paths: PathPolicy::GrantedOnly,
            starter_schemas: true,
        }
    }
}

/// An open workspace: the settings, the database, the local server, the running work and
/// the path grants of one app or CLI process; its clones share them.
#[derive(Debug, Clone)]
pub struct Workspace {
    inner: Arc<Inner>,
    /// See [`WorkspaceOptions::starter_schemas`].
    starter_schemas: bool,
}

#[derive(Debug)]
struct Inner {
    config_path: PathBuf,
    /// Resolved once, when opened.
    data_dir: PathBuf,
    db_override: Option<PathBuf>,
    /// What the configuration file said when opened, or last saved.
    loaded: Mutex<Loaded>,
    /// The open database; reopened when the data folder changes.
    store: Mutex<Option<Store>>,
    local: LocalServerOwner,
    running: RunningWork,
    grants: PathGrants,
}

#[derive(Debug, Clone)]
struct Loaded {
    settings: AppSettings,
    config: Config,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn env_path(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl Workspace {
    /// Reads the configuration file (a missing one means the defaults);
    /// the database opens on first use.
    pub fn open(options: WorkspaceOptions) -> Result<Self, CoreError> {
        let config_path = options
            .config
            .or_else(|| env_path("SIFT_CONFIG"))
            .unwrap_or_else(config_path);
        let db = options.db.or_else(|| env_path("SIFT_DB"));
        let mut ws = Self::with_paths(config_path, db, options.paths)?;
        ws.starter_schemas = options.starter_schemas;
        Ok(ws)
    }

    fn with_paths(
        config_path: PathBuf,
        db_override: Option<PathBuf>,
        policy: PathPolicy,
    ) -> Result<Self, CoreError> {
        let (settings, config) = read_config_file(&config_path)?;
        let loaded = Loaded { settings, config };
        Ok(Self {
            inner: Arc::new(Inner {
                config_path,
                data_dir: paths::data_dir(),
                db_override,
                loaded: Mutex::new(loaded),
                store: Mutex::new(None),
                local: LocalServerOwner::default(),
                running: RunningWork::default(),
                grants: PathGrants::new(policy),
            }),
            starter_schemas: false,
        })
    }

    /// The configuration file the settings are read from and saved to.
    pub fn config_path(&self) -> &Path {
        &self.inner.config_path
    }

    /// The settings as the configuration file held them when opened, or as last saved.
    pub fn settings(&self) -> AppSettings {
        lock(&self.inner.loaded).settings.clone()
    }

    /// The rest of the configuration file (the context windows).
    pub fn config(&self) -> Config {
        lock(&self.inner.loaded).config.clone()
    }

    /// Checks and writes the settings; from now on they are the
    /// workspace's (a new data folder takes effect at the next store use).
    pub fn save_settings(&self, settings: AppSettings) -> Result<(), CoreError> {
        save_settings(Some(&self.inner.config_path), &settings)?;
        lock(&self.inner.loaded).settings = settings;
        Ok(())
    }

    /// Checks and writes the per-model overrides (`[[models]]`); from now
    /// on they are the workspace's.
    pub fn save_model_overrides(&self, overrides: &[ModelOverride]) -> Result<(), CoreError> {
        let saved = save_model_overrides(Some(&self.inner.config_path), overrides)?;
        lock(&self.inner.loaded).config.model_overrides = saved;
        Ok(())
    }

    /// Sift's data directory: where the set-up installed the local model
    /// server, its model and PDFium.
    pub fn data_dir(&self) -> PathBuf {
        self.inner.data_dir.clone()
    }

    /// How the documents reader reads for this workspace: PDFium looked
    /// for in its data directory, OCR'd pages cached in its `ocr-cache`,
    /// in the `[ocr]` languages (default: `eng` plus the OS locale's
    /// language when its pack is installed), in the `[ocr]` mode (default
    /// `auto`; extraction jobs set `always`). Whether the model takes
    /// images is the caller's.
    pub fn read_options(&self) -> sift_documents::ReadOptions {
        let config = self.config();
        let languages = config
            .ocr_languages
            .unwrap_or_else(sift_documents::default_ocr_languages);
        sift_documents::ReadOptions {
            data_dir: Some(self.data_dir()),
            ocr: sift_documents::OcrOptions {
                mode: config.ocr_mode.unwrap_or_default(),
                languages,
                cache_dir: Some(self.data_dir().join(OCR_CACHE_DIR)),
                paddle: sift_documents::installed_paddle_dir(&self.data_dir()),
                ..sift_documents::OcrOptions::default()
            },
            // Laid out unless `[read] order` says otherwise: with the
            // default model it wrote 43 of 79 line-item rows right on the
            // e-invoice set's tune split against 26 in PDFium's order
            // (docs/BENCHMARKS.md, "The defaults").
            text_order: config
                .text_order
                .unwrap_or(sift_documents::TextOrder::Layout),
            ..sift_documents::ReadOptions::default()
        }
    }

    /// The app `name` at `version` and where this workspace keeps its files.
    pub fn app_info(&self, name: &str, version: &str) -> AppInfo {
        AppInfo {
            name: name.to_owned(),
            version: version.to_owned(),
            data_dir: self.data_dir().display().to_string(),
            db_path: self.db_path().display().to_string(),
            config_path: self.config_path().display().to_string(),
        }
    }

    /// The database file: `--db`, else `SIFT_DB`, else `sift.db` in the
    /// settings' data folder, else in the data directory. The one rule
    /// for the app and the CLI.
    pub fn db_path(&self) -> PathBuf {
        if let Some(db) = &self.inner.db_override {
            return db.clone();
        }
        let folder = lock(&self.inner.loaded)
            .settings
            .data_dir
            .clone()
            .unwrap_or_else(|| self.data_dir());
        folder.join(DB_FILE_NAME)
    }

    /// The database, opened on first use and whenever its path changed.
    pub fn store(&self) -> Result<Store, CoreError> {
        let path = self.db_path();
        let mut open = lock(&self.inner.store);
        match open.as_ref() {
            Some(store) if store.path() == path => Ok(store.clone()),
            _ => {
                // Work this process starts names it, so that after a
                // crash the next start finds it; that start is here.
                let store = Store::open(&path)?.owned_by(crate::process_owner::current());
                crate::interrupted::mark_gone_owners_work(&store)?;
                if self.starter_schemas {
                    crate::schemas::starters::install_when_library_empty(&store)?;
                }
                *open = Some(store.clone());
                Ok(store)
            }
        }
    }

    /// The local model server this workspace owns.
    pub fn local_server(&self) -> &LocalServerOwner {
        &self.inner.local
    }

    /// The registry of running work.
    pub fn running(&self) -> &RunningWork {
        &self.inner.running
    }

    /// Which paths may be written.
    pub fn grants(&self) -> &PathGrants {
        &self.inner.grants
    }

    /// Writes `bytes` to `path` if the workspace's path policy allows it,
    /// through a file beside it renamed into place, so that a crash never
    /// leaves half a file. Returns the path written.
    pub fn write_file(&self, path: &Path, bytes: &[u8]) -> Result<PathBuf, CoreError> {
        let target = self.inner.grants.check_write(path)?;
        write_atomically(&target, bytes)?;
        Ok(target)
    }

    /// On exit: cancel every running job, run and turn, and stop the local
    /// server if this workspace started it.
    pub async fn shut_down(&self) {
        self.inner.running.cancel_all();
        self.inner.local.stop().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_database_follows_the_settings_data_folder_unless_given() {
        let dir = std::env::temp_dir().join(format!("sift-ws-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let config = dir.join("config.toml");
        std::fs::write(
            &config,
            format!(
                "[defaults]\ndata_dir = \"{}\"\n",
                dir.join("data").display()
            ),
        )
        .unwrap();
        // Built without the environment, which may set SIFT_DB.
        let ws = Workspace::with_paths(config.clone(), None, PathPolicy::GrantedOnly).unwrap();
        assert_eq!(ws.db_path(), dir.join("data").join("sift.db"));
        let given = Workspace::open(WorkspaceOptions::app(
            Some(config),
            Some(dir.join("given.db")),
        ))
        .unwrap();
        assert_eq!(given.db_path(), dir.join("given.db"));
        std::fs::remove_dir_all(dir).unwrap();
    }
}
