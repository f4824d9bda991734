//! Which OCR languages there are, and the default ones.

use std::path::Path;

use super::tesseract::{Tesseract, installed_languages};
use super::{OcrError, OcrOptions};

/// The Tesseract languages installed for `program` (`tesseract` on the
/// `PATH` when `None`), as `tesseract --list-langs` gives them (`osd`,
/// orientation detection, is not a language and is left out).
pub fn installed_ocr_languages(program: Option<&Path>) -> Result<Vec<String>, OcrError> {
    let mut languages = installed_languages(program.unwrap_or(Path::new("tesseract")))?;
    languages.retain(|l| l != "osd");
    Ok(languages)
}

/// Whether Tesseract (`options.tesseract`) runs and has every language
/// of `options`; the error names the apt package to install. For a
/// caller to refuse work before it starts (the reader checks it too).
pub fn check_ocr_languages(options: &OcrOptions) -> Result<(), OcrError> {
    Tesseract::new(options).map(|_| ())
}

/// The default OCR languages: `eng`, plus the language of the OS locale
/// (`LC_ALL`, `LC_MESSAGES`, `LANG`) when its pack is installed.
pub fn default_ocr_languages() -> Vec<String> {
    let mut languages = vec!["eng".to_string()];
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.is_empty()));
    if let Some(code) = locale.as_deref().and_then(tesseract_code)
        && code != "eng"
        && installed_ocr_languages(None).is_ok_and(|installed| installed.iter().any(|l| l == code))
    {
        languages.push(code.to_string());
    }
    languages
}

/// The Tesseract code of a locale's language (`de_DE.UTF-8` → `deu`).
fn tesseract_code(locale: &str) -> Option<&'static str> {
    let language = locale
        .split(['_', '.', '@', '-'])
        .next()?
        .to_ascii_lowercase();
    Some(match language.as_str() {
        "en" => "eng",
        "de" => "deu",
        "fr" => "fra",
        "es" => "spa",
        "it" => "ita",
        "pt" => "por",
        "nl" => "nld",
        "pl" => "pol",
        "cs" => "ces",
        "sk" => "slk",
        "sv" => "swe",
        "da" => "dan",
        "nb" | "no" => "nor",
        "fi" => "fin",
        "hu" => "hun",
        "ro" => "ron",
        "tr" => "tur",
        "el" => "ell",
        "ru" => "rus",
        "uk" => "ukr",
        "bg" => "bul",
        "ja" => "jpn",
        "zh" => "chi_sim",
        "ko" => "kor",
        "ar" => "ara",
        "he" => "heb",
        "hi" => "hin",
        "ms" => "msa",
        "id" => "ind",
        "vi" => "vie",
        "th" => "tha",
        _ => return None,
    })
}
