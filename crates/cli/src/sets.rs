//! `sift sets`: labelled sets stored in the database (see
//! `sift_core::eval::sets`): imported from a ground-truth TSV, made from
//! a job's checked and corrected values, listed, exported, deleted.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use sift_core::Workspace;
use sift_core::eval::{self, LabelledSetSummary};
use sift_core::schemas::{name_of_file, read_schema_file};

use crate::Failure;

#[derive(Debug, Subcommand)]
pub enum SetsCommand {
    /// A set from a TSV with a `file` column (relative to the TSV) and a
    /// column per field of the schema.
    Import {
        name: String,
        #[arg(long, value_name = "FILE.tsv")]
        truth: PathBuf,
        /// The schema (a `.json` file, saved to the library under its
        /// file name).
        #[arg(long, value_name = "FILE")]
        schema: PathBuf,
    },
    /// A set from a job: the values its user checked or corrected.
    FromJob {
        job_id: String,
        name: String,
    },
    /// Every set: name, documents, fields, source.
    List,
    /// A set as the TSV `import` reads.
    Export {
        name: String,
        #[arg(value_name = "FILE.tsv")]
        path: PathBuf,
    },
    Delete {
        name: String,
    },
}

fn line(set: &LabelledSetSummary) -> String {
    format!(
        "{}\t{} documents\t{}\t{}",
        set.name,
        set.documents,
        set.fields.join(","),
        set.source
    )
}

pub fn run(command: SetsCommand, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let mut out = std::io::stdout().lock();
    match command {
        SetsCommand::Import {
            name,
            truth,
            schema,
        } => {
            let schema_name = name_of_file(&schema).unwrap_or_else(|| "schema".into());
            store
                .save_schema(&schema_name, &read_schema_file(&schema)?)
                .map_err(sift_core::CoreError::from)?;
            let set = eval::import_set(&store, &name, &truth, &schema_name, None)?;
            let _ = writeln!(out, "{}", line(&set));
        }
        SetsCommand::FromJob { job_id, name } => {
            let set = eval::set_from_job(&store, &job_id, &name)?;
            let _ = writeln!(out, "{}", line(&set));
        }
        SetsCommand::List => {
            for set in eval::list_sets(&store)? {
                let _ = writeln!(out, "{}", line(&set));
            }
        }
        SetsCommand::Export { name, path } => {
            let n = eval::export_set(ws, &name, &path)?;
            let _ = writeln!(out, "{n} documents written to {}", path.display());
        }
        SetsCommand::Delete { name } => {
            if !eval::delete_set(&store, &name)? {
                return Err(Failure::Usage(format!("no labelled set named {name:?}")));
            }
        }
    }
    Ok(())
}
