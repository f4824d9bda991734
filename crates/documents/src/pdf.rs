//! PDFs, read with PDFium: page by page.
//!
//! A page's text is PDFium's text for the page. A page with no visible
//! text of its own (a scan; text drawn invisibly, such as an OCR layer,
//! does not count) but with something drawn on it is rendered to an image
//! whose long edge is 1568 px (or less: at most 300 dpi). A page with
//! nothing on it stays a page without text.
//!
//! PDFium is not thread-safe, so its calls are serialized; a rendered
//! page is encoded on a second thread while PDFium renders the next one.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::Instant;

use pdfium_render::prelude::*;

use crate::budget::Budget;
use crate::document::{DocImage, EmbeddedXml, Page};
use crate::error::DocumentError;
use crate::imaging::encode_compact;
use crate::limits::ReadOptions;
use crate::ocr::{OCR_DPI, ocr_layer_is_usable};
use crate::page_layout::{ocr_text_in, pdf_text_in};
use crate::page_ocr::{FileOcr, PageQueue};
use crate::platform::{bundle_dir, default_data_dir};
use crate::progress::PageProgress;
use crate::text::normalize_newlines;
use crate::text_order::TextOrder;
use crate::words::pdf_text_words;

/// The smallest page side PDFium can show anything on: a side under one
/// point (0.35 mm) is a malformed page box, not a page.
const MIN_PAGE_POINTS: f32 = 1.0;

/// The highest resolution a page is rendered at for a model, in dots per inch.
const MAX_DPI: f32 = 300.0;

/// The longest edge a page is rendered at for OCR: 300 dpi up to A2.
const OCR_MAX_EDGE: u32 = 7016;

static PDFIUM: OnceLock<Pdfium> = OnceLock::new();
static BINDING: Mutex<()> = Mutex::new(());

fn library_name() -> String {
    Pdfium::pdfium_platform_library_name()
        .to_string_lossy()
        .into_owned()
}

/// Where PDFium is looked for, in order: `options.pdfium_library`; then
/// `SIFT_PDFIUM` (a file, or a directory holding `libpdfium.so`) when it is
/// set, and nothing else; otherwise beside the running executable, then
/// `DATA_DIR/lib/libpdfium.so`, then in an installed package's bundle
/// directory.
pub fn pdfium_library_candidates(options: &ReadOptions) -> Vec<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(path) = &options.pdfium_library {
        candidates.push(path.clone());
    }
    if let Some(value) = std::env::var_os("SIFT_PDFIUM").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(value);
        candidates.push(if path.is_dir() {
            path.join(library_name())
        } else {
            path
        });
        return candidates;
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(Path::to_path_buf))
    {
        candidates.push(dir.join(library_name()));
    }
    candidates.push(install_dir(options).join(library_name()));
    // An installed package's copy comes last: one the user set up in the
    // data directory wins over it.
    if let Some(bundle) = bundle_dir() {
        candidates.push(bundle.join(library_name()));
    }
    candidates
}

fn install_dir(options: &ReadOptions) -> PathBuf {
    options
        .data_dir
        .clone()
        .unwrap_or_else(default_data_dir)
        .join("lib")
}

/// PDFium, bound on first use.
fn pdfium(options: &ReadOptions) -> Result<&'static Pdfium, String> {
    if let Some(pdfium) = PDFIUM.get() {
        return Ok(pdfium);
    }
    let _guard = BINDING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(pdfium) = PDFIUM.get() {
        return Ok(pdfium);
    }
    let mut tried = Vec::new();
    for candidate in pdfium_library_candidates(options) {
        if !candidate.is_file() {
            tried.push(format!("no {}", candidate.display()));
            continue;
        }
        match Pdfium::bind_to_library(&candidate) {
            Ok(bindings) => return Ok(PDFIUM.get_or_init(|| Pdfium::new(bindings))),
            Err(e) => tried.push(format!("{} cannot be loaded: {e}", candidate.display())),
        }
    }
    Err(tried.join("; "))
}

pub fn read(
    path: &Path,
    name: &str,
    bytes: &[u8],
    options: &ReadOptions,
    budget: &mut Budget,
) -> Result<(Vec<Page>, Option<EmbeddedXml>), DocumentError> {
    let limits = &options.limits;
    let pdfium = pdfium(options).map_err(|detail| DocumentError::PdfiumMissing {
        path: path.to_path_buf(),
        detail,
        install_dir: install_dir(options),
    })?;
    let document = pdfium
        .load_pdf_from_byte_slice(bytes, options.pdf_password.as_deref())
        .map_err(|e| match e {
            PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::PasswordError) => {
                DocumentError::Encrypted {
                    path: path.to_path_buf(),
                    reason: if options.pdf_password.is_some() {
                        "the PDF is encrypted and the password given does not open it".into()
                    } else {
                        "the PDF is encrypted and no password was given".into()
                    },
                }
            }
            PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::SecurityError) => {
                DocumentError::Encrypted {
                    path: path.to_path_buf(),
                    reason: "the PDF uses an encryption PDFium does not support".into(),
                }
            }
            PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FormatError) => {
                DocumentError::corrupt(path, "not a valid PDF (PDFium cannot parse it)")
            }
            other => DocumentError::corrupt(path, format_args!("not a valid PDF ({other})")),
        })?;
    let pages = document.pages();
    let count = usize::try_from(pages.len()).unwrap_or(0);
    if count == 0 {
        return Err(DocumentError::corrupt(path, "the PDF has no pages"));
    }
    if count > limits.max_pdf_pages {
        return Err(DocumentError::bound(
            path,
            format_args!(
                "the PDF has {count} pages, over the limit of {} pages",
                limits.max_pdf_pages
            ),
        ));
    }
    let started = Instant::now();
    let edge = limits.max_image_edge;
    let ocr_applies = options.ocr_applies();
    let file_ocr = FileOcr::new(path, bytes, &options.ocr, options.on_page.as_ref(), count);
    let file_ocr = &file_ocr;
    let read_pages = std::thread::scope(|scope| {
        let ocr_queue = ocr_applies.then(|| PageQueue::start(scope, file_ocr));
        let (to_encoder, rendered) = mpsc::channel::<(usize, image::DynamicImage)>();
        let encoder = scope.spawn(move || {
            rendered
                .into_iter()
                .map(|(index, image)| {
                    (
                        index,
                        encode_compact(image, format!("{name} page {}", index + 1), None),
                    )
                })
                .collect::<Vec<_>>()
        });
        let mut out = Vec::with_capacity(count);
        for (index, page) in pages.iter().enumerate() {
            if started.elapsed() >= limits.max_pdf_time {
                return Err(DocumentError::bound(
                    path,
                    format_args!(
                        "reading the PDF took longer than {} seconds (stopped at page {})",
                        limits.max_pdf_time.as_secs(),
                        index + 1
                    ),
                ));
            }
            let page_error = |e: PdfiumError| {
                DocumentError::corrupt(
                    path,
                    format_args!("page {} cannot be read ({e})", index + 1),
                )
            };
            let (width, height) = (page.width().value, page.height().value);
            if !(width >= MIN_PAGE_POINTS && height >= MIN_PAGE_POINTS) {
                return Err(DocumentError::corrupt(
                    path,
                    format_args!(
                        "page {} is {width:.1} x {height:.1} points, too small to show anything (a malformed page)",
                        index + 1
                    ),
                ));
            }
            let text_page = page.text().map_err(page_error)?;
            let own_text = clean_text(&page_text(&text_page));
            let visible = has_visible_text(&text_page);
            let layout = options.text_order == TextOrder::Layout;
            let words = ((options.word_boxes || layout) && !own_text.is_empty())
                .then(|| pdf_text_words(&text_page, width, height));
            drop(text_page);
            let text = pdf_text_in(options.text_order, &own_text, words.as_ref());
            let text_words = words.filter(|_| options.word_boxes);
            budget.take_chars(path, &text)?;
            let scan = !visible && !page.objects().is_empty();
            if scan && options.model_takes_images {
                budget.take_image(path)?;
                let image = render(&page, edge, MAX_DPI).map_err(page_error)?;
                // The encoder only stops early when this thread has.
                let _ = to_encoder.send((index, image));
            }
            let mut ocr = None;
            if let Some(queue) = &ocr_queue {
                // A usable invisible layer (an earlier OCR) is read as it is.
                if scan && !ocr_layer_is_usable(&own_text) {
                    ocr = file_ocr.cached(index + 1);
                    if ocr.is_none() {
                        let image = render(&page, OCR_MAX_EDGE, OCR_DPI).map_err(page_error)?;
                        let grey = image::DynamicImage::ImageLuma8(image.into_luma8());
                        queue.submit(index + 1, grey, width);
                    }
                } else {
                    file_ocr.page_done();
                }
            } else if let Some(on_page) = &options.on_page {
                // Without OCR the page is read now; with it, the OCR
                // tells (a scan's page once recognised).
                on_page.tell(PageProgress {
                    path: path.to_path_buf(),
                    done: index + 1,
                    total: count,
                });
            }
            out.push(Page {
                number: index + 1,
                text,
                image: None,
                image_omitted: scan && !options.model_takes_images,
                ocr,
                text_words,
            });
        }
        drop(to_encoder);
        if let Some(queue) = ocr_queue {
            for (number, result) in queue.finish() {
                out[number - 1].ocr = Some(result?);
            }
        }
        for page in &mut out {
            if let Some(ocr) = &page.ocr {
                page.text = ocr_text_in(options.text_order, ocr);
                budget.take_chars(path, &page.text)?;
                page.text_words = None;
            }
        }
        let encoded = encoder
            .join()
            .map_err(|_| DocumentError::corrupt(path, "encoding a rendered page failed"))?;
        for (index, image) in encoded {
            out[index].image = Some(image);
        }
        Ok(out)
    })?;
    // After the pages: a file refused for its pages never inflates its
    // attachments.
    let xml = if options.invoice_xml {
        invoice_xml_in(&document)
    } else {
        None
    };
    Ok((read_pages, xml))
}

/// The page's text as PDFium gives it. pdfium-render decodes PDFium's
/// UTF-16 strictly and answers nothing for the whole page when one unit
/// is not valid (a font whose map gives half of an emoji's surrogate
/// pair), so then the text is decoded a character at a time, a broken one
/// read as U+FFFD.
fn page_text(text: &PdfPageText<'_>) -> String {
    let all = text.all();
    if !all.is_empty() {
        return all;
    }
    let mut units = Vec::new();
    for c in text.chars().iter() {
        match char::from_u32(c.unicode_value()) {
            Some(ch) => units.extend(ch.encode_utf16(&mut [0; 2]).iter()),
            // A surrogate half: kept as a unit, so that a pair split over
            // two characters is joined again.
            None => units.push(u16::try_from(c.unicode_value()).unwrap_or(0xFFFD)),
        }
    }
    String::from_utf16_lossy(&units)
}

/// Whether the page has a character drawn visibly (not whitespace, not in
/// an invisible or clip-only text rendering mode).
fn has_visible_text(text: &PdfPageText<'_>) -> bool {
    text.chars().iter().any(|c| {
        c.unicode_char()
            .is_some_and(|ch| !ch.is_whitespace() && !ch.is_control())
            && !matches!(
                c.render_mode(),
                Ok(PdfPageTextRenderMode::Invisible | PdfPageTextRenderMode::InvisibleClipping)
            )
    })
}

/// PDFium's text with `\n` line ends, no NUL or form-feed characters, and
/// no whitespace at the end of lines or of the page.
fn clean_text(text: &str) -> String {
    let text = normalize_newlines(text.replace(['\0', '\u{c}'], ""));
    let mut out = String::with_capacity(text.len());
    for line in text.split('\n') {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line.trim_end());
    }
    out.trim_end().trim_start_matches('\n').to_string()
}

/// [`crate::render_pdf_page`] in this process: a reader process's work.
pub(crate) fn render_pdf_page_here(
    path: &Path,
    index: usize,
    edge: u32,
    options: &ReadOptions,
) -> Result<(DocImage, usize), DocumentError> {
    let pdfium = pdfium(options).map_err(|detail| DocumentError::PdfiumMissing {
        path: path.to_path_buf(),
        detail,
        install_dir: install_dir(options),
    })?;
    let document = pdfium
        .load_pdf_from_file(path, options.pdf_password.as_deref())
        .map_err(|e| DocumentError::corrupt(path, format_args!("cannot be opened ({e})")))?;
    let pages = document.pages();
    let count = usize::try_from(pages.len()).unwrap_or(0);
    let page = i32::try_from(index)
        .ok()
        .filter(|_| index < count)
        .and_then(|i| pages.get(i).ok())
        .ok_or_else(|| {
            DocumentError::corrupt(
                path,
                format_args!("has no page {} ({count} pages)", index + 1),
            )
        })?;
    let image = render(&page, edge, MAX_DPI).map_err(|e| {
        DocumentError::corrupt(
            path,
            format_args!("page {} cannot be rendered ({e})", index + 1),
        )
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok((
        encode_compact(image, format!("{name} page {}", index + 1), None),
        count,
    ))
}

/// The page rendered with its long edge at `edge` pixels, or at `dpi`
/// when that is smaller.
fn render(page: &PdfPage<'_>, edge: u32, dpi: f32) -> Result<image::DynamicImage, PdfiumError> {
    let (width_pt, height_pt) = (page.width().value.max(1.0), page.height().value.max(1.0));
    let dpi_edge = (width_pt.max(height_pt) * dpi / 72.0).round() as u32;
    let limit = edge.min(dpi_edge.max(1));
    let (w, h) = fit_points(width_pt, height_pt, limit);
    let config = PdfRenderConfig::new()
        .set_target_size(w as Pixels, h as Pixels)
        .render_form_data(true);
    page.render_with_config(&config)?.as_image()
}

/// The pixel size of a `width`×`height` point page with its long edge at `long` pixels.
fn fit_points(width: f32, height: f32, long: u32) -> (u32, u32) {
    let scale = long as f32 / width.max(height);
    let w = ((width * scale).round() as u32).clamp(1, long);
    let h = ((height * scale).round() as u32).clamp(1, long);
    // The long side is exactly `long`.
    if width >= height {
        (long, h)
    } else {
        (w, long)
    }
}

/// The largest embedded invoice XML read: an EN 16931 invoice with many
/// lines is a few hundred kilobytes.
pub(crate) const MAX_INVOICE_XML_BYTES: usize = 16 * 1024 * 1024;

/// The invoice XML a hybrid e-invoice PDF (Factur-X, ZUGFeRD 1.0 and
/// 2.x, XRechnung in a PDF) at `path` carries, opening it again through
/// PDFium in this process. A job reads it with the pages instead
/// ([`ReadOptions::invoice_xml`]), in the file's reader process.
pub fn embedded_invoice_xml(
    path: &Path,
    options: &ReadOptions,
) -> Result<Option<EmbeddedXml>, DocumentError> {
    let pdfium = pdfium(options).map_err(|detail| DocumentError::PdfiumMissing {
        path: path.to_path_buf(),
        detail,
        install_dir: install_dir(options),
    })?;
    let document = pdfium
        .load_pdf_from_file(path, options.pdf_password.as_deref())
        .map_err(|e| DocumentError::corrupt(path, format_args!("cannot be opened ({e})")))?;
    Ok(invoice_xml_in(&document))
}

/// The first attached `.xml` file of an open PDF, the well-known names
/// first; `None` for a PDF without one. An attachment over
/// [`MAX_INVOICE_XML_BYTES`] is passed over.
fn invoice_xml_in(document: &PdfDocument<'_>) -> Option<EmbeddedXml> {
    const KNOWN: [&str; 4] = [
        "factur-x.xml",
        "zugferd-invoice.xml",
        "xrechnung.xml",
        "order-x.xml",
    ];
    // Only the best so far is held: each attachment may be 16 MB, and a
    // PDF may carry thousands of them. An attachment is read only when it
    // would rank before the one held (the first of a rank wins, as in
    // the PDF's order).
    let mut best: Option<(usize, EmbeddedXml)> = None;
    for attachment in document.attachments().iter() {
        let name = attachment.name();
        let lower = name.to_lowercase();
        if !lower.ends_with(".xml") || attachment.len() > MAX_INVOICE_XML_BYTES {
            continue;
        }
        let rank = KNOWN
            .iter()
            .position(|k| *k == lower)
            .unwrap_or(KNOWN.len());
        if best.as_ref().is_some_and(|(held, _)| *held <= rank) {
            continue;
        }
        let Ok(bytes) = attachment.save_to_bytes() else {
            continue;
        };
        best = Some((rank, EmbeddedXml { name, bytes }));
        if rank == 0 {
            break;
        }
    }
    best.map(|(_, xml)| xml)
}
