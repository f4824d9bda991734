//! The database's folder and file, when Sift creates them, are the
//! user's alone (0700 and 0600 on Unix): they hold every document's
//! extracted values and every chat. SQLite gives its `-wal` and `-shm`
//! files the database file's mode, so they follow. A folder or file that
//! is already there keeps its mode: the user may have shared it on
//! purpose.

use std::io;
use std::path::Path;

/// Creates `folder` and the folders above it that are missing, each
/// private to the user.
pub(crate) fn create_folder(folder: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)
}

/// Creates `file` empty and private to the user, unless it is there
/// already (SQLite takes an empty file for a new database).
pub(crate) fn create_file(file: &Path) -> io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    match options.open(file) {
        Ok(_) => Ok(()),
        // Another process created it first, or it was there: either way
        // it is not ours to change.
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}
