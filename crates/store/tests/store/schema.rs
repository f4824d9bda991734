//! Opening, migrations, the schema, and where the default file lives.

use std::collections::BTreeMap;
use std::process::Command;

use sift_store::{SCHEMA_VERSION, Store, StoreError, TurnWrite, default_path};

use crate::{TempDir, count, fresh, raw, session, user};

/// Every table and its columns, read from the file.
fn columns(path: &std::path::Path) -> BTreeMap<String, Vec<String>> {
    let conn = raw(path);
    let tables: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    tables
        .into_iter()
        .map(|table| {
            let names: Vec<String> = conn
                .prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
                .unwrap()
                .query_map([&table], |row| row.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            (table, names)
        })
        .collect()
}

fn user_version(path: &std::path::Path) -> i64 {
    raw(path)
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap()
}

#[test]
fn migrates_an_empty_file_and_reopens_without_change() {
    let dir = TempDir::new("migrate");
    let path = dir.path().join("nested").join("folders").join("sift.db");
    let store = Store::open(&path).unwrap();
    assert_eq!(SCHEMA_VERSION, 9);
    assert_eq!(store.schema_version().unwrap(), 9);
    assert_eq!(user_version(&path), 9);
    let journal: String = raw(&path)
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    let schema_before = columns(&path);
    let s = session(&store);
    let committed = store
        .commit_turn(TurnWrite {
            messages: vec![user("hello")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    drop(store);

    for _ in 0..2 {
        let store = Store::open(&path).unwrap();
        assert_eq!(store.schema_version().unwrap(), 9);
        assert_eq!(columns(&path), schema_before);
        assert_eq!(store.messages(&s.id).unwrap(), committed.messages);
        assert_eq!(
            store.get_session(&s.id).unwrap().unwrap(),
            committed.session
        );
    }
}

#[test]
fn refuses_a_newer_schema_and_leaves_the_file_untouched() {
    let (dir, store) = fresh("newer");
    let s = session(&store);
    drop(store);
    raw(&dir.db())
        .pragma_update(None, "user_version", SCHEMA_VERSION + 1)
        .unwrap();
    let schema_before = columns(&dir.db());

    let err = Store::open(dir.db()).unwrap_err();
    match &err {
        StoreError::NewerSchema {
            path,
            found,
            supported,
        } => {
            assert_eq!(path, &dir.db());
            assert_eq!(*found, 10);
            assert_eq!(*supported, 9);
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "the database {} has schema version 10, but this build of Sift knows versions up to 9; open it with a newer Sift",
            dir.db().display()
        )
    );
    assert_eq!(user_version(&dir.db()), 10);
    assert_eq!(columns(&dir.db()), schema_before);
    assert_eq!(count(&dir.db(), "sessions"), 1);
    let id: String = raw(&dir.db())
        .query_row("SELECT id FROM sessions", [], |row| row.get(0))
        .unwrap();
    assert_eq!(id, s.id);
}

#[test]
fn a_file_that_is_not_a_database_is_an_error() {
    let dir = TempDir::new("garbage");
    std::fs::write(
        dir.db(),
        b"this is not a SQLite file, not at all, no header",
    )
    .unwrap();
    let err = Store::open(dir.db()).unwrap_err();
    assert!(
        matches!(&err, StoreError::Open { path, .. } if path == &dir.db()),
        "{err:?}"
    );
    assert!(err.to_string().contains("file is not a database"), "{err}");
}

#[test]
fn an_empty_path_is_an_error() {
    let err = Store::open("").unwrap_err();
    assert!(matches!(err, StoreError::Invalid(_)), "{err:?}");
}

#[test]
fn a_folder_that_cannot_be_created_is_an_error() {
    let dir = TempDir::new("blocked");
    let file = dir.path().join("a-file");
    std::fs::write(&file, b"x").unwrap();
    let err = Store::open(file.join("sub").join("sift.db")).unwrap_err();
    assert!(
        matches!(&err, StoreError::CreateDir { path, .. } if path == &file.join("sub")),
        "{err:?}"
    );
}

#[test]
fn the_schema_is_exactly_this() {
    let (dir, _store) = fresh("columns");
    let expected: BTreeMap<String, Vec<String>> = [
        (
            "sessions",
            &[
                "id",
                "title",
                "system_prompt",
                "model_choice",
                "created_at",
                "updated_at",
            ][..],
        ),
        (
            "messages",
            &[
                "id",
                "session_id",
                "seq",
                "role",
                "parts",
                "metadata",
                "hidden",
                "created_at",
            ][..],
        ),
        (
            "structured_calls",
            &[
                "id",
                "kind",
                "status",
                "request",
                "response",
                "output",
                "input_tokens",
                "output_tokens",
                "error",
                "error_category",
                "metadata",
                "parent_id",
                "session_id",
                "first_seq",
                "last_seq",
                "system_prompt",
                "engine_type",
                "transcript",
                "created_at",
                "finished_at",
            ][..],
        ),
        (
            "pending_turns",
            &["session_id", "id", "transcript", "state", "created_at"][..],
        ),
        (
            "pending_tool_calls",
            &["session_id", "position", "call_id", "name", "arguments"][..],
        ),
        (
            "pending_approvals",
            &[
                "session_id",
                "position",
                "call_id",
                "name",
                "arguments",
                "created_at",
            ][..],
        ),
        ("schemas", &["name", "version", "schema", "created_at"][..]),
        (
            "extraction_jobs",
            &[
                "id",
                "schema_name",
                "schema_version",
                "schema",
                "prompt",
                "models",
                "status",
                "created_at",
                "finished_at",
                "ocr_languages",
                "owner",
                "interrupted_at",
                "answers",
            ][..],
        ),
        (
            "extraction_checks",
            &["job_id", "position", "field", "checked_at"][..],
        ),
        (
            "extraction_documents",
            &[
                "job_id",
                "position",
                "path",
                "status",
                "values",
                "error",
                "error_category",
                "input_tokens",
                "output_tokens",
                "call_id",
                "updated_at",
                "evidence",
                "evidence_source",
            ][..],
        ),
        (
            "extraction_revisions",
            &[
                "id",
                "job_id",
                "position",
                "values",
                "created_at",
                "evidence",
            ][..],
        ),
        (
            "workflow_runs",
            &[
                "id",
                "file",
                "params",
                "status",
                "from_run",
                "from_step",
                "created_at",
                "finished_at",
                "owner",
                "interrupted_at",
            ][..],
        ),
        (
            "workflow_steps",
            &[
                "run_id",
                "position",
                "name",
                "step_id",
                "status",
                "stdout",
                "stderr",
                "outputs",
                "messages",
                "error",
                "input_tokens",
                "output_tokens",
                "elapsed_ms",
                "reused",
                "updated_at",
                "interrupted_at",
                "provider",
                "host",
                "model",
            ][..],
        ),
        (
            "labelled_sets",
            &[
                "name",
                "schema_name",
                "schema_version",
                "fields",
                "source",
                "created_at",
            ][..],
        ),
        (
            "labelled_documents",
            &["set_name", "position", "path", "truth"][..],
        ),
        (
            "eval_runs",
            &[
                "id",
                "set_name",
                "status",
                "concurrency",
                "created_at",
                "finished_at",
            ][..],
        ),
        (
            "eval_candidates",
            &[
                "run_id",
                "position",
                "label",
                "candidate",
                "fingerprint",
                "job_id",
                "reused",
            ][..],
        ),
        (
            "prices",
            &[
                "provider_id",
                "model",
                "input_per_mtok",
                "output_per_mtok",
                "updated_at",
            ][..],
        ),
        (
            "chat_replies",
            &[
                "session_id",
                "prompt",
                "reply",
                "owner",
                "created_at",
                "updated_at",
                "interrupted_at",
            ][..],
        ),
        (
            "workflow_command_consents",
            &["folder", "fingerprint", "allowed_at"][..],
        ),
    ]
    .into_iter()
    .map(|(t, cols)| (t.to_owned(), cols.iter().map(|c| c.to_string()).collect()))
    .collect();
    assert_eq!(columns(&dir.db()), expected);
}

/// Rows never hold credentials or engine configuration: no column is named
/// for one. (Token *counts* are fine; a token *value* is not.)
#[test]
fn no_column_can_hold_a_credential() {
    let (dir, _store) = fresh("credentials");
    let forbidden = [
        "key",
        "secret",
        "password",
        "passwd",
        "credential",
        "token_value",
        "bearer",
        "auth",
        "api",
        "url",
        "endpoint",
        "header",
        "config",
    ];
    let all = columns(&dir.db());
    assert_eq!(all.len(), 20);
    for (table, names) in all {
        for name in names {
            let lower = name.to_lowercase();
            for word in forbidden {
                assert!(
                    !lower.contains(word),
                    "column {table}.{name} looks like it holds a credential or configuration ({word})"
                );
            }
        }
    }
}

/// Runs `default_path_child` in a child process with `vars` (the test
/// cannot change its own environment safely) and asserts its answer.
fn default_path_with(vars: &[(&str, &std::ffi::OsStr)], expected: &std::path::Path) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            "schema::default_path_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env_remove("SIFT_DB")
        .env_remove("SIFT_DATA_DIR")
        .env("SIFT_STORE_EXPECT_PATH", expected);
    for (name, value) in vars {
        command.env(name, value);
    }
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "child failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // The child really ran the test (a filter matching nothing passes).
    assert!(
        String::from_utf8_lossy(&output.stdout).contains("1 passed"),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
}

/// Run in a child process by `default_path_follows_the_environment`; does
/// nothing unless that test started it.
#[test]
fn default_path_child() {
    let Some(expected) = std::env::var_os("SIFT_STORE_EXPECT_PATH") else {
        return;
    };
    assert_eq!(default_path().unwrap(), std::path::PathBuf::from(&expected));
    let store = Store::open_default().unwrap();
    assert_eq!(store.path(), std::path::Path::new(&expected));
    assert!(std::path::Path::new(&expected).is_file());
}

#[test]
fn default_path_follows_the_environment() {
    let dir = TempDir::new("default");
    let file = dir.path().join("explicit").join("my.db");
    let data = dir.path().join("data");
    let xdg = dir.path().join("xdg");
    // SIFT_DB wins over SIFT_DATA_DIR.
    default_path_with(
        &[
            ("SIFT_DB", file.as_os_str()),
            ("SIFT_DATA_DIR", data.as_os_str()),
        ],
        &file,
    );
    // Else SIFT_DATA_DIR/sift.db; an empty SIFT_DB counts as unset.
    default_path_with(
        &[
            ("SIFT_DB", std::ffi::OsStr::new("")),
            ("SIFT_DATA_DIR", data.as_os_str()),
        ],
        &data.join("sift.db"),
    );
    // Else the platform's data directory (XDG_DATA_HOME on Linux) + sift.
    if cfg!(target_os = "linux") {
        default_path_with(
            &[("XDG_DATA_HOME", xdg.as_os_str())],
            &xdg.join("sift").join("sift.db"),
        );
    }
}
