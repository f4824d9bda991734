//! The schema library and extraction jobs: a job's documents, each one's
//! result as the model gave it, and the user's revisions of those values.
//! Each write is one `BEGIN IMMEDIATE` transaction.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms};

/// Prefix of extraction job ids.
pub const JOB_PREFIX: &str = "job_";

/// One version of a named schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SchemaVersion {
    pub name: String,
    pub version: i64,
    pub schema: Value,
    pub created_at: i64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobStatus {
    Running,
    Completed,
    Cancelled,
    Failed,
    /// Left running by a process that is gone (a crash, `kill -9`);
    /// resumable. Only [`Store::interrupt_owner`] marks a job so.
    Interrupted,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
            Self::Interrupted => "interrupted",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "running" => Self::Running,
            "completed" => Self::Completed,
            "cancelled" => Self::Cancelled,
            "failed" => Self::Failed,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DocumentStatus {
    Pending,
    Completed,
    Failed,
}

impl DocumentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "pending" => Self::Pending,
            "completed" => Self::Completed,
            "failed" => Self::Failed,
            _ => return None,
        })
    }
}

/// An extraction job: files × one schema version × models.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractionJob {
    pub id: String,
    pub schema_name: String,
    pub schema_version: i64,
    /// The schema as it was when the job was created.
    pub schema: Value,
    pub prompt: String,
    /// The models, in fallback order (a JSON array).
    pub models: Value,
    pub status: JobStatus,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    /// The OCR languages the job was started with, when it named its own
    /// (a resume and a revision read in them too).
    pub ocr_languages: Option<Vec<String>>,
    /// How its answers are made (`free`, `grounded`, `located`, `hybrid`); `None`
    /// for a job from before answers had a mode (they were free).
    pub answers: Option<String>,
}

/// A job to create: its documents are given by path, in order.
#[derive(Debug, Clone)]
pub struct NewExtractionJob {
    pub schema_name: String,
    pub schema_version: i64,
    pub prompt: String,
    pub models: Value,
    pub paths: Vec<String>,
}

/// One document of a job and its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractionDocument {
    pub job_id: String,
    /// 0-based, in the job's file order.
    pub position: i64,
    pub path: String,
    pub status: DocumentStatus,
    /// The model's values.
    pub values: Option<Value>,
    pub error: Option<String>,
    pub error_category: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// The structured call (and its transcript) behind the values.
    pub call_id: Option<String>,
    pub updated_at: i64,
    /// Where each of the model's values was found in the document (core's
    /// `evidence`, as JSON); `None` until completed, and for rows written
    /// before evidence was kept.
    pub evidence: Option<Value>,
    /// What the evidence was found in: the document's read fingerprint
    /// (its bytes and OCR settings), to tell when it is stale.
    pub evidence_source: Option<String>,
}

/// A document's result, as written when its call finishes.
#[derive(Debug, Clone)]
pub struct DocumentResult {
    pub status: DocumentStatus,
    pub values: Option<Value>,
    pub error: Option<String>,
    pub error_category: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub call_id: Option<String>,
    /// Where the values were found, written with them, and what in.
    pub evidence: Option<Value>,
    pub evidence_source: Option<String>,
}

/// A user's correction of a document's values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExtractionRevision {
    pub id: i64,
    pub job_id: String,
    pub position: i64,
    pub values: Value,
    /// Where the revised values were found in the document.
    pub evidence: Option<Value>,
    pub created_at: i64,
}

/// An error unless the job has a document at `position`.
pub(crate) fn require_document(conn: &Connection, job_id: &str, position: i64) -> Result<()> {
    let exists: Option<i64> = conn
        .query_row(
            "SELECT 1 FROM extraction_documents WHERE job_id = ?1 AND position = ?2",
            params![job_id, position],
            |row| row.get(0),
        )
        .optional()?;
    match exists {
        Some(_) => Ok(()),
        None => Err(StoreError::Invalid(format!(
            "no document {position} in job {job_id}"
        ))),
    }
}

fn json_text(value: &Value, what: &'static str) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Json { what, source })
}

fn json_column(row: &Row<'_>, index: usize) -> rusqlite::Result<Value> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn optional_json_column(row: &Row<'_>, index: usize) -> rusqlite::Result<Option<Value>> {
    let text: Option<String> = row.get(index)?;
    text.map(|text| {
        serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                index,
                rusqlite::types::Type::Text,
                Box::new(e),
            )
        })
    })
    .transpose()
}

fn bad_text(index: usize, text: &str) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(
        index,
        rusqlite::types::Type::Text,
        format!("unknown status {text:?}").into(),
    )
}

fn unsigned(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    let n: i64 = row.get(index)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

fn tokens(n: u64) -> Result<i64> {
    i64::try_from(n).map_err(|_| StoreError::Invalid(format!("token count {n} is too large")))
}

const JOB_COLUMNS: &str = "id, schema_name, schema_version, schema, prompt, models, status, \
                           created_at, finished_at, ocr_languages, interrupted_at, answers";

fn job_from_row(row: &Row<'_>) -> rusqlite::Result<ExtractionJob> {
    let status: String = row.get(6)?;
    Ok(ExtractionJob {
        id: row.get(0)?,
        schema_name: row.get(1)?,
        schema_version: row.get(2)?,
        schema: json_column(row, 3)?,
        prompt: row.get(4)?,
        models: json_column(row, 5)?,
        status: match JobStatus::parse(&status).ok_or_else(|| bad_text(6, &status))? {
            JobStatus::Running if row.get::<_, Option<i64>>(10)?.is_some() => {
                JobStatus::Interrupted
            }
            status => status,
        },
        created_at: row.get(7)?,
        finished_at: row.get(8)?,
        ocr_languages: optional_json_column(row, 9)?.and_then(|v| serde_json::from_value(v).ok()),
        answers: row.get(11)?,
    })
}

pub(crate) const DOCUMENT_COLUMNS: &str = "job_id, position, path, status, \"values\", error, \
                                error_category, input_tokens, output_tokens, call_id, updated_at, evidence, \
                                evidence_source";

pub(crate) fn document_from_row(row: &Row<'_>) -> rusqlite::Result<ExtractionDocument> {
    let status: String = row.get(3)?;
    Ok(ExtractionDocument {
        job_id: row.get(0)?,
        position: row.get(1)?,
        path: row.get(2)?,
        status: DocumentStatus::parse(&status).ok_or_else(|| bad_text(3, &status))?,
        values: optional_json_column(row, 4)?,
        error: row.get(5)?,
        error_category: row.get(6)?,
        input_tokens: unsigned(row, 7)?,
        output_tokens: unsigned(row, 8)?,
        call_id: row.get(9)?,
        updated_at: row.get(10)?,
        evidence: optional_json_column(row, 11)?,
        evidence_source: row.get(12)?,
    })
}

fn schema_from_row(row: &Row<'_>) -> rusqlite::Result<SchemaVersion> {
    Ok(SchemaVersion {
        name: row.get(0)?,
        version: row.get(1)?,
        schema: json_column(row, 2)?,
        created_at: row.get(3)?,
    })
}

fn latest_schema(conn: &Connection, name: &str) -> Result<Option<SchemaVersion>> {
    Ok(conn
        .prepare_cached(
            "SELECT name, version, schema, created_at FROM schemas WHERE name = ?1 \
             ORDER BY version DESC LIMIT 1",
        )?
        .query_row([name], schema_from_row)
        .optional()?)
}

fn read_job(conn: &Connection, id: &str) -> Result<Option<ExtractionJob>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {JOB_COLUMNS} FROM extraction_jobs WHERE id = ?1"
        ))?
        .query_row([id], job_from_row)
        .optional()?)
}

impl Store {
    /// Saves `schema` under `name` and returns its version: the latest
    /// version when the schema is the same JSON as it, else a new one
    /// (1 for a new name).
    pub fn save_schema(&self, name: &str, schema: &Value) -> Result<i64> {
        if name.is_empty() {
            return Err(StoreError::Invalid("a schema needs a name".into()));
        }
        if !schema.is_object() {
            return Err(StoreError::Invalid("a schema must be a JSON object".into()));
        }
        let text = json_text(schema, "schema")?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let latest = latest_schema(&tx, name)?;
        let version = match latest {
            Some(latest) if &latest.schema == schema => latest.version,
            latest => {
                let version = latest.map_or(1, |l| l.version + 1);
                tx.execute(
                    "INSERT INTO schemas (name, version, schema, created_at) \
                     VALUES (?1, ?2, ?3, ?4)",
                    params![name, version, text, now_ms()],
                )?;
                version
            }
        };
        tx.commit()?;
        Ok(version)
    }

    /// A version of a named schema, or its latest with `None`.
    pub fn get_schema(&self, name: &str, version: Option<i64>) -> Result<Option<SchemaVersion>> {
        let conn = self.lock();
        match version {
            None => latest_schema(&conn, name),
            Some(version) => Ok(conn
                .prepare_cached(
                    "SELECT name, version, schema, created_at FROM schemas \
                     WHERE name = ?1 AND version = ?2",
                )?
                .query_row(params![name, version], schema_from_row)
                .optional()?),
        }
    }

    /// The latest version of every schema, by name.
    pub fn list_schemas(&self) -> Result<Vec<SchemaVersion>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT name, version, schema, created_at FROM schemas s \
             WHERE version = (SELECT MAX(version) FROM schemas WHERE name = s.name) \
             ORDER BY name",
        )?;
        let rows = stmt
            .query_map([], schema_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Creates a running job and its pending documents, in one
    /// transaction. The job keeps a snapshot of the schema version.
    pub fn create_extraction_job(&self, new: NewExtractionJob) -> Result<ExtractionJob> {
        if !new.models.is_array() {
            return Err(StoreError::Invalid(
                "a job's models must be a JSON array".into(),
            ));
        }
        let models = json_text(&new.models, "job models")?;
        let id = new_id(JOB_PREFIX);
        let now = now_ms();
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let schema: String = tx
            .query_row(
                "SELECT schema FROM schemas WHERE name = ?1 AND version = ?2",
                params![new.schema_name, new.schema_version],
                |row| row.get(0),
            )
            .optional()?
            .ok_or_else(|| {
                StoreError::Invalid(format!(
                    "no schema {} version {}",
                    new.schema_name, new.schema_version
                ))
            })?;
        tx.execute(
            "INSERT INTO extraction_jobs (id, schema_name, schema_version, schema, prompt, \
             models, status, created_at, finished_at, owner) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, NULL, ?8)",
            params![
                id,
                new.schema_name,
                new.schema_version,
                schema,
                new.prompt,
                models,
                now,
                self.owner()
            ],
        )?;
        for (position, path) in new.paths.iter().enumerate() {
            tx.execute(
                "INSERT INTO extraction_documents (job_id, position, path, status, updated_at) \
                 VALUES (?1, ?2, ?3, 'pending', ?4)",
                params![id, position as i64, path, now],
            )?;
        }
        let job =
            read_job(&tx, &id)?.ok_or_else(|| StoreError::Invalid(format!("job {id} vanished")))?;
        tx.commit()?;
        Ok(job)
    }

    pub fn get_extraction_job(&self, id: &str) -> Result<Option<ExtractionJob>> {
        read_job(&self.lock(), id)
    }

    /// The newest jobs first, at most `limit` of them.
    pub fn list_extraction_jobs(&self, limit: u32) -> Result<Vec<ExtractionJob>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {JOB_COLUMNS} FROM extraction_jobs ORDER BY created_at DESC, id DESC LIMIT ?1"
        ))?;
        let rows = stmt
            .query_map([limit], job_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// The newest jobs a user ran, at most `limit`: those that hold an
    /// evaluation candidate's results are the Evaluate screen's, not
    /// Extract's history.
    pub fn list_user_jobs(&self, limit: u32) -> Result<Vec<ExtractionJob>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {JOB_COLUMNS} FROM extraction_jobs WHERE id NOT IN \
             (SELECT job_id FROM eval_candidates WHERE job_id IS NOT NULL) \
             ORDER BY created_at DESC, id DESC LIMIT ?1"
        ))?;
        let rows = stmt
            .query_map([limit], job_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Sets a job's status; a status other than running also sets
    /// `finished_at`. Running (a resume) makes this store's owner the
    /// job's; any status clears an interruption.
    pub fn set_job_status(&self, id: &str, status: JobStatus) -> Result<()> {
        if status == JobStatus::Interrupted {
            return Err(StoreError::Invalid(
                "a job is marked interrupted only when its process is gone".into(),
            ));
        }
        let finished = (status != JobStatus::Running).then(now_ms);
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let n = tx.execute(
            "UPDATE extraction_jobs SET status = ?2, finished_at = ?3, interrupted_at = NULL, \
             owner = CASE WHEN ?2 = 'running' THEN ?4 ELSE owner END WHERE id = ?1",
            params![id, status.as_str(), finished, self.owner()],
        )?;
        if n == 0 {
            return Err(StoreError::Invalid(format!("no extraction job {id}")));
        }
        tx.commit()?;
        Ok(())
    }

    /// Records the OCR languages a job was started with.
    pub fn set_job_ocr_languages(&self, id: &str, languages: &[String]) -> Result<()> {
        let text = json_text(&serde_json::json!(languages), "OCR languages")?;
        let n = self.lock().execute(
            "UPDATE extraction_jobs SET ocr_languages = ?2 WHERE id = ?1",
            params![id, text],
        )?;
        if n == 0 {
            return Err(StoreError::Invalid(format!("no extraction job {id}")));
        }
        Ok(())
    }

    /// Records how a job's answers are made (`free`, `grounded`,
    /// `located` or `hybrid`), so that a resume makes them the same way.
    pub fn set_job_answers(&self, id: &str, answers: &str) -> Result<()> {
        let n = self.lock().execute(
            "UPDATE extraction_jobs SET answers = ?2 WHERE id = ?1",
            params![id, answers],
        )?;
        if n == 0 {
            return Err(StoreError::Invalid(format!("no extraction job {id}")));
        }
        Ok(())
    }

    /// A job's documents, by position.
    pub fn extraction_documents(&self, job_id: &str) -> Result<Vec<ExtractionDocument>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {DOCUMENT_COLUMNS} FROM extraction_documents WHERE job_id = ?1 \
             ORDER BY position"
        ))?;
        let rows = stmt
            .query_map([job_id], document_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// One document of a job, by position (`None`: no such document).
    pub fn extraction_document(
        &self,
        job_id: &str,
        position: i64,
    ) -> Result<Option<ExtractionDocument>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {DOCUMENT_COLUMNS} FROM extraction_documents \
             WHERE job_id = ?1 AND position = ?2"
        ))?;
        Ok(stmt
            .query_row(params![job_id, position], document_from_row)
            .optional()?)
    }

    /// Writes one document's result, in one transaction.
    pub fn set_document_result(
        &self,
        job_id: &str,
        position: i64,
        result: DocumentResult,
    ) -> Result<ExtractionDocument> {
        let values = result
            .values
            .as_ref()
            .map(|v| json_text(v, "document values"))
            .transpose()?;
        let evidence = result
            .evidence
            .as_ref()
            .map(|v| json_text(v, "document evidence"))
            .transpose()?;
        let input = tokens(result.input_tokens)?;
        let output = tokens(result.output_tokens)?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let n = tx.execute(
            "UPDATE extraction_documents SET status = ?3, \"values\" = ?4, error = ?5, \
             error_category = ?6, input_tokens = ?7, output_tokens = ?8, call_id = ?9, \
             updated_at = ?10, evidence = ?11, evidence_source = ?12 \
             WHERE job_id = ?1 AND position = ?2",
            params![
                job_id,
                position,
                result.status.as_str(),
                values,
                result.error,
                result.error_category,
                input,
                output,
                result.call_id,
                now_ms(),
                evidence,
                result.evidence_source
            ],
        )?;
        if n == 0 {
            return Err(StoreError::Invalid(format!(
                "no document {position} in job {job_id}"
            )));
        }
        let row = tx
            .prepare_cached(&format!(
                "SELECT {DOCUMENT_COLUMNS} FROM extraction_documents \
                 WHERE job_id = ?1 AND position = ?2"
            ))?
            .query_row(params![job_id, position], document_from_row)?;
        tx.commit()?;
        Ok(row)
    }

    /// Records a user's correction of a document's values.
    pub fn add_extraction_revision(
        &self,
        job_id: &str,
        position: i64,
        values: &Value,
        evidence: Option<&Value>,
    ) -> Result<ExtractionRevision> {
        let text = json_text(values, "revision values")?;
        let evidence_text = evidence
            .map(|v| json_text(v, "revision evidence"))
            .transpose()?;
        let now = now_ms();
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        require_document(&tx, job_id, position)?;
        tx.execute(
            "INSERT INTO extraction_revisions (job_id, position, \"values\", created_at, evidence) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![job_id, position, text, now, evidence_text],
        )?;
        let id = tx.last_insert_rowid();
        tx.commit()?;
        Ok(ExtractionRevision {
            id,
            job_id: job_id.to_owned(),
            position,
            values: values.clone(),
            evidence: evidence.cloned(),
            created_at: now,
        })
    }

    /// A document's revisions, oldest first.
    pub fn extraction_revisions(
        &self,
        job_id: &str,
        position: i64,
    ) -> Result<Vec<ExtractionRevision>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT id, job_id, position, \"values\", created_at, evidence FROM extraction_revisions \
             WHERE job_id = ?1 AND position = ?2 ORDER BY id",
        )?;
        let rows = stmt
            .query_map(params![job_id, position], |row| {
                Ok(ExtractionRevision {
                    id: row.get(0)?,
                    job_id: row.get(1)?,
                    position: row.get(2)?,
                    values: json_column(row, 3)?,
                    created_at: row.get(4)?,
                    evidence: optional_json_column(row, 5)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}
