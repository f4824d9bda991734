//! The store against real SQLite files in a temporary folder. Row counts
//! are read back with a second, raw connection, so that what a test
//! asserts is what is in the file.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

mod calls;
mod crash;
mod document_pages;
mod extraction;
mod interrupted;
mod json;
mod pending;
mod private_files;
mod schema;
mod search;
mod sessions;
mod turns;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::json;
use sift_store::{CallStatus, NewMessage, NewSession, NewStructuredCall, Role, Session, Store};

/// A folder removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let unique = format!(
            "sift-store-{name}-{}-{}-{}",
            std::process::id(),
            sift_store::now_ms(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// `sift.db` in the folder.
    pub fn db(&self) -> PathBuf {
        self.0.join("sift.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh store in its own folder.
pub fn fresh(name: &str) -> (TempDir, Store) {
    let dir = TempDir::new(name);
    let store = Store::open(dir.db()).unwrap();
    (dir, store)
}

/// A second connection on the file, as another process would have.
pub fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}

pub fn count(path: &Path, table: &str) -> i64 {
    raw(path)
        .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
}

/// Row counts of every table, in a fixed order.
pub fn counts(path: &Path) -> [(&'static str, i64); 6] {
    [
        "sessions",
        "messages",
        "structured_calls",
        "pending_turns",
        "pending_tool_calls",
        "pending_approvals",
    ]
    .map(|table| (table, count(path, table)))
}

pub fn session(store: &Store) -> Session {
    store.create_session(NewSession::default()).unwrap()
}

pub fn user(text: &str) -> NewMessage {
    NewMessage::text(Role::User, text)
}

pub fn assistant(text: &str) -> NewMessage {
    NewMessage::text(Role::Assistant, text)
}

pub fn call(kind: &str) -> NewStructuredCall {
    NewStructuredCall::new(kind, CallStatus::Completed, json!({"prompt": "p"}))
}
