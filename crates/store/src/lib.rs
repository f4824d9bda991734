//! Sift's store: one SQLite file holding sessions, their messages,
//! structured calls, and the suspended turns that must survive a restart.
//! The engine (chat turns, host-owned turns, structured calls) is built on
//! it; this crate knows nothing of models or providers.
//!
//! # Rules
//! - **One transaction per call or turn.** Everything a chat turn, a
//!   structured call in a session or a suspension writes goes through one
//!   [`Store::commit_turn`] (a standalone call through
//!   [`Store::insert_standalone_call`]), which commits it all or nothing.
//!   The engine keeps its work in memory (a suspended turn's in the
//!   pending state) and writes only once a call has succeeded or finally
//!   failed, so a retried request never duplicates history, and a process
//!   killed mid-call leaves no partial turn.
//! - **Sequences are the store's.** A session's messages are numbered
//!   1, 2, 3, ... without gaps; the numbers are computed inside the write
//!   transaction, so concurrent writers (the app and the CLI on one file)
//!   never collide.
//! - **A suspended turn is guarded.** [`PendingGuard`] makes a commit
//!   check the session's suspended turn inside its transaction, so a turn
//!   is never resumed twice and a new message is refused while tool calls
//!   are pending.
//!
//! # Rows
//! - Times (`*_at`) are Unix milliseconds (UTC), `i64`.
//! - Ids are a prefix (`ses_`, `msg_`, `call_`, `pnd_`) plus 26 characters
//!   of a ULID-like id (48 bits of milliseconds, 80 random bits), so they
//!   sort by creation time.
//! - Sequence numbers (`seq`, `first_seq`, `last_seq`) are 1-based and per
//!   session.
//! - JSON columns are [`serde_json::Value`]s stored as JSON text and read
//!   back exactly as written, floats included (serde_json's
//!   `float_roundtrip`).
//!
//! ## No credentials or engine configuration
//! Rows never hold credentials or engine configuration. No column stores
//! an API key, a token value, a base URL or a provider setting: a call
//! records only the *type* of engine it ran on (`engine_type`, e.g.
//! `"openai"`), never how to reach it. Writers must not put such values in
//! the free JSON columns (`metadata`, `request`, `transcript`, `state`)
//! either. The test `schema::no_column_can_hold_a_credential` checks the
//! column names, and `schema::the_schema_is_exactly_this` makes any new
//! column a deliberate change.
//!
//! # The file
//! WAL journal, `foreign_keys=ON`, a 5 s `busy_timeout`, `synchronous=NORMAL`
//! (WAL's recommended setting: a killed process never loses or corrupts a
//! committed transaction; a power cut may lose the last few, never the
//! file's integrity). A file may come from someone else, so its schema is
//! not trusted (`trusted_schema=OFF`: its views and triggers cannot call
//! functions with side effects) and the connection is defensive
//! (`SQLITE_DBCONFIG_DEFENSIVE`: no SQL can write the schema or the pages
//! directly). A database file Sift creates is 0600, in a folder it creates
//! 0700 (`private_files.rs`). The schema is versioned by `PRAGMA user_version` and
//! migrated on open, one transaction per migration; a file from a newer
//! Sift is refused ([`StoreError::NewerSchema`]) and left untouched.
//!
//! Tables: `sessions`; `messages` (`UNIQUE(session_id, seq)`);
//! `structured_calls` (`parent_id` → `structured_calls`, `session_id` →
//! `sessions`); `pending_turns` (one per session) with its
//! `pending_tool_calls` and `pending_approvals`. Deleting a session
//! deletes its messages, calls and pending turn.
//!
//! Migration 2 adds the schema library (`schemas`, `PRIMARY KEY(name,
//! version)`) and extraction jobs: `extraction_jobs` (with a snapshot of
//! the schema), `extraction_documents` (`PRIMARY KEY(job_id, position)`,
//! `call_id` → `structured_calls`) and `extraction_revisions`, a user's
//! corrections kept beside the model's values.
//!
//! # Files
//!
//! Beside the sessions, messages, calls and turns: extraction jobs (their
//! results and revisions with evidence; `checks.rs` the fields a user
//! checked), workflow runs, `evaluation.rs` (labelled sets, evaluation runs
//! and candidates, the price table), `usage.rs` (tokens spent, by day, kind
//! and model), `interrupted.rs` (running work's owners, the one transition
//! to interrupted, chat replies kept as they stream); `schema.rs` the
//! migrations, in code.

mod checks;
mod consent;
mod document_pages;
mod error;
mod evaluation;
mod extraction;
mod ids;
mod interrupted;
mod model;
mod private_files;
mod read;
mod schema;
mod usage;
mod workflow;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

pub use document_pages::{DOCUMENT_PAGE, DocumentPages, DocumentTotals};
pub use error::{Result, StoreError};
pub use evaluation::{
    EvalCandidateRow, EvalRunRow, EvalRunStatus, LabelledDocument, LabelledSet, NewLabelledSet,
    PriceRow,
};
pub use extraction::{
    DocumentResult, DocumentStatus, ExtractionDocument, ExtractionJob, ExtractionRevision,
    JOB_PREFIX, JobStatus, NewExtractionJob, SchemaVersion,
};
pub use ids::{new_call_id, now_ms};
pub use interrupted::{ChatReply, Interrupted};
pub use model::{
    CallStatus, Message, NewMessage, NewPendingTurn, NewSession, NewStructuredCall,
    PendingApproval, PendingChange, PendingGuard, PendingToolCall, PendingTurn, Role, Session,
    SessionUpdate, StructuredCall, TurnCommit, TurnWrite,
};
pub use schema::SCHEMA_VERSION;
pub use usage::UsageRecord;
pub use workflow::{NewWorkflowRun, RUN_PREFIX, StoredStep, WorkflowRun};

/// How long a write waits for another process's write to finish.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The database file's name in the data directory.
pub const DB_FILE_NAME: &str = "sift.db";

/// The default database file: `SIFT_DB` when set, else `sift.db` in
/// `SIFT_DATA_DIR`, else in the platform's data directory plus `sift`
/// (`~/.local/share/sift/sift.db` on Linux). Empty variables count as
/// unset.
pub fn default_path() -> Result<PathBuf> {
    let var = |name| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(file) = var("SIFT_DB") {
        return Ok(PathBuf::from(file));
    }
    let dir = match var("SIFT_DATA_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => dirs::data_dir().ok_or(StoreError::NoDataDir)?.join("sift"),
    };
    Ok(dir.join(DB_FILE_NAME))
}

/// A handle on the database. Cheap to clone: clones share one connection.
///
/// # Blocking and async code
/// Every method is blocking (SQLite does file I/O and may wait up to
/// [`BUSY_TIMEOUT`] for another process's write). From async code, clone
/// the store into `tokio::task::spawn_blocking`:
///
/// ```text
/// let store = store.clone();
/// let commit = tokio::task::spawn_blocking(move || store.commit_turn(write)).await??;
/// ```
///
/// # Why one connection behind a mutex, not a pool
/// SQLite allows one writer at a time whatever the number of connections,
/// and a desktop app's load (a few turns a minute, reads of one session at
/// a time) never needs parallel reads. One connection keeps the statement
/// cache warm and makes writes in this process queue on the mutex instead
/// of failing with `SQLITE_BUSY`. Other processes on the same file (the
/// `sift` CLI beside the app) are handled by WAL, `busy_timeout` and
/// write transactions that take the write lock when they begin
/// (`BEGIN IMMEDIATE`). If reads ever need to run beside a long write,
/// a pool of read-only connections can be added behind the same methods.
#[derive(Debug, Clone)]
pub struct Store {
    conn: Arc<Mutex<Connection>>,
    path: Arc<PathBuf>,
    /// Who runs the work this handle starts (see [`Store::owned_by`]).
    owner: Option<Arc<str>>,
}

impl Store {
    /// Opens (or creates) the database at `path`, creating its folder, and
    /// migrates it to [`SCHEMA_VERSION`]. A folder or file it creates is
    /// private to the user.
    pub fn open(path: impl AsRef<Path>) -> Result<Store> {
        let path = path.as_ref();
        if path.as_os_str().is_empty() {
            return Err(StoreError::Invalid("the database path is empty".into()));
        }
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            private_files::create_folder(parent).map_err(|source| StoreError::CreateDir {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        // A file that cannot be created here cannot be opened either, and
        // SQLite's error for it says why as every other open failure does.
        let _ = private_files::create_file(path);
        let opened = |source| error::open_failure(path, source);
        // Not SQLITE_OPEN_URI: a path is a path, even one that starts
        // with `file:`.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut conn = Connection::open_with_flags(path, flags).map_err(opened)?;
        configure(&conn, true, path)?;
        schema::migrate(&mut conn, path, schema::MIGRATIONS)?;
        Ok(Store::from_connection(conn, path))
    }

    /// Opens [`default_path`].
    pub fn open_default() -> Result<Store> {
        Store::open(default_path()?)
    }

    /// A private database in memory, for tests of code built on the store.
    pub fn open_in_memory() -> Result<Store> {
        let path = Path::new(":memory:");
        let opened = |source| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open_in_memory().map_err(opened)?;
        configure(&conn, false, path)?;
        schema::migrate(&mut conn, path, schema::MIGRATIONS)?;
        Ok(Store::from_connection(conn, path))
    }

    fn from_connection(conn: Connection, path: &Path) -> Store {
        Store {
            conn: Arc::new(Mutex::new(conn)),
            path: Arc::new(path.to_path_buf()),
            owner: None,
        }
    }

    /// This handle with `owner` written on the jobs, runs and chat
    /// replies it starts: a token naming the running process, so that
    /// once that process is gone its work can be found and marked
    /// interrupted ([`Store::running_owners`], [`Store::interrupt_owner`]).
    /// Work started without an owner counts as nobody's.
    pub fn owned_by(mut self, owner: impl Into<String>) -> Store {
        self.owner = Some(Arc::from(owner.into()));
        self
    }

    /// The owner written on work this handle starts.
    pub fn owner(&self) -> Option<&str> {
        self.owner.as_deref()
    }

    /// The database file (`:memory:` for [`Store::open_in_memory`]).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's schema version (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64> {
        let conn = self.lock();
        Ok(conn.query_row("PRAGMA user_version", [], |row| row.get(0))?)
    }

    /// The connection. A thread that panicked while holding it cannot have
    /// left a write half done (a dropped transaction rolls back), but any
    /// transaction still open is rolled back here to be sure.
    fn lock(&self) -> MutexGuard<'_, Connection> {
        error::set_current_database(&self.path);
        match self.conn.lock() {
            Ok(conn) => conn,
            Err(poisoned) => {
                let conn = poisoned.into_inner();
                if !conn.is_autocommit() {
                    // Best effort: if it fails, the next BEGIN fails too
                    // and reports the error.
                    let _ = conn.execute_batch("ROLLBACK");
                }
                self.conn.clear_poison();
                conn
            }
        }
    }
}

/// Sets the connection's pragmas; `wal` is false for memory databases.
fn configure(conn: &Connection, wal: bool, path: &Path) -> Result<()> {
    let opened = |source| error::open_failure(path, source);
    let refused = |detail: String| StoreError::Setup {
        path: path.to_path_buf(),
        detail,
    };
    conn.busy_timeout(BUSY_TIMEOUT).map_err(opened)?;
    // Before any statement runs (see the module docs).
    let trusted = conn
        .set_db_config(DbConfig::SQLITE_DBCONFIG_TRUSTED_SCHEMA, false)
        .map_err(opened)?;
    let defensive = conn
        .set_db_config(DbConfig::SQLITE_DBCONFIG_DEFENSIVE, true)
        .map_err(opened)?;
    if trusted || !defensive {
        return Err(refused(
            "the schema could not be distrusted or the connection made defensive".into(),
        ));
    }
    conn.pragma_update(None, "foreign_keys", true)
        .map_err(opened)?;
    if wal {
        let mode: String = conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))
            .map_err(opened)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(refused(format!(
                "the journal mode stayed {mode:?}: its file system does not support WAL"
            )));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(opened)?;
    }
    let foreign_keys: bool = conn
        .query_row("PRAGMA foreign_keys", [], |row| row.get(0))
        .map_err(opened)?;
    if !foreign_keys {
        return Err(refused("foreign keys could not be enabled".into()));
    }
    conn.set_prepared_statement_cache_capacity(64);
    Ok(())
}

#[cfg(test)]
mod tests {
    /// The engine moves clones of the store into blocking tasks.
    #[test]
    fn the_store_can_be_shared_between_threads() {
        fn shareable<T: Send + Sync + Clone + 'static>() {}
        shareable::<super::Store>();
        fn error_is_sendable<T: Send + Sync + std::error::Error + 'static>() {}
        error_is_sendable::<super::StoreError>();
    }

    /// A file from someone else cannot run its schema's code or have its
    /// schema rewritten: the store's own connection distrusts the schema
    /// and refuses a write to it even with `writable_schema` on.
    #[test]
    fn the_schema_is_not_trusted_and_cannot_be_written() {
        let dir = std::env::temp_dir().join(format!(
            "sift-store-defensive-{}-{}",
            std::process::id(),
            super::now_ms()
        ));
        let store = super::Store::open(dir.join("sift.db")).unwrap();
        let conn = store.lock();
        let trusted: i64 = conn
            .query_row("PRAGMA trusted_schema", [], |row| row.get(0))
            .unwrap();
        assert_eq!(trusted, 0);
        conn.execute_batch("PRAGMA writable_schema=ON").unwrap();
        let refused = conn
            .execute(
                "UPDATE sqlite_schema SET sql = 'CREATE TABLE sessions (x)' WHERE name = 'sessions'",
                [],
            )
            .unwrap_err();
        assert_eq!(
            refused.to_string(),
            "table sqlite_master may not be modified"
        );
        drop(conn);
        drop(store);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
