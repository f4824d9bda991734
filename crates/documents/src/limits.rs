//! The bounds a read stays within, and how to read: data that every
//! reader (PDF, Word, Excel, images) takes, so it lives apart from them.

use std::path::PathBuf;
use std::time::Duration;

use crate::ocr::OcrOptions;
use crate::progress::OnPage;
use crate::text_order::TextOrder;

/// The bounds a read stays within. [`Limits::default`] is the specification's.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Limits {
    /// Largest file, in bytes: 50 MB (50,000,000 bytes).
    pub max_file_bytes: u64,
    /// Most characters of text in all files together: 1,000,000.
    pub max_chars: usize,
    /// Most images in all files together: 50.
    pub max_images: usize,
    /// Most pages read from one PDF: 2,000.
    pub max_pdf_pages: usize,
    /// Longest time spent reading one PDF: 120 s (checked between pages).
    pub max_pdf_time: Duration,
    /// Largest uncompressed size of one zip entry (Word, Excel): 256 MiB.
    pub max_zip_entry_bytes: u64,
    /// Largest uncompressed size of all zip entries together: 512 MiB.
    pub max_zip_total_bytes: u64,
    /// Largest image, in pixels (width × height): 100 megapixels.
    pub max_image_pixels: u64,
    /// Longest edge of an image given to a model: 1568 px.
    pub max_image_edge: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_file_bytes: 50_000_000,
            max_chars: 1_000_000,
            max_images: 50,
            max_pdf_pages: 2_000,
            max_pdf_time: Duration::from_secs(120),
            max_zip_entry_bytes: 256 << 20,
            max_zip_total_bytes: 512 << 20,
            max_image_pixels: 100_000_000,
            max_image_edge: 1568,
        }
    }
}

/// How to read.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// The password for encrypted PDFs. Without one, an encrypted PDF is
    /// refused (one with an empty user password opens without it).
    pub pdf_password: Option<String>,
    /// Sift's data directory, where `lib/libpdfium.so` is looked for;
    /// [`default_data_dir`](crate::default_data_dir) when `None`.
    pub data_dir: Option<PathBuf>,
    /// An explicit PDFium library, looked at first (before `SIFT_PDFIUM`).
    pub pdfium_library: Option<PathBuf>,
    pub limits: Limits,
    /// Whether, and how, scans and photos are OCR'd.
    pub ocr: OcrOptions,
    /// Whether the model reading the files takes images (`true` unless
    /// set): when it does not, no image is rendered or attached, and
    /// pages and image files are marked as left out.
    pub model_takes_images: bool,
    /// Whether a PDF page's own text is read with its words' boxes
    /// ([`crate::Page::text_words`]), to find values on the page later.
    /// Off unless set: it costs a look at every character.
    pub word_boxes: bool,
    /// The order of a PDF page's text and an OCR'd page's as the model
    /// reads it: its visual rows rebuilt from the words' boxes, or the
    /// order PDFium (or the OCR) gives.
    pub text_order: TextOrder,
    /// Whether a PDF's embedded e-invoice XML (Factur-X, ZUGFeRD) is read
    /// with its pages ([`crate::Document::invoice_xml`]), so the file is
    /// opened, and the attachment inflated, only by its reader. Off unless
    /// set: only a job that takes an e-invoice's values needs it.
    pub invoice_xml: bool,
    /// Told after each page of a PDF (and an OCR'd image) is read, so a
    /// long file shows its progress; see [`OnPage`].
    pub on_page: Option<OnPage>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            pdf_password: None,
            data_dir: None,
            pdfium_library: None,
            limits: Limits::default(),
            ocr: OcrOptions::default(),
            model_takes_images: true,
            word_boxes: false,
            text_order: TextOrder::Pdfium,
            invoice_xml: false,
            on_page: None,
        }
    }
}

impl ReadOptions {
    /// Whether scans and photos are OCR'd with these options.
    pub fn ocr_applies(&self) -> bool {
        self.ocr.mode.applies(self.model_takes_images)
    }
}
