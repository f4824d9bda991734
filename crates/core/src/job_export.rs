//! A job's results as an export file: the rows as [`crate::export`]
//! writes them, with a user's revision winning over the model's values.

use sift_store::{DocumentStatus, Store};

use crate::error::CoreError;
use crate::export::{ExportRow, to_csv, to_jsonl};
use crate::extract::job_results;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Csv,
    Jsonl,
}

/// The job's rows in export order (by position).
pub fn export_rows(store: &Store, job_id: &str) -> Result<Vec<ExportRow>, CoreError> {
    Ok(job_results(store, job_id)?
        .into_iter()
        .map(|r| ExportRow {
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

/// The export file's text and its number of rows. `bom` applies to CSV.
pub fn export_job(
    store: &Store,
    job_id: &str,
    format: ExportFormat,
    bom: bool,
) -> Result<(String, usize), CoreError> {
    let job = store
        .get_extraction_job(job_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no extraction job {job_id}")))?;
    let rows = export_rows(store, job_id)?;
    let text = match format {
        ExportFormat::Csv => to_csv(&job.schema, &rows, bom),
        ExportFormat::Jsonl => to_jsonl(&rows),
    };
    Ok((text, rows.len()))
}
