//! How many bytes a workbook's sheets expand to, all together: calamine
//! decompresses each sheet's part when it reads that sheet, so a workbook
//! whose thousand sheets all point at one large part would decompress it
//! a thousand times, which the container's per-part and total bounds
//! (counting each part once) do not see.
//!
//! The sheets' parts are found as calamine finds them: the workbook from
//! `_rels/.rels`, each sheet's relationship id in the workbook, its target
//! in the workbook's relationships, relative to the workbook's folder
//! unless it starts with `/`, and its name matched without regard to case.

use std::collections::HashMap;
use std::io::Cursor;
use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::Event;
use zip::ZipArchive;

use crate::ooxml::attribute;
use crate::{DocumentError, Limits, zipguard};

/// Refuses the workbook when its sheets' parts, each counted once a sheet
/// that points at it, expand past the container's total bound.
pub fn check(
    path: &Path,
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    limits: &Limits,
) -> Result<(), DocumentError> {
    let entries = entries(archive);
    let workbook = relationships(archive, &entries, "_rels/.rels", path, limits)?
        .into_iter()
        .find(|(_, (kind, _))| kind.ends_with("/relationships/officeDocument"))
        .map_or_else(|| "xl/workbook.xml".to_owned(), |(_, (_, target))| target);
    let workbook = workbook.strip_prefix('/').unwrap_or(&workbook).to_owned();
    let (folder, name) = match workbook.rfind('/') {
        Some(i) => workbook.split_at(i + 1),
        None => ("", workbook.as_str()),
    };
    let targets = relationships(
        archive,
        &entries,
        &format!("{folder}_rels/{name}.rels"),
        path,
        limits,
    )?;
    let mut total: u64 = 0;
    for id in sheet_ids(archive, &entries, &workbook, path, limits)? {
        let Some((_, target)) = targets.get(&id) else {
            continue;
        };
        let part = match target.strip_prefix('/') {
            Some(absolute) => absolute.to_owned(),
            None => format!("{folder}{target}"),
        };
        total = total.saturating_add(
            entries
                .get(&part.to_ascii_lowercase())
                .map_or(0, |(_, size)| *size),
        );
        if total > limits.max_zip_total_bytes {
            return Err(DocumentError::bound(
                path,
                format_args!(
                    "its sheets would expand to {total} bytes together (a part counts again for each sheet that points at it), over the limit of {} bytes",
                    limits.max_zip_total_bytes
                ),
            ));
        }
    }
    Ok(())
}

/// Each entry's name as stored and its declared size, by its name in
/// lower case with `/` for `\\` (how calamine looks a part up).
fn entries(archive: &mut ZipArchive<Cursor<&[u8]>>) -> HashMap<String, (String, u64)> {
    let mut entries = HashMap::new();
    for index in 0..archive.len() {
        let Ok(entry) = archive.by_index_raw(index) else {
            continue;
        };
        let Ok(name) = entry.name() else {
            continue;
        };
        let key = name.replace('\\', "/").to_ascii_lowercase();
        entries.insert(key, (name.into_owned(), entry.size()));
    }
    entries
}

/// An entry's XML, bounded like every part; `None` when there is none.
fn part(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    entries: &HashMap<String, (String, u64)>,
    name: &str,
    path: &Path,
    limits: &Limits,
) -> Result<Option<String>, DocumentError> {
    let Some((actual, _)) = entries.get(&name.to_ascii_lowercase()) else {
        return Ok(None);
    };
    Ok(zipguard::read_entry(archive, actual, path, limits)?
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
}

/// A relationships part: each id's type and target.
fn relationships(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    entries: &HashMap<String, (String, u64)>,
    name: &str,
    path: &Path,
    limits: &Limits,
) -> Result<HashMap<String, (String, String)>, DocumentError> {
    let mut out = HashMap::new();
    let Some(xml) = part(archive, entries, name, path, limits)? else {
        return Ok(out);
    };
    let mut reader = Reader::from_str(&xml);
    // A part calamine cannot parse either is left for calamine to refuse.
    while let Ok(event) = reader.read_event() {
        match event {
            Event::Start(ref e) | Event::Empty(ref e)
                if e.local_name().as_ref() == "Relationship" =>
            {
                if let (Some(id), Some(target)) = (attribute(e, "Id"), attribute(e, "Target")) {
                    out.insert(id, (attribute(e, "Type").unwrap_or_default(), target));
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

/// The relationship id of each sheet the workbook lists, in its order.
fn sheet_ids(
    archive: &mut ZipArchive<Cursor<&[u8]>>,
    entries: &HashMap<String, (String, u64)>,
    workbook: &str,
    path: &Path,
    limits: &Limits,
) -> Result<Vec<String>, DocumentError> {
    let mut ids = Vec::new();
    let Some(xml) = part(archive, entries, workbook, path, limits)? else {
        return Ok(ids);
    };
    let mut reader = Reader::from_str(&xml);
    while let Ok(event) = reader.read_event() {
        match event {
            Event::Start(ref e) | Event::Empty(ref e) if e.local_name().as_ref() == "sheet" => {
                // calamine takes the `id` attribute whatever its prefix.
                if let Some(id) = attribute(e, "id") {
                    ids.push(id);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(ids)
}
