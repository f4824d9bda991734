//! A job's results as an export file: the rows as [`crate::extract::export`]
//! writes them, with a user's revision winning over the model's values.
//! The app and the CLI write them through [`export_results`].

use std::path::Path;

use serde::{Deserialize, Serialize};
use sift_store::{DocumentStatus, Store};

use crate::atomic_file::write_atomically_with;
use crate::error::CoreError;
use crate::extract::export::{CsvRecords, ExportRow, jsonl_line, schema_columns};
use crate::extract::{JobResult, job_result_pages};
use crate::workspace::Workspace;

/// The format of an export file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    /// Comma-separated values, one row per document (see [`crate::extract::export`]).
    Csv,
    /// JSON Lines: one object per document, one per line.
    Jsonl,
}

/// A written export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    /// The file written, as the caller gave it.
    pub path: String,
    /// How many documents were written, one row each (a CSV's header not counted).
    pub rows: u32,
    /// The file's size in bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes: u64,
}

fn export_row(r: JobResult, evidence: bool) -> ExportRow {
    // A failed document exports no values, as the CLI's do.
    let values = match r.document.status {
        DocumentStatus::Completed => r.values().cloned(),
        _ => None,
    };
    ExportRow {
        evidence: evidence.then_some(r.evidence),
        file: r.document.path,
        status: r.document.status.as_str().to_owned(),
        error: r.document.error,
        values,
    }
}

/// What an export holds besides the values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExportExtras {
    /// A UTF-8 byte order mark ahead of a CSV (for Excel).
    pub bom: bool,
    /// Where each value was found (`K.page`, `K.found` columns; an
    /// `evidence` object per line).
    pub evidence: bool,
}

/// Hands the export to `out` a line at a time, as its rows are read a
/// page at a time: a job of any size is written in the memory of a small
/// one. Returns the number of rows.
fn write_export(
    store: &Store,
    job_id: &str,
    format: ExportFormat,
    extras: ExportExtras,
    out: &mut dyn FnMut(&str) -> Result<(), CoreError>,
) -> Result<usize, CoreError> {
    let job = store
        .get_extraction_job(job_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no extraction job {job_id}")))?;
    let line_of: Box<dyn Fn(&ExportRow) -> String> = match format {
        ExportFormat::Csv => {
            // Every row carries evidence when asked for, so the columns
            // are there when the job has rows (as `to_csv` finds them).
            let with_evidence =
                extras.evidence && store.extraction_document_totals(job_id)?.documents() > 0;
            let csv = CsvRecords::new(schema_columns(&job.schema), with_evidence);
            out(&csv.header(extras.bom))?;
            Box::new(move |row| csv.record(row))
        }
        ExportFormat::Jsonl => Box::new(jsonl_line),
    };
    let mut rows = 0;
    for result in job_result_pages(store, job_id)? {
        out(&line_of(&export_row(result?, extras.evidence)))?;
        rows += 1;
    }
    Ok(rows)
}

/// Writes the job's results to `path` through the workspace, so that the
/// app writes only a path the user chose in a save dialog (the CLI writes
/// where it is told). `bom` applies to CSV.
pub fn export_results(
    ws: &Workspace,
    job_id: &str,
    format: ExportFormat,
    path: &Path,
    bom: bool,
) -> Result<ExportReport, CoreError> {
    let extras = ExportExtras {
        bom,
        evidence: false,
    };
    export_results_with(ws, job_id, format, path, extras)
}

/// [`export_results`] with evidence when asked for.
pub fn export_results_with(
    ws: &Workspace,
    job_id: &str,
    format: ExportFormat,
    path: &Path,
    extras: ExportExtras,
) -> Result<ExportReport, CoreError> {
    // A path the policy refuses is refused before any work is done.
    let target = ws.grants().check_write(path)?;
    let store = ws.store()?;
    let mut bytes = 0;
    let rows = write_atomically_with(&target, |out| {
        write_export(&store, job_id, format, extras, &mut |piece| {
            bytes += piece.len() as u64;
            out(piece)
        })
    })?;
    Ok(ExportReport {
        path: path.display().to_string(),
        rows: u32::try_from(rows).unwrap_or(u32::MAX),
        bytes,
    })
}
