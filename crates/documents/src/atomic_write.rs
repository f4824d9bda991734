//! Writing a file so that a crash leaves the old one or the new one, never
//! half of either: the bytes go to a temporary file of a unique name in the
//! same folder (two writers never share one), which is synced, renamed
//! over the target, and the folder synced so that the rename itself
//! survives a power cut. Every file Sift writes whole goes through here:
//! core's exports, settings and imported models, and the OCR cache.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::Path;

/// Writes what `write` writes to `path`, atomically. When `write` fails,
/// the temporary file is removed and `path` is left as it was.
pub fn write_atomically_with<T, E: From<io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, E>,
) -> Result<T, E> {
    let folder = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} names no file", path.display()),
        )
    })?;
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(name);
    let temporary = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".partial")
        .tempfile_in(folder)?;
    let mut out = BufWriter::new(temporary);
    // On an error the temporary file is dropped, which deletes it.
    let written = write(&mut out)?;
    let temporary = out.into_inner().map_err(|e| e.into_error())?;
    temporary.as_file().sync_all()?;
    temporary.persist(path).map_err(|e| e.error)?;
    sync_folder(folder)?;
    Ok(written)
}

/// Writes `bytes` to `path`, atomically.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |out| out.write_all(bytes))
}

#[cfg(unix)]
fn sync_folder(folder: &Path) -> io::Result<()> {
    File::open(folder)?.sync_all()
}

/// Windows cannot open a folder as a file; its renames are journalled.
#[cfg(not(unix))]
fn sync_folder(_folder: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sift-atomic-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_write_replaces_the_file_whole_and_leaves_nothing_beside_it() {
        let dir = scratch("whole");
        let path = dir.join("out.csv");
        std::fs::write(&path, "old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(names(&dir), ["out.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_removes_its_temporary() {
        let dir = scratch("failed");
        let path = dir.join("out.csv");
        std::fs::write(&path, "old").unwrap();
        let error = write_atomically_with(&path, |out| -> io::Result<()> {
            out.write_all(b"half")?;
            Err(io::Error::other("stopped"))
        })
        .unwrap_err();
        assert_eq!(error.to_string(), "stopped");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(names(&dir), ["out.csv"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_writers_of_one_file_never_share_a_temporary() {
        // The old fixed `.NAME.partial` let two writers interleave into one
        // temporary file; each now has its own, and the last rename wins whole.
        let dir = scratch("two");
        let path = dir.join("page.json");
        write_atomically_with(&path, |first| -> io::Result<()> {
            first.write_all(b"first")?;
            write_atomically(&path, b"second")?;
            first.write_all(b" still first")
        })
        .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first still first");
        assert_eq!(names(&dir), ["page.json"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
