use std::path::PathBuf;

/// Everything the store can fail with. No store function panics on bad
/// input: it returns one of these, and a failed write leaves the database
/// as it was.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot create the database folder {}: {source}", path.display())]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("cannot open the database {}: {source}", path.display())]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },

    /// The database cannot be set up as the store requires (WAL, foreign
    /// keys).
    #[error("cannot set up the database {}: {detail}", path.display())]
    Setup { path: PathBuf, detail: String },

    /// The file was written by a newer Sift: its schema version is higher
    /// than the last migration this build knows. It is left untouched.
    #[error(
        "the database {} has schema version {found}, but this build of Sift knows versions up to {supported}; open it with a newer Sift",
        path.display()
    )]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("migrating the database to schema version {version} failed: {source}")]
    Migration {
        version: i64,
        source: rusqlite::Error,
    },

    /// `SIFT_DB` and `SIFT_DATA_DIR` are unset and the platform has no data
    /// directory.
    #[error("no data directory on this system: set SIFT_DB or SIFT_DATA_DIR")]
    NoDataDir,

    #[error("session {0} not found")]
    SessionNotFound(String),

    /// The input breaks a rule of the store (an empty kind, message parts
    /// that are not a JSON array, a token count too large, ...).
    #[error("invalid input: {0}")]
    Invalid(String),

    /// A [`crate::PendingGuard`] did not hold: the session's suspended turn
    /// is not the one the writer expected (another process resumed it, or a
    /// turn is pending where none was expected). Nothing was written.
    #[error(
        "the suspended turn of session {session_id} changed: expected {}, found {}",
        expected.as_deref().unwrap_or("none"),
        found.as_deref().unwrap_or("none")
    )]
    PendingMismatch {
        session_id: String,
        /// The pending turn id the writer expected, `None` for none.
        expected: Option<String>,
        /// The pending turn id in the database, `None` for none.
        found: Option<String>,
    },

    #[error("JSON of {what}: {source}")]
    Json {
        what: &'static str,
        source: serde_json::Error,
    },

    /// SQLite failed, including a constraint that a write broke (a bad
    /// parent id, a duplicate id) and a stored value the code cannot read.
    #[error("database error: {0}")]
    Sqlite(rusqlite::Error),

    /// The database file could not be written: the disk is full, or the
    /// file (or its file system) is read-only, or the disk failed. The
    /// write was rolled back; what was stored before is intact.
    #[error(
        "cannot write the database {}: {cause}; nothing of this change was stored, and what was stored before is intact",
        path.display()
    )]
    Unwritable {
        path: PathBuf,
        cause: &'static str,
        source: rusqlite::Error,
    },
}

thread_local! {
    /// The database of the store operation running on this thread, set by
    /// `Store::lock`. SQLite's errors do not say which file they are about,
    /// and they become [`StoreError`]s through `?` in every store method;
    /// this lets that one conversion name the file, where a user can act.
    static DATABASE: std::cell::RefCell<Option<std::sync::Arc<PathBuf>>> =
        const { std::cell::RefCell::new(None) };
}

const READ_ONLY: &str =
    "it is read-only (the file, its folder or its file system cannot be written)";

/// Why the database at `path` could not be opened. SQLite says "unable to
/// open database file" both for a missing folder and for a file it may
/// not write (a WAL database needs its `-shm` beside it); the second is
/// told as what it is.
pub(crate) fn open_failure(path: &std::path::Path, source: rusqlite::Error) -> StoreError {
    let cannot_open = matches!(
        source.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen | rusqlite::ErrorCode::ReadOnly)
    );
    let unwritable = path.exists() && std::fs::OpenOptions::new().append(true).open(path).is_err();
    if cannot_open && unwritable {
        StoreError::Unwritable {
            path: path.to_path_buf(),
            cause: READ_ONLY,
            source,
        }
    } else {
        StoreError::Open {
            path: path.to_path_buf(),
            source,
        }
    }
}

pub(crate) fn set_current_database(path: &std::sync::Arc<PathBuf>) {
    DATABASE.with(|current| *current.borrow_mut() = Some(std::sync::Arc::clone(path)));
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        let cause = match error.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DiskFull) => "the disk is full",
            Some(rusqlite::ErrorCode::ReadOnly) => READ_ONLY,
            Some(rusqlite::ErrorCode::SystemIoFailure) => "the disk failed to read or write",
            _ => return StoreError::Sqlite(error),
        };
        match DATABASE.with(|current| current.borrow().clone()) {
            Some(path) => StoreError::Unwritable {
                path: path.as_ref().clone(),
                cause,
                source: error,
            },
            None => StoreError::Sqlite(error),
        }
    }
}

impl StoreError {
    /// Whether the write lock stayed taken by another connection for the
    /// whole [`crate::BUSY_TIMEOUT`]. Nothing was written; the write can
    /// be tried again.
    pub fn is_busy(&self) -> bool {
        let sqlite = match self {
            StoreError::Sqlite(e)
            | StoreError::Open { source: e, .. }
            | StoreError::Unwritable { source: e, .. } => e,
            StoreError::Migration { source, .. } => source,
            _ => return false,
        };
        matches!(
            sqlite.sqlite_error_code(),
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
        )
    }
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;
