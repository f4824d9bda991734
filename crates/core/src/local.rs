//! Starting the local model server on demand.

use sift_llm::local_server::{LocalServer, LocalServerConfig, is_serving};

use crate::error::CoreError;
use crate::{paths, provider};

/// The local server in use: one that was already running (the app's, or
/// another command's), or one started for this caller and stopped when
/// this is dropped.
#[derive(Debug)]
pub enum LocalServerHandle {
    AlreadyRunning,
    Started(Box<LocalServer>),
}

/// Makes sure the local server answers at its well-known port, starting it
/// when nothing does.
pub async fn ensure_local_server() -> Result<LocalServerHandle, CoreError> {
    if is_serving(&provider::local_base_url()).await {
        return Ok(LocalServerHandle::AlreadyRunning);
    }
    let mut config = LocalServerConfig::in_data_dir(&paths::data_dir());
    config.port = provider::local_port();
    let server = LocalServer::start(&config).await?;
    Ok(LocalServerHandle::Started(Box::new(server)))
}

impl LocalServerHandle {
    /// Stops the server if this caller started it, and waits until it has
    /// exited, so its port is free when this returns.
    pub async fn release(self) {
        if let Self::Started(server) = self {
            server.stop().await;
        }
    }
}
