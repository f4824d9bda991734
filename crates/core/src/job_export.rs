//! A job's results as an export file: the rows as [`crate::export`]
//! writes them, with a user's revision winning over the model's values.
//! The app and the CLI write them through [`export_results`].

use std::path::Path;

use serde::{Deserialize, Serialize};
use sift_store::{DocumentStatus, Store};

use crate::error::CoreError;
use crate::export::{ExportRow, to_csv, to_jsonl};
use crate::extract::job_results;
use crate::workspace::Workspace;

/// The format of an export file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    Csv,
    Jsonl,
}

/// A written export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExportReport {
    pub path: String,
    pub rows: u32,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes: u64,
}

/// The job's rows in export order (by position), with where each value
/// was found when `evidence` is set.
pub fn export_rows(
    store: &Store,
    job_id: &str,
    evidence: bool,
) -> Result<Vec<ExportRow>, CoreError> {
    Ok(job_results(store, job_id)?
        .into_iter()
        .map(|r| ExportRow {
            evidence: evidence.then(|| r.evidence.clone()),
            file: r.document.path.clone(),
            status: r.document.status.as_str().to_owned(),
            error: r.document.error.clone(),
            // A failed document exports no values, as the CLI's do.
            values: match r.document.status {
                DocumentStatus::Completed => r.values().cloned(),
                _ => None,
            },
        })
        .collect())
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

/// The export file's text and its number of rows.
pub fn export_job(
    store: &Store,
    job_id: &str,
    format: ExportFormat,
    extras: ExportExtras,
) -> Result<(String, usize), CoreError> {
    let job = store
        .get_extraction_job(job_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no extraction job {job_id}")))?;
    let rows = export_rows(store, job_id, extras.evidence)?;
    let bom = extras.bom;
    let text = match format {
        ExportFormat::Csv => to_csv(&job.schema, &rows, bom),
        ExportFormat::Jsonl => to_jsonl(&rows),
    };
    Ok((text, rows.len()))
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
    ws.grants().check_write(path)?;
    let (text, rows) = export_job(&ws.store()?, job_id, format, extras)?;
    ws.write_file(path, text.as_bytes())?;
    Ok(ExportReport {
        path: path.display().to_string(),
        rows: u32::try_from(rows).unwrap_or(u32::MAX),
        bytes: text.len() as u64,
    })
}
