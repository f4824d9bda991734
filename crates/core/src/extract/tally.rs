//! A job without its rows: how many documents it has, how it stands and
//! how many of its values the documents do not hold, counted by SQLite or
//! a page of rows at a time. The CLI summarises a job of any size from
//! these in the memory of a small one (the window's table is
//! [`super::JobView`]).

use serde::Serialize;
use sift_store::{DocumentTotals, Store};

use super::results::job_result_pages;
use super::table::{JobState, JobTotals, job_of};
use crate::error::CoreError;
use crate::evidence::not_found_count;

/// A job as a caller that does not show its table needs it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct JobTally {
    /// The job's id in the store.
    pub job_id: String,
    /// Its documents, whatever their status.
    pub documents: usize,
    /// Where the job is: running, or how its last run ended.
    pub status: JobState,
    /// The documents counted by status, and their tokens.
    pub totals: JobTotals,
}

impl From<DocumentTotals> for JobTotals {
    fn from(totals: DocumentTotals) -> Self {
        let count = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Self {
            done: count(totals.completed),
            failed: count(totals.failed),
            pending: count(totals.pending),
            input_tokens: totals.input_tokens,
            output_tokens: totals.output_tokens,
        }
    }
}

/// A job's documents counted by status, with their tokens (by SQL
/// aggregate: [`JobTotals::of`] without reading the rows).
pub fn job_totals(store: &Store, job_id: &str) -> Result<JobTotals, CoreError> {
    Ok(store.extraction_document_totals(job_id)?.into())
}

/// The job's size and state, without its rows.
pub fn job_tally(store: &Store, job_id: &str) -> Result<JobTally, CoreError> {
    let job = job_of(store, job_id)?;
    let totals = store.extraction_document_totals(job_id)?;
    Ok(JobTally {
        documents: usize::try_from(totals.documents()).unwrap_or(usize::MAX),
        totals: totals.into(),
        status: job.status.into(),
        job_id: job.id,
    })
}

/// Values that the documents do not hold, over every row (the
/// revision's evidence where a value was revised), checked or not.
pub fn values_not_found(store: &Store, job_id: &str) -> Result<usize, CoreError> {
    let mut not_found = 0;
    for result in job_result_pages(store, job_id)? {
        not_found += not_found_count(&result?.evidence);
    }
    Ok(not_found)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};
    use sift_store::{DocumentResult, DocumentStatus, JobStatus, NewExtractionJob};

    use super::*;

    fn evidence(statuses: &[(&str, &str)]) -> Value {
        Value::Array(
            statuses
                .iter()
                .map(|(key, status)| {
                    json!({"key": key, "status": status, "confidence": null, "places": []})
                })
                .collect(),
        )
    }

    fn completed(found: Value, input_tokens: u64) -> DocumentResult {
        DocumentResult {
            status: DocumentStatus::Completed,
            values: Some(json!({"a": "1", "b": "2"})),
            error: None,
            error_category: None,
            input_tokens,
            output_tokens: 1,
            call_id: None,
            evidence: Some(found),
            evidence_source: None,
        }
    }

    /// The tally and the count of values not found, as the table would
    /// give them, with a revision's evidence winning over the model's.
    #[test]
    fn a_tally_counts_what_the_table_shows_without_its_rows() {
        let store = Store::open_in_memory().unwrap();
        let schema = json!({"type": "object", "properties": {"a": {}, "b": {}}});
        let version = store.save_schema("s", &schema).unwrap();
        let job = store
            .create_extraction_job(NewExtractionJob {
                schema_name: "s".into(),
                schema_version: version,
                prompt: "p".into(),
                models: json!(["m"]),
                paths: (0..300).map(|i| format!("d{i}.txt")).collect(),
            })
            .unwrap();
        let both_missing = evidence(&[("a", "not_found"), ("b", "not_found")]);
        store
            .set_document_result(&job.id, 0, completed(both_missing, 10))
            .unwrap();
        // Beyond the first page of documents.
        let one_missing = evidence(&[("a", "exact"), ("b", "not_found")]);
        store
            .set_document_result(&job.id, 299, completed(one_missing.clone(), 5))
            .unwrap();
        store
            .set_document_result(&job.id, 7, completed(one_missing, 1))
            .unwrap();
        // Revised: its revision's evidence (both found) is the row's.
        let found = evidence(&[("a", "exact"), ("b", "normalised")]);
        store
            .add_extraction_revision(&job.id, 7, &json!({"a": "1", "b": "3"}), Some(&found))
            .unwrap();
        store.set_job_status(&job.id, JobStatus::Failed).unwrap();

        let view = super::super::job_view(&store, &job.id).unwrap();
        let tally = job_tally(&store, &job.id).unwrap();
        assert_eq!(
            tally,
            JobTally {
                job_id: job.id.clone(),
                documents: 300,
                status: JobState::Failed,
                totals: view.totals.clone(),
            }
        );
        assert_eq!(
            (
                tally.totals.done,
                tally.totals.pending,
                tally.totals.input_tokens
            ),
            (3, 297, 16)
        );
        assert_eq!(values_not_found(&store, &job.id).unwrap(), 3);
        let from_rows: usize = view.rows.iter().map(|r| not_found_count(&r.evidence)).sum();
        assert_eq!(from_rows, 3);
        assert_eq!(
            values_not_found(&store, "job_none")
                .unwrap_err()
                .to_string(),
            job_tally(&store, "job_none").unwrap_err().to_string()
        );
    }
}
