//! The local model server as the app owns it: started on first use, kept
//! for the app's life, stopped on exit.

use sift_core::{CoreError, LocalServerHandle, ensure_local_server};
use tokio::sync::Mutex;

#[derive(Debug, Default)]
pub struct LocalModel {
    handle: Mutex<Option<LocalServerHandle>>,
}

impl LocalModel {
    /// Starts the server unless this app or another process already serves
    /// at the local address.
    pub async fn ensure_running(&self) -> Result<(), CoreError> {
        let mut handle = self.handle.lock().await;
        if handle.is_none() {
            *handle = Some(ensure_local_server().await?);
        }
        Ok(())
    }

    /// Stops the server if the app started it.
    pub async fn stop(&self) {
        if let Some(handle) = self.handle.lock().await.take() {
            handle.release().await;
        }
    }
}
