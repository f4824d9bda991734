//! `sift read`: exactly what a model would receive for some files.

use std::io::Write;

use clap::Args;
use sift_core::{
    DocumentError, OcrMode, OcrOptions, OcrPage, OnPage, PageProgress, ReadOptions, TextOrder,
    Workspace, read_documents, render_text, resolve_files,
};

use crate::Failure;

#[derive(Debug, Args)]
pub struct ReadArgs {
    /// Print `{"text": ..., "images": [{"name", "mime", "width", "height", "bytes"}], "ocr": [{"file", "page", "text", "width", "height", "rotation", "words": [{"text", "left", "top", "width", "height", "confidence"}]}]}`.
    #[arg(long)]
    json: bool,
    /// The password for encrypted PDFs.
    #[arg(long)]
    password: Option<String>,
    /// OCR of scans and photos: `always` (what extraction jobs send, the
    /// default), `auto` (only for a model that cannot take images) or `off`.
    #[arg(long, value_name = "auto|always|off", default_value = "always")]
    ocr: OcrMode,
    /// OCR languages, Tesseract's codes joined by `+` (`eng+deu`).
    #[arg(long, value_name = "LANGS")]
    lang: Option<String>,
    /// The order of a PDF page's text and an OCR'd page's: `layout` (its
    /// visual rows rebuilt from the words' boxes) or `pdfium` (as PDFium,
    /// or the OCR, gives it). The workspace's `[read] order` by default.
    #[arg(long, value_name = "layout|pdfium")]
    order: Option<TextOrder>,
    /// Read for a model that cannot take images: no image is attached, and
    /// the blocks say so.
    #[arg(long)]
    text_only: bool,
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
    let base = ws.read_options();
    // The workspace's cache and languages (`[ocr]`), as extraction's.
    let mut ocr = OcrOptions {
        mode: args.ocr,
        ..base.ocr.clone()
    };
    if let Some(lang) = &args.lang {
        ocr.languages = languages_of(lang);
    }
    let options = ReadOptions {
        pdf_password: args.password,
        ocr,
        model_takes_images: !args.text_only,
        text_order: args.order.unwrap_or(base.text_order),
        on_page: Some(OnPage::new(report_progress)),
        ..base
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
        let mut value = serde_json::json!({"text": text, "images": images});
        let pages = ocr_pages(&documents);
        if !pages.is_empty() {
            value["ocr"] = serde_json::Value::Array(pages);
        }
        format!("{value}\n")
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

/// The languages of a `--lang` argument: Tesseract's codes joined by `+`.
pub fn languages_of(arg: &str) -> Vec<String> {
    arg.split('+')
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// Every OCR'd page: its file, number (1 for an image file) and words.
fn ocr_pages(documents: &sift_core::Documents) -> Vec<serde_json::Value> {
    let page = |file: &str, number: usize, ocr: &OcrPage| {
        let mut value = serde_json::to_value(ocr).unwrap_or_default();
        value["file"] = file.into();
        value["page"] = number.into();
        value
    };
    let mut out = Vec::new();
    for document in &documents.files {
        if let Some(ocr) = &document.ocr {
            out.push(page(&document.name, 1, ocr));
        }
        if let sift_core::Content::Pages(pages) = &document.content {
            for p in pages {
                if let Some(ocr) = &p.ocr {
                    out.push(page(&document.name, p.number, ocr));
                }
            }
        }
    }
    out
}

/// `read FILE: page D/T` on stderr, a line a page (its text taken, a
/// scan's OCR done), when stderr is a terminal.
fn report_progress(progress: PageProgress) {
    use std::io::IsTerminal;
    let mut err = std::io::stderr();
    if err.is_terminal() {
        let _ = writeln!(
            err,
            "read {}: page {}/{}",
            progress.path.display(),
            progress.done,
            progress.total
        );
    }
}
