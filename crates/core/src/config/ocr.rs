//! The `[ocr]` table of the configuration file: the languages scans and
//! photos are read in, and when chat and workflows read them as text.
//!
//! ```toml
//! [ocr]
//! languages = ["eng", "deu"]   # Tesseract's codes; each needs tesseract-ocr-LANG
//! mode = "auto"                # chat and workflows: auto, always or off
//! ```
//!
//! Without `languages`: `eng`, plus the OS locale's language when its pack
//! is installed ([`sift_documents::default_ocr_languages`]). Without
//! `mode`: `auto`, OCR text only for a model that cannot take images (a
//! workflow step's own `ocr:` wins). Extraction jobs always send the OCR
//! text, whatever the mode: it helps every model.

use serde::Deserialize;
use sift_documents::{OcrMode, UnknownOcrMode};

/// An `[ocr]` table whose `languages` names none.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "[ocr] languages names no language (write e.g. [\"eng\"], or leave it out for the default)"
)]
pub struct NoLanguages;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OcrTable {
    languages: Option<Vec<String>>,
    mode: Option<String>,
}

impl OcrTable {
    /// The mode the table names; `None` when it names none.
    pub(super) fn mode(&self) -> Result<Option<OcrMode>, UnknownOcrMode> {
        self.mode.as_deref().map(|m| m.trim().parse()).transpose()
    }

    /// The languages the table names, trimmed; `None` when it names none.
    pub(super) fn languages(self) -> Result<Option<Vec<String>>, NoLanguages> {
        let Some(languages) = self.languages else {
            return Ok(None);
        };
        let languages: Vec<String> = languages
            .iter()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect();
        if languages.is_empty() {
            return Err(NoLanguages);
        }
        Ok(Some(languages))
    }
}
