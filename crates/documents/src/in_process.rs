//! Reading one file in this process, within the limits: a reader
//! process's work (`reader_process/worker.rs`), and every read where the
//! binary does not isolate its readers. [`crate::read`] chooses where a
//! file is read.

use std::path::Path;

use crate::budget::Budget;
use crate::document::{Content, Document, Kind, kind_of};
use crate::error::DocumentError;
use crate::limits::ReadOptions;
use crate::ocr::OcrPage;
use crate::page_layout::ocr_text_in;
use crate::page_ocr::FileOcr;
use crate::{docx, imaging, pdf, text, xlsx};

pub(crate) fn read_one(
    path: &Path,
    options: &ReadOptions,
    budget: &mut Budget,
) -> Result<Document, DocumentError> {
    let limits = &options.limits;
    check_unopened(path, limits)?;
    let bytes = read_bounded(path, limits.max_file_bytes)?;
    read_content(path, bytes, options, budget)
}

/// The refusals made before a file is opened: its kind, that it is there,
/// a regular file and not too large.
pub(crate) fn check_unopened(path: &Path, limits: &crate::Limits) -> Result<(), DocumentError> {
    // The kind is checked before the file is opened: a kind Sift does not
    // read is refused without reading it.
    kind_or_refusal(path)?;
    let meta = std::fs::metadata(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => DocumentError::NotFound {
            path: path.to_path_buf(),
        },
        _ => DocumentError::Io {
            path: path.to_path_buf(),
            source,
        },
    })?;
    if meta.is_dir() {
        return Err(DocumentError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    // Checked before opening: a FIFO named `x.pdf` blocks `open` until
    // something writes to it, which may be never.
    if !meta.is_file() {
        return Err(DocumentError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > limits.max_file_bytes {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            bytes: meta.len(),
            limit: limits.max_file_bytes,
        });
    }
    Ok(())
}

fn kind_or_refusal(path: &Path) -> Result<Kind, DocumentError> {
    kind_of(path).ok_or_else(|| DocumentError::Unsupported {
        path: path.to_path_buf(),
        kind: match path.extension() {
            Some(ext) => format!(".{}", ext.to_string_lossy()),
            None => "no extension".to_string(),
        },
    })
}

/// Reads one file that is already in memory (an attachment, say): `path`
/// gives its name and kind (from the extension) and names it in refusals.
/// The per-file limits apply; the totals are those of this file alone.
pub fn read_bytes(
    path: &Path,
    bytes: Vec<u8>,
    options: &ReadOptions,
) -> Result<Document, DocumentError> {
    kind_or_refusal(path)?;
    let limits = &options.limits;
    if bytes.len() as u64 > limits.max_file_bytes {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit: limits.max_file_bytes,
        });
    }
    read_content(path, bytes, options, &mut Budget::new(limits))
}

fn read_content(
    path: &Path,
    bytes: Vec<u8>,
    options: &ReadOptions,
    budget: &mut Budget,
) -> Result<Document, DocumentError> {
    let limits = &options.limits;
    let kind = kind_or_refusal(path)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let mut ocr = None;
    let mut invoice_xml = None;
    let content = match kind {
        Kind::Text => {
            let decoded = text::decode(path, &bytes)?;
            let xml = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xml"));
            Content::Text(if xml {
                text::without_binary_content(decoded)
            } else {
                decoded
            })
        }
        Kind::Word => Content::Text(docx::read(path, &bytes, limits)?),
        Kind::Excel => Content::Text(xlsx::read(path, &bytes, limits)?),
        Kind::Pdf => {
            let (pages, xml) = pdf::read(path, &name, &bytes, options, budget)?;
            invoice_xml = xml;
            Content::Pages(pages)
        }
        Kind::Image => {
            let decoded = imaging::decode(path, &bytes, limits)?;
            if options.ocr_applies() {
                ocr = Some(ocr_image(path, &bytes, &decoded.image, options)?);
            }
            if options.model_takes_images {
                budget.take_image(path)?;
                if let Some(read) = &ocr {
                    budget.take_chars(path, &read.text)?;
                }
                Content::Image(imaging::for_model(decoded, &name, &bytes, limits))
            } else {
                // The model reads the image's text in its place.
                Content::Text(
                    ocr.as_ref()
                        .map(|o| ocr_text_in(options.text_order, o))
                        .unwrap_or_default(),
                )
            }
        }
    };
    if let Content::Text(text) = &content {
        budget.take_chars(path, text)?;
    }
    Ok(Document {
        path: path.to_path_buf(),
        name,
        kind,
        content,
        ocr,
        invoice_xml,
    })
}

/// An image file's OCR: its one page, from the cache when it was read before.
fn ocr_image(
    path: &Path,
    bytes: &[u8],
    image: &image::DynamicImage,
    options: &ReadOptions,
) -> Result<OcrPage, DocumentError> {
    let file = FileOcr::new(path, bytes, &options.ocr, options.on_page.as_ref(), 1);
    if let Some(page) = file.cached(1) {
        return Ok(page);
    }
    file.recognize(1, image, image.width() as f32)
}

/// Reads a file, refusing it when it grows past the limit while read.
fn read_bounded(path: &Path, max: u64) -> Result<Vec<u8>, DocumentError> {
    use std::io::Read;
    let io = |source| DocumentError::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(io)?;
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > max {
        return Err(DocumentError::TooLarge {
            path: path.to_path_buf(),
            bytes: bytes.len() as u64,
            limit: max,
        });
    }
    Ok(bytes)
}
