//! An evaluation run as the Evaluate screen and `sift eval --set` show
//! it: the matrix computed from the candidates' stored jobs (so a run
//! shows the same whenever it is opened), each candidate's figures with
//! its cost from the price table, each pair's difference in words, and
//! the cells where the candidates do not all agree with the truth.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use sift_store::{EvalRunRow, ExtractionDocument, LabelledSet, Store};

use super::candidates::ResolvedCandidate;
use super::compare::{CandidateRun, Matrix, compare};
use super::matrix::pair_line;
use super::score::{CallFigures, EvalDocument};
use super::sets::{file_name, stored_set};
use super::truth::Truth;
use crate::error::CoreError;
use crate::evidence::{EvidenceStatus, FieldEvidence};
use crate::usage::prices::{PriceSource, Served, price_for};

/// A field's score for one candidate: `correct` of `scored`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ScoreCell {
    /// The field's `a.b` name, or `overall`.
    pub field: String,
    /// Cells the candidate got right.
    pub correct: u32,
    /// Cells compared: those with a true value, in the documents called.
    pub scored: u32,
}

/// One candidate of a run: what it is, how far it got, its scores and its
/// figures.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CandidateView {
    /// Its place in the run, from 0.
    pub position: u32,
    /// The candidate as resolved when the run was made.
    pub candidate: ResolvedCandidate,
    /// The extraction job with its results; `None` until it starts.
    pub job_id: Option<String>,
    /// Its results are an earlier run's (no request was made).
    pub reused: bool,
    /// Documents called so far, failed ones included.
    pub done: u32,
    /// Documents whose call failed, among those called.
    pub failed: u32,
    /// Documents still to call.
    pub pending: u32,
    /// One per field of the set, in order.
    pub cells: Vec<ScoreCell>,
    /// All the fields' cells together.
    pub overall: ScoreCell,
    /// Values given (not left out, not null) on scored cells.
    pub values: u32,
    /// Of those values, the ones found in the document, exactly or normalised.
    pub with_evidence: u32,
    /// The median milliseconds of a document's call; `null` when none was timed.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub latency_median_ms: Option<i64>,
    /// The 95th percentile of the same; `null` when none was timed.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub latency_p95_ms: Option<i64>,
    /// Input tokens over its documents.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// Output tokens over its documents.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    /// From the price table; `null` when the model has no price.
    pub cost: Option<f64>,
    /// Where the price came from; `null` when there is none.
    pub price_source: Option<PriceSource>,
    /// Failed documents by category.
    pub failures: BTreeMap<String, u32>,
}

/// Two candidates' overall accuracy compared (McNemar's exact test).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PairView {
    /// The label of the candidate that comes first in the run.
    pub a: String,
    /// The label of the candidate that comes later.
    pub b: String,
    /// Cells `a` got right and `b` wrong.
    pub only_a: u32,
    /// Cells `b` got right and `a` wrong.
    pub only_b: u32,
    /// McNemar's exact two-sided p over those cells.
    pub p_value: f64,
    /// True when `p_value` is 0.05 or more: the difference may be chance.
    pub within_noise: bool,
    /// The comparison in one sentence, as `sift eval` prints it.
    pub statement: String,
}

/// One candidate's value in a disagreement.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CandidateValue {
    /// The candidate's label.
    pub label: String,
    /// The value it gave; `null` when it left the field out, its call failed, or it
    /// has not read the document yet.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    pub value: Option<Value>,
    /// Whether that value matches the truth.
    pub correct: bool,
    /// Whether and how that value was found in the document; `null` when unknown.
    pub evidence: Option<EvidenceStatus>,
    /// The call behind it, whose transcript the screen opens.
    pub call_id: Option<String>,
    /// Its error on this document, when it failed.
    pub error: Option<String>,
}

/// A document's field that some candidate got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Disagreement {
    /// The document's path.
    pub path: String,
    /// The path's last component, for display.
    pub file_name: String,
    /// The field's `a.b` name.
    pub field: String,
    /// The true value.
    pub truth: String,
    /// One per candidate, in the run's order.
    pub values: Vec<CandidateValue>,
}

/// An evaluation run as the screen shows it: its candidates, the pairs
/// compared, and the cells they got wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EvalRunView {
    /// The run's id.
    pub run_id: String,
    /// The labelled set it reads.
    pub set_name: String,
    /// `running`, `completed`, `cancelled`, `failed`, or `interrupted`
    /// (left running by a process that is gone: see
    /// [`super::evaluation_view`]).
    pub status: String,
    /// When the run was made, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    /// When it last ended, in milliseconds since the Unix epoch; `null` while it
    /// runs or when it was interrupted.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub finished_at: Option<i64>,
    /// The set's fields, in the order of each candidate's `cells`.
    pub fields: Vec<String>,
    /// How many documents the set has.
    pub documents: u32,
    /// Its candidates, in the run's order.
    pub candidates: Vec<CandidateView>,
    /// Every pair of candidates compared, in the candidates' order.
    pub pairs: Vec<PairView>,
    /// Every document field some candidate got wrong, by document then
    /// field.
    pub disagreements: Vec<Disagreement>,
}

/// A run of a set as its history lists it: the overall score of each
/// candidate.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EvalRunSummary {
    /// The run's id.
    pub run_id: String,
    /// As in [`EvalRunView::status`].
    pub status: String,
    /// When the run was made, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    /// The candidates' labels, in the run's order.
    pub candidates: Vec<String>,
    /// Each candidate's overall score, in the same order.
    pub overall: Vec<ScoreCell>,
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn truth_of(set: &LabelledSet) -> Truth {
    Truth {
        columns: set.fields.clone(),
        // By full path: two documents of one name in two folders stay two.
        rows: set
            .documents
            .iter()
            .map(|d| (d.path.clone(), d.truth.clone().into_iter().collect()))
            .collect(),
    }
}

/// A stored job document as the scoring reads it.
fn eval_document(store: &Store, document: &ExtractionDocument) -> Result<EvalDocument, CoreError> {
    let call = match &document.call_id {
        Some(id) => store.get_call(id)?,
        None => None,
    };
    let completed = document.status == sift_store::DocumentStatus::Completed;
    let evidence: Vec<FieldEvidence> = document
        .evidence
        .clone()
        .and_then(|e| serde_json::from_value(e).ok())
        .unwrap_or_default();
    Ok(EvalDocument {
        file: document.path.clone(),
        values: document.values.clone().filter(|_| completed),
        error: document.error.clone(),
        evidence,
        sources: None,
        call: match &call {
            Some(call) => CallFigures::of(call),
            None => CallFigures {
                error_category: document.error_category.clone(),
                input_tokens: document.input_tokens,
                output_tokens: document.output_tokens,
                ..CallFigures::default()
            },
        },
    })
}

/// The documents of a candidate's job that were called (pending ones are
/// left out: not yet scored).
fn candidate_documents(
    store: &Store,
    job_id: Option<&str>,
) -> Result<(Vec<EvalDocument>, u32), CoreError> {
    let Some(job_id) = job_id else {
        return Ok((Vec::new(), 0));
    };
    let mut documents = Vec::new();
    let mut pending = 0;
    for document in store.extraction_documents(job_id)? {
        if document.status == sift_store::DocumentStatus::Pending {
            pending += 1;
        } else {
            documents.push(eval_document(store, &document)?);
        }
    }
    Ok((documents, pending))
}

/// The matrix of a stored run, with each candidate's cost in its figures.
pub(crate) fn run_matrix(
    store: &Store,
    run: &EvalRunRow,
    set: &LabelledSet,
) -> Result<(Matrix, Vec<CandidateRun>, Vec<u32>), CoreError> {
    let truth = truth_of(set);
    let mut runs = Vec::with_capacity(run.candidates.len());
    let mut pending = Vec::with_capacity(run.candidates.len());
    for row in &run.candidates {
        let (documents, left) = candidate_documents(store, row.job_id.as_deref())?;
        pending.push(left);
        runs.push(CandidateRun {
            label: row.label.clone(),
            documents,
        });
    }
    let mut matrix = compare(&set.fields, &truth, &runs);
    let prices = store.prices()?;
    for (scores, row) in matrix.candidates.iter_mut().zip(&run.candidates) {
        if let Ok(resolved) = serde_json::from_value::<ResolvedCandidate>(row.candidate.clone()) {
            let served = Served {
                provider_id: resolved.provider_id.as_deref(),
                kind: resolved.provider,
                host: &resolved.host,
                model: &resolved.model,
            };
            let price = price_for(&prices, &served);
            scores.figures.cost = price
                .as_ref()
                .map(|p| p.cost(scores.figures.input_tokens, scores.figures.output_tokens));
            scores.figures.price_source = price.map(|p| p.source);
        }
    }
    Ok((matrix, runs, pending))
}

fn cell(score: &super::FieldScore) -> ScoreCell {
    ScoreCell {
        field: score.field.clone(),
        correct: count(score.correct),
        scored: count(score.scored),
    }
}

/// The view of a stored run.
pub fn run_view(store: &Store, run_id: &str) -> Result<EvalRunView, CoreError> {
    let run = store
        .eval_run(run_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no evaluation run {run_id}")))?;
    let set = stored_set(store, &run.set_name)?;
    let (matrix, runs, pending) = run_matrix(store, &run, &set)?;
    let candidates = matrix
        .candidates
        .iter()
        .zip(&run.candidates)
        .zip(runs.iter().zip(&pending))
        .map(|((scores, row), (called, &pending))| {
            let report = &scores.report;
            // A value given: not left out, and not null.
            let given: Vec<_> = report
                .comparisons
                .iter()
                .filter(|c| c.got.as_ref().is_some_and(|v| !v.is_null()))
                .collect();
            let found = given
                .iter()
                .filter(|c| {
                    matches!(
                        c.evidence,
                        Some(EvidenceStatus::Exact | EvidenceStatus::Normalised)
                    )
                })
                .count();
            let failed: usize = scores.figures.failures.values().sum();
            Ok(CandidateView {
                position: row.position as u32,
                candidate: serde_json::from_value(row.candidate.clone()).map_err(|e| {
                    CoreError::Internal(format!("a stored candidate cannot be read: {e}"))
                })?,
                job_id: row.job_id.clone(),
                reused: row.reused,
                done: count(called.documents.len()),
                failed: count(failed),
                pending,
                cells: report.fields.iter().map(cell).collect(),
                overall: cell(&report.overall),
                values: count(given.len()),
                with_evidence: count(found),
                latency_median_ms: scores.figures.latency_median_ms,
                latency_p95_ms: scores.figures.latency_p95_ms,
                input_tokens: scores.figures.input_tokens,
                output_tokens: scores.figures.output_tokens,
                cost: scores.figures.cost,
                price_source: scores.figures.price_source,
                failures: scores
                    .figures
                    .failures
                    .iter()
                    .map(|(k, v)| (k.clone(), count(*v)))
                    .collect(),
            })
        })
        .collect::<Result<Vec<_>, CoreError>>()?;
    let pairs = matrix
        .pairs
        .iter()
        .map(|p| PairView {
            a: p.a.clone(),
            b: p.b.clone(),
            only_a: count(p.only_a),
            only_b: count(p.only_b),
            p_value: p.p_value,
            within_noise: p.within_noise,
            statement: pair_line(&matrix, p),
        })
        .collect();
    Ok(EvalRunView {
        run_id: run.id.clone(),
        set_name: run.set_name.clone(),
        status: run.status.as_str().to_owned(),
        created_at: run.created_at,
        finished_at: run.finished_at,
        fields: set.fields.clone(),
        documents: count(set.documents.len()),
        candidates,
        pairs,
        disagreements: disagreements(&matrix, &runs),
    })
}

/// Every (document, field) that some candidate got wrong, in the set's
/// order, with each candidate's value.
fn disagreements(matrix: &Matrix, runs: &[CandidateRun]) -> Vec<Disagreement> {
    let mut cells: Vec<(String, String)> = Vec::new();
    for candidate in &matrix.candidates {
        for c in candidate.report.comparisons.iter().filter(|c| !c.correct) {
            let key = (c.file.clone(), c.field.clone());
            if !cells.contains(&key) {
                cells.push(key);
            }
        }
    }
    let field_order = |f: &str| matrix.fields.iter().position(|x| x == f);
    let file_order = |f: &str| {
        matrix
            .candidates
            .iter()
            .find_map(|c| c.report.comparisons.iter().position(|x| x.file == f))
    };
    cells.sort_by_key(|(file, field)| (file_order(file), field_order(field)));
    cells
        .into_iter()
        .map(|(file, field)| {
            let mut truth = String::new();
            let values = matrix
                .candidates
                .iter()
                .zip(runs)
                .map(|(candidate, run)| {
                    let document = run.documents.iter().find(|d| d.file == file);
                    let comparison = candidate
                        .report
                        .comparisons
                        .iter()
                        .find(|c| c.file == file && c.field == field);
                    if let Some(c) = comparison {
                        truth.clone_from(&c.truth);
                    }
                    CandidateValue {
                        label: candidate.label.clone(),
                        value: comparison.and_then(|c| c.got.clone()),
                        correct: comparison.is_some_and(|c| c.correct),
                        evidence: comparison.and_then(|c| c.evidence),
                        call_id: document.and_then(|d| d.call.call_id.clone()),
                        error: document.and_then(|d| d.error.clone()),
                    }
                })
                .collect();
            Disagreement {
                file_name: file_name(&file),
                path: file,
                field,
                truth,
                values,
            }
        })
        .collect()
}

/// A set's runs, newest first, each with its candidates' overall score.
pub fn run_history(store: &Store, set_name: &str) -> Result<Vec<EvalRunSummary>, CoreError> {
    let set = stored_set(store, set_name)?;
    store
        .eval_runs(set_name)?
        .iter()
        .map(|run| {
            let (matrix, ..) = run_matrix(store, run, &set)?;
            Ok(EvalRunSummary {
                run_id: run.id.clone(),
                status: run.status.as_str().to_owned(),
                created_at: run.created_at,
                candidates: run.candidates.iter().map(|c| c.label.clone()).collect(),
                overall: matrix
                    .candidates
                    .iter()
                    .map(|c| cell(&c.report.overall))
                    .collect(),
            })
        })
        .collect()
}

/// The matrix of a stored run, as `sift eval --set` prints it.
pub fn stored_matrix(store: &Store, run_id: &str) -> Result<Matrix, CoreError> {
    let run = store
        .eval_run(run_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no evaluation run {run_id}")))?;
    let set = stored_set(store, &run.set_name)?;
    Ok(run_matrix(store, &run, &set)?.0)
}
