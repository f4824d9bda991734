//! The database's folder and file are the user's alone when the store
//! creates them (its WAL file follows the file); a file that was there
//! keeps its mode.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use sift_store::{NewSession, Store};

use crate::TempDir;

/// The permission bits in octal, as `ls` and `chmod` write them.
fn mode(path: &Path) -> String {
    format!(
        "{:o}",
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    )
}

#[test]
fn a_new_database_is_0600_in_folders_made_0700() {
    let dir = TempDir::new("private");
    let data = dir.path().join("data");
    let db = data.join("sift").join("sift.db");

    let store = Store::open(&db).unwrap();
    store.create_session(NewSession::default()).unwrap();

    assert_eq!(mode(&data), "700");
    assert_eq!(mode(&data.join("sift")), "700");
    assert_eq!(mode(&db), "600");
    let wal = data.join("sift").join("sift.db-wal");
    assert_eq!(mode(&wal), "600");
}

#[test]
fn a_database_that_was_there_keeps_its_mode() {
    let dir = TempDir::new("shared");
    let db = dir.db();
    drop(Store::open(&db).unwrap());
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o640)).unwrap();

    drop(Store::open(&db).unwrap());

    assert_eq!(mode(&db), "640");
}
