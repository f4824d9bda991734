//! The local model server: started on demand unless another Sift process
//! already runs one for this data directory, and, for a long-lived caller
//! such as the app, owned for its life ([`LocalServerOwner`]) and stopped
//! on exit.
//!
//! Another process's server is used only when its record names it, serving
//! the model this caller wants, and it passes
//! `sift_llm::local_server::adopt`'s checks (it holds the port, it refuses
//! a request without its key and answers one with it): never whatever
//! happens to listen on loopback. Clients find its address and
//! key in the same record (`ProviderSettings::client_config`).

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use sift_llm::local_server::{AdoptedServer, LocalServer, LocalServerConfig, adopt};
use tokio::sync::Mutex;

use crate::error::CoreError;
use crate::{models::provider, paths};

/// The local server in use: one another Sift process started (the app's,
/// or another command's), or one started for this caller and stopped when
/// this is dropped.
#[derive(Debug)]
pub enum LocalServerHandle {
    /// Started by another Sift process and checked: this caller will not
    /// stop it.
    Adopted(Box<AdoptedServer>),
    /// Started for this caller, which stops it on release.
    Started(Box<LocalServer>),
}

/// Makes sure a local server of Sift's runs for this data directory: the
/// one its record names when that one passes the checks, else a new one
/// (whose record replaces a stale one).
pub async fn ensure_local_server() -> Result<LocalServerHandle, CoreError> {
    let data_dir = paths::data_dir();
    let mut config = LocalServerConfig::in_data_dir(&data_dir);
    // The model chosen in Settings (or `sift models use`, or
    // SIFT_LOCAL_MODEL): a running server of another model is not used.
    let (model, projector) = crate::models::local_files::chosen_paths(&data_dir)?;
    if let Some(record) = &config.record_path
        && let Some(adopted) = adopt(record, &model).await
    {
        return Ok(LocalServerHandle::Adopted(Box::new(adopted)));
    }
    // An installed package ships the server in its bundle; one set up in
    // the data directory (scripts/setup.sh) or named by SIFT_LLAMA_SERVER
    // wins over it.
    if !config.program.exists()
        && std::env::var_os("SIFT_LLAMA_SERVER").is_none()
        && let Some(bundled) = paths::bundled_file(Path::new("llama-server"))
    {
        config.program = bundled;
    }
    config.model_path = model;
    config.projector_path = projector;
    config.context_per_slot = crate::models::local_files::slot_context(&config.model_path);
    config.port = provider::pinned_local_port().unwrap_or(0);
    let server = LocalServer::start(&config).await?;
    Ok(LocalServerHandle::Started(Box::new(server)))
}

impl LocalServerHandle {
    /// The server's OpenAI-compatible base URL, `/v1` included.
    pub fn base_url(&self) -> String {
        match self {
            Self::Adopted(server) => server.base_url(),
            Self::Started(server) => server.base_url(),
        }
    }

    /// Stops the server if this caller started it, and waits until it has
    /// exited, so its port is free when this returns.
    pub async fn release(self) {
        if let Self::Started(server) = self {
            server.stop().await;
        }
    }
}

/// Where the owned local server is, for the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum LocalServerStatus {
    /// Not started by this owner (another process may still serve).
    Stopped,
    /// Being started: waiting for it to answer at its port.
    Starting,
    /// Answering at its port, whether this owner started it or found it running.
    Running,
    /// The last start failed; nothing was started.
    Failed {
        /// Why, for the user (the server's last log lines when it exited).
        message: String,
    },
}

/// The local server as a long-lived caller owns it: started at most once,
/// kept until [`Self::stop`].
#[derive(Debug, Clone)]
pub struct LocalServerOwner {
    inner: Arc<OwnerInner>,
}

#[derive(Debug)]
struct OwnerInner {
    handle: Mutex<Option<LocalServerHandle>>,
    status: std::sync::Mutex<LocalServerStatus>,
}

impl Default for LocalServerOwner {
    fn default() -> Self {
        Self {
            inner: Arc::new(OwnerInner {
                handle: Mutex::new(None),
                status: std::sync::Mutex::new(LocalServerStatus::Stopped),
            }),
        }
    }
}

impl LocalServerOwner {
    fn set_status(&self, status: LocalServerStatus) {
        *self
            .inner
            .status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = status;
    }

    /// Where the server is now, as the last start or stop left it.
    pub fn status(&self) -> LocalServerStatus {
        self.inner
            .status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Starts the server unless this owner or another process already
    /// serves at the local address.
    pub async fn ensure_running(&self) -> Result<(), CoreError> {
        let mut handle = self.inner.handle.lock().await;
        // Clients find the server through its record (see the module
        // comment), so it must still name the server this owner holds.
        let record_path = sift_llm::local_server::record::record_path(&paths::data_dir());
        match handle.as_ref() {
            Some(LocalServerHandle::Adopted(server)) if !server.still_recorded(&record_path) => {
                *handle = None;
            }
            Some(LocalServerHandle::Started(server)) => {
                if let Err(error) = server.ensure_recorded() {
                    let error = CoreError::from(error);
                    self.set_status(LocalServerStatus::Failed {
                        message: error.to_string(),
                    });
                    return Err(error);
                }
            }
            _ => {}
        }
        if handle.is_none() {
            self.set_status(LocalServerStatus::Starting);
            match ensure_local_server().await {
                Ok(started) => *handle = Some(started),
                Err(error) => {
                    self.set_status(LocalServerStatus::Failed {
                        message: error.to_string(),
                    });
                    return Err(error);
                }
            }
        }
        self.set_status(LocalServerStatus::Running);
        Ok(())
    }

    /// Stops the server this owner started and starts it again, with the
    /// model chosen now: how a switch of models takes effect. The status
    /// goes through `Starting` to `Running` or `Failed` (with the log's
    /// last lines).
    pub async fn restart(&self) -> Result<(), CoreError> {
        self.stop().await;
        self.ensure_running().await
    }

    /// Stops the server if this owner started it.
    pub async fn stop(&self) {
        if let Some(handle) = self.inner.handle.lock().await.take() {
            handle.release().await;
        }
        self.set_status(LocalServerStatus::Stopped);
    }
}
