//! Extraction jobs: files × one schema × models. Each document is one
//! structured call; at most `concurrency` run at once; each document's
//! result is written as soon as its call finishes, so a job run again
//! after a crash (or a cancel) calls only the documents not yet completed.
//!
//! Beside the job: [`export`] and [`job_export`] its rows as CSV and
//! JSONL; [`schema_suggestion`] a schema suggested from one document;
//! `job_server.rs` the local model server, started when the first
//! document asks the model.

mod answers;
mod einvoice;
pub mod export;
pub mod job_export;
mod job_server;
#[cfg(test)]
mod job_server_tests;
mod line_arithmetic;
mod reading;
mod results;
pub mod schema_suggestion;
mod start;
mod table;
mod tally;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Value, json};
use sift_documents::{Documents, OcrMode, OcrOptions, ReadOptions};
use sift_engine::ContextSettings;
use sift_locate::locate_in_pages;
use sift_locate::pages::SearchPage;
use sift_store::{
    CallStatus, DocumentResult, DocumentStatus, ExtractionDocument, ExtractionJob, JobStatus,
    NewExtractionJob, Store, StructuredCall,
};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::calls::{CallRequest, read_files, run_call_on_documents};
use crate::error::CoreError;
use crate::evidence::ValueOrigin;
use crate::evidence::{
    ValueSources, evidence_value, needed_correction, refresh_evidence, search_pages,
};
use crate::models::ModelSelection;
use crate::models::local::{LocalServerHandle, LocalServerOwner, ensure_local_server};
use crate::models::provider::ProviderKind;
use crate::schemas::check::check_usable;

pub use answers::AnswerMode;
use answers::{fill_from_locator, ground, located_fields, with_fixed, without_fields};
use einvoice::{EInvoiceRead, einvoice_values};
pub use job_server::OnServerStart;
use job_server::{JobServer, ServerDown};
use line_arithmetic::complete_lines;
pub use reading::read_options_for_models;
pub use results::{JobResult, job_result, job_result_pages, job_results, revise_value};
pub use start::{
    ExtractEvent, ExtractRequest, NewJob, cancel_extraction, resume_extraction, resume_job,
    resume_tallied_job, start_extraction, start_job, start_tallied_job,
};
pub(crate) use start::{FlavouredJob, one_document_options, run_flavoured_job};
pub use table::{
    Column, JobRow, JobState, JobSummary, JobTotals, JobView, RowStatus, check_value, evidence_key,
    job_row, job_view, recent_jobs, revise_field, with_field,
};
pub use tally::{JobTally, job_tally, job_totals, values_not_found};

/// The prompt of a job created without one.
pub const DEFAULT_PROMPT: &str = "Extract the fields of the schema from this document.";
/// Documents called at once unless told otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;
/// The `kind` of an extraction's structured calls.
pub const EXTRACT_KIND: &str = "extract";

/// How to run a job.
#[derive(Debug, Clone)]
pub struct ExtractOptions {
    /// The most documents called at once (at least 1).
    pub concurrency: usize,
    /// The provider and the models to try on each document, in order.
    pub selection: ModelSelection,
    /// How much of earlier tool results and images each call keeps in its context.
    pub context: ContextSettings,
    /// Who keeps the local server, when it is the provider: a long-lived
    /// owner (the app's workspace) keeps it up after the job; `None`
    /// starts it for this job and stops it at the end.
    pub local_server: Option<LocalServerOwner>,
    /// How the documents are read (PDFium, the OCR cache and languages,
    /// the OCR progress); the job itself sets OCR on for every model and
    /// images only for a model that takes them.
    pub read_options: ReadOptions,
    /// What the job's calls are and whether scans are OCR'd.
    pub flavour: JobFlavour,
    /// Told if the job starts the local server (its first model call).
    pub on_server_start: Option<OnServerStart>,
}

/// How a job's calls differ by who runs it: a user's job stores
/// `extract` calls and OCRs every scan; an evaluation candidate's stores
/// `eval` calls (so usage tells them apart) and may read with OCR off.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobFlavour {
    /// The `kind` stored with each structured call ([`EXTRACT_KIND`] for a user's job).
    pub call_kind: String,
    /// Whether scans and images are read with OCR; `false` reads them without it.
    pub ocr: bool,
}

impl Default for JobFlavour {
    fn default() -> Self {
        Self {
            call_kind: EXTRACT_KIND.to_owned(),
            ocr: true,
        }
    }
}

impl ExtractOptions {
    /// Options for a user's job with the models of `selection`: the default concurrency and
    /// context settings, OCR on, and a local server started for the job alone if needed.
    pub fn new(selection: ModelSelection) -> Self {
        Self {
            concurrency: DEFAULT_CONCURRENCY,
            selection,
            context: ContextSettings::default(),
            local_server: None,
            read_options: ReadOptions {
                ocr: OcrOptions {
                    mode: OcrMode::Always,
                    ..OcrOptions::default()
                },
                ..ReadOptions::default()
            },
            flavour: JobFlavour::default(),
            on_server_start: None,
        }
    }
}

/// Where a document is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ProgressStatus {
    /// Its call starts now.
    Started,
    /// Its call ended with values, stored as its result.
    Completed,
    /// Its call ended without a result; the error says why.
    Failed,
}

/// A progress event: one when a document's call starts, one when it ends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Progress {
    /// The document's place in the job's file order, from 0.
    pub position: i64,
    /// The document's path, as the job recorded it.
    pub path: String,
    /// Whether the call starts now, or how it ended.
    pub status: ProgressStatus,
    /// The input tokens of the document's call (what the model read); 0 when it starts.
    pub input_tokens: u64,
    /// The output tokens of the document's call (what the model wrote); 0 when it starts.
    pub output_tokens: u64,
    /// Why the document failed; `None` unless it did.
    pub error: Option<String>,
}

/// The job after a run: every document, not only those of this run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RunSummary {
    /// Documents not called (`pending`) are those left by a cancel.
    pub totals: JobTotals,
    /// The run was cancelled with documents still pending.
    pub cancelled: bool,
}

/// Saves `schema` to the library under `schema_name` (checked with the
/// library's one rule first) and creates a running job over `files`.
pub fn create_job(
    store: &Store,
    schema_name: &str,
    schema: &Value,
    prompt: Option<&str>,
    files: &[PathBuf],
    models: &[String],
) -> Result<ExtractionJob, CoreError> {
    check_usable(schema)?;
    if files.is_empty() {
        return Err(CoreError::Usage(
            "an extraction needs at least one file".into(),
        ));
    }
    let version = store.save_schema(schema_name, schema)?;
    let prompt = prompt
        .filter(|p| !p.trim().is_empty())
        .unwrap_or(DEFAULT_PROMPT);
    Ok(store.create_extraction_job(NewExtractionJob {
        schema_name: schema_name.to_owned(),
        schema_version: version,
        prompt: prompt.to_owned(),
        models: json!(models),
        paths: files.iter().map(|f| f.display().to_string()).collect(),
    })?)
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, CoreError> + Send + 'static,
) -> Result<T, CoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| CoreError::Internal(format!("a store task stopped: {e}")))?
}

/// Reads one document, locates its fields, makes its answer as the
/// job's mode says (see [`answers`]) and writes its result.
async fn run_document(
    store: Store,
    job: Arc<ExtractionJob>,
    options: Arc<ExtractOptions>,
    server: Arc<JobServer>,
    document: ExtractionDocument,
) -> Result<ExtractionDocument, CoreError> {
    let mut request = CallRequest::new(options.selection.clone(), job.prompt.clone());
    request.kind.clone_from(&options.flavour.call_kind);
    request.schema = Some(job.schema.clone());
    request.files = vec![PathBuf::from(&document.path)];
    request.context = options.context.clone();
    request.read_options = options.read_options.clone();
    let mode = AnswerMode::of_job(job.answers.as_deref());
    let result = match answer_document(&store, &request, &job.schema, mode, &server).await {
        Ok(answer) => answer.into_result(&request.read_options, &job.schema),
        // The job's server did not start: the job ends with its error
        // (taken from `server` by the run) and this document stays
        // pending, for a resume.
        Err(AnswerError::ServerDown) => {
            return Err(CoreError::Internal(
                "the local model server did not start".to_owned(),
            ));
        }
        // Refused before any request (an unreadable file, ...): this
        // document fails, the others go on.
        Err(AnswerError::Document(error)) => DocumentResult {
            status: DocumentStatus::Failed,
            values: None,
            error: Some(error.to_string()),
            error_category: Some(error.code().to_owned()),
            input_tokens: 0,
            output_tokens: 0,
            call_id: None,
            evidence: None,
            evidence_source: None,
        },
    };
    let job_id = job.id.clone();
    let position = document.position;
    blocking(move || Ok(store.set_document_result(&job_id, position, result)?)).await
}

/// A document's answer: the documents as read, the model's call (none
/// when the locator answered alone), the values, and which of them were
/// not the model's.
struct DocumentAnswer {
    documents: Documents,
    /// The document's pages as the locator searched them, for evidence
    /// to search in turn (built once); `None` when nothing was located.
    pages: Option<Vec<SearchPage>>,
    call: Option<StructuredCall>,
    values: Option<Value>,
    origins: HashMap<String, ValueOrigin>,
    /// Notes for the review queue by field key (see [`EInvoiceRead`]).
    notes: HashMap<String, Vec<String>>,
    /// The document's e-invoice is a credit note (see [`EInvoiceRead`]).
    credit_note: bool,
}

/// Why a document has no answer: its own failure, or the job's server's.
#[derive(Debug)]
enum AnswerError {
    Document(CoreError),
    ServerDown,
}

impl From<CoreError> for AnswerError {
    fn from(error: CoreError) -> Self {
        Self::Document(error)
    }
}

impl From<ServerDown> for AnswerError {
    fn from(_: ServerDown) -> Self {
        Self::ServerDown
    }
}

async fn answer_document(
    store: &Store,
    request: &CallRequest,
    schema: &Value,
    mode: AnswerMode,
    server: &JobServer,
) -> Result<DocumentAnswer, AnswerError> {
    let documents = read_files(&request.files, &request.read_options).await?;
    let (einvoice, located, pages) = match (mode, documents.files.first()) {
        (AnswerMode::Free, _) | (_, None) => (EInvoiceRead::default(), Vec::new(), None),
        (_, Some(document)) => {
            let mut einvoice = einvoice_values(document, schema);
            // Built once: evidence searches these same pages afterwards.
            let pages = search_pages(document);
            let mut located = locate_in_pages(&pages, schema);
            einvoice.note_disagreements(&located);
            located.retain(|f| !einvoice.values.iter().any(|(key, _)| *key == f.key));
            (einvoice, located, Some(pages))
        }
    };
    let EInvoiceRead {
        values: exact,
        notes,
        credit_note,
    } = einvoice;
    let mut origins: HashMap<String, ValueOrigin> = exact
        .iter()
        .map(|(key, _)| (key.clone(), ValueOrigin::EInvoice))
        .collect();
    let unexact = without_fields(schema, &exact);
    let (ask, fixed) = match mode {
        AnswerMode::Free => (Some(schema.clone()), Vec::new()),
        AnswerMode::Located => (None, located_fields(&located)),
        AnswerMode::Grounded => {
            let ask = ground(&unexact, &located);
            (ask.schema, ask.fixed)
        }
        AnswerMode::Hybrid => {
            let ask = fill_from_locator(&unexact, &located);
            (ask.schema, ask.fixed)
        }
    };
    origins.extend(
        fixed
            .iter()
            .map(|(key, _)| (key.clone(), ValueOrigin::Located)),
    );
    let fixed: Vec<(String, Value)> = exact.into_iter().chain(fixed).collect();
    let Some(ask) = ask else {
        // No model: the e-invoice's and the locator's values.
        return Ok(DocumentAnswer {
            documents,
            pages,
            call: None,
            values: Some(with_fixed(None, &fixed)),
            origins,
            notes,
            credit_note,
        });
    };
    let asked: Vec<String> = ask
        .get("properties")
        .and_then(Value::as_object)
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default();
    let mut request = request.clone();
    request.schema = Some(ask);
    server.ready().await?;
    let call = run_call_on_documents(store, &request, &documents).await?;
    let mut notes = notes;
    let values = if call.status == CallStatus::Completed {
        call.output.clone().map(|answer| {
            if fixed.is_empty() {
                answer
            } else {
                with_fixed(Some(answer), &fixed)
            }
        })
    } else if mode == AnswerMode::Hybrid && !fixed.is_empty() {
        // The locator's values stand when the model's part fails, so a
        // hybrid answer never holds less than a located one; each field
        // the model was asked for says why it is empty, for review.
        let error = call.error.as_deref().unwrap_or("it gave no answer");
        let mut unanswered = serde_json::Map::new();
        for key in asked {
            notes
                .entry(key.clone())
                .or_default()
                .push(format!("the model's answer failed: {error}"));
            unanswered.insert(key, Value::Null);
        }
        Some(with_fixed(Some(Value::Object(unanswered)), &fixed))
    } else {
        None
    };
    Ok(DocumentAnswer {
        documents,
        pages,
        call: Some(call),
        values,
        origins,
        notes,
        credit_note,
    })
}

impl DocumentAnswer {
    fn into_result(mut self, read_options: &ReadOptions, schema: &Value) -> DocumentResult {
        let corrected = self
            .call
            .as_ref()
            .is_some_and(|call| needed_correction(call.transcript.as_ref()));
        let found = match (self.values.as_mut(), self.documents.files.first()) {
            (Some(values), Some(document)) => {
                // The locator's pages, else (no locating) built now: once.
                let pages = self.pages.take().unwrap_or_else(|| search_pages(document));
                for key in complete_lines(schema, values, &pages) {
                    self.origins.insert(key, ValueOrigin::LineArithmetic);
                }
                let sources = ValueSources {
                    origins: &self.origins,
                    notes: &self.notes,
                    credit_note: self.credit_note,
                };
                evidence_value(
                    (document, &pages),
                    read_options,
                    schema,
                    values,
                    corrected,
                    &sources,
                )
            }
            _ => None,
        };
        let (evidence, evidence_source) = found.unzip();
        let Some(call) = self.call else {
            return DocumentResult {
                evidence,
                evidence_source,
                status: DocumentStatus::Completed,
                values: self.values,
                error: None,
                error_category: None,
                input_tokens: 0,
                output_tokens: 0,
                call_id: None,
            };
        };
        // A hybrid answer whose model failed keeps the locator's values
        // (see `answer_document`): the document is done, the failure noted
        // on the fields the model was asked for rather than on the row.
        let done = call.status == CallStatus::Completed || self.values.is_some();
        DocumentResult {
            evidence,
            evidence_source,
            status: if done {
                DocumentStatus::Completed
            } else {
                DocumentStatus::Failed
            },
            values: self.values,
            error: call.error.clone().filter(|_| !done),
            error_category: call.error_category.clone().filter(|_| !done),
            input_tokens: call.input_tokens,
            output_tokens: call.output_tokens,
            call_id: Some(call.id.clone()),
        }
    }
}

/// Runs (or resumes) a job: calls every document not yet completed, at
/// most `options.concurrency` at once. A document's failure is written on
/// its row and leaves the others unharmed. Once `cancel` is cancelled no
/// new document starts; those already started finish and are written,
/// and the job is marked cancelled. When the local server (the provider)
/// will not start, no document is called and the job ends failed.
pub async fn run_job(
    store: &Store,
    job_id: &str,
    options: ExtractOptions,
    on_progress: impl Fn(Progress) + Send + Sync + 'static,
    cancel: CancellationToken,
) -> Result<RunSummary, CoreError> {
    let job = store
        .get_extraction_job(job_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no extraction job {job_id}")))?;
    if job.status != JobStatus::Running {
        store.set_job_status(job_id, JobStatus::Running)?;
    }
    // The documents to call are read a page at a time as the calls go
    // (a job of 10,000 is not held whole); the count says whether any.
    let totals = store.extraction_document_totals(job_id)?;
    let nothing_to_do = totals.pending + totals.failed == 0;
    let job = Arc::new(job);
    // The local server, when it is the provider, is started once for the
    // whole job (each call then finds it running), not once per call, and
    // only when a document asks the model (see `job_server`).
    let mode = AnswerMode::of_job(job.answers.as_deref());
    let needs_server = mode.needs_model() && local_provider(&options.selection)?;
    let server = Arc::new(JobServer::new(
        needs_server && !nothing_to_do,
        options.local_server.clone(),
        options.on_server_start.clone(),
    ));
    let read_options = if nothing_to_do {
        options.read_options.clone()
    } else {
        match reading::job_read_options(&options, mode).await {
            Ok(read_options) => read_options,
            Err(error) => return Err(fail_before_calls(store, job_id, error)),
        }
    };
    // Values already found stay right only while their files do.
    if let Err(error) = refresh_evidence(store, &job, &read_options).await {
        return Err(fail_before_calls(store, job_id, error));
    }
    let options = Arc::new(ExtractOptions {
        concurrency: options.concurrency.max(1),
        read_options,
        ..options
    });
    let on_progress = Arc::new(on_progress);
    let semaphore = Arc::new(Semaphore::new(options.concurrency));
    let mut tasks = JoinSet::new();
    let mut first_error = None;
    for document in store.extraction_document_pages(job_id) {
        let document = match document {
            Ok(document) if document.status == DocumentStatus::Completed => continue,
            Ok(document) => document,
            // The calls started finish and are written; the job fails.
            Err(error) => {
                first_error.get_or_insert(error.into());
                break;
            }
        };
        let Ok(permit) = semaphore.clone().acquire_owned().await else {
            break;
        };
        if cancel.is_cancelled() {
            break;
        }
        // Collect what has finished meanwhile, so errors surface early.
        while let Some(joined) = tasks.try_join_next() {
            if let Err(e) = flatten(joined) {
                first_error.get_or_insert(e);
            }
        }
        on_progress(Progress {
            position: document.position,
            path: document.path.clone(),
            status: ProgressStatus::Started,
            input_tokens: 0,
            output_tokens: 0,
            error: None,
        });
        let (store, job, options, server, on_progress) = (
            store.clone(),
            job.clone(),
            options.clone(),
            server.clone(),
            on_progress.clone(),
        );
        tasks.spawn(async move {
            let row = run_document(store, job, options, server, document).await;
            if let Ok(row) = &row {
                on_progress(Progress {
                    position: row.position,
                    path: row.path.clone(),
                    status: if row.status == DocumentStatus::Completed {
                        ProgressStatus::Completed
                    } else {
                        ProgressStatus::Failed
                    },
                    input_tokens: row.input_tokens,
                    output_tokens: row.output_tokens,
                    error: row.error.clone(),
                });
            }
            // Released only after the event, so a listener never sees
            // more than `concurrency` documents between their events.
            drop(permit);
            row
        });
    }
    while let Some(joined) = tasks.join_next().await {
        if let Err(e) = flatten(joined) {
            first_error.get_or_insert(e);
        }
    }
    // A server that did not start is the job's error, whichever
    // document's task noticed first.
    if let Some(error) = server.finish().await {
        first_error = Some(error);
    }
    if let Some(error) = first_error {
        store.set_job_status(job_id, JobStatus::Failed)?;
        return Err(error);
    }
    let totals = job_totals(store, job_id)?;
    let summary = RunSummary {
        cancelled: totals.pending > 0 && cancel.is_cancelled(),
        totals,
    };
    let status = if summary.cancelled {
        JobStatus::Cancelled
    } else if summary.totals.failed > 0 {
        JobStatus::Failed
    } else {
        JobStatus::Completed
    };
    store.set_job_status(job_id, status)?;
    Ok(summary)
}

/// Ends a run that failed before any document was called: the job is
/// failed (a resume calls every document), not left looking as if it
/// still ran. The run's own error is the one returned, unless the job's
/// status cannot be written.
fn fail_before_calls(store: &Store, job_id: &str, error: CoreError) -> CoreError {
    match store.set_job_status(job_id, JobStatus::Failed) {
        Ok(()) => error,
        Err(status) => status.into(),
    }
}

/// The local server for a call outside a job: through its long-lived
/// owner when there is one (nothing to release then), else started for
/// the call.
async fn start_local_server(
    owner: Option<&LocalServerOwner>,
) -> Result<Option<LocalServerHandle>, CoreError> {
    match owner {
        Some(owner) => owner.ensure_running().await.map(|()| None),
        None => ensure_local_server().await.map(Some),
    }
}

/// Whether the calls go to the local server at its well-known address.
pub(crate) fn local_provider(selection: &ModelSelection) -> Result<bool, CoreError> {
    let provider = selection.provider.clone().with_env_defaults()?;
    Ok(provider.choice() == ProviderKind::Local && provider.base_url.is_none())
}

fn flatten(
    joined: Result<Result<ExtractionDocument, CoreError>, tokio::task::JoinError>,
) -> Result<ExtractionDocument, CoreError> {
    joined.map_err(|e| CoreError::Internal(format!("a document's task stopped: {e}")))?
}
