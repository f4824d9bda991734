//! A job's table as the window shows it: its rows (one per document,
//! the model's values and the user's revision), its columns (the schema's
//! leaves, named as the CSV names them) and totals; revising one field.

use serde::Serialize;
use serde_json::Value;
use sift_store::{DocumentStatus, ExtractionDocument, ExtractionJob, JobStatus, Store};

use sift_documents::ReadOptions;

use super::results::{JobResult, job_result, job_results, revise_value};
use crate::error::CoreError;
use crate::evidence::{EvidenceStatus, FieldEvidence, locate_in_file};
use crate::extract::export::schema_columns;

/// Where a job is: running, or how its last run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum JobState {
    /// Its documents are being called now.
    Running,
    /// Every document completed.
    Completed,
    /// Stopped by the user with documents still pending; resumable.
    Cancelled,
    /// Some documents failed, or the run stopped on an error that is not one document's.
    Failed,
    /// Cut short by a crash of the process that ran it; resumable.
    Interrupted,
}

impl From<JobStatus> for JobState {
    fn from(status: JobStatus) -> Self {
        match status {
            JobStatus::Running => Self::Running,
            JobStatus::Completed => Self::Completed,
            JobStatus::Cancelled => Self::Cancelled,
            JobStatus::Failed => Self::Failed,
            JobStatus::Interrupted => Self::Interrupted,
        }
    }
}

/// Where one document of a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum RowStatus {
    /// Not called yet (or its call is running: see the `started` event).
    Pending,
    /// Its call gave values, stored as its result.
    Completed,
    /// Its call ended without values; `error` says why.
    Failed,
}

impl From<DocumentStatus> for RowStatus {
    fn from(status: DocumentStatus) -> Self {
        match status {
            DocumentStatus::Pending => Self::Pending,
            DocumentStatus::Completed => Self::Completed,
            DocumentStatus::Failed => Self::Failed,
        }
    }
}

/// One document of a job: a row of the table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct JobRow {
    /// 0-based, in the job's file order; a row's identity in the job.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub position: i64,
    /// The document's path, as the job recorded it.
    pub path: String,
    /// The file's name without its folder.
    pub file_name: String,
    /// Whether the document has been called yet, and how its call ended.
    pub status: RowStatus,
    /// The values to show and export: the latest revision's, else the
    /// model's. `null` until completed.
    pub values: Option<Value>,
    /// The model's values as it gave them.
    pub model_values: Option<Value>,
    /// Top-level fields whose value the user changed.
    pub changed: Vec<String>,
    /// Why the document failed; `None` unless it did.
    pub error: Option<String>,
    /// The error's code (`auth`, `network`, `document`, ...).
    pub error_code: Option<String>,
    /// The input tokens of the document's call (what the model read); 0 until it ran.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// The output tokens of the document's call (what the model wrote); 0 until it ran.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    /// The structured call behind the values: its transcript is
    /// `callTranscript(callId)` (or `sift calls show ID`).
    pub call_id: Option<String>,
    /// Where each value shown was found in the document (the revision's
    /// when revised), one entry per leaf value; empty until completed.
    pub evidence: Vec<FieldEvidence>,
    /// Evidence keys of the fields the user checked.
    pub checked: Vec<String>,
}

impl JobRow {
    /// Values not found in the document, or that a consistency check
    /// found wrong, that the user has not checked.
    pub fn needs_review(&self) -> usize {
        self.evidence
            .iter()
            .filter(|e| {
                (e.status == EvidenceStatus::NotFound || !e.problems.is_empty())
                    && !self.checked.contains(&e.key)
            })
            .count()
    }
}

impl From<JobResult> for JobRow {
    fn from(result: JobResult) -> Self {
        let values = result.values().cloned();
        let d = result.document;
        Self {
            position: d.position,
            file_name: std::path::Path::new(&d.path)
                .file_name()
                .map_or_else(|| d.path.clone(), |n| n.to_string_lossy().into_owned()),
            path: d.path,
            status: d.status.into(),
            values,
            model_values: d.values,
            changed: result.changed,
            error: d.error,
            error_code: d.error_category,
            input_tokens: d.input_tokens,
            output_tokens: d.output_tokens,
            call_id: d.call_id,
            evidence: result.evidence,
            checked: result.checked,
        }
    }
}

/// A column of the table: a leaf of the schema, as the CSV names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Column {
    /// `a.b` for a nested field, as the CSV header.
    pub key: String,
    /// The property names from the top.
    pub path: Vec<String>,
    /// The field's JSON type (`string`, `number`, `integer`, `boolean`,
    /// `array`, `object`), or `""` when the schema gives none.
    pub field_type: String,
}

/// Totals over a job's documents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct JobTotals {
    /// Documents completed.
    pub done: u32,
    /// Documents whose call failed.
    pub failed: u32,
    /// Documents without a result yet (not called, or their call is running).
    pub pending: u32,
    /// Input tokens over every document's call.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// Output tokens over every document's call.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
}

/// A job with its table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    /// The job's id in the store.
    pub job_id: String,
    /// The library schema the job runs with, by name.
    pub schema_name: String,
    /// The version of that schema the job runs with.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub schema_version: i64,
    /// The schema the job runs with.
    pub schema: Value,
    /// The models the job runs with, in the order they are tried.
    pub models: Vec<String>,
    /// Where the job is: running, or how its last run ended.
    pub status: JobState,
    /// The table's columns: the schema's leaves, in the schema's order.
    pub columns: Vec<Column>,
    /// One row per document, in the job's file order.
    pub rows: Vec<JobRow>,
    /// The documents counted by status, and their tokens.
    pub totals: JobTotals,
    /// Values not found in their documents, or that a consistency check
    /// found wrong, that the user has not checked, over every row ("7
    /// values need a look").
    pub needs_review: u32,
    /// When the job was created, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    /// When the job's last run ended, in milliseconds since the Unix epoch; `None` while
    /// it runs or after it was cut short.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub finished_at: Option<i64>,
}

fn field_type(schema: &Value, path: &[String]) -> String {
    let mut node = schema;
    for name in path {
        match node.get("properties").and_then(|p| p.get(name.as_str())) {
            Some(next) => node = next,
            None => return String::new(),
        }
    }
    match node.get("type") {
        Some(Value::String(t)) => t.clone(),
        // ["string", "null"]: the non-null one.
        Some(Value::Array(types)) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    }
}

fn columns(schema: &Value) -> Vec<Column> {
    schema_columns(schema)
        .into_iter()
        .map(|path| Column {
            key: path.join("."),
            field_type: field_type(schema, &path),
            path,
        })
        .collect()
}

impl JobTotals {
    /// The one count of a job's documents by status, and their tokens:
    /// the table's, the list's, a run's summary and the CLI's line.
    pub fn of<'a>(documents: impl IntoIterator<Item = &'a ExtractionDocument>) -> Self {
        let mut totals = Self::default();
        for d in documents {
            match d.status {
                DocumentStatus::Completed => totals.done += 1,
                DocumentStatus::Failed => totals.failed += 1,
                DocumentStatus::Pending => totals.pending += 1,
            }
            totals.input_tokens += d.input_tokens;
            totals.output_tokens += d.output_tokens;
        }
        totals
    }
}

pub(crate) fn job_of(store: &Store, job_id: &str) -> Result<ExtractionJob, CoreError> {
    store
        .get_extraction_job(job_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no extraction job {job_id}")))
}

pub(crate) fn models_of(job: &ExtractionJob) -> Vec<String> {
    serde_json::from_value(job.models.clone()).unwrap_or_default()
}

/// A job with its table: every row, the columns and the totals.
pub fn job_view(store: &Store, job_id: &str) -> Result<JobView, CoreError> {
    let job = job_of(store, job_id)?;
    let results = job_results(store, job_id)?;
    let totals = JobTotals::of(results.iter().map(|r| &r.document));
    let rows: Vec<JobRow> = results.into_iter().map(JobRow::from).collect();
    let needs_review = rows.iter().map(JobRow::needs_review).sum::<usize>();
    Ok(JobView {
        columns: columns(&job.schema),
        totals,
        needs_review: u32::try_from(needs_review).unwrap_or(u32::MAX),
        rows,
        models: models_of(&job),
        job_id: job.id,
        schema_name: job.schema_name,
        schema_version: job.schema_version,
        schema: job.schema,
        status: job.status.into(),
        created_at: job.created_at,
        finished_at: job.finished_at,
    })
}

/// One row of a job's table.
pub fn job_row(store: &Store, job_id: &str, position: i64) -> Result<JobRow, CoreError> {
    Ok(job_result(store, job_id, position)?.into())
}

/// `values` with the field at `path` set to `value` (objects made on the
/// way as needed). A name that is a number indexes an array that is
/// there (`["items", "0", "amount"]`, the evidence key
/// `items[0].amount`).
pub fn with_field(
    values: Option<&Value>,
    path: &[String],
    value: Value,
) -> Result<Value, CoreError> {
    if path.is_empty() {
        return Err(CoreError::Usage(
            "a revision names the field it changes".into(),
        ));
    }
    let not_an_object = || CoreError::Usage(format!("{} is not an object", path.join(".")));
    let mut root = match values {
        Some(Value::Object(map)) => Value::Object(map.clone()),
        _ => Value::Object(serde_json::Map::new()),
    };
    let mut node = &mut root;
    for (depth, name) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        if let Value::Array(items) = node {
            let index: usize = name.parse().map_err(|_| not_an_object())?;
            let len = items.len();
            let item = items.get_mut(index).ok_or_else(|| {
                CoreError::Usage(format!(
                    "{} has {len} items, so no item {index}",
                    path[..depth].join(".")
                ))
            })?;
            if last {
                *item = value;
                return Ok(root);
            }
            node = item;
            continue;
        }
        let map = node.as_object_mut().ok_or_else(not_an_object)?;
        if last {
            map.insert(name.clone(), value);
            return Ok(root);
        }
        let child = map
            .entry(name.clone())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if !child.is_object() && !child.is_array() {
            *child = Value::Object(serde_json::Map::new());
        }
        node = child;
    }
    Ok(root)
}

/// The evidence key of a field's path: `vendor.name`, `items[0].amount`.
pub fn evidence_key(path: &[String]) -> String {
    let mut key = String::new();
    for name in path {
        if !key.is_empty() && name.chars().all(|c| c.is_ascii_digit()) && !name.is_empty() {
            key.push_str(&format!("[{name}]"));
        } else {
            if !key.is_empty() {
                key.push('.');
            }
            key.push_str(name);
        }
    }
    key
}

/// Corrects one field of a completed document (`path`: property names
/// from the top, and item indexes), saved as a revision beside the
/// model's values, with where the corrected values are found in the
/// document (read with `read_options`); the field counts as checked by
/// the user. Returns its row.
pub async fn revise_field(
    store: &Store,
    read_options: &ReadOptions,
    job_id: &str,
    position: i64,
    path: &[String],
    value: Value,
) -> Result<JobRow, CoreError> {
    let current = job_row(store, job_id, position)?;
    if current.status != RowStatus::Completed {
        return Err(CoreError::Usage(
            "only a completed document's values can be corrected".into(),
        ));
    }
    let values = with_field(current.values.as_ref(), path, value)?;
    let key = evidence_key(path);
    let job = job_of(store, job_id)?;
    // Read as the job read it: in its own OCR languages, when it had them.
    let mut read_options = read_options.clone();
    if let Some(languages) = job.ocr_languages.filter(|l| !l.is_empty()) {
        read_options.ocr.languages = languages;
    }
    let located = locate_in_file(&read_options, &current.path, &job.schema, &values).await;
    let evidence = match located {
        Ok(evidence) => evidence,
        // The file moved or no longer reads: the other fields keep what
        // was found, the corrected one has no evidence.
        Err(_) => current
            .evidence
            .iter()
            .filter(|e| e.key != key)
            .cloned()
            .collect(),
    };
    revise_value(store, job_id, position, &values, Some(&evidence))?;
    store.check_field(job_id, position, &key)?;
    job_row(store, job_id, position)
}

/// Marks one field of a document (its evidence key) as checked by the
/// user; returns its row.
pub fn check_value(
    store: &Store,
    job_id: &str,
    position: i64,
    key: &str,
) -> Result<JobRow, CoreError> {
    let current = job_row(store, job_id, position)?;
    if current.status != RowStatus::Completed {
        return Err(CoreError::Usage(
            "only a completed document's values can be checked".into(),
        ));
    }
    if !current.evidence.iter().any(|e| e.key == key) {
        return Err(CoreError::NotFound(format!(
            "{} has no value {key}",
            current.file_name
        )));
    }
    store.check_field(job_id, position, key)?;
    job_row(store, job_id, position)
}

/// A job in the list of recent ones, to reopen its table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct JobSummary {
    /// The job's id in the store.
    pub job_id: String,
    /// The library schema the job runs with, by name.
    pub schema_name: String,
    /// The version of that schema the job runs with.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub schema_version: i64,
    /// The models the job runs with, in the order they are tried.
    pub models: Vec<String>,
    /// Where the job is: running, or how its last run ended.
    pub status: JobState,
    /// How many documents the job has.
    pub documents: u32,
    /// The documents counted by status, and their tokens.
    pub totals: JobTotals,
    /// When the job was created, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    /// When the job's last run ended, in milliseconds since the Unix epoch; `None` while
    /// it runs or after it was cut short.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub finished_at: Option<i64>,
}

/// The newest jobs first, at most `limit`.
pub fn recent_jobs(store: &Store, limit: u32) -> Result<Vec<JobSummary>, CoreError> {
    store
        .list_user_jobs(limit)?
        .into_iter()
        .map(|job| {
            // Counted by SQLite: no row is read.
            let totals = store.extraction_document_totals(&job.id)?;
            Ok(JobSummary {
                documents: u32::try_from(totals.documents()).unwrap_or(u32::MAX),
                totals: totals.into(),
                models: models_of(&job),
                status: job.status.into(),
                job_id: job.id,
                schema_name: job.schema_name,
                schema_version: job.schema_version,
                created_at: job.created_at,
                finished_at: job.finished_at,
            })
        })
        .collect()
}
