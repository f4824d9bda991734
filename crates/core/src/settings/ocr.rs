//! The `[ocr]` table of the configuration file: the languages scans and
//! photos are read in.
//!
//! ```toml
//! [ocr]
//! languages = ["eng", "deu"]   # Tesseract's codes; each needs tesseract-ocr-LANG
//! ```
//!
//! Without it: `eng`, plus the OS locale's language when its pack is
//! installed ([`sift_documents::default_ocr_languages`]).

use serde::Deserialize;

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
}

impl OcrTable {
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
