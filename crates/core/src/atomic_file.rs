//! Writing a file so that a crash leaves the old one or the new one,
//! never half of either.

use std::path::Path;

use crate::error::CoreError;

/// Writes `bytes` beside `path` and renames the result over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CoreError> {
    let name = path
        .file_name()
        .ok_or_else(|| CoreError::Usage(format!("{} names no file", path.display())))?;
    let mut partial_name = std::ffi::OsString::from(".");
    partial_name.push(name);
    partial_name.push(".partial");
    let partial = path.with_file_name(partial_name);
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            CoreError::io("write", path, e)
        })
}
