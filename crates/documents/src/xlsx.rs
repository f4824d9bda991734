//! Excel workbooks (`.xlsx`, `.xlsm`), read with calamine: each sheet
//! introduced by `--- sheet NAME ---`, then a row a line with its cells
//! separated by ` | `.
//!
//! - Numbers are shown as their number format shows them ([`crate::numfmt`]).
//! - Dates are ISO 8601: `2024-03-01` (no time of day), `2024-03-01T08:30:00`,
//!   or `08:30:00` for a time alone; durations as `[h]:mm:ss` (`36:15:00`).
//! - Error cells are shown as Excel shows them: `#DIV/0!`, `#N/A`, ...
//! - Booleans are `TRUE` and `FALSE`.
//! - A merged cell's value is repeated in every cell it covers (regions of
//!   more than 10,000 cells, and regions past 1,000,000 filled cells in
//!   the workbook, keep it in their first cell only); the copies count
//!   towards the character limit as they are made.
//! - Line breaks inside a cell become spaces; empty cells at the end of a
//!   row are dropped; runs of empty rows become one empty line.
//!
//! Cells are read one at a time (never as a dense grid), so a sheet with a
//! cell at `XFD1048576` costs no more than its used cells.

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::Path;

use calamine::{DataRef, Reader, Xlsx};

use crate::docx::{collapse_blank_lines, join_row};
use crate::{DocumentError, Limits, numfmt, sheet_parts, zipguard};

const MAX_MERGE_FILL: u64 = 10_000;
/// Most cells filled from merged regions in one workbook: without it, a
/// few kilobytes of overlapping regions would visit billions of cells.
const MAX_MERGE_FILL_TOTAL: u64 = 1_000_000;

pub fn read(path: &Path, bytes: &[u8], limits: &Limits) -> Result<String, DocumentError> {
    // The container is checked (size bounds, encryption, and what its
    // sheets expand to together) before calamine opens it.
    let mut archive = zipguard::open(path, bytes, limits, "Excel workbook")?;
    sheet_parts::check(path, &mut archive, limits)?;
    drop(archive);
    let corrupt = |e: calamine::XlsxError| {
        match e {
        calamine::XlsxError::Password => DocumentError::Encrypted {
            path: path.to_path_buf(),
            reason: "the Excel workbook is password-protected (encrypted); save it without a password to read it".into(),
        },
        other => DocumentError::corrupt(path, format_args!("not a valid Excel workbook ({other})")),
    }
    };
    let mut workbook: Xlsx<_> = Xlsx::new(Cursor::new(bytes)).map_err(corrupt)?;
    let mut lines: Vec<String> = Vec::new();
    let mut chars = 0usize;
    let mut filled = 0u64;
    let too_much_text = || DocumentError::TooMuchText {
        path: path.to_path_buf(),
        limit: limits.max_chars,
    };
    for name in workbook.sheet_names() {
        let merges = workbook.merge_cells_by_sheet_name(&name).map_err(corrupt)?;
        let mut rows: BTreeMap<u32, BTreeMap<u32, String>> = BTreeMap::new();
        {
            let mut reader = workbook.worksheet_cells_reader(&name).map_err(corrupt)?;
            let formats: Vec<Option<String>> = reader
                .styles()
                .iter()
                .map(|s| s.number_format.as_ref().map(|f| f.format_code.clone()))
                .collect();
            while let Some((cell, style)) = reader.next_cell_with_style_id().map_err(corrupt)? {
                let format = formats
                    .get(style)
                    .and_then(|f| f.as_deref())
                    .unwrap_or("General");
                let shown = show(cell.get_value(), format);
                if shown.is_empty() {
                    continue;
                }
                chars += shown.chars().count();
                if chars > limits.max_chars {
                    return Err(too_much_text());
                }
                let (row, col) = cell.get_position();
                rows.entry(row).or_default().insert(col, shown);
            }
        }
        for region in merges {
            let (r0, c0) = region.start;
            let (r1, c1) = region.end;
            let area =
                (u64::from(r1.saturating_sub(r0)) + 1) * (u64::from(c1.saturating_sub(c0)) + 1);
            if area > MAX_MERGE_FILL || filled + area > MAX_MERGE_FILL_TOTAL {
                continue;
            }
            let Some(value) = rows.get(&r0).and_then(|r| r.get(&c0)).cloned() else {
                continue;
            };
            filled += area;
            let length = value.chars().count();
            for row in r0..=r1 {
                let cells = rows.entry(row).or_default();
                for col in c0..=c1 {
                    if let std::collections::btree_map::Entry::Vacant(slot) = cells.entry(col) {
                        // Counted before the copy is made: the regions'
                        // copies together could otherwise take gigabytes.
                        chars += length;
                        if chars > limits.max_chars {
                            return Err(too_much_text());
                        }
                        slot.insert(value.clone());
                    }
                }
            }
        }
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!("--- sheet {name} ---"));
        let first_col = rows
            .values()
            .filter_map(|r| r.keys().next().copied())
            .min()
            .unwrap_or(0);
        let mut previous: Option<u32> = None;
        for (&row, cells) in &rows {
            if previous.is_some_and(|p| row > p + 1) {
                lines.push(String::new());
            }
            previous = Some(row);
            let last = cells.keys().next_back().copied().unwrap_or(first_col);
            let mut line: Vec<&str> = Vec::with_capacity((last - first_col + 1) as usize);
            for col in first_col..=last {
                line.push(cells.get(&col).map_or("", String::as_str));
            }
            lines.push(join_row(&line));
        }
    }
    Ok(collapse_blank_lines(&lines))
}

fn show(value: &DataRef<'_>, format: &str) -> String {
    match value {
        DataRef::Empty => String::new(),
        DataRef::String(s) => one_line(s),
        DataRef::SharedString(s) => one_line(s),
        DataRef::Int(i) => numfmt::format(*i as f64, format),
        DataRef::Float(f) => numfmt::format(*f, format),
        DataRef::Bool(b) => if *b { "TRUE" } else { "FALSE" }.to_string(),
        DataRef::Error(e) => e.to_string(),
        DataRef::DateTimeIso(s) | DataRef::DurationIso(s) => s.clone(),
        DataRef::DateTime(dt) => {
            if dt.is_duration() {
                let seconds = (dt.as_f64() * 86_400.0).round() as i64;
                let sign = if seconds < 0 { "-" } else { "" };
                let s = seconds.abs();
                return format!("{sign}{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
            }
            match dt.as_datetime() {
                Some(datetime) => {
                    // Rounded to the second: Excel stores times as fractions of a day.
                    let datetime = datetime + chrono_round(datetime);
                    let value = dt.as_f64();
                    if (0.0..1.0).contains(&value) {
                        datetime.format("%H:%M:%S").to_string()
                    } else if datetime.format("%H:%M:%S").to_string() == "00:00:00" {
                        datetime.format("%Y-%m-%d").to_string()
                    } else {
                        datetime.format("%Y-%m-%dT%H:%M:%S").to_string()
                    }
                }
                None => numfmt::general(dt.as_f64()),
            }
        }
    }
}

/// What to add to `datetime` to round it to the nearest second.
fn chrono_round(datetime: chrono::NaiveDateTime) -> chrono::Duration {
    use chrono::Timelike;
    let nanos = i64::from(datetime.nanosecond());
    if nanos >= 500_000_000 {
        chrono::Duration::nanoseconds(1_000_000_000 - nanos)
    } else {
        chrono::Duration::nanoseconds(-nanos)
    }
}

fn one_line(text: &str) -> String {
    if !text.contains(['\n', '\r']) {
        return text.to_string();
    }
    text.split(['\n', '\r'])
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}
