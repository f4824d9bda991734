//! A job's table as the window shows it: its rows (one per document,
//! the model's values and the user's revision), its columns (the schema's
//! leaves, named as the CSV names them) and totals; revising one field.

use serde::Serialize;
use serde_json::Value;
use sift_core::export::schema_columns;
use sift_core::extract::{
    JobResult, job_result, job_results as core_job_results, revise_value as record_revision,
};
use sift_core::store::{DocumentStatus, ExtractionJob, JobStatus, Store};
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum JobState {
    Running,
    Completed,
    Cancelled,
    Failed,
}

impl From<JobStatus> for JobState {
    fn from(status: JobStatus) -> Self {
        match status {
            JobStatus::Running => Self::Running,
            JobStatus::Completed => Self::Completed,
            JobStatus::Cancelled => Self::Cancelled,
            JobStatus::Failed => Self::Failed,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum RowStatus {
    /// Not called yet (or its call is running: see the `started` event).
    Pending,
    Completed,
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
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct JobRow {
    /// 0-based, in the job's file order; a row's identity in the job.
    #[ts(type = "number")]
    pub position: i64,
    pub path: String,
    /// The file's name without its folder.
    pub file_name: String,
    pub status: RowStatus,
    /// The values to show and export: the latest revision's, else the
    /// model's. `null` until completed.
    pub values: Option<Value>,
    /// The model's values as it gave them.
    pub model_values: Option<Value>,
    /// Top-level fields whose value the user changed.
    pub changed: Vec<String>,
    pub error: Option<String>,
    /// The error's code (`auth`, `network`, `document`, ...).
    pub error_code: Option<String>,
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
    /// The structured call behind the values: its transcript is
    /// `callTranscript(callId)` (or `sift calls show ID`).
    pub call_id: Option<String>,
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
        }
    }
}

/// A column of the table: a leaf of the schema, as the CSV names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
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
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct JobTotals {
    pub done: u32,
    pub failed: u32,
    pub pending: u32,
    #[ts(type = "number")]
    pub input_tokens: u64,
    #[ts(type = "number")]
    pub output_tokens: u64,
}

/// A job with its table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct JobView {
    pub job_id: String,
    pub schema_name: String,
    #[ts(type = "number")]
    pub schema_version: i64,
    /// The schema the job runs with.
    pub schema: Value,
    pub models: Vec<String>,
    pub status: JobState,
    pub columns: Vec<Column>,
    pub rows: Vec<JobRow>,
    pub totals: JobTotals,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number | null")]
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

pub(crate) fn columns(schema: &Value) -> Vec<Column> {
    schema_columns(schema)
        .into_iter()
        .map(|path| Column {
            key: path.join("."),
            field_type: field_type(schema, &path),
            path,
        })
        .collect()
}

fn totals(rows: &[JobRow]) -> JobTotals {
    let mut totals = JobTotals::default();
    for row in rows {
        match row.status {
            RowStatus::Completed => totals.done += 1,
            RowStatus::Failed => totals.failed += 1,
            RowStatus::Pending => totals.pending += 1,
        }
        totals.input_tokens += row.input_tokens;
        totals.output_tokens += row.output_tokens;
    }
    totals
}

pub(crate) fn job_of(store: &Store, job_id: &str) -> IpcResult<ExtractionJob> {
    store
        .get_extraction_job(job_id)?
        .ok_or_else(|| IpcError::not_found(format!("no extraction job {job_id}")))
}

pub(crate) fn job_view(store: &Store, job_id: &str) -> IpcResult<JobView> {
    let job = job_of(store, job_id)?;
    let rows: Vec<JobRow> = core_job_results(store, job_id)?
        .into_iter()
        .map(JobRow::from)
        .collect();
    Ok(JobView {
        columns: columns(&job.schema),
        totals: totals(&rows),
        rows,
        job_id: job.id,
        schema_name: job.schema_name,
        schema_version: job.schema_version,
        models: serde_json::from_value(job.models).unwrap_or_default(),
        schema: job.schema,
        status: job.status.into(),
        created_at: job.created_at,
        finished_at: job.finished_at,
    })
}

pub(crate) fn row(store: &Store, job_id: &str, position: i64) -> IpcResult<JobRow> {
    Ok(job_result(store, job_id, position)?.into())
}

/// `values` with the field at `path` set to `value` (objects made on the
/// way as needed).
pub(crate) fn with_field(
    values: Option<&Value>,
    path: &[String],
    value: Value,
) -> IpcResult<Value> {
    let Some((last, parents)) = path.split_last() else {
        return Err(IpcError::usage("a revision names the field it changes"));
    };
    let mut root = match values {
        Some(Value::Object(map)) => Value::Object(map.clone()),
        _ => Value::Object(serde_json::Map::new()),
    };
    let mut node = &mut root;
    for name in parents {
        let map = node
            .as_object_mut()
            .ok_or_else(|| IpcError::usage(format!("{} is not an object", path.join("."))))?;
        let child = map
            .entry(name.clone())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if !child.is_object() {
            *child = Value::Object(serde_json::Map::new());
        }
        node = child;
    }
    node.as_object_mut()
        .ok_or_else(|| IpcError::usage(format!("{} is not an object", path.join("."))))?
        .insert(last.clone(), value);
    Ok(root)
}

/// Records a revision of one field of a document and returns its row.
pub(crate) fn revise(
    store: &Store,
    job_id: &str,
    position: i64,
    path: &[String],
    value: Value,
) -> IpcResult<JobRow> {
    let current = row(store, job_id, position)?;
    if current.status != RowStatus::Completed {
        return Err(IpcError::usage(
            "only a completed document's values can be corrected",
        ));
    }
    let values = with_field(current.values.as_ref(), path, value)?;
    record_revision(store, job_id, position, &values)?;
    row(store, job_id, position)
}

/// A job in the list of recent ones, to reopen its table.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct JobSummary {
    pub job_id: String,
    pub schema_name: String,
    #[ts(type = "number")]
    pub schema_version: i64,
    pub models: Vec<String>,
    pub status: JobState,
    pub documents: u32,
    pub totals: JobTotals,
    #[ts(type = "number")]
    pub created_at: i64,
    #[ts(type = "number | null")]
    pub finished_at: Option<i64>,
}

/// The newest jobs first, at most `limit`.
pub(crate) fn recent_jobs(store: &Store, limit: u32) -> IpcResult<Vec<JobSummary>> {
    store
        .list_extraction_jobs(limit)?
        .into_iter()
        .map(|job| {
            // Totals need the documents only, not their revisions.
            let documents = store.extraction_documents(&job.id)?;
            let mut totals = JobTotals::default();
            for d in &documents {
                match d.status {
                    DocumentStatus::Completed => totals.done += 1,
                    DocumentStatus::Failed => totals.failed += 1,
                    DocumentStatus::Pending => totals.pending += 1,
                }
                totals.input_tokens += d.input_tokens;
                totals.output_tokens += d.output_tokens;
            }
            Ok(JobSummary {
                documents: u32::try_from(documents.len()).unwrap_or(u32::MAX),
                models: serde_json::from_value(job.models).unwrap_or_default(),
                status: job.status.into(),
                totals,
                job_id: job.id,
                schema_name: job.schema_name,
                schema_version: job.schema_version,
                created_at: job.created_at,
                finished_at: job.finished_at,
            })
        })
        .collect()
}
