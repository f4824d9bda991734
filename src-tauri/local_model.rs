//! The local model server as the app owns it: started when the local
//! provider is the default (at launch, or when the settings make it so)
//! or on first use, kept for the app's life, stopped on exit.

use std::sync::Arc;

use serde::Serialize;
use sift_core::settings::AppSettings;
use sift_core::{CoreError, LocalServerHandle, ProviderChoice, ensure_local_server};
use tokio::sync::Mutex;
use ts_rs::TS;

/// Where the local server is, for the UI.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum LocalServerStatus {
    /// Not started by the app (another process may still serve).
    Stopped,
    Starting,
    Running,
    Failed {
        message: String,
    },
}

#[derive(Debug, Clone)]
pub struct LocalModel {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    handle: Mutex<Option<LocalServerHandle>>,
    status: std::sync::Mutex<LocalServerStatus>,
}

impl Default for LocalModel {
    fn default() -> Self {
        Self {
            inner: Arc::new(Inner {
                handle: Mutex::new(None),
                status: std::sync::Mutex::new(LocalServerStatus::Stopped),
            }),
        }
    }
}

impl LocalModel {
    fn set_status(&self, status: LocalServerStatus) {
        *self
            .inner
            .status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = status;
    }

    pub fn status(&self) -> LocalServerStatus {
        self.inner
            .status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Starts the server unless this app or another process already serves
    /// at the local address.
    pub async fn ensure_running(&self) -> Result<(), CoreError> {
        let mut handle = self.inner.handle.lock().await;
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

    /// Starts the server in the background when the default provider is
    /// the local one at its usual address; the outcome shows in
    /// [`Self::status`].
    pub fn start_if_default(&self, settings: &AppSettings) {
        let local_default = settings
            .provider(&settings.default_provider)
            .is_some_and(|p| p.kind == ProviderChoice::Local && p.base_url.is_none());
        if local_default {
            let this = self.clone();
            tauri::async_runtime::spawn(async move {
                // A failure is kept in the status for the UI to show.
                let _ = this.ensure_running().await;
            });
        }
    }

    /// Stops the server if the app started it.
    pub async fn stop(&self) {
        if let Some(handle) = self.inner.handle.lock().await.take() {
            handle.release().await;
        }
        self.set_status(LocalServerStatus::Stopped);
    }
}
