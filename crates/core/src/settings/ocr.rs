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

use super::file::ParseError;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OcrTable {
    languages: Option<Vec<String>>,
}

impl OcrTable {
    /// The languages the table names, trimmed; `None` when it names none.
    pub(super) fn languages(self) -> Result<Option<Vec<String>>, ParseError> {
        let Some(languages) = self.languages else {
            return Ok(None);
        };
        let languages: Vec<String> = languages
            .iter()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect();
        if languages.is_empty() {
            return Err(ParseError::of(
                "[ocr] languages names no language (write e.g. [\"eng\"], or leave it out for the default)",
            ));
        }
        Ok(Some(languages))
    }
}

#[cfg(test)]
mod tests {
    use super::super::file::parse_config;

    #[test]
    fn the_table_gives_the_languages_and_refuses_mistakes() {
        let config = parse_config("[ocr]\nlanguages = [\"eng\", \" deu \"]\n").unwrap();
        assert_eq!(
            config.ocr_languages,
            Some(vec!["eng".to_owned(), "deu".to_owned()])
        );
        assert_eq!(parse_config("").unwrap().ocr_languages, None);
        let unknown = parse_config("[ocr]\nlanguage = [\"eng\"]\n")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("unknown field `language`"), "{unknown}");
        assert_eq!(
            parse_config("[ocr]\nlanguages = []\n")
                .unwrap_err()
                .to_string(),
            "[ocr] languages names no language (write e.g. [\"eng\"], or leave it out for the default)"
        );
    }
}
