//! Workflow runs: the file as it ran, its params, and each step's status,
//! output, outputs and conversation. A step's row is written when it
//! starts and again when it ends, each in its own transaction, so a crash
//! loses at most the steps that were running.

use rusqlite::{OptionalExtension, Row, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms};

/// Prefix of workflow run ids.
pub const RUN_PREFIX: &str = "run_";

#[derive(Debug, Clone)]
pub struct NewWorkflowRun {
    /// The workflow file's path, as given. Not its text: a file may hold
    /// a secret in its `env:`, and nothing secret is stored.
    pub file: String,
    /// Values of params named like secrets are masked by the caller.
    pub params: Vec<(String, String)>,
    /// A re-run: the run whose steps it reuses, and the step it starts from.
    pub from_run: Option<String>,
    pub from_step: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowRun {
    pub id: String,
    pub file: String,
    pub params: Vec<(String, String)>,
    /// `running`, `succeeded`, `failed` or `cancelled`.
    pub status: String,
    pub from_run: Option<String>,
    pub from_step: Option<String>,
    pub created_at: i64,
    pub finished_at: Option<i64>,
}

/// One step of a run, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredStep {
    pub run_id: String,
    /// The step's place in the file, from 0.
    pub position: i64,
    pub name: String,
    pub step_id: Option<String>,
    /// `running`, `succeeded`, `failed`, `skipped` or `cancelled`.
    pub status: String,
    pub stdout: String,
    pub stderr: String,
    /// A JSON object.
    pub outputs: Value,
    /// The conversation later steps inherit (a JSON array of messages).
    pub messages: Value,
    pub error: Option<String>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub elapsed_ms: u64,
    /// Copied from the run this one re-ran from.
    pub reused: bool,
    /// Where a chat step's model ran (`openai`, `local`…), and its name.
    pub provider: Option<String>,
    /// The server's host and port, never its URL (which can hold a key).
    pub host: Option<String>,
    pub model: Option<String>,
}

pub(crate) fn json_text(value: &impl Serialize, what: &'static str) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Json { what, source })
}

pub(crate) fn json_column<T: serde::de::DeserializeOwned>(
    row: &Row<'_>,
    index: usize,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    serde_json::from_str(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
    })
}

fn count(n: u64, what: &str) -> Result<i64> {
    i64::try_from(n).map_err(|_| StoreError::Invalid(format!("{what} {n} is too large")))
}

fn unsigned(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    let n: i64 = row.get(index)?;
    Ok(u64::try_from(n).unwrap_or(0))
}

const RUN_COLUMNS: &str = "id, file, params, status, from_run, from_step, created_at, finished_at";
/// Read with the mark of a crash (`interrupted_at`, see migration 5).
const RUN_READ: &str =
    "id, file, params, status, from_run, from_step, created_at, finished_at, interrupted_at";

/// `running` as stored, `interrupted` when its process is known gone.
fn status_column(row: &Row<'_>, status: usize, interrupted_at: usize) -> rusqlite::Result<String> {
    let status: String = row.get(status)?;
    let interrupted = row.get::<_, Option<i64>>(interrupted_at)?.is_some();
    Ok(if interrupted && status == "running" {
        "interrupted".to_owned()
    } else {
        status
    })
}

fn run_from_row(row: &Row<'_>) -> rusqlite::Result<WorkflowRun> {
    Ok(WorkflowRun {
        id: row.get(0)?,
        file: row.get(1)?,
        params: json_column(row, 2)?,
        status: status_column(row, 3, 8)?,
        from_run: row.get(4)?,
        from_step: row.get(5)?,
        created_at: row.get(6)?,
        finished_at: row.get(7)?,
    })
}

const STEP_COLUMNS: &str = "run_id, position, name, step_id, status, stdout, stderr, outputs, \
                            messages, error, input_tokens, output_tokens, elapsed_ms, reused, \
                            provider, host, model";
const STEP_READ: &str = "run_id, position, name, step_id, status, stdout, stderr, outputs, \
                         messages, error, input_tokens, output_tokens, elapsed_ms, reused, \
                         interrupted_at, provider, host, model";

fn step_from_row(row: &Row<'_>) -> rusqlite::Result<StoredStep> {
    Ok(StoredStep {
        run_id: row.get(0)?,
        position: row.get(1)?,
        name: row.get(2)?,
        step_id: row.get(3)?,
        status: status_column(row, 4, 14)?,
        stdout: row.get(5)?,
        stderr: row.get(6)?,
        outputs: json_column(row, 7)?,
        messages: json_column(row, 8)?,
        error: row.get(9)?,
        input_tokens: unsigned(row, 10)?,
        output_tokens: unsigned(row, 11)?,
        elapsed_ms: unsigned(row, 12)?,
        reused: row.get::<_, i64>(13)? == 1,
        provider: row.get(15)?,
        host: row.get(16)?,
        model: row.get(17)?,
    })
}

impl Store {
    /// Records a run that is starting.
    pub fn create_workflow_run(&self, new: &NewWorkflowRun) -> Result<WorkflowRun> {
        let run = WorkflowRun {
            id: new_id(RUN_PREFIX),
            file: new.file.clone(),
            params: new.params.clone(),
            status: "running".to_owned(),
            from_run: new.from_run.clone(),
            from_step: new.from_step.clone(),
            created_at: now_ms(),
            finished_at: None,
        };
        let conn = self.lock();
        conn.execute(
            &format!(
                "INSERT INTO workflow_runs ({RUN_COLUMNS}, owner) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
            ),
            params![
                run.id,
                run.file,
                json_text(&run.params, "params")?,
                run.status,
                run.from_run,
                run.from_step,
                run.created_at,
                run.finished_at,
                self.owner()
            ],
        )?;
        Ok(run)
    }

    /// Writes a step's row, replacing what was there.
    pub fn save_workflow_step(&self, step: &StoredStep) -> Result<()> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            &format!(
                "INSERT OR REPLACE INTO workflow_steps ({STEP_COLUMNS}, updated_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"
            ),
            params![
                step.run_id,
                step.position,
                step.name,
                step.step_id,
                step.status,
                step.stdout,
                step.stderr,
                json_text(&step.outputs, "outputs")?,
                json_text(&step.messages, "messages")?,
                step.error,
                count(step.input_tokens, "input tokens")?,
                count(step.output_tokens, "output tokens")?,
                count(step.elapsed_ms, "elapsed time")?,
                i64::from(step.reused),
                step.provider,
                step.host,
                step.model,
                now_ms()
            ],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Marks a run ended with `status`.
    pub fn finish_workflow_run(&self, id: &str, status: &str) -> Result<()> {
        let changed = self.lock().execute(
            "UPDATE workflow_runs SET status = ?2, finished_at = ?3, interrupted_at = NULL \
             WHERE id = ?1",
            params![id, status, now_ms()],
        )?;
        if changed == 0 {
            return Err(StoreError::Invalid(format!("no workflow run {id}")));
        }
        Ok(())
    }

    pub fn workflow_run(&self, id: &str) -> Result<Option<WorkflowRun>> {
        Ok(self
            .lock()
            .prepare_cached(&format!(
                "SELECT {RUN_READ} FROM workflow_runs WHERE id = ?1"
            ))?
            .query_row(params![id], run_from_row)
            .optional()?)
    }

    /// The most recent runs first, at most `limit`.
    pub fn workflow_runs(&self, limit: u32) -> Result<Vec<WorkflowRun>> {
        let conn = self.lock();
        let mut statement = conn.prepare_cached(&format!(
            "SELECT {RUN_READ} FROM workflow_runs ORDER BY created_at DESC, id DESC LIMIT ?1"
        ))?;
        let runs = statement
            .query_map(params![limit], run_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(runs)
    }

    /// A run's steps in the order of the file.
    pub fn workflow_steps(&self, run_id: &str) -> Result<Vec<StoredStep>> {
        let conn = self.lock();
        let mut statement = conn.prepare_cached(&format!(
            "SELECT {STEP_READ} FROM workflow_steps WHERE run_id = ?1 ORDER BY position"
        ))?;
        let steps = statement
            .query_map(params![run_id], step_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        Ok(steps)
    }
}
