//! Why OCR could not read a page.

use std::path::PathBuf;

/// Why OCR could not read a page (the documents reader names the file).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum OcrError {
    /// The `tesseract` program cannot be run.
    #[error(
        "OCR needs Tesseract, which cannot be run ({}: {reason}); install it with `apt-get install tesseract-ocr` (scripts/setup.sh does)",
        .program.display()
    )]
    NotInstalled { program: PathBuf, reason: String },
    /// A language whose pack is not installed.
    #[error(
        "OCR in the language {language:?} needs its Tesseract language pack; install it with `apt-get install {package}`"
    )]
    LanguageMissing { language: String, package: String },
    /// Tesseract failed on the page.
    #[error("OCR failed: {reason}")]
    Failed { reason: String },
}
