//! Labelled sets (documents with their true values), evaluation runs (a
//! set against candidates, each run as an extraction job) and the user's
//! price table.

use std::collections::BTreeMap;

use rusqlite::{OptionalExtension, Row, TransactionBehavior, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::Store;
use crate::error::{Result, StoreError};
use crate::ids::{new_id, now_ms};
use crate::workflow::{json_column, json_text};

/// One document of a set: where it is, and its true value per field
/// (`a.b` for nested objects). A field it has no value for is not scored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledDocument {
    pub path: String,
    pub truth: BTreeMap<String, String>,
}

/// A set as written: its documents in order.
#[derive(Debug, Clone, PartialEq)]
pub struct NewLabelledSet {
    pub name: String,
    pub schema_name: String,
    pub schema_version: i64,
    pub fields: Vec<String>,
    /// Where it came from: `file NAME.tsv` or `job ID`.
    pub source: String,
    pub documents: Vec<LabelledDocument>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LabelledSet {
    pub name: String,
    pub schema_name: String,
    pub schema_version: i64,
    pub fields: Vec<String>,
    pub source: String,
    pub created_at: i64,
    /// How many documents it has (also when `documents` was not read).
    pub document_count: usize,
    pub documents: Vec<LabelledDocument>,
}

/// What a run is, as its row says. A run whose process is gone reads as
/// it was left (`running`): its jobs carry the interruption.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EvalRunStatus {
    Running,
    Completed,
    Cancelled,
    Failed,
}

impl EvalRunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
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

/// A candidate of a run: what it is (`candidate`, the caller's JSON), the
/// fingerprint of everything its results depend on, and the job that
/// holds its results (its own, or an earlier run's when `reused`).
#[derive(Debug, Clone, PartialEq)]
pub struct EvalCandidateRow {
    pub position: i64,
    pub label: String,
    pub candidate: Value,
    pub fingerprint: String,
    pub job_id: Option<String>,
    pub reused: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EvalRunRow {
    pub id: String,
    pub set_name: String,
    pub status: EvalRunStatus,
    /// Documents called at once per candidate, kept so a resume goes on
    /// as the run started.
    pub concurrency: u32,
    pub created_at: i64,
    pub finished_at: Option<i64>,
    pub candidates: Vec<EvalCandidateRow>,
}

/// A price the user set, in their currency per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PriceRow {
    /// A provider id of the settings, or `*` for any provider.
    pub provider_id: String,
    pub model: String,
    pub input_per_mtok: f64,
    pub output_per_mtok: f64,
}

fn set_from_row(row: &Row<'_>) -> rusqlite::Result<LabelledSet> {
    Ok(LabelledSet {
        name: row.get(0)?,
        schema_name: row.get(1)?,
        schema_version: row.get(2)?,
        fields: json_column(row, 3)?,
        source: row.get(4)?,
        created_at: row.get(5)?,
        document_count: usize::try_from(row.get::<_, i64>(6)?).unwrap_or(0),
        documents: Vec::new(),
    })
}

const SET_COLUMNS: &str = "name, schema_name, schema_version, fields, source, created_at, \
     (SELECT count(*) FROM labelled_documents d WHERE d.set_name = s.name)";

fn candidate_from_row(row: &Row<'_>) -> rusqlite::Result<EvalCandidateRow> {
    Ok(EvalCandidateRow {
        position: row.get(0)?,
        label: row.get(1)?,
        candidate: json_column(row, 2)?,
        fingerprint: row.get(3)?,
        job_id: row.get(4)?,
        reused: row.get::<_, i64>(5)? == 1,
    })
}

fn run_from_row(row: &Row<'_>) -> rusqlite::Result<EvalRunRow> {
    let status: String = row.get(2)?;
    Ok(EvalRunRow {
        id: row.get(0)?,
        set_name: row.get(1)?,
        status: EvalRunStatus::parse(&status).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                2,
                rusqlite::types::Type::Text,
                format!("unknown status {status:?}").into(),
            )
        })?,
        created_at: row.get(3)?,
        finished_at: row.get(4)?,
        concurrency: u32::try_from(row.get::<_, i64>(5)?).unwrap_or(1),
        candidates: Vec::new(),
    })
}

impl Store {
    /// Writes a new set with its documents, in one transaction. A set of
    /// that name already there is refused (delete it first).
    pub fn create_labelled_set(&self, new: NewLabelledSet) -> Result<LabelledSet> {
        if new.name.trim().is_empty() {
            return Err(StoreError::Invalid("a labelled set needs a name".into()));
        }
        let fields = json_text(&new.fields, "set fields")?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let exists: Option<i64> = tx
            .query_row(
                "SELECT 1 FROM labelled_sets WHERE name = ?1",
                [&new.name],
                |r| r.get(0),
            )
            .optional()?;
        if exists.is_some() {
            return Err(StoreError::Invalid(format!(
                "a labelled set named {:?} already exists",
                new.name
            )));
        }
        tx.execute(
            "INSERT INTO labelled_sets (name, schema_name, schema_version, fields, source, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![new.name, new.schema_name, new.schema_version, fields, new.source, now_ms()],
        )?;
        for (position, document) in new.documents.iter().enumerate() {
            tx.execute(
                "INSERT INTO labelled_documents (set_name, position, path, truth) VALUES (?1, ?2, ?3, ?4)",
                params![
                    new.name,
                    position as i64,
                    document.path,
                    json_text(&document.truth, "set truth")?
                ],
            )?;
        }
        tx.commit()?;
        drop(conn);
        self.labelled_set(&new.name)?
            .ok_or_else(|| StoreError::Invalid(format!("set {} vanished", new.name)))
    }

    /// Every set, by name, without its documents.
    pub fn labelled_sets(&self) -> Result<Vec<LabelledSet>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {SET_COLUMNS} FROM labelled_sets s ORDER BY name"
        ))?;
        let rows = stmt
            .query_map([], set_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// A set with its documents in order.
    pub fn labelled_set(&self, name: &str) -> Result<Option<LabelledSet>> {
        let conn = self.lock();
        let set = conn
            .query_row(
                &format!("SELECT {SET_COLUMNS} FROM labelled_sets s WHERE name = ?1"),
                [name],
                set_from_row,
            )
            .optional()?;
        let Some(mut set) = set else {
            return Ok(None);
        };
        let mut stmt = conn.prepare_cached(
            "SELECT path, truth FROM labelled_documents WHERE set_name = ?1 ORDER BY position",
        )?;
        set.documents = stmt
            .query_map([name], |row| {
                Ok(LabelledDocument {
                    path: row.get(0)?,
                    truth: json_column(row, 1)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(Some(set))
    }

    /// Deletes a set, its documents and its runs (not the runs' jobs).
    /// False when there is none.
    pub fn delete_labelled_set(&self, name: &str) -> Result<bool> {
        let conn = self.lock();
        Ok(conn.execute("DELETE FROM labelled_sets WHERE name = ?1", [name])? > 0)
    }

    /// A new run of `set_name` with its candidates (no job yet), running.
    pub fn create_eval_run(
        &self,
        set_name: &str,
        candidates: &[EvalCandidateRow],
        concurrency: u32,
    ) -> Result<EvalRunRow> {
        let id = new_id("evr_");
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO eval_runs (id, set_name, status, concurrency, created_at) \
             VALUES (?1, ?2, 'running', ?3, ?4)",
            params![id, set_name, i64::from(concurrency.max(1)), now_ms()],
        )?;
        for c in candidates {
            tx.execute(
                "INSERT INTO eval_candidates (run_id, position, label, candidate, fingerprint, job_id, reused) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    c.position,
                    c.label,
                    json_text(&c.candidate, "candidate")?,
                    c.fingerprint,
                    c.job_id,
                    i64::from(c.reused)
                ],
            )?;
        }
        tx.commit()?;
        drop(conn);
        self.eval_run(&id)?
            .ok_or_else(|| StoreError::Invalid(format!("run {id} vanished")))
    }

    /// Names the job that holds a candidate's results.
    pub fn set_eval_candidate_job(
        &self,
        run_id: &str,
        position: i64,
        job_id: &str,
        reused: bool,
    ) -> Result<()> {
        let conn = self.lock();
        let changed = conn.execute(
            "UPDATE eval_candidates SET job_id = ?3, reused = ?4 WHERE run_id = ?1 AND position = ?2",
            params![run_id, position, job_id, i64::from(reused)],
        )?;
        if changed == 0 {
            return Err(StoreError::Invalid(format!(
                "no candidate {position} in run {run_id}"
            )));
        }
        Ok(())
    }

    /// Sets a run's status; any but running also sets `finished_at`.
    pub fn set_eval_run_status(&self, id: &str, status: EvalRunStatus) -> Result<()> {
        let finished = (status != EvalRunStatus::Running).then(now_ms);
        let conn = self.lock();
        conn.execute(
            "UPDATE eval_runs SET status = ?2, finished_at = ?3 WHERE id = ?1",
            params![id, status.as_str(), finished],
        )?;
        Ok(())
    }

    pub fn eval_run(&self, id: &str) -> Result<Option<EvalRunRow>> {
        let conn = self.lock();
        let run = conn
            .query_row(
                "SELECT id, set_name, status, created_at, finished_at, concurrency FROM eval_runs \
                 WHERE id = ?1",
                [id],
                run_from_row,
            )
            .optional()?;
        let Some(mut run) = run else {
            return Ok(None);
        };
        let mut stmt = conn.prepare_cached(
            "SELECT position, label, candidate, fingerprint, job_id, reused FROM eval_candidates \
             WHERE run_id = ?1 ORDER BY position",
        )?;
        run.candidates = stmt
            .query_map([id], candidate_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(Some(run))
    }

    /// A set's runs, newest first, with their candidates.
    pub fn eval_runs(&self, set_name: &str) -> Result<Vec<EvalRunRow>> {
        let ids: Vec<String> = {
            let conn = self.lock();
            let mut stmt = conn.prepare_cached(
                "SELECT id FROM eval_runs WHERE set_name = ?1 ORDER BY created_at DESC, id DESC",
            )?;
            stmt.query_map([set_name], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        let mut runs = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(run) = self.eval_run(&id)? {
                runs.push(run);
            }
        }
        Ok(runs)
    }

    /// The newest job an earlier candidate with `fingerprint` ran that
    /// can stand for a new one: it still exists and none of its documents
    /// is pending or failed on a connection (a network failure says
    /// nothing of the candidate, so it runs again).
    pub fn reusable_eval_job(&self, fingerprint: &str) -> Result<Option<String>> {
        let conn = self.lock();
        Ok(conn
            .query_row(
                "SELECT c.job_id FROM eval_candidates c JOIN eval_runs r ON r.id = c.run_id \
                 JOIN extraction_jobs j ON j.id = c.job_id \
                 WHERE c.fingerprint = ?1 AND j.status IN ('completed', 'failed') \
                 AND j.interrupted_at IS NULL \
                 AND NOT EXISTS (SELECT 1 FROM extraction_documents d WHERE d.job_id = j.id \
                     AND (d.status = 'pending' OR d.error_category = 'network')) \
                 ORDER BY r.created_at DESC, r.id DESC LIMIT 1",
                [fingerprint],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The user's prices, by provider and model.
    pub fn prices(&self) -> Result<Vec<PriceRow>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT provider_id, model, input_per_mtok, output_per_mtok FROM prices \
             ORDER BY provider_id, model",
        )?;
        let rows = stmt
            .query_map([], |row| {
                Ok(PriceRow {
                    provider_id: row.get(0)?,
                    model: row.get(1)?,
                    input_per_mtok: row.get(2)?,
                    output_per_mtok: row.get(3)?,
                })
            })?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }

    /// Sets one price (replacing the one of that provider and model).
    pub fn set_price(&self, price: &PriceRow) -> Result<()> {
        let finite = |p: f64| p.is_finite() && p >= 0.0;
        if !finite(price.input_per_mtok) || !finite(price.output_per_mtok) {
            return Err(StoreError::Invalid(
                "a price is a number of at least 0".into(),
            ));
        }
        if price.model.trim().is_empty() || price.provider_id.trim().is_empty() {
            return Err(StoreError::Invalid(
                "a price needs a provider and a model".into(),
            ));
        }
        let conn = self.lock();
        conn.execute(
            "INSERT INTO prices (provider_id, model, input_per_mtok, output_per_mtok, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (provider_id, model) DO UPDATE SET \
             input_per_mtok = excluded.input_per_mtok, output_per_mtok = excluded.output_per_mtok, \
             updated_at = excluded.updated_at",
            params![
                price.provider_id,
                price.model,
                price.input_per_mtok,
                price.output_per_mtok,
                now_ms()
            ],
        )?;
        Ok(())
    }

    /// Removes a price the user set; false when there was none.
    pub fn delete_price(&self, provider_id: &str, model: &str) -> Result<bool> {
        let conn = self.lock();
        Ok(conn.execute(
            "DELETE FROM prices WHERE provider_id = ?1 AND model = ?2",
            params![provider_id, model],
        )? > 0)
    }
}
