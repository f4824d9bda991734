//! The schema, as an ordered list of migrations. Migration `i` (0-based)
//! takes the database from `PRAGMA user_version = i` to `i + 1`, in one
//! transaction with the version bump, so a crash leaves either version.
//! Never edit a released migration: append a new one.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Result, StoreError};

/// Sift's migrations, oldest first. The schema version of a database is the
/// number of them applied.
pub(crate) const MIGRATIONS: &[&str] = &[
    // 1: sessions, messages, structured calls, suspended turns.
    r#"
CREATE TABLE sessions (
    id            TEXT PRIMARY KEY NOT NULL,
    title         TEXT NOT NULL DEFAULT '',
    system_prompt TEXT,
    model_choice  TEXT,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX sessions_by_update ON sessions (updated_at DESC, id DESC);

CREATE TABLE messages (
    id         TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    role       TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    parts      TEXT NOT NULL CHECK (json_valid(parts) AND json_type(parts) = 'array'),
    metadata   TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    hidden     INTEGER NOT NULL DEFAULT 0 CHECK (hidden IN (0, 1)),
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, seq)
) STRICT;

CREATE TABLE structured_calls (
    id             TEXT PRIMARY KEY NOT NULL,
    kind           TEXT NOT NULL CHECK (kind <> ''),
    status         TEXT NOT NULL CHECK (status IN ('completed', 'failed', 'turn_limited')),
    request        TEXT NOT NULL CHECK (json_valid(request)),
    response       TEXT CHECK (response IS NULL OR json_valid(response)),
    output         TEXT CHECK (output IS NULL OR json_valid(output)),
    input_tokens   INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    error          TEXT,
    error_category TEXT,
    metadata       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(metadata)),
    parent_id      TEXT REFERENCES structured_calls (id) ON DELETE SET NULL,
    session_id     TEXT REFERENCES sessions (id) ON DELETE CASCADE,
    first_seq      INTEGER,
    last_seq       INTEGER,
    system_prompt  TEXT,
    engine_type    TEXT,
    transcript     TEXT CHECK (transcript IS NULL OR json_valid(transcript)),
    created_at     INTEGER NOT NULL,
    finished_at    INTEGER NOT NULL,
    CHECK ((first_seq IS NULL) = (last_seq IS NULL)),
    CHECK (first_seq IS NULL OR (session_id IS NOT NULL AND first_seq >= 1 AND first_seq <= last_seq))
) STRICT;
CREATE INDEX structured_calls_by_parent ON structured_calls (parent_id);
CREATE INDEX structured_calls_by_session ON structured_calls (session_id);
CREATE INDEX structured_calls_by_kind ON structured_calls (kind);

CREATE TABLE pending_turns (
    session_id TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    id         TEXT NOT NULL UNIQUE,
    transcript TEXT NOT NULL CHECK (json_valid(transcript)),
    state      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(state)),
    created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE pending_tool_calls (
    session_id TEXT NOT NULL REFERENCES pending_turns (session_id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    call_id    TEXT NOT NULL,
    name       TEXT NOT NULL,
    arguments  TEXT NOT NULL,
    PRIMARY KEY (session_id, call_id),
    UNIQUE (session_id, position)
) STRICT;

CREATE TABLE pending_approvals (
    session_id TEXT NOT NULL REFERENCES pending_turns (session_id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    call_id    TEXT NOT NULL,
    name       TEXT NOT NULL,
    arguments  TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, call_id),
    UNIQUE (session_id, position)
) STRICT;
"#,
    // 2: the schema library and extraction jobs, their documents and the
    // user's revisions of a document's values.
    r#"
CREATE TABLE schemas (
    name       TEXT NOT NULL CHECK (name <> ''),
    version    INTEGER NOT NULL CHECK (version >= 1),
    schema     TEXT NOT NULL CHECK (json_valid(schema) AND json_type(schema) = 'object'),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (name, version)
) STRICT;

CREATE TABLE extraction_jobs (
    id             TEXT PRIMARY KEY NOT NULL,
    schema_name    TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    schema         TEXT NOT NULL CHECK (json_valid(schema)),
    prompt         TEXT NOT NULL,
    models         TEXT NOT NULL CHECK (json_valid(models) AND json_type(models) = 'array'),
    status         TEXT NOT NULL CHECK (status IN ('running', 'completed', 'cancelled', 'failed')),
    created_at     INTEGER NOT NULL,
    finished_at    INTEGER,
    FOREIGN KEY (schema_name, schema_version) REFERENCES schemas (name, version)
) STRICT;

CREATE TABLE extraction_documents (
    job_id         TEXT NOT NULL REFERENCES extraction_jobs (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL CHECK (position >= 0),
    path           TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'failed')),
    "values"       TEXT CHECK ("values" IS NULL OR json_valid("values")),
    error          TEXT,
    error_category TEXT,
    input_tokens   INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    call_id        TEXT REFERENCES structured_calls (id) ON DELETE SET NULL,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (job_id, position)
) STRICT;

CREATE TABLE extraction_revisions (
    id         INTEGER PRIMARY KEY,
    job_id     TEXT NOT NULL,
    position   INTEGER NOT NULL,
    "values"   TEXT NOT NULL CHECK (json_valid("values")),
    created_at INTEGER NOT NULL,
    FOREIGN KEY (job_id, position) REFERENCES extraction_documents (job_id, position) ON DELETE CASCADE
) STRICT;
CREATE INDEX extraction_revisions_by_document ON extraction_revisions (job_id, position, id);
"#,
    // 3: workflow runs and their steps, written as each step ends.
    r#"
CREATE TABLE workflow_runs (
    id          TEXT PRIMARY KEY NOT NULL,
    file        TEXT NOT NULL,
    params      TEXT NOT NULL CHECK (json_valid(params) AND json_type(params) = 'array'),
    status      TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'cancelled')),
    from_run    TEXT REFERENCES workflow_runs (id) ON DELETE SET NULL,
    from_step   TEXT,
    created_at  INTEGER NOT NULL,
    finished_at INTEGER
) STRICT;

CREATE TABLE workflow_steps (
    run_id        TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
    position      INTEGER NOT NULL CHECK (position >= 0),
    name          TEXT NOT NULL,
    step_id       TEXT,
    status        TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'skipped', 'cancelled')),
    stdout        TEXT NOT NULL DEFAULT '',
    stderr        TEXT NOT NULL DEFAULT '',
    outputs       TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(outputs) AND json_type(outputs) = 'object'),
    messages      TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(messages) AND json_type(messages) = 'array'),
    error         TEXT,
    input_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (input_tokens >= 0),
    output_tokens INTEGER NOT NULL DEFAULT 0 CHECK (output_tokens >= 0),
    elapsed_ms    INTEGER NOT NULL DEFAULT 0 CHECK (elapsed_ms >= 0),
    reused        INTEGER NOT NULL DEFAULT 0 CHECK (reused IN (0, 1)),
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (run_id, name)
) STRICT;
"#,
    // 4: evidence (where each value was found in its document) with the
    // model's values and with each revision, the fields a user checked, and
    // a job's own OCR languages.
    r#"
ALTER TABLE extraction_jobs ADD COLUMN ocr_languages TEXT
    CHECK (ocr_languages IS NULL OR (json_valid(ocr_languages) AND json_type(ocr_languages) = 'array'));
ALTER TABLE extraction_documents ADD COLUMN evidence TEXT
    CHECK (evidence IS NULL OR json_valid(evidence));
ALTER TABLE extraction_documents ADD COLUMN evidence_source TEXT;
ALTER TABLE extraction_revisions ADD COLUMN evidence TEXT
    CHECK (evidence IS NULL OR json_valid(evidence));

CREATE TABLE extraction_checks (
    job_id     TEXT NOT NULL,
    position   INTEGER NOT NULL,
    field      TEXT NOT NULL CHECK (field <> ''),
    checked_at INTEGER NOT NULL,
    PRIMARY KEY (job_id, position, field),
    FOREIGN KEY (job_id, position) REFERENCES extraction_documents (job_id, position) ON DELETE CASCADE
) STRICT;
"#,
    // 5: work a crash cut short. A running job, run or chat reply names
    // its owner (the process running it, see `Store::owned_by`); once
    // that process is gone, it is marked interrupted. For jobs, runs and
    // steps the mark is a column beside `status`, which stays 'running':
    // SQLite cannot change a CHECK, and rebuilding the tables would
    // cascade deletes into their documents and steps. The store reads
    // such a row as interrupted. `chat_replies` holds a reply as it
    // streams, with the user's message it answers (neither is in
    // `messages` until the turn commits, which deletes the row).
    r#"
ALTER TABLE extraction_jobs ADD COLUMN owner TEXT;
ALTER TABLE extraction_jobs ADD COLUMN interrupted_at INTEGER;
ALTER TABLE workflow_runs ADD COLUMN owner TEXT;
ALTER TABLE workflow_runs ADD COLUMN interrupted_at INTEGER;
ALTER TABLE workflow_steps ADD COLUMN interrupted_at INTEGER;

CREATE TABLE chat_replies (
    session_id     TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    prompt         TEXT NOT NULL,
    reply          TEXT NOT NULL DEFAULT '',
    owner          TEXT,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    interrupted_at INTEGER
) STRICT;
"#,
    // 6: evaluation. A labelled set is documents with their true values
    // (from a TSV, or from a job the user checked and corrected); an
    // evaluation run is a set against candidates, each of which runs as
    // an extraction job (so it has the engine's concurrency, resume and
    // cancel), reused by a later run whose candidate has the same
    // fingerprint. `prices` is the user's price table; chat and workflow
    // steps gain the model that spent their tokens (a chat reply's model and
    // tokens are in its message's metadata).
    r#"
CREATE TABLE labelled_sets (
    name           TEXT PRIMARY KEY NOT NULL CHECK (name <> ''),
    schema_name    TEXT NOT NULL,
    schema_version INTEGER NOT NULL,
    fields         TEXT NOT NULL CHECK (json_valid(fields) AND json_type(fields) = 'array'),
    source         TEXT NOT NULL,
    created_at     INTEGER NOT NULL,
    FOREIGN KEY (schema_name, schema_version) REFERENCES schemas (name, version)
) STRICT;

CREATE TABLE labelled_documents (
    set_name TEXT NOT NULL REFERENCES labelled_sets (name) ON DELETE CASCADE,
    position INTEGER NOT NULL CHECK (position >= 0),
    path     TEXT NOT NULL,
    truth    TEXT NOT NULL CHECK (json_valid(truth) AND json_type(truth) = 'object'),
    PRIMARY KEY (set_name, position)
) STRICT;

CREATE TABLE eval_runs (
    id          TEXT PRIMARY KEY NOT NULL,
    set_name    TEXT NOT NULL REFERENCES labelled_sets (name) ON DELETE CASCADE,
    status      TEXT NOT NULL CHECK (status IN ('running', 'completed', 'cancelled', 'failed')),
    concurrency INTEGER NOT NULL CHECK (concurrency >= 1),
    created_at  INTEGER NOT NULL,
    finished_at INTEGER
) STRICT;
CREATE INDEX eval_runs_by_set ON eval_runs (set_name, created_at DESC);

CREATE TABLE eval_candidates (
    run_id         TEXT NOT NULL REFERENCES eval_runs (id) ON DELETE CASCADE,
    position       INTEGER NOT NULL CHECK (position >= 0),
    label          TEXT NOT NULL,
    candidate      TEXT NOT NULL CHECK (json_valid(candidate) AND json_type(candidate) = 'object'),
    fingerprint    TEXT NOT NULL,
    job_id         TEXT REFERENCES extraction_jobs (id) ON DELETE SET NULL,
    reused         INTEGER NOT NULL DEFAULT 0 CHECK (reused IN (0, 1)),
    PRIMARY KEY (run_id, position)
) STRICT;
CREATE INDEX eval_candidates_by_fingerprint ON eval_candidates (fingerprint);
CREATE INDEX eval_candidates_by_job ON eval_candidates (job_id);

CREATE TABLE prices (
    provider_id       TEXT NOT NULL,
    model             TEXT NOT NULL CHECK (model <> ''),
    input_per_mtok    REAL NOT NULL CHECK (input_per_mtok >= 0),
    output_per_mtok   REAL NOT NULL CHECK (output_per_mtok >= 0),
    updated_at        INTEGER NOT NULL,
    PRIMARY KEY (provider_id, model)
) STRICT;

ALTER TABLE workflow_steps ADD COLUMN provider TEXT;
ALTER TABLE workflow_steps ADD COLUMN host TEXT;
ALTER TABLE workflow_steps ADD COLUMN model TEXT;
"#,
    // 7: how a job's answers are made (core's `AnswerMode`): free, held
    // to the locator's candidates, or the locator's alone. NULL, for the
    // jobs before it, is free: what they ran.
    r#"
ALTER TABLE extraction_jobs ADD COLUMN answers TEXT
    CHECK (answers IS NULL OR answers IN ('free', 'grounded', 'located'));
"#,
    // 8: the user's consent to a workflow folder's shell commands, by the
    // folder's canonical path and the fingerprint of the commands shown
    // (core's `workflows::consent`): the window runs a folder's commands
    // only once they were shown and allowed.
    r#"
CREATE TABLE workflow_command_consents (
    folder      TEXT NOT NULL CHECK (folder <> ''),
    fingerprint TEXT NOT NULL CHECK (fingerprint <> ''),
    allowed_at  INTEGER NOT NULL,
    PRIMARY KEY (folder, fingerprint)
) STRICT;
"#,
    // 9: a fourth way to make answers, `hybrid` (the locator's best value
    // for each field it found, the model for the rest). SQLite cannot
    // change a column's CHECK, so the column is made again under its name
    // and its values copied; RENAME keeps the old CHECK with the old
    // column, which DROP then takes with it.
    r#"
ALTER TABLE extraction_jobs RENAME COLUMN answers TO answers_before_hybrid;
ALTER TABLE extraction_jobs ADD COLUMN answers TEXT
    CHECK (answers IS NULL OR answers IN ('free', 'grounded', 'located', 'hybrid'));
UPDATE extraction_jobs SET answers = answers_before_hybrid;
ALTER TABLE extraction_jobs DROP COLUMN answers_before_hybrid;
"#,
];

/// The schema version this build writes: the number of migrations.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

fn user_version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.query_row("PRAGMA user_version", [], |row| row.get(0))
}

/// Brings the database up to the last of `migrations` (in Sift,
/// [`MIGRATIONS`], so [`SCHEMA_VERSION`]), one transaction per migration.
/// Each transaction re-reads the version under the write lock, so two
/// processes opening a fresh file at once apply each migration once. A
/// migration that fails leaves the file at the version before it.
pub(crate) fn migrate(conn: &mut Connection, path: &Path, migrations: &[&str]) -> Result<()> {
    let supported = migrations.len() as i64;
    let newer = |found| StoreError::NewerSchema {
        path: path.to_path_buf(),
        found,
        supported,
    };
    let found = user_version(conn)?;
    if found > supported {
        return Err(newer(found));
    }
    if found == supported {
        return Ok(());
    }
    for (index, sql) in migrations.iter().enumerate() {
        let version = index as i64 + 1;
        let failed = |source| StoreError::Migration { version, source };
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(failed)?;
        let current = user_version(&tx).map_err(failed)?;
        if current > supported {
            return Err(newer(current));
        }
        if current >= version {
            continue;
        }
        tx.execute_batch(sql).map_err(failed)?;
        tx.pragma_update(None, "user_version", version)
            .map_err(failed)?;
        tx.commit().map_err(failed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tables(conn: &Connection) -> Vec<String> {
        let mut stmt = conn
            .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
            .unwrap();
        stmt.query_map([], |row| row.get(0))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    #[test]
    fn migrations_apply_in_order_once_each() {
        let mut conn = Connection::open_in_memory().unwrap();
        let path = Path::new(":memory:");
        let list = [
            "CREATE TABLE a (x INTEGER) STRICT;",
            "CREATE TABLE b (y INTEGER) STRICT;",
        ];
        migrate(&mut conn, path, &list[..1]).unwrap();
        assert_eq!(user_version(&conn).unwrap(), 1);
        assert_eq!(tables(&conn), ["a"]);
        migrate(&mut conn, path, &list).unwrap();
        assert_eq!(user_version(&conn).unwrap(), 2);
        assert_eq!(tables(&conn), ["a", "b"]);
        // Again: nothing to do, nothing runs twice.
        migrate(&mut conn, path, &list).unwrap();
        assert_eq!(user_version(&conn).unwrap(), 2);
    }

    #[test]
    fn a_failing_migration_leaves_the_version_before_it() {
        let mut conn = Connection::open_in_memory().unwrap();
        let path = Path::new(":memory:");
        let list = [
            "CREATE TABLE a (x INTEGER) STRICT;",
            "CREATE TABLE b (y INTEGER) STRICT; CREATE TABLE c (z INTEGER) STRICT; NOT SQL;",
        ];
        let err = migrate(&mut conn, path, &list).unwrap_err();
        assert!(
            matches!(err, StoreError::Migration { version: 2, .. }),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .starts_with("migrating the database to schema version 2 failed: ")
        );
        assert_eq!(user_version(&conn).unwrap(), 1);
        assert_eq!(tables(&conn), ["a"]);
    }

    #[test]
    fn a_newer_version_is_refused() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.pragma_update(None, "user_version", 3).unwrap();
        let err = migrate(&mut conn, Path::new("x.db"), &["SELECT 1;", "SELECT 1;"]).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::NewerSchema {
                    found: 3,
                    supported: 2,
                    ..
                }
            ),
            "{err:?}"
        );
        assert_eq!(user_version(&conn).unwrap(), 3);
    }

    #[test]
    fn the_hybrid_migration_keeps_each_jobs_answers_and_accepts_hybrid() {
        let mut conn = Connection::open_in_memory().unwrap();
        let path = Path::new(":memory:");
        migrate(&mut conn, path, &MIGRATIONS[..8]).unwrap();
        conn.execute(
            "INSERT INTO schemas (name, version, schema, created_at) VALUES ('s', 1, '{}', 0)",
            [],
        )
        .unwrap();
        let insert = |conn: &Connection, id: &str, answers: Option<&str>| {
            conn.execute(
                "INSERT INTO extraction_jobs
                   (id, schema_name, schema_version, schema, prompt, models, status, created_at, answers)
                 VALUES (?1, 's', 1, '{}', '', '[]', 'completed', 0, ?2)",
                rusqlite::params![id, answers],
            )
        };
        insert(&conn, "a", Some("located")).unwrap();
        insert(&conn, "b", None).unwrap();
        assert!(insert(&conn, "c", Some("hybrid")).is_err());
        migrate(&mut conn, path, MIGRATIONS).unwrap();
        insert(&conn, "c", Some("hybrid")).unwrap();
        assert!(insert(&conn, "d", Some("guess")).is_err());
        let answers: Vec<(String, Option<String>)> = conn
            .prepare("SELECT id, answers FROM extraction_jobs ORDER BY id")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            answers,
            [
                ("a".to_owned(), Some("located".to_owned())),
                ("b".to_owned(), None),
                ("c".to_owned(), Some("hybrid".to_owned())),
            ]
        );
    }

    #[test]
    fn sift_migrations_end_at_the_schema_version() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn, Path::new(":memory:"), MIGRATIONS).unwrap();
        assert_eq!(user_version(&conn).unwrap(), SCHEMA_VERSION);
    }
}
