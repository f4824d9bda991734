//! Writing a file so that a crash leaves the old one or the new one,
//! never half of either.

use std::ffi::OsString;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::CoreError;

/// Writes `bytes` beside `path` and renames the result over it.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CoreError> {
    let partial = partial_of(path)?;
    std::fs::write(&partial, bytes)
        .and_then(|()| std::fs::rename(&partial, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&partial);
            CoreError::io("write", path, e)
        })
}

/// [`write_atomically`] of what `write` writes a piece at a time (a large
/// export need not be held whole): each piece is buffered to the file
/// beside `path`, which is renamed over it once `write` has succeeded.
/// When it fails, or a piece cannot be written, the partial file is
/// removed and `path` is left as it was.
pub fn write_atomically_with<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn FnMut(&str) -> Result<(), CoreError>) -> Result<T, CoreError>,
) -> Result<T, CoreError> {
    let partial = partial_of(path)?;
    let io_error = |e| CoreError::io("write", path, e);
    let outcome = File::create(&partial).map_err(io_error).and_then(|file| {
        let mut out = BufWriter::new(file);
        let written = write(&mut |piece: &str| out.write_all(piece.as_bytes()).map_err(io_error))?;
        out.into_inner()
            .map_err(|e| e.into_error())
            .and_then(|_file| std::fs::rename(&partial, path))
            .map_err(io_error)?;
        Ok(written)
    });
    if outcome.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    outcome
}

/// `.NAME.partial` beside `path`.
fn partial_of(path: &Path) -> Result<PathBuf, CoreError> {
    let name = path
        .file_name()
        .ok_or_else(|| CoreError::Usage(format!("{} names no file", path.display())))?;
    let mut partial_name = OsString::from(".");
    partial_name.push(name);
    partial_name.push(".partial");
    Ok(path.with_file_name(partial_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("sift-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn pieces_are_written_whole_or_the_old_file_stays() {
        let dir = scratch("pieces");
        let path = dir.join("out.csv");
        std::fs::write(&path, "old").unwrap();
        let rows = write_atomically_with(&path, |out| {
            for piece in ["a,b\r\n", "1,2\r\n"] {
                out(piece)?;
            }
            Ok(2)
        })
        .unwrap();
        assert_eq!(rows, 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\r\n1,2\r\n");

        // A failure after some pieces: the file is as it was, no partial.
        let error = write_atomically_with(&path, |out| -> Result<(), CoreError> {
            out("x\r\n")?;
            Err(CoreError::NotFound("no extraction job j".into()))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "no extraction job j");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "a,b\r\n1,2\r\n");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
