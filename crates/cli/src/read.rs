//! `sift read`: exactly what a model would receive for some files.

use std::io::Write;

use clap::Args;
use sift_core::{
    DocumentError, ReadOptions, Workspace, read_documents, render_text, resolve_files,
};

use crate::Failure;

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Print `{"text": ..., "images": [{"name", "mime", "width", "height", "bytes"}]}`.
    #[arg(long)]
    json: bool,
    /// The password for encrypted PDFs.
    #[arg(long)]
    password: Option<String>,
    /// The files: paths or glob patterns (`~` is the home directory).
    #[arg(required = true, value_name = "FILE")]
    files: Vec<String>,
}

impl From<DocumentError> for Failure {
    fn from(error: DocumentError) -> Self {
        Self::Failed {
            category: "document".into(),
            message: error.to_string(),
        }
    }
}

pub fn run(args: ReadArgs, ws: &Workspace) -> Result<(), Failure> {
    let working_dir = std::env::current_dir().map_err(|e| Failure::Failed {
        category: "other".into(),
        message: format!("no working directory: {e}"),
    })?;
    let paths = resolve_files(&args.files, &working_dir)?;
    let options = ReadOptions {
        pdf_password: args.password,
        ..ws.read_options()
    };
    let documents = read_documents(&paths, &options)?;
    let text = render_text(&documents);
    let images = documents.images();
    let output = if args.json {
        let images: Vec<_> = images
            .iter()
            .map(|i| {
                serde_json::json!({
                    "name": i.name,
                    "mime": i.mime,
                    "width": i.width,
                    "height": i.height,
                    "bytes": i.data.len(),
                })
            })
            .collect();
        format!("{}\n", serde_json::json!({"text": text, "images": images}))
    } else {
        let mut output = format!("{text}\n");
        for (i, image) in images.iter().enumerate() {
            output.push_str(&format!(
                "[image {}: {}, {}, {}x{}, {} bytes]\n",
                i + 1,
                image.name,
                image.mime,
                image.width,
                image.height,
                image.data.len()
            ));
        }
        output
    };
    let mut out = std::io::stdout().lock();
    // A closed pipe (`sift read … | head`) is not worth failing for.
    let _ = out.write_all(output.as_bytes());
    let _ = out.flush();
    Ok(())
}
