//! `sift extract`: documents in, one structured call each, typed rows out
//! (CSV and JSONL). The job is recorded, so `--resume JOB` continues a
//! job that was killed or cancelled without calling its completed
//! documents again.

use std::future::Future;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use clap::Args;
use sift_core::extract::job_export::{ExportExtras, ExportFormat, export_results_with};
use sift_core::extract::{
    DEFAULT_CONCURRENCY, ExtractEvent, JobState, JobTally, NewJob, RowStatus, cancel_extraction,
    resume_tallied_job, start_tallied_job, values_not_found,
};
use sift_core::schemas::schema_by_file_or_name;
use sift_core::{CoreError, Workspace};

use crate::Failure;
use crate::model_args::ModelArgs;

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The JSON Schema of a document's values: a `.json` file (saved to
    /// the schema library under the file's stem), or the name of a library
    /// schema (`invoice`, `receipt`, `bank_statement`, `purchase_order`
    /// are there from the start).
    #[arg(long, value_name = "FILE|NAME", required_unless_present = "resume")]
    schema: Option<PathBuf>,
    /// What to ask for each document [default: "Extract the fields of the
    /// schema from this document."].
    #[arg(long)]
    prompt: Option<String>,
    /// The most documents called at once.
    #[arg(long, default_value_t = DEFAULT_CONCURRENCY as u16, value_parser = clap::value_parser!(u16).range(1..))]
    jobs: u16,
    /// Write one CSV row per document here.
    #[arg(long, value_name = "OUT")]
    csv: Option<PathBuf>,
    /// Write one JSON object per document and line here.
    #[arg(long, value_name = "OUT")]
    jsonl: Option<PathBuf>,
    /// Start the CSV with a UTF-8 byte order mark (for Excel).
    #[arg(long)]
    bom: bool,
    /// Say where each value was found: `FIELD.page` and `FIELD.found`
    /// columns in the CSV, an `evidence` object per line in the JSONL.
    #[arg(long)]
    evidence: bool,
    /// Continue this job: only its documents not yet completed are called
    /// (pass the provider flags again: a job records its models, not how
    /// to reach them).
    #[arg(long, value_name = "JOB_ID", conflicts_with_all = ["schema", "prompt", "files"])]
    resume: Option<String>,
    /// OCR languages for scans and photos, Tesseract's codes joined by
    /// `+` (`eng+deu`) [default: the configuration file's `[ocr]
    /// languages`, else `eng` plus the OS locale's language].
    #[arg(long, value_name = "LANGS", conflicts_with = "resume")]
    lang: Option<String>,
    /// How the values are made: `hybrid` (the locator's best value for
    /// each field it found, the model writes the rest), `grounded` (the
    /// fields the locator is sure of are its own, the others the model
    /// chooses among its candidates), `free` (the model writes every
    /// value) or `located` (the locator alone, no model) [default: located
    /// for the local model, as measured; free for other servers].
    #[arg(long, value_name = "MODE", conflicts_with = "resume",
          value_parser = clap::builder::PossibleValuesParser::new(["hybrid", "grounded", "free", "located"]))]
    answers: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// The documents: paths or globs.
    #[arg(value_name = "FILES", required_unless_present = "resume")]
    files: Vec<String>,
}

#[allow(clippy::print_stderr)]
pub async fn run(args: ExtractArgs, ws: &Workspace) -> Result<(), Failure> {
    let outcome = extract(&args, ws).await;
    // Stops the local server if this command started it.
    ws.shut_down().await;
    let job = outcome?;
    // Written where told, the CLI's paths being the user's own.
    let extras = |bom| ExportExtras {
        bom,
        evidence: args.evidence,
    };
    if let Some(out) = &args.csv {
        export_results_with(ws, &job.job_id, ExportFormat::Csv, out, extras(args.bom))?;
    }
    if let Some(out) = &args.jsonl {
        export_results_with(ws, &job.job_id, ExportFormat::Jsonl, out, extras(false))?;
    }
    let totals = &job.totals;
    eprintln!(
        "done {}, failed {}, tokens {} in, {} out",
        totals.done, totals.failed, totals.input_tokens, totals.output_tokens
    );
    // What a user should check first: values the documents do not hold
    // (counted a page of rows at a time, as the exports are written).
    let not_found = values_not_found(&ws.store()?, &job.job_id)?;
    eprintln!(
        "{not_found} {} not found in the documents",
        if not_found == 1 { "value" } else { "values" }
    );
    if job.status == JobState::Cancelled {
        return Err(Failure::Exit {
            code: 1,
            message: format!(
                "cancelled with {} documents left; continue with --resume {}",
                totals.pending, job.job_id
            ),
        });
    }
    if totals.failed > 0 {
        return Err(Failure::Exit {
            code: 1,
            message: format!(
                "{} of {} documents failed (job {})",
                totals.failed, job.documents, job.job_id
            ),
        });
    }
    Ok(())
}

/// The run of a started or a resumed job.
type Run = Pin<Box<dyn Future<Output = Result<JobTally, CoreError>> + Send>>;

/// Starts (or resumes) the job and runs it to its end, with progress on
/// stderr; Ctrl-C cancels it. Returns the job as it ended, without its
/// rows: the CLI's memory does not grow with the job.
#[allow(clippy::print_stderr)]
async fn extract(args: &ExtractArgs, ws: &Workspace) -> Result<JobTally, Failure> {
    let reporter = Arc::new(Reporter::new(std::io::stderr().is_terminal()));
    let on_event = reporter.clone();
    let sink = move |event: ExtractEvent| on_event.event(&event);
    let jobs = usize::from(args.jobs);
    let (view, run) = match &args.resume {
        Some(id) => {
            let model = &args.model;
            let (view, run) = resume_tallied_job(
                ws,
                id,
                model.provider_settings(),
                model.models.clone(),
                jobs,
                sink,
            )?;
            (view, Box::pin(run) as Run)
        }
        None => {
            let path = args.schema.as_deref().unwrap_or(Path::new(""));
            let (schema_name, schema) = schema_by_file_or_name(&ws.store()?, path)?;
            let working_dir = std::env::current_dir()
                .map_err(|e| failed(format!("no working directory: {e}")))?;
            let job = NewJob {
                schema_name,
                schema,
                prompt: args.prompt.clone(),
                files: sift_core::resolve_files(&args.files, &working_dir)?,
                selection: args.model.selection(ws),
                concurrency: jobs,
                provider_id: None,
                ocr_languages: args.lang.as_deref().map(crate::read::languages_of),
                answers: args.answers.as_deref().map(str::parse).transpose()?,
            };
            let (view, run) = start_tallied_job(ws, job, sink)?;
            (view, Box::pin(run) as Run)
        }
    };
    let total = view.documents;
    reporter.set_total(total);
    eprintln!("job {} ({total} documents)", view.job_id);
    let (registry, job_id) = (ws.clone(), view.job_id.clone());
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() && cancel_extraction(&registry, &job_id) {
            eprintln!("\ncancelling: no new document starts; those in flight finish first");
        }
    });
    Ok(run.await?)
}

fn failed(message: String) -> Failure {
    Failure::Failed {
        category: "other".into(),
        message,
    }
}

/// Progress on stderr: a line per finished document, or a bar redrawn in
/// place when stderr is a terminal.
#[derive(Debug)]
struct Reporter {
    /// The job's documents, known once it has started.
    total: AtomicUsize,
    finished: AtomicUsize,
    terminal: bool,
    lock: Mutex<()>,
}

impl Reporter {
    fn new(terminal: bool) -> Self {
        Self {
            total: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            terminal,
            lock: Mutex::new(()),
        }
    }

    fn set_total(&self, total: usize) {
        self.total.store(total, Ordering::SeqCst);
    }

    /// A line per finished document, and on a terminal a line per status
    /// (`Reading page 3 of 20 of scan.pdf…`); the other events say
    /// nothing here (the summary follows the run).
    fn event(&self, event: &ExtractEvent) {
        let row = match event {
            ExtractEvent::Row { row, .. } => row,
            ExtractEvent::Status { message, .. } if self.terminal => {
                let _guard = self.lock.lock();
                let _ = writeln!(std::io::stderr().lock(), "\r\x1b[2K{message}");
                return;
            }
            _ => return,
        };
        let _guard = self.lock.lock();
        let n = self.finished.fetch_add(1, Ordering::SeqCst) + 1;
        let total = self.total.load(Ordering::SeqCst);
        let mut err = std::io::stderr().lock();
        let line = match row.status {
            RowStatus::Failed => format!(
                "failed {}: {}",
                row.path,
                row.error.as_deref().unwrap_or("unknown error")
            ),
            _ => format!(
                "completed {} ({} in, {} out tokens)",
                row.path, row.input_tokens, row.output_tokens
            ),
        };
        if self.terminal {
            const WIDTH: usize = 30;
            let filled = (WIDTH * n / total.max(1)).min(WIDTH);
            let _ = write!(
                err,
                "\r\x1b[2K[{}{}] {n}/{total} {line}",
                "#".repeat(filled),
                "-".repeat(WIDTH - filled),
            );
            if n >= total {
                let _ = writeln!(err);
            }
        } else {
            let _ = writeln!(err, "[{n}/{total}] {line}");
        }
    }
}
