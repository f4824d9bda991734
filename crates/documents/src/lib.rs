//! The files a model reads with a prompt: named by path or glob, read once
//! each in the order named, checked against the limits before any request,
//! and assembled into the last user message.
//!
//! ```text
//! resolve_files(specs, working_dir) -> paths
//! read_documents(&paths, &ReadOptions) -> Documents      (all refusals happen here)
//! render_text(&documents) -> String                      (the blocks, exactly as sent)
//! attach(&mut messages, &documents)                      (text ahead of the last user message, images after it)
//! read_bytes(path, bytes, &ReadOptions) -> Document      (one file already in memory)
//! ```
//!
//! # Kinds
//!
//! - Text (`.txt .md .csv .tsv .json .jsonl .yaml .yml .xml .html .htm .log`):
//!   decoded from UTF-8, UTF-8 or UTF-16 with a byte-order mark, or
//!   Shift_JIS, detected from the bytes (anything else as Windows-1252;
//!   binary data is refused); line ends become `\n`.
//! - Word (`.docx`): a paragraph a line; a table a row a line, its cells
//!   separated by ` | ` (a cell's paragraphs joined by a space).
//! - Excel (`.xlsx .xlsm`): each sheet introduced by a `--- sheet NAME ---`
//!   line, then a row a line, cells separated by ` | `; numbers formatted as
//!   their number format shows them, dates as ISO 8601 (`2024-03-01`,
//!   `2024-03-01T08:30:00`, `08:30:00`), error cells as Excel shows them
//!   (`#DIV/0!`); a merged cell's value repeated in every cell it covers.
//! - PDF (PDFium): page by page. A page with no visible text of its own (a
//!   scan) is rendered to an image whose long edge is at most 1568 px; any
//!   invisible text it holds (an OCR layer) follows its marker. A page with
//!   nothing on it stays an empty page; a page box under 1 pt is refused as
//!   malformed; a PDF without pages is refused.
//! - Images (PNG, JPEG, GIF first frame, WebP): EXIF orientation applied,
//!   scaled down to a long edge of 1568 px, re-encoded compactly (JPEG, or
//!   PNG when the image has transparency or PNG is smaller).
//!
//! # OCR
//!
//! With [`ReadOptions::ocr`] applying ([`OcrMode::Always`], or
//! [`OcrMode::Auto`] for a model that cannot take images,
//! [`ReadOptions::model_takes_images`] `false`), Tesseract reads every
//! image file and every PDF page without visible text of its own (rendered
//! for it at 300 dpi, apart from the model's image), except a page whose
//! invisible text layer is usable (see [`ocr_layer_is_usable`]): that
//! layer is read as it is. Rotated scans are turned upright first. Each
//! OCR'd page keeps its words with their boxes in page coordinates and
//! their confidences ([`OcrPage`]: [`Page::ocr`], [`Document::ocr`]);
//! pages are recognised in parallel (one Tesseract a core) and cached by
//! the file's content hash and the OCR settings in
//! [`OcrOptions::cache_dir`]. A missing Tesseract or language pack is a
//! [`DocumentError::Ocr`] naming the apt package to install.
//!
//! # The block format (stable)
//!
//! Each file becomes one block; blocks are separated by a blank line and
//! go, followed by a blank line, ahead of the text of the last user message:
//!
//! ```text
//! <file name="notes.txt">
//! the file's text
//! </file>
//!
//! <file name="invoice.pdf">
//! --- page 1 ---
//! text of page 1
//! --- page 2: image 1 ---
//! </file>
//!
//! <file name="receipt.png">
//! [Image 2 is receipt.png.]
//! </file>
//!
//! Read the invoice and give its number.
//! ```
//!
//! OCR text follows its page's marker, or an image file's line, as an
//! invisible layer's text does; for a model that cannot take images the
//! image is not rendered nor attached, and the marker says so (`image
//! omitted` alone when OCR is off):
//!
//! ```text
//! <file name="scan.pdf">
//! --- page 1 ---
//! text of page 1
//! --- page 2: image 1 ---
//! OCR text of page 2 (a vision model: image and text)
//! </file>
//!
//! <file name="fax.pdf">
//! --- page 1: image omitted, the model reads its text ---
//! OCR text of page 1 (a text-only model)
//! --- page 2: image omitted ---
//! </file>
//!
//! <file name="receipt.png">
//! [Image 2 is receipt.png.]
//! OCR text of the receipt
//! </file>
//!
//! <file name="photo.jpg">
//! [Image omitted: photo.jpg; the model reads its text.]
//! OCR text of the photo
//! </file>
//!
//! <file name="other.jpg">
//! [Image omitted: other.jpg.]
//! </file>
//! ```
//!
//! OCR text is a line a line in Tesseract's reading order, with a blank
//! line between blocks of text.
//!
//! `name` is the file's name without its directory, with `&`, `"`, `<` and
//! `>` escaped as XML entities. Images are numbered from 1 in the order
//! named, across all files; they are attached to the same message after its
//! text, in that order. A file without text has an empty block
//! (`<file name="empty.txt">\n</file>`).
//!
//! # Limits
//!
//! See [`Limits`]: a file over 50 MB, more than 1,000,000 characters of
//! text (the files' own text, not the markers) or more than 50 images in
//! total are refused, as are other kinds of files, encrypted PDFs without
//! a password and corrupt files. Zip entries, image dimensions, PDF page
//! counts and PDF reading time are bounded.
//!
//! # PDFium
//!
//! [`pdfium_library_candidates`] lists where the library is looked for:
//! `SIFT_PDFIUM` (a file or a directory), beside the running executable,
//! `DATA_DIR/lib/libpdfium.so`, then an installed package's bundle
//! directory ([`bundle_dir`]).
//!
//! # Files
//!
//! `ocr/` Tesseract (scans and photos as text with word boxes, cached) and
//! `ocr/paddle/` PaddleOCR's models through ONNX Runtime (`detect.rs` the
//! lines, `words.rs` a line's words and its spaces, `unreadable.rs` the
//! characters its alphabet lacks, as `€` and `ß`, from Tesseract);
//! `page_ocr.rs` a file's pages through OCR on worker threads, with
//! progress; `page_word.rs` a word and its box, one shape for PDFium and
//! OCR; `page_layout.rs` a page's text in visual rows from its words' boxes
//! (`text_order.rs` the `[read] order` option); `words.rs` a page's words
//! with boxes; `fingerprint.rs` what a read depends on, to tell stale
//! results; `document.rs` the data; `limits.rs`, `budget.rs`; `read.rs`
//! where each file is read and a PDF page's preview rendered;
//! `in_process.rs` one file read here, within the limits; `reader_process/`
//! each file read in a child process under memory and time limits;
//! `platform.rs` the one place that knows a platform's layout. A hostile
//! file is bounded as it grows, not after (`tests/documents/hostile.rs`):
//! merged cells and merge fills count towards the character limit as they
//! are made, `sheet_parts.rs` counts a part once for each sheet that reads
//! it, OCR detection sees 8,000 px at most, a `**` glob enters no linked
//! folder, and what is not a regular file is refused unopened.

mod assemble;
mod atomic_write;
mod budget;
mod document;
mod docx;
mod error;
mod fingerprint;
mod imaging;
mod in_process;
mod limits;
mod numfmt;
mod ocr;
mod ooxml;
mod page_layout;
mod page_ocr;
mod page_word;
mod pdf;
mod platform;
mod progress;
mod read;
mod reader_process;
mod resolve;
mod sheet_parts;
mod text;
mod text_order;
mod words;
mod xlsx;
mod zipguard;

pub use assemble::{attach, block_name, render_text};
pub use atomic_write::{write_atomically, write_atomically_with};
pub use document::EmbeddedXml;
pub use document::{
    Content, DocImage, Document, Documents, Kind, Page, PageWord, WordLines, kind_of,
};
pub use error::DocumentError;
pub use fingerprint::read_fingerprint;
pub use in_process::read_bytes;
pub use limits::{Limits, ReadOptions};
#[doc(hidden)]
pub use ocr::page_from_tesseract_answers;
pub use ocr::{
    MIN_WORD_HEIGHT, OCR_DPI, OcrError, OcrMode, OcrOptions, OcrPage, PADDLE_FILES, UnknownOcrMode,
    check_ocr_languages, default_ocr_languages, installed_ocr_languages, installed_paddle_dir,
    ocr_layer_is_usable, recognize,
};
pub use page_layout::MAX_GAP_SPACES;
pub use pdf::{embedded_invoice_xml, pdfium_library_candidates};
pub use platform::{bundle_dir, bundle_dir_beside, default_data_dir};
pub use progress::{OnPage, PageProgress};
pub use read::{read_documents, render_pdf_page};
pub use reader_process::{
    READER_ARGUMENT, ReaderCommand, ReaderLimits, ReaderStop, is_reader_invocation,
    isolate_readers, serve_reader, start_reading_in_child_processes,
};
pub use resolve::{expand_path, resolve_files};
pub use text_order::{TextOrder, UnknownTextOrder};
