//! Extraction as the app and the CLI run it on a [`Workspace`]: a start
//! (or a resume) does the synchronous part — the checks, the job record,
//! its place in the workspace's running work — and hands back the job's
//! table with a future for the rest, which the app spawns and the CLI
//! awaits. The future sends [`ExtractEvent`]s, the last one `finished` or
//! `error`, and is cancelled through [`cancel_extraction`].

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_documents::{OcrError, OcrOptions, OnPage, PageProgress, check_ocr_languages};
use sift_store::{JobStatus, Store};
use tokio_util::sync::CancellationToken;

use super::table::{JobRow, JobState, JobTotals, JobView, job_of, job_row, job_view, models_of};
use super::tally::{JobTally, job_tally};
use super::{
    AnswerMode, DEFAULT_CONCURRENCY, ExtractOptions, OnServerStart, Progress, ProgressStatus,
    create_job, local_provider, run_job,
};
use crate::error::{CoreError, ErrorBody};
use crate::models::ModelSelection;
use crate::models::provider::ProviderSettings;
use crate::running::{RunningGuard, WorkKind};
use crate::workspace::Workspace;

// The app's request: a library schema, a provider of the settings.
/// What to extract, with what.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ExtractRequest {
    /// Absolute paths, in the table's order.
    pub files: Vec<String>,
    /// The library schema to extract with, by name.
    pub schema_name: String,
    /// `null`: the latest version.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub schema_version: Option<i64>,
    /// A provider id from the settings; `null`: the default provider.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub provider_id: Option<String>,
    /// `null`: the default model (or the local server's).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub model: Option<String>,
    /// `null`: "Extract the fields of the schema from this document."
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub prompt: Option<String>,
    /// Documents called at once; `null`: 4.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub concurrency: Option<u32>,
    /// OCR languages for this job, Tesseract's codes (`["eng", "deu"]`);
    /// `null`: the settings'.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub ocr_languages: Option<Vec<String>>,
    /// How the answers are made; `null`: the default for the provider's
    /// kind of model.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub answers: Option<AnswerMode>,
}

/// What the UI receives while a job runs, each tagged with its job.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ExtractEvent {
    /// Something slow before the first call, such as starting the local
    /// model server.
    #[serde(rename_all = "camelCase")]
    Status {
        /// The job's id.
        job_id: String,
        /// What is under way, for people (`Starting the local model…`).
        message: String,
    },
    /// A document's call starts now.
    #[serde(rename_all = "camelCase")]
    Started {
        /// The job's id.
        job_id: String,
        /// The document's place in the job's file order, from 0.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        position: i64,
    },
    /// A document finished (completed or failed): its row as it now is.
    #[serde(rename_all = "camelCase")]
    Row {
        /// The job's id.
        job_id: String,
        /// The document's row in the job's table.
        row: Box<JobRow>,
    },
    /// The run ended: completed, failed (some documents did) or
    /// cancelled. The last event of a run.
    #[serde(rename_all = "camelCase")]
    Finished {
        /// The job's id.
        job_id: String,
        /// How the job ended.
        status: JobState,
        /// The job's documents by status and its tokens, over all of its runs.
        totals: JobTotals,
    },
    /// The run stopped on an error that is not one document's (the
    /// database, the local server). The last event of a run.
    #[serde(rename_all = "camelCase")]
    Error {
        /// The job's id.
        job_id: String,
        /// The error's code and its message for people.
        error: ErrorBody,
    },
}

/// A job to create and run, as its caller resolved it.
#[derive(Debug, Clone)]
pub struct NewJob {
    /// Saved to the schema library under this name.
    pub schema_name: String,
    /// The JSON Schema of the answers, checked before the job is created.
    pub schema: Value,
    /// `None`: [`super::DEFAULT_PROMPT`].
    pub prompt: Option<String>,
    /// The documents to read, in the job's order; at least one.
    pub files: Vec<PathBuf>,
    /// Empty models: `SIFT_MODEL`, else the local model.
    pub selection: ModelSelection,
    /// The most documents called at once (at least 1).
    pub concurrency: usize,
    /// The settings' id of the provider (which `[[models]]` overrides
    /// name); `None`: the provider kind's name.
    pub provider_id: Option<String>,
    /// OCR languages for this job (`["eng", "deu"]`); `None`: the
    /// settings' (`[ocr] languages`).
    pub ocr_languages: Option<Vec<String>>,
    /// How the answers are made; `None`: the default for the provider's
    /// kind of model ([`AnswerMode::default_for`]).
    pub answers: Option<AnswerMode>,
}

type Sink = Arc<dyn Fn(ExtractEvent) + Send + Sync>;

/// Creates a job and registers it as running; returns its table (every
/// row pending) and the run, to spawn or await.
pub fn start_job(
    ws: &Workspace,
    job: NewJob,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobView,
        impl Future<Output = Result<JobView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let store = ws.store()?;
    let (tally, run) = start_tallied_job(ws, job, sink)?;
    with_views(store, tally.job_id, run)
}

/// [`start_job`] for a caller that shows no table (the CLI): the job and
/// its run's end as [`JobTally`]s, whose size does not grow with the job.
pub fn start_tallied_job(
    ws: &Workspace,
    job: NewJob,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobTally,
        impl Future<Output = Result<JobTally, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    // A new job's files are the caller's paths: each must be granted (a
    // resume reads the ones the job recorded).
    for file in &job.files {
        ws.grants().check_read(file)?;
    }
    let mut selection = job.selection;
    // The job records the models it runs with, so a resume finds them.
    selection.models = selection.resolved_models()?;
    let mut options = options_for(ws, selection.clone(), job.concurrency);
    options.selection.provider_id = job.provider_id.or(options.selection.provider_id.take());
    let languages = job.ocr_languages.filter(|l| !l.is_empty());
    if let Some(languages) = &languages {
        options.read_options.ocr.languages.clone_from(languages);
    }
    refuse_missing_languages(&options.read_options.ocr)?;
    let store = ws.store()?;
    let created = create_job(
        &store,
        &job.schema_name,
        &job.schema,
        job.prompt.as_deref(),
        &job.files,
        &selection.models,
    )?;
    // Kept with the job: a resume reads in the same languages, and makes
    // its answers the same way.
    if let Some(languages) = &languages {
        store.set_job_ocr_languages(&created.id, languages)?;
    }
    let answers = match job.answers {
        Some(answers) => answers,
        None => AnswerMode::default_for(selection.provider.clone().with_env_defaults()?.choice()),
    };
    store.set_job_answers(&created.id, answers.as_str())?;
    let guard = ws.running().register(WorkKind::Extraction, &created.id)?;
    let tally = job_tally(&store, &created.id)?;
    Ok((tally, run_registered(store, guard, options, Arc::new(sink))))
}

/// The job's table now, and again once its run has ended: the window's.
fn with_views(
    store: Store,
    job_id: String,
    run: impl Future<Output = Result<JobTally, CoreError>> + Send + 'static,
) -> Result<
    (
        JobView,
        impl Future<Output = Result<JobView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let view = job_view(&store, &job_id)?;
    Ok((view, async move {
        run.await?;
        job_view(&store, &job_id)
    }))
}

/// The app's start: a version of a library schema, a provider of the
/// settings (and a model, else its default).
pub fn start_extraction(
    ws: &Workspace,
    request: ExtractRequest,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobView,
        impl Future<Output = Result<JobView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let settings = ws.settings();
    let selection = settings.selection(request.provider_id.as_deref(), request.model.as_deref())?;
    let provider_id = settings
        .provider_or_default(request.provider_id.as_deref())?
        .id
        .clone();
    let schema = ws
        .store()?
        .get_schema(&request.schema_name, request.schema_version)?
        .ok_or_else(|| CoreError::NotFound(format!("no schema {}", request.schema_name)))?;
    let job = NewJob {
        schema_name: schema.name,
        schema: schema.schema,
        prompt: request.prompt,
        files: request.files.iter().map(PathBuf::from).collect(),
        selection,
        concurrency: request
            .concurrency
            .map_or(DEFAULT_CONCURRENCY, |c| c.max(1) as usize),
        provider_id: Some(provider_id),
        ocr_languages: request.ocr_languages,
        answers: request.answers,
    };
    start_job(ws, job, sink)
}

/// Runs a job again for its documents not yet completed (after a cancel,
/// a failure or a restart) through `provider`, with `models` in order —
/// when empty, all of the job's own models, in their order (the one rule
/// of the app and the CLI). Returns the table, as running from now on,
/// and the run.
pub fn resume_job(
    ws: &Workspace,
    job_id: &str,
    provider: ProviderSettings,
    models: Vec<String>,
    concurrency: usize,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobView,
        impl Future<Output = Result<JobView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let store = ws.store()?;
    let (tally, run) = resume_tallied_job(ws, job_id, provider, models, concurrency, sink)?;
    with_views(store, tally.job_id, run)
}

/// [`resume_job`] for a caller that shows no table (the CLI), as
/// [`start_tallied_job`] is.
pub fn resume_tallied_job(
    ws: &Workspace,
    job_id: &str,
    provider: ProviderSettings,
    models: Vec<String>,
    concurrency: usize,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobTally,
        impl Future<Output = Result<JobTally, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    resume_through(ws, job_id, (provider, None), models, concurrency, sink)
}

/// [`resume_job`] through `provider` with the settings' id of it, when
/// it has one (for the `[[models]]` overrides).
fn resume_through(
    ws: &Workspace,
    job_id: &str,
    (provider, provider_id): (ProviderSettings, Option<String>),
    models: Vec<String>,
    concurrency: usize,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobTally,
        impl Future<Output = Result<JobTally, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let store = ws.store()?;
    let job = job_of(&store, job_id)?;
    let models = if models.is_empty() {
        models_of(&job)
    } else {
        models
    };
    let selection = ModelSelection {
        provider,
        models,
        ..ModelSelection::default()
    };
    let mut options = options_for(ws, selection, concurrency);
    options.selection.provider_id = provider_id.or(options.selection.provider_id.take());
    if let Some(languages) = job.ocr_languages.clone().filter(|l| !l.is_empty()) {
        options.read_options.ocr.languages = languages;
    }
    refuse_missing_languages(&options.read_options.ocr)?;
    let guard = ws.running().register(WorkKind::Extraction, job_id)?;
    store.set_job_status(job_id, JobStatus::Running)?;
    let tally = job_tally(&store, job_id)?;
    Ok((tally, run_registered(store, guard, options, Arc::new(sink))))
}

/// The app's resume: a provider of the settings (`None`: the default);
/// `model` named, or the job's own models.
pub fn resume_extraction(
    ws: &Workspace,
    job_id: &str,
    provider_id: Option<&str>,
    model: Option<&str>,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<
    (
        JobView,
        impl Future<Output = Result<JobView, CoreError>> + Send + 'static,
    ),
    CoreError,
> {
    let settings = ws.settings();
    let entry = settings.provider_or_default(provider_id)?;
    let provider = entry.provider_settings();
    let provider_id = entry.id.clone();
    let models = model
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .into_iter()
        .collect();
    let store = ws.store()?;
    let (tally, run) = resume_through(
        ws,
        job_id,
        (provider, Some(provider_id)),
        models,
        DEFAULT_CONCURRENCY,
        sink,
    )?;
    with_views(store, tally.job_id, run)
}

/// Stops a running job: no new document starts; those in flight finish.
/// False when the job is not running.
pub fn cancel_extraction(ws: &Workspace, job_id: &str) -> bool {
    ws.running().cancel(WorkKind::Extraction, job_id)
}

/// A language whose pack is missing refuses the job before it starts
/// (every scan of it would fail the same way). Tesseract itself missing
/// does not: a job of text files needs none, and a scan's row names it.
fn refuse_missing_languages(ocr: &OcrOptions) -> Result<(), CoreError> {
    match check_ocr_languages(ocr) {
        Err(error @ OcrError::LanguageMissing { .. }) => Err(CoreError::Usage(error.to_string())),
        _ => Ok(()),
    }
}

/// The options of one call on one document outside a job (a schema
/// suggestion), set up as a job's are: the local server running when it
/// is the provider, every scan OCR'd, images only for a model that takes
/// them.
pub(crate) async fn one_document_options(
    ws: &Workspace,
    selection: ModelSelection,
    provider_id: Option<String>,
) -> Result<ExtractOptions, CoreError> {
    let mut options = options_for(ws, selection, 1);
    options.selection.provider_id = provider_id.or(options.selection.provider_id.take());
    if local_provider(&options.selection)? {
        // Through the workspace's owner: the server stays up after.
        super::start_local_server(options.local_server.as_ref()).await?;
    }
    options.read_options = super::reading::job_read_options(&options, AnswerMode::Free).await?;
    refuse_missing_languages(&options.read_options.ocr)?;
    Ok(options)
}

fn options_for(
    ws: &Workspace,
    mut selection: ModelSelection,
    concurrency: usize,
) -> ExtractOptions {
    // The user's `[[models]]` tables decide what each model is sent and how it answers.
    selection.overrides = ws.config().model_overrides;
    ExtractOptions {
        concurrency: concurrency.max(1),
        selection,
        context: ws.config().context,
        // The workspace keeps the server for its life, so the next job
        // finds it up.
        local_server: Some(ws.local_server().clone()),
        read_options: ws.read_options(),
        flavour: super::JobFlavour::default(),
        on_server_start: None,
    }
}

/// A job already created that someone other than the user runs: an
/// evaluation candidate's, whose provider, models and options the
/// candidate holds.
pub(crate) struct FlavouredJob {
    pub job_id: String,
    pub selection: ModelSelection,
    pub provider_id: Option<String>,
    pub concurrency: usize,
    pub flavour: super::JobFlavour,
    /// It ran before: the rest of it runs.
    pub resume: bool,
}

/// Runs `job`, registered as running (so it is cancelled like any job);
/// returns the run.
pub(crate) fn run_flavoured_job(
    ws: &Workspace,
    job: FlavouredJob,
    sink: impl Fn(ExtractEvent) + Send + Sync + 'static,
) -> Result<impl Future<Output = Result<JobTally, CoreError>> + Send + 'static, CoreError> {
    let mut options = options_for(ws, job.selection, job.concurrency);
    options.selection.provider_id = job.provider_id.or(options.selection.provider_id.take());
    options.flavour = job.flavour;
    refuse_missing_languages(&options.read_options.ocr)?;
    let store = ws.store()?;
    let guard = ws.running().register(WorkKind::Extraction, &job.job_id)?;
    if job.resume {
        store.set_job_status(&job.job_id, JobStatus::Running)?;
    }
    Ok(run_registered(store, guard, options, Arc::new(sink)))
}

/// The run of a registered job: its events, then the last one; it is
/// unregistered before that last one, so a caller that sees it may start
/// the job again.
async fn run_registered(
    store: Store,
    guard: RunningGuard,
    options: ExtractOptions,
    sink: Sink,
) -> Result<JobTally, CoreError> {
    let job_id = guard.key().to_owned();
    let token = guard.token().clone();
    let outcome = run_reporting(&store, &job_id, options, token, sink.clone())
        .await
        .and_then(|()| job_tally(&store, &job_id));
    let last = match &outcome {
        Ok(tally) => ExtractEvent::Finished {
            job_id: job_id.clone(),
            status: tally.status,
            totals: tally.totals.clone(),
        },
        Err(error) => ExtractEvent::Error {
            job_id: job_id.clone(),
            error: ErrorBody::new(error.kind(), error.to_string()),
        },
    };
    drop(guard);
    sink(last);
    outcome
}

/// Runs (or resumes) a job, sending its events up to (not including) the
/// last; returns when it ends.
pub(crate) async fn run_reporting(
    store: &Store,
    job_id: &str,
    mut options: ExtractOptions,
    cancel: CancellationToken,
    sink: Sink,
) -> Result<(), CoreError> {
    // A long PDF (or a scan's OCR) shows how far its reading has got.
    let (page_sink, id) = (sink.clone(), job_id.to_owned());
    options.read_options.on_page = Some(OnPage::new(move |p: PageProgress| {
        page_sink(ExtractEvent::Status {
            job_id: id.clone(),
            message: reading_status(&p),
        });
    }));
    let (server_sink, id) = (sink.clone(), job_id.to_owned());
    options.on_server_start = Some(OnServerStart::new(move || {
        server_sink(ExtractEvent::Status {
            job_id: id.clone(),
            message: "Starting the local model…".to_owned(),
        });
    }));
    let (reader, id) = (store.clone(), job_id.to_owned());
    let on_progress = move |p: Progress| {
        let event = match p.status {
            ProgressStatus::Started => ExtractEvent::Started {
                job_id: id.clone(),
                position: p.position,
            },
            ProgressStatus::Completed | ProgressStatus::Failed => {
                match job_row(&reader, &id, p.position) {
                    Ok(row) => ExtractEvent::Row {
                        job_id: id.clone(),
                        row: Box::new(row),
                    },
                    // The row is written; the UI reloads the job at the end.
                    Err(_) => return,
                }
            }
        };
        sink(event);
    };
    run_job(store, job_id, options, on_progress, cancel).await?;
    Ok(())
}

/// The status of a file's reading after a page (its text taken, a scan's
/// OCR done): `Reading page 3 of 20 of scan.pdf…` (the file's name,
/// without its folder).
pub fn reading_status(progress: &PageProgress) -> String {
    let name = progress.path.file_name().map_or_else(
        || progress.path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    format!(
        "Reading page {} of {} of {name}…",
        progress.done, progress.total
    )
}
