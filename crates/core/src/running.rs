//! The one registry of running work (extraction jobs, workflow runs,
//! chat turns): each is registered under a key while it runs and is
//! cancelled through its [`CancellationToken`]. The app cancels all of it
//! on exit; the CLI cancels its one job on Ctrl-C.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tokio_util::sync::CancellationToken;

use crate::error::CoreError;

/// What kind of work a key names; part of the key, so a job and a run
/// with the same id never collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WorkKind {
    /// An extraction job over its documents.
    Extraction,
    /// A run of a workflow.
    WorkflowRun,
    /// One chat turn: the model's answer to a message, with its tool calls.
    ChatTurn,
    /// An evaluation run against ground truth.
    Evaluation,
}

impl WorkKind {
    fn prefix(self) -> &'static str {
        match self {
            Self::Extraction => "job",
            Self::WorkflowRun => "run",
            Self::ChatTurn => "turn",
            Self::Evaluation => "eval",
        }
    }
}

/// The registry of work that runs now, one per workspace; clones share it.
#[derive(Debug, Clone, Default)]
pub struct RunningWork {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    tokens: Mutex<HashMap<(WorkKind, String), CancellationToken>>,
    next_key: AtomicU64,
}

/// A poisoned lock only means another thread panicked while holding it;
/// the map stays consistent, so go on.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Registered work: its key and token. Dropping it unregisters the work
/// (a cancel after that finds nothing).
#[derive(Debug)]
pub struct RunningGuard {
    registry: RunningWork,
    kind: WorkKind,
    key: String,
    token: CancellationToken,
}

impl RunningGuard {
    /// The key the work is registered under.
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The token the work watches: cancelled when someone asks it to stop.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }
}

impl Drop for RunningGuard {
    fn drop(&mut self) {
        lock(&self.registry.inner.tokens).remove(&(self.kind, self.key.clone()));
    }
}

impl RunningWork {
    /// Registers work under `key`; refused while work of the same kind
    /// and key runs (a second run of a job would call its documents twice).
    pub fn register(&self, kind: WorkKind, key: &str) -> Result<RunningGuard, CoreError> {
        let mut tokens = lock(&self.inner.tokens);
        let entry = (kind, key.to_owned());
        if tokens.contains_key(&entry) {
            return Err(CoreError::Usage(format!(
                "{} {key} is running",
                kind.prefix()
            )));
        }
        let token = CancellationToken::new();
        tokens.insert(entry, token.clone());
        Ok(RunningGuard {
            registry: self.clone(),
            kind,
            key: key.to_owned(),
            token,
        })
    }

    /// Registers work under a new key (`turn-1`, `run-2`, ...), for work
    /// that has no id of its own until it has started.
    pub fn register_new(&self, kind: WorkKind) -> RunningGuard {
        loop {
            let n = self.inner.next_key.fetch_add(1, Ordering::Relaxed) + 1;
            let key = format!("{}-{n}", kind.prefix());
            if let Ok(guard) = self.register(kind, &key) {
                return guard;
            }
        }
    }

    /// Asks the work to stop; false when nothing of that kind and key runs.
    pub fn cancel(&self, kind: WorkKind, key: &str) -> bool {
        match lock(&self.inner.tokens).get(&(kind, key.to_owned())) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether work of this kind and key is registered now.
    pub fn is_running(&self, kind: WorkKind, key: &str) -> bool {
        lock(&self.inner.tokens).contains_key(&(kind, key.to_owned()))
    }

    /// Cancels everything that runs (the app on exit).
    pub fn cancel_all(&self) {
        for token in lock(&self.inner.tokens).values() {
            token.cancel();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_runs_once_at_a_time_and_is_cancelled_while_registered() {
        let running = RunningWork::default();
        let guard = running.register(WorkKind::Extraction, "job_1").unwrap();
        let again = running.register(WorkKind::Extraction, "job_1").unwrap_err();
        assert_eq!(again.to_string(), "job job_1 is running");
        // Another kind with the same key is other work.
        let run = running.register(WorkKind::WorkflowRun, "job_1").unwrap();
        assert!(!running.cancel(WorkKind::Extraction, "job_2"));
        assert!(running.cancel(WorkKind::Extraction, "job_1"));
        assert!(guard.token().is_cancelled());
        assert!(!run.token().is_cancelled());
        drop(guard);
        assert!(!running.cancel(WorkKind::Extraction, "job_1"));
    }

    #[test]
    fn new_keys_are_distinct_and_cancel_all_reaches_every_one() {
        let running = RunningWork::default();
        let a = running.register_new(WorkKind::ChatTurn);
        let b = running.register_new(WorkKind::ChatTurn);
        assert_ne!(a.key(), b.key());
        assert!(a.key().starts_with("turn-"));
        running.cancel_all();
        assert!(a.token().is_cancelled() && b.token().is_cancelled());
    }
}
