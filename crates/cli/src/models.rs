//! `sift models`: the GGUF models the local server can serve (the data
//! directory's `models/` folder), adding one, and choosing the one it
//! starts with.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use sift_core::models::local_files::{self, ImportMode, LocalModel};
use sift_core::paths;

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
}

pub fn run(command: ModelsCommand) -> Result<(), Failure> {
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
    }
    Ok(())
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
