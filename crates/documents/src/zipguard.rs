//! Zip containers (Word, Excel) opened with their sizes bounded, so that a
//! small file cannot expand into gigabytes (a decompression bomb).

use std::io::{Cursor, Read};
use std::path::Path;

use zip::ZipArchive;

use crate::{DocumentError, Limits};

/// The signature of an OLE compound file: what Office writes for a
/// password-protected document (the encrypted package inside it).
const OLE_SIGNATURE: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// Opens a zip container after checking every entry's declared size.
pub fn open<'a>(
    path: &Path,
    bytes: &'a [u8],
    limits: &Limits,
    what: &str,
) -> Result<ZipArchive<Cursor<&'a [u8]>>, DocumentError> {
    if bytes.starts_with(&OLE_SIGNATURE) {
        return Err(DocumentError::Encrypted {
            path: path.to_path_buf(),
            reason: format!(
                "the {what} is password-protected (encrypted); save it without a password to read it"
            ),
        });
    }
    let mut archive = ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| DocumentError::corrupt(path, format_args!("not a valid {what} ({e})")))?;
    let mut total: u64 = 0;
    for index in 0..archive.len() {
        let entry = archive
            .by_index_raw(index)
            .map_err(|e| DocumentError::corrupt(path, format_args!("not a valid {what} ({e})")))?;
        let size = entry.size();
        if size > limits.max_zip_entry_bytes {
            return Err(DocumentError::bound(
                path,
                format_args!(
                    "its part {} would expand to {size} bytes, over the limit of {} bytes",
                    entry.name().unwrap_or_default(),
                    limits.max_zip_entry_bytes
                ),
            ));
        }
        total = total.saturating_add(size);
    }
    if total > limits.max_zip_total_bytes {
        return Err(DocumentError::bound(
            path,
            format_args!(
                "its parts would expand to {total} bytes, over the limit of {} bytes",
                limits.max_zip_total_bytes
            ),
        ));
    }
    Ok(archive)
}

/// Reads one entry, stopping at the limit whatever size the entry declares.
/// `None` when the archive has no such entry.
pub fn read_entry(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    name: &str,
    path: &Path,
    limits: &Limits,
) -> Result<Option<Vec<u8>>, DocumentError> {
    let entry = match archive.by_name(name) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => return Ok(None),
        Err(e) => {
            return Err(DocumentError::corrupt(
                path,
                format_args!("its part {name} cannot be read ({e})"),
            ));
        }
    };
    let mut out = Vec::with_capacity(entry.size().min(limits.max_zip_entry_bytes) as usize);
    entry
        .take(limits.max_zip_entry_bytes + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            DocumentError::corrupt(path, format_args!("its part {name} cannot be read ({e})"))
        })?;
    if out.len() as u64 > limits.max_zip_entry_bytes {
        return Err(DocumentError::bound(
            path,
            format_args!(
                "its part {name} expands past the limit of {} bytes",
                limits.max_zip_entry_bytes
            ),
        ));
    }
    Ok(Some(out))
}
