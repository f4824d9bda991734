//! Evaluation runs: a labelled set against candidates. Each candidate
//! reads the set as an extraction job (the engine's concurrency, resume
//! and cancel, every call stored with its evidence), one candidate after
//! another; a candidate whose fingerprint an earlier run already has
//! reuses that run's job and makes no request. The matrix is computed
//! from the stored jobs whenever a run is shown ([`super::view`]).

use std::future::Future;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::json;
use sift_store::{EvalCandidateRow, EvalRunStatus, NewExtractionJob, Store};

use super::candidates::{
    Candidate, CandidateSpec, ResolvedCandidate, distinct_labels, fingerprint,
};
use super::sets::stored_set;
use super::view::{EvalRunView, run_view};
use crate::error::{CoreError, ErrorBody};
use crate::extract::{
    DEFAULT_CONCURRENCY, ExtractEvent, FlavouredJob, JobFlavour, run_flavoured_job,
};
use crate::running::{RunningGuard, WorkKind};
use crate::workspace::Workspace;

/// The `kind` of an evaluation candidate's structured calls.
pub const EVAL_KIND: &str = "eval";

/// The app's request: a stored set and candidates of the settings.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct EvaluateRequest {
    /// The name of the stored labelled set to read.
    pub set_name: String,
    /// The candidates to compare, in order; at least one.
    pub candidates: Vec<Candidate>,
    /// Documents called at once per candidate; `null`: 4.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub concurrency: Option<u32>,
}

/// What the UI receives while a run goes on; the last is `finished` or
/// `error`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum EvaluateEvent {
    /// A candidate starts: with its job, and whether that job is an
    /// earlier run's (no request is made then).
    #[serde(rename_all = "camelCase")]
    Candidate {
        /// The run this event belongs to.
        run_id: String,
        /// The candidate's place in the run, from 0.
        position: u32,
        /// The extraction job that holds the candidate's results.
        job_id: String,
        /// True when that job is an earlier run's.
        reused: bool,
    },
    /// A document of the candidate at `position` finished.
    #[serde(rename_all = "camelCase")]
    Document {
        /// The run this event belongs to.
        run_id: String,
        /// The candidate's place in the run, from 0.
        position: u32,
        /// The candidate's documents finished so far, those of an earlier go included.
        done: u32,
        /// How many documents the set has.
        total: u32,
    },
    /// The run ended, completed or cancelled: the last event.
    #[serde(rename_all = "camelCase")]
    Finished {
        /// The run that ended.
        run_id: String,
        /// The run as the screen shows it once ended.
        view: Box<EvalRunView>,
    },
    /// The run stopped on an error, or its view could not be read: the last
    /// event.
    #[serde(rename_all = "camelCase")]
    Error {
        /// The run that stopped.
        run_id: String,
        /// What went wrong.
        error: ErrorBody,
    },
}

type Sink = Arc<dyn Fn(EvaluateEvent) + Send + Sync>;

/// Creates a run of `set_name` with `specs` and registers it; returns the
/// run as it starts and the rest, to spawn or await.
pub fn start_evaluation_of(
    ws: &Workspace,
    set_name: String,
    mut specs: Vec<CandidateSpec>,
    concurrency: usize,
    sink: impl Fn(EvaluateEvent) + Send + Sync + 'static,
) -> Result<
    (
        EvalRunView,
        impl Future<Output = Result<EvalRunView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    if specs.is_empty() {
        return Err(CoreError::Usage(
            "an evaluation needs at least one candidate".into(),
        ));
    }
    let store = ws.store()?;
    let set = stored_set(&store, &set_name)?;
    distinct_labels(&mut specs);
    let paths: Vec<String> = set.documents.iter().map(|d| d.path.clone()).collect();
    let read = ws.read_options();
    let mut rows = Vec::with_capacity(specs.len());
    for (position, spec) in specs.iter().enumerate() {
        let schema = store
            .get_schema(&set.schema_name, Some(spec.resolved.schema_version))?
            .ok_or_else(|| {
                CoreError::NotFound(format!(
                    "no version {} of the schema {}",
                    spec.resolved.schema_version, set.schema_name
                ))
            })?;
        rows.push(EvalCandidateRow {
            position: position as i64,
            label: spec.resolved.label.clone(),
            candidate: serde_json::to_value(&spec.resolved)
                .map_err(|e| CoreError::Internal(format!("a candidate cannot be written: {e}")))?,
            fingerprint: fingerprint(spec, &schema.schema, &paths, &read)?,
            job_id: None,
            reused: false,
        });
    }
    let run = store.create_eval_run(
        &set.name,
        &rows,
        u32::try_from(concurrency).unwrap_or(u32::MAX),
    )?;
    let guard = ws.running().register(WorkKind::Evaluation, &run.id)?;
    let view = run_view(&store, &run.id)?;
    let ws = ws.clone();
    Ok((
        view,
        run_registered(ws, guard, specs, concurrency, Arc::new(sink)),
    ))
}

/// The app's start: candidates of the settings.
pub fn start_evaluation(
    ws: &Workspace,
    request: EvaluateRequest,
    sink: impl Fn(EvaluateEvent) + Send + Sync + 'static,
) -> Result<
    (
        EvalRunView,
        impl Future<Output = Result<EvalRunView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let set = stored_set(&ws.store()?, &request.set_name)?;
    let specs = request
        .candidates
        .iter()
        .map(|c| CandidateSpec::from_settings(ws, c, set.schema_version))
        .collect::<Result<Vec<_>, _>>()?;
    let concurrency = request
        .concurrency
        .map_or(DEFAULT_CONCURRENCY, |c| c.max(1) as usize);
    start_evaluation_of(ws, request.set_name, specs, concurrency, sink)
}

/// Runs the rest of a run that was cancelled or cut short, with the
/// run's own concurrency: candidates whose job has documents left resume
/// it; those with no job yet run.
pub fn resume_evaluation(
    ws: &Workspace,
    run_id: &str,
    sink: impl Fn(EvaluateEvent) + Send + Sync + 'static,
) -> Result<
    (
        EvalRunView,
        impl Future<Output = Result<EvalRunView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let store = ws.store()?;
    let run = store
        .eval_run(run_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no evaluation run {run_id}")))?;
    let specs = run
        .candidates
        .iter()
        .map(|row| {
            let resolved: ResolvedCandidate = serde_json::from_value(row.candidate.clone())
                .map_err(|e| {
                    CoreError::Internal(format!("a stored candidate cannot be read: {e}"))
                })?;
            CandidateSpec::from_stored(ws, resolved)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let guard = ws.running().register(WorkKind::Evaluation, run_id)?;
    store.set_eval_run_status(run_id, EvalRunStatus::Running)?;
    let view = run_view(&store, run_id)?;
    let ws = ws.clone();
    let concurrency = run.concurrency as usize;
    Ok((
        view,
        run_registered(ws, guard, specs, concurrency, Arc::new(sink)),
    ))
}

/// Stops a run: the candidate reading now stops as a cancelled job does
/// (its calls in flight finish), and no later candidate starts. False
/// when the run is not running.
pub fn cancel_evaluation(ws: &Workspace, run_id: &str) -> bool {
    let cancelled = ws.running().cancel(WorkKind::Evaluation, run_id);
    // The job reading now is cancelled here and now, not when the run's
    // task next wakes: no document of it starts after this returns.
    if cancelled && let Ok(Some(run)) = ws.store().and_then(|s| Ok(s.eval_run(run_id)?)) {
        for job_id in run.candidates.iter().filter_map(|c| c.job_id.as_deref()) {
            ws.running().cancel(WorkKind::Extraction, job_id);
        }
    }
    cancelled
}

/// A stored run as the screen shows it: one left `running` by a process
/// that is gone (a crash, a kill) is `interrupted`, and can be resumed;
/// its candidates' finished documents are kept.
pub fn evaluation_view(ws: &Workspace, run_id: &str) -> Result<EvalRunView, CoreError> {
    let mut view = run_view(&ws.store()?, run_id)?;
    if view.status == EvalRunStatus::Running.as_str()
        && !ws.running().is_running(WorkKind::Evaluation, run_id)
    {
        view.status = "interrupted".to_owned();
    }
    Ok(view)
}

/// A set's runs, newest first, a run left by a gone process marked
/// `interrupted` as [`evaluation_view`] does.
pub fn evaluation_history(
    ws: &Workspace,
    set_name: &str,
) -> Result<Vec<super::EvalRunSummary>, CoreError> {
    let mut history = super::run_history(&ws.store()?, set_name)?;
    for run in &mut history {
        if run.status == EvalRunStatus::Running.as_str()
            && !ws.running().is_running(WorkKind::Evaluation, &run.run_id)
        {
            run.status = "interrupted".to_owned();
        }
    }
    Ok(history)
}

async fn run_registered(
    ws: Workspace,
    guard: RunningGuard,
    specs: Vec<CandidateSpec>,
    concurrency: usize,
    sink: Sink,
) -> Result<EvalRunView, CoreError> {
    let run_id = guard.key().to_owned();
    let outcome = run_candidates(&ws, &guard, &specs, concurrency, &sink).await;
    let store = ws.store()?;
    let status = match &outcome {
        Ok(()) if guard.token().is_cancelled() => EvalRunStatus::Cancelled,
        Ok(()) => EvalRunStatus::Completed,
        Err(_) => EvalRunStatus::Failed,
    };
    store.set_eval_run_status(&run_id, status)?;
    drop(guard);
    match outcome.and_then(|()| run_view(&store, &run_id)) {
        Ok(view) => {
            sink(EvaluateEvent::Finished {
                run_id,
                view: Box::new(view.clone()),
            });
            Ok(view)
        }
        Err(error) => {
            sink(EvaluateEvent::Error {
                run_id,
                error: ErrorBody::new(error.kind(), error.to_string()),
            });
            Err(error)
        }
    }
}

/// Whether a job still has documents to call.
fn unfinished(store: &Store, job_id: &str) -> Result<bool, CoreError> {
    let totals = crate::extract::job_totals(store, job_id)?;
    Ok(totals.pending > 0)
}

async fn run_candidates(
    ws: &Workspace,
    guard: &RunningGuard,
    specs: &[CandidateSpec],
    concurrency: usize,
    sink: &Sink,
) -> Result<(), CoreError> {
    let store = ws.store()?;
    let run_id = guard.key().to_owned();
    let run = store
        .eval_run(&run_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no evaluation run {run_id}")))?;
    let set = stored_set(&store, &run.set_name)?;
    let paths: Vec<String> = set.documents.iter().map(|d| d.path.clone()).collect();
    let total = paths.len() as u32;
    for (row, spec) in run.candidates.iter().zip(specs) {
        if guard.token().is_cancelled() {
            break;
        }
        let position = row.position as u32;
        let (job_id, resume) = match &row.job_id {
            Some(job_id) if !unfinished(&store, job_id)? => {
                // Done in an earlier go of this run.
                continue;
            }
            Some(job_id) => (job_id.clone(), true),
            None => match store.reusable_eval_job(&row.fingerprint)? {
                Some(job_id) => {
                    store.set_eval_candidate_job(&run_id, row.position, &job_id, true)?;
                    sink(EvaluateEvent::Candidate {
                        run_id: run_id.clone(),
                        position,
                        job_id,
                        reused: true,
                    });
                    continue;
                }
                None => {
                    let job = store.create_extraction_job(NewExtractionJob {
                        schema_name: set.schema_name.clone(),
                        schema_version: spec.resolved.schema_version,
                        prompt: spec.resolved.prompt.clone(),
                        models: json!(spec.selection.models),
                        paths: paths.clone(),
                    })?;
                    store.set_job_answers(&job.id, spec.resolved.answers.as_str())?;
                    store.set_eval_candidate_job(&run_id, row.position, &job.id, false)?;
                    (job.id, false)
                }
            },
        };
        sink(EvaluateEvent::Candidate {
            run_id: run_id.clone(),
            position,
            job_id: job_id.clone(),
            reused: false,
        });
        let progress = {
            let sink = sink.clone();
            let run_id = run_id.clone();
            let done = std::sync::atomic::AtomicU32::new(
                total - crate::extract::job_totals(&store, &job_id)?.pending,
            );
            move |event: ExtractEvent| {
                if let ExtractEvent::Row { .. } = event {
                    let done = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    sink(EvaluateEvent::Document {
                        run_id: run_id.clone(),
                        position,
                        done,
                        total,
                    });
                }
            }
        };
        let flavour = JobFlavour {
            call_kind: EVAL_KIND.to_owned(),
            ocr: spec.resolved.ocr,
        };
        let job = run_flavoured_job(
            ws,
            FlavouredJob {
                job_id: job_id.clone(),
                selection: spec.selection.clone(),
                provider_id: spec.resolved.provider_id.clone(),
                concurrency,
                flavour,
                resume,
            },
            progress,
        )?;
        tokio::pin!(job);
        let finished = tokio::select! {
            finished = &mut job => finished,
            () = guard.token().cancelled() => {
                ws.running().cancel(WorkKind::Extraction, &job_id);
                job.await
            }
        };
        finished?;
    }
    Ok(())
}
