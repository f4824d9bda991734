//! `sift schema import|export|list`: the schema library.

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;
use sift_core::Workspace;
use sift_core::schemas::{export_schema, import_schema};

use crate::Failure;

#[derive(Debug, Subcommand)]
pub enum SchemaCommand {
    /// Save a `.json` schema to the library (a new version when it changed);
    /// prints `NAME VERSION`.
    Import {
        file: PathBuf,
        /// The name to save it under [default: the file's stem].
        #[arg(long)]
        name: Option<String>,
    },
    /// Print a schema from the library as JSON (to save as a `.json` file).
    Export {
        name: String,
        /// [default: the latest]
        #[arg(long)]
        version: Option<i64>,
    },
    /// One line per schema: its name and latest version.
    List,
}

pub fn run(command: SchemaCommand, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let text = match command {
        SchemaCommand::Import { file, name } => {
            let saved = import_schema(&store, &file, name.as_deref())?;
            format!("{} {}\n", saved.name, saved.version)
        }
        SchemaCommand::Export { name, version } => export_schema(&store, &name, version)?,
        SchemaCommand::List => store
            .list_schemas()
            .map_err(sift_core::CoreError::from)?
            .iter()
            .map(|s| format!("{} {}\n", s.name, s.version))
            .collect(),
    };
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes());
    Ok(())
}
