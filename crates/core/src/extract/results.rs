//! A job's stored results: each document's values beside the user's
//! latest revision of them, where those values were found in the
//! document, and the fields the user checked.

use serde::Serialize;
use serde_json::Value;
use sift_store::{ExtractionDocument, Store};

use crate::error::CoreError;
use crate::evidence::FieldEvidence;

/// One document's result with the user's latest revision.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JobResult {
    /// The document's stored row: its status, the model's values, error and token counts.
    pub document: ExtractionDocument,
    /// The latest revision's values, if the user corrected the model's.
    pub revised: Option<Value>,
    /// Top-level fields whose revised value differs from the model's.
    pub changed: Vec<String>,
    /// Where the values to use were found: the revision's when there is
    /// one (empty for rows written before evidence was kept).
    pub evidence: Vec<FieldEvidence>,
    /// Evidence keys of the fields the user checked.
    pub checked: Vec<String>,
}

impl JobResult {
    /// The values to use: the revision's when there is one.
    pub fn values(&self) -> Option<&Value> {
        self.revised.as_ref().or(self.document.values.as_ref())
    }
}

/// Records a user's correction of a document's values, with where the
/// corrected values were found.
pub fn revise_value(
    store: &Store,
    job_id: &str,
    position: i64,
    values: &Value,
    evidence: Option<&[FieldEvidence]>,
) -> Result<(), CoreError> {
    let evidence = evidence
        .map(serde_json::to_value)
        .transpose()
        .map_err(|e| CoreError::Internal(format!("evidence cannot be written: {e}")))?;
    store.add_extraction_revision(job_id, position, values, evidence.as_ref())?;
    Ok(())
}

/// A job's rows, by position: the model's values, the latest revision's
/// and the names of the fields the revision changed.
pub fn job_results(store: &Store, job_id: &str) -> Result<Vec<JobResult>, CoreError> {
    if store.get_extraction_job(job_id)?.is_none() {
        return Err(CoreError::NotFound(format!("no extraction job {job_id}")));
    }
    store
        .extraction_documents(job_id)?
        .into_iter()
        .map(|document| with_revision(store, job_id, document))
        .collect()
}

/// A job's rows as [`job_results`] gives them, read a page of documents
/// at a time: a caller that goes over a large job (an export, the CLI's
/// summary) holds one page, not the job.
pub fn job_result_pages(
    store: &Store,
    job_id: &str,
) -> Result<impl Iterator<Item = Result<JobResult, CoreError>>, CoreError> {
    if store.get_extraction_job(job_id)?.is_none() {
        return Err(CoreError::NotFound(format!("no extraction job {job_id}")));
    }
    let (store, job_id) = (store.clone(), job_id.to_owned());
    Ok(store
        .extraction_document_pages(&job_id)
        .map(move |document| with_revision(&store, &job_id, document?)))
}

/// One document's result (as in [`job_results`]), read alone: a caller
/// that follows a job document by document need not read them all.
pub fn job_result(store: &Store, job_id: &str, position: i64) -> Result<JobResult, CoreError> {
    // One row, not the job's every row: a job's events ask for each of
    // its documents in turn.
    let document = store
        .extraction_document(job_id, position)?
        .ok_or_else(|| CoreError::NotFound(format!("job {job_id} has no document {position}")))?;
    with_revision(store, job_id, document)
}

fn with_revision(
    store: &Store,
    job_id: &str,
    document: ExtractionDocument,
) -> Result<JobResult, CoreError> {
    let revision = store.extraction_revisions(job_id, document.position)?.pop();
    let evidence = match &revision {
        Some(r) => r.evidence.as_ref(),
        None => document.evidence.as_ref(),
    };
    // Evidence that does not read as this build's (an older row) is shown
    // as none rather than failing the whole table.
    let evidence = evidence
        .and_then(|e| serde_json::from_value(e.clone()).ok())
        .unwrap_or_default();
    let revised = revision.map(|r| r.values);
    let changed = match &revised {
        Some(revised) => changed_fields(document.values.as_ref(), revised),
        None => Vec::new(),
    };
    let checked = store.checked_fields(job_id, document.position)?;
    Ok(JobResult {
        document,
        revised,
        changed,
        evidence,
        checked,
    })
}

/// Top-level fields that differ, in the revision's order then the
/// model's.
fn changed_fields(model: Option<&Value>, revised: &Value) -> Vec<String> {
    let empty = serde_json::Map::new();
    let model = model.and_then(Value::as_object).unwrap_or(&empty);
    let revised = revised.as_object().unwrap_or(&empty);
    let mut names: Vec<String> = revised
        .iter()
        .filter(|(k, v)| model.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect();
    names.extend(model.keys().filter(|k| !revised.contains_key(*k)).cloned());
    names
}
