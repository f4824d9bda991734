//! The local model server for one job, started when the first document
//! needs the model rather than when the job starts.
//!
//! A `hybrid` job (the local model's default) asks the model only for the
//! fields the locator did not find, so on a schema the locator answers
//! whole no document calls the model: such a job must not load a model
//! of 2 GiB, nor fail on a machine where the server cannot start. The
//! first document that asks starts the server (the others wait for it);
//! if it cannot start, that error ends the job as before (nothing more is
//! called, the documents not yet answered stay pending for a resume), and
//! documents the locator answered alone keep their rows. The job says it
//! is starting the model when it does, not when it begins.

use std::sync::Arc;

use tokio::sync::Mutex;

use crate::error::CoreError;
use crate::models::local::{
    LocalServerHandle, LocalServerOwner, LocalServerStatus, ensure_local_server,
};

/// Told when a job starts its local server: loading the model takes a
/// while, and the document that asked waits for it (the job's run shows
/// `Starting the local model…`).
#[derive(Clone)]
pub struct OnServerStart(Arc<dyn Fn() + Send + Sync>);

impl OnServerStart {
    /// Calls `tell` when the job starts its server.
    pub fn new(tell: impl Fn() + Send + Sync + 'static) -> Self {
        Self(Arc::new(tell))
    }
}

impl std::fmt::Debug for OnServerStart {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnServerStart(Fn)")
    }
}

/// Whether the job's server is wanted, started, or failed to start.
#[derive(Debug)]
enum State {
    NotStarted,
    /// Running: the handle to release at the end (none when a long-lived
    /// owner keeps it).
    Running(Option<LocalServerHandle>),
    /// It did not start; the error, until the run takes it.
    Failed(Option<CoreError>),
}

/// The job's local server (see the module docs).
#[derive(Debug)]
pub(super) struct JobServer {
    /// False when the calls go elsewhere, or the mode calls no model.
    wanted: bool,
    owner: Option<LocalServerOwner>,
    on_start: Option<OnServerStart>,
    state: Mutex<State>,
}

/// A document's call could not be made because the job's server did not
/// start; the error itself is the run's, from [`JobServer::finish`].
#[derive(Debug)]
pub(super) struct ServerDown;

impl JobServer {
    pub(super) fn new(
        wanted: bool,
        owner: Option<LocalServerOwner>,
        on_start: Option<OnServerStart>,
    ) -> Self {
        Self {
            wanted,
            owner,
            on_start,
            state: Mutex::new(State::NotStarted),
        }
    }

    /// Makes sure the server runs before a model call: started by the
    /// first caller, awaited by the others.
    pub(super) async fn ready(&self) -> Result<(), ServerDown> {
        if !self.wanted {
            return Ok(());
        }
        let mut state = self.state.lock().await;
        match &*state {
            State::Running(_) => Ok(()),
            State::Failed(_) => Err(ServerDown),
            State::NotStarted => {
                // An owner's server kept up since an earlier job is not started again.
                let already_up = self
                    .owner
                    .as_ref()
                    .is_some_and(|owner| owner.status() == LocalServerStatus::Running);
                if let (false, Some(on_start)) = (already_up, &self.on_start) {
                    (on_start.0)();
                }
                let started = match &self.owner {
                    Some(owner) => owner.ensure_running().await.map(|()| None),
                    None => ensure_local_server().await.map(Some),
                };
                match started {
                    Ok(handle) => {
                        *state = State::Running(handle);
                        Ok(())
                    }
                    Err(error) => {
                        *state = State::Failed(Some(error));
                        Err(ServerDown)
                    }
                }
            }
        }
    }

    /// Lets the server go once the job's calls are done; returns the
    /// error it failed to start with, if it did.
    pub(super) async fn finish(&self) -> Option<CoreError> {
        let state = std::mem::replace(&mut *self.state.lock().await, State::NotStarted);
        match state {
            State::Running(Some(handle)) => {
                handle.release().await;
                None
            }
            State::Running(None) | State::NotStarted => None,
            State::Failed(error) => error,
        }
    }
}
