//! `sift extract`: documents in, one structured call each, typed rows out
//! (CSV and JSONL). The job is recorded, so `--resume JOB` continues a
//! job that was killed or cancelled without calling its completed
//! documents again.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use clap::Args;
use serde_json::Value;
use sift_core::Workspace;
use sift_core::config::load_config;
use sift_core::export::{ExportRow, to_csv, to_jsonl};
use sift_core::extract::{
    DEFAULT_CONCURRENCY, ExtractOptions, Progress, ProgressStatus, create_job, job_results, run_job,
};
use sift_core::store::{DocumentStatus, Store};

use crate::Failure;
use crate::model_args::ModelArgs;

#[derive(Debug, Args)]
pub struct ExtractArgs {
    /// The JSON Schema of a document's values (a `.json` file), saved to
    /// the schema library under the file's stem.
    #[arg(long, value_name = "FILE", required_unless_present = "resume")]
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
    /// Continue this job: only its documents not yet completed are called
    /// (pass the provider flags again: a job records its models, not how
    /// to reach them).
    #[arg(long, value_name = "JOB_ID", conflicts_with_all = ["schema", "prompt", "files"])]
    resume: Option<String>,
    #[command(flatten)]
    model: ModelArgs,
    /// The documents: paths or globs.
    #[arg(value_name = "FILES", required_unless_present = "resume")]
    files: Vec<String>,
}

fn failed(message: String) -> Failure {
    Failure::Failed {
        category: "other".into(),
        message,
    }
}

#[allow(clippy::print_stderr)]
pub async fn run(args: ExtractArgs, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let mut selection = args.model.selection();
    let job = match &args.resume {
        Some(id) => {
            let job = store
                .get_extraction_job(id)
                .map_err(sift_core::CoreError::from)?
                .ok_or_else(|| Failure::Usage(format!("no extraction job {id}")))?;
            if selection.models.is_empty() {
                selection.models = job
                    .models
                    .as_array()
                    .map(|models| {
                        models
                            .iter()
                            .filter_map(|m| m.as_str().map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default();
            }
            job
        }
        None => {
            let path = args.schema.as_deref().unwrap_or(Path::new(""));
            let schema = read_schema(path)?;
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "schema".into());
            let working_dir = std::env::current_dir()
                .map_err(|e| failed(format!("no working directory: {e}")))?;
            let files = sift_documents::resolve_files(&args.files, &working_dir)?;
            selection.models = selection.resolved_models()?;
            create_job(
                &store,
                &name,
                &schema,
                args.prompt.as_deref(),
                &files,
                &selection.models,
            )?
        }
    };
    let total = store
        .extraction_documents(&job.id)
        .map_err(sift_core::CoreError::from)?
        .len();
    eprintln!("job {} ({total} documents)", job.id);

    let cancel = Arc::new(AtomicBool::new(false));
    let on_signal = cancel.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.store(true, Ordering::SeqCst);
            eprintln!("\ncancelling: no new document starts; those in flight finish first");
        }
    });
    let options = ExtractOptions {
        concurrency: usize::from(args.jobs),
        selection,
        context: load_config(None)?.context,
    };
    let reporter = Reporter::new(total, std::io::stderr().is_terminal());
    let summary = run_job(
        &store,
        &job.id,
        options,
        move |p| reporter.event(&p),
        cancel,
    )
    .await?;

    let rows = export_rows(&store, &job.id)?;
    if let Some(out) = &args.csv {
        write_file(out, &to_csv(&job.schema, &rows, args.bom))?;
    }
    if let Some(out) = &args.jsonl {
        write_file(out, &to_jsonl(&rows))?;
    }
    eprintln!(
        "done {}, failed {}, tokens {} in, {} out",
        summary.done, summary.failed, summary.input_tokens, summary.output_tokens
    );
    if summary.cancelled {
        return Err(Failure::Exit {
            code: 1,
            message: format!(
                "cancelled with {} documents left; continue with --resume {}",
                summary.pending, job.id
            ),
        });
    }
    if summary.failed > 0 {
        return Err(Failure::Exit {
            code: 1,
            message: format!(
                "{} of {total} documents failed (job {})",
                summary.failed, job.id
            ),
        });
    }
    Ok(())
}

/// The job's rows as exported: a user's revision wins over the model's
/// values.
fn export_rows(store: &Store, job_id: &str) -> Result<Vec<ExportRow>, Failure> {
    Ok(job_results(store, job_id)?
        .into_iter()
        .map(|r| ExportRow {
            file: r.document.path.clone(),
            status: r.document.status.as_str().to_owned(),
            error: r.document.error.clone(),
            values: match r.document.status {
                DocumentStatus::Completed => r.values().cloned(),
                _ => None,
            },
        })
        .collect())
}

fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    std::fs::write(path, text).map_err(|e| failed(format!("cannot write {}: {e}", path.display())))
}

fn read_schema(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read the schema {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Usage(format!("the schema {} is not JSON: {e}", path.display())))
}

/// Progress on stderr: a line per finished document, or a bar redrawn in
/// place when stderr is a terminal.
struct Reporter {
    total: usize,
    finished: AtomicUsize,
    terminal: bool,
    lock: Mutex<()>,
}

impl Reporter {
    fn new(total: usize, terminal: bool) -> Self {
        Self {
            total,
            finished: AtomicUsize::new(0),
            terminal,
            lock: Mutex::new(()),
        }
    }

    fn event(&self, p: &Progress) {
        if p.status == ProgressStatus::Started {
            return;
        }
        let _guard = self.lock.lock();
        let n = self.finished.fetch_add(1, Ordering::SeqCst) + 1;
        let mut err = std::io::stderr().lock();
        let line = match p.status {
            ProgressStatus::Failed => format!(
                "failed {}: {}",
                p.path,
                p.error.as_deref().unwrap_or("unknown error")
            ),
            _ => format!(
                "completed {} ({} in, {} out tokens)",
                p.path, p.input_tokens, p.output_tokens
            ),
        };
        if self.terminal {
            const WIDTH: usize = 30;
            let filled = WIDTH * n / self.total.max(1);
            let _ = write!(
                err,
                "\r\x1b[2K[{}{}] {n}/{} {line}",
                "#".repeat(filled),
                "-".repeat(WIDTH - filled),
                self.total
            );
            if n >= self.total {
                let _ = writeln!(err);
            }
        } else {
            let _ = writeln!(err, "[{n}/{}] {line}", self.total);
        }
    }
}
