//! Writing a file so that a crash leaves the old one or the new one, never
//! half of either: [`sift_documents::write_atomically_with`] (a unique
//! temporary file, synced, renamed, the folder synced) with core's errors.

use std::io::Write;
use std::path::Path;

use crate::error::CoreError;

/// Writes `bytes` as the file at `path`, atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CoreError> {
    sift_documents::write_atomically(path, bytes).map_err(|e| CoreError::io("write", path, e))
}

/// [`write_atomically`] of what `write` writes a piece at a time (a large
/// export need not be held whole). When it fails, or a piece cannot be
/// written, `path` is left as it was.
pub fn write_atomically_with<T>(
    path: &Path,
    write: impl FnOnce(&mut dyn FnMut(&str) -> Result<(), CoreError>) -> Result<T, CoreError>,
) -> Result<T, CoreError> {
    let io_error = |e| CoreError::io("write", path, e);
    sift_documents::write_atomically_with(path, |out: &mut dyn Write| {
        write(&mut |piece: &str| out.write_all(piece.as_bytes()).map_err(io_error))
            .map_err(WriteError::Core)
    })
    .map_err(|e| match e {
        WriteError::Io(e) => io_error(e),
        WriteError::Core(e) => e,
    })
}

/// What stopped a write: the file's own I/O, or `write`'s error.
enum WriteError {
    Io(std::io::Error),
    Core(CoreError),
}

impl From<std::io::Error> for WriteError {
    fn from(error: std::io::Error) -> Self {
        Self::Io(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_written_whole_or_the_old_file_stays_with_the_error_given() {
        let dir = std::env::temp_dir().join(format!("sift-core-atomic-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
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
