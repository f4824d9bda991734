//! OCR: the text of scans and photos, with Tesseract 5 and, when its
//! models are installed, PaddleOCR.
//!
//! Sift drives the `tesseract` program with TSV output rather than
//! linking libtesseract: it installs from apt alone (no `-dev` packages,
//! no libclang for bindings), a crash in Tesseract cannot take Sift down,
//! and per page it is as fast (the 0.2 s it spends loading its models is
//! small beside the 1–4 s of recognition; see `docs/BENCHMARKS.md`).
//!
//! PaddleOCR's PP-OCRv4 models, run in process through ONNX Runtime
//! ([`paddle`]), read the words when `scripts/setup.sh` has put them in
//! the data directory (or a package in its bundle): on 395 receipt
//! photos, Tesseract's text held 352 of the ground-truth totals and
//! PaddleOCR's 393 (BENCHMARKS.md, "The same two engines on 395 receipt
//! photos"). Tesseract still turns the page upright, and its reading
//! puts back the spaces PaddleOCR drops, the characters its alphabet
//! lacks (`€`, `ß`) and any number PaddleOCR lacks.
//! Without the models, Tesseract reads alone.
//!
//! A page is recognised as follows (see [`recognize`]):
//!
//! 1. greyscale; an image whose text is small (the median word under
//!    [`MIN_WORD_HEIGHT`] px high in a first pass) is upscaled so that
//!    it is not, and recognised again; an image of which next to nothing
//!    was read (faint print, a dark border that set the threshold) is
//!    read again with its contrast stretched, and the better kept;
//! 2. when the recognised words are few or unsure, Tesseract's orientation
//!    detection (`--psm 0`) is asked; a page it finds turned by 90°, 180°
//!    or 270° with confidence is turned upright and recognised again, and
//!    the reading with the more confident words is kept;
//! 3. Tesseract runs with `--psm 3` (automatic layout), or `--psm 4` (one
//!    column) for a receipt (an image 1.8 times as high as wide or more),
//!    its default (Otsu) thresholding (its adaptive ones lost whole
//!    receipts of the corpus) and `OMP_THREAD_LIMIT=1`, one process a
//!    page, as many at once as there are cores;
//! 4. with PaddleOCR: its words, split where Tesseract saw a gap between
//!    words, and Tesseract's lines that hold a number PaddleOCR's lack, as
//!    a block at the page's end;
//! 5. without it: a second reading as one uniform block (`--psm 6`) adds
//!    the lines that hold a number the first lacks, as a block at the
//!    page's end (on 70 receipt photos no rule was written for: 85.2% of
//!    the ground-truth values read before, 89.5% after).
//!
//! The words' boxes are in page coordinates ([`OcrPage`]); the text is in
//! Tesseract's reading order, a line a line, with a blank line between
//! blocks.

pub(crate) mod cache;
mod error;
mod fuzzing;
mod language;
mod layout;
pub mod paddle;
mod quality;
mod recognize;
mod tesseract;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use crate::page_word::PageWord;
pub(crate) use cache::cache_settings;
pub use error::OcrError;
#[doc(hidden)]
pub use fuzzing::page_from_tesseract_answers;
pub use language::{check_ocr_languages, default_ocr_languages, installed_ocr_languages};
pub use paddle::{MODEL_FILES as PADDLE_FILES, installed_paddle_dir};
pub use quality::layer_is_usable as ocr_layer_is_usable;
pub use recognize::{MIN_WORD_HEIGHT, OCR_DPI, recognize};

/// When the text of scans and photos is read with OCR.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OcrMode {
    /// Only for a model that cannot take images (which otherwise would
    /// see an empty page).
    #[default]
    Auto,
    /// For every model (extraction jobs: the text helps vision models too).
    Always,
    /// Never.
    Off,
}

impl OcrMode {
    /// Whether pages without text of their own are OCR'd, for a model that
    /// can (`true`) or cannot take images.
    pub fn applies(self, model_takes_images: bool) -> bool {
        match self {
            Self::Auto => !model_takes_images,
            Self::Always => true,
            Self::Off => false,
        }
    }
}

impl std::str::FromStr for OcrMode {
    type Err = UnknownOcrMode;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "auto" => Ok(Self::Auto),
            "always" => Ok(Self::Always),
            "off" => Ok(Self::Off),
            other => Err(UnknownOcrMode(other.to_string())),
        }
    }
}

/// A name that is not `auto`, `always` or `off`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an OCR mode (auto, always or off)")]
pub struct UnknownOcrMode(pub String);

/// How OCR runs.
#[derive(Clone, Serialize, Deserialize)]
pub struct OcrOptions {
    pub mode: OcrMode,
    /// Tesseract language codes, tried together (`["eng", "deu"]` is
    /// Tesseract's `eng+deu`); `["eng"]` by default. Each needs its
    /// `tesseract-ocr-LANG` package.
    pub languages: Vec<String>,
    /// Where recognised pages are kept (core passes `DATA_DIR/ocr-cache`);
    /// nothing is cached when `None`.
    pub cache_dir: Option<PathBuf>,
    /// The `tesseract` program; `tesseract` on the `PATH` when `None`.
    pub tesseract: Option<PathBuf>,
    /// The folder of PaddleOCR's models ([`installed_paddle_dir`]): when
    /// set, a page's words are read with them once Tesseract has turned
    /// it upright. `None`: Tesseract alone.
    pub paddle: Option<PathBuf>,
}

impl Default for OcrOptions {
    fn default() -> Self {
        Self {
            mode: OcrMode::Auto,
            languages: vec!["eng".to_string()],
            cache_dir: None,
            tesseract: None,
            paddle: None,
        }
    }
}

impl std::fmt::Debug for OcrOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OcrOptions")
            .field("mode", &self.mode)
            .field("languages", &self.languages)
            .field("cache_dir", &self.cache_dir)
            .field("tesseract", &self.tesseract)
            .field("paddle", &self.paddle)
            .finish()
    }
}

impl OcrOptions {
    /// Tesseract's `-l` argument: the languages joined by `+`.
    pub fn language_arg(&self) -> String {
        if self.languages.is_empty() {
            "eng".to_string()
        } else {
            self.languages.join("+")
        }
    }
}

/// What OCR read on one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrPage {
    /// The text in reading order: a line a line, a blank line between
    /// blocks, no trailing whitespace. Empty for a page without text.
    pub text: String,
    pub words: Vec<PageWord>,
    /// The page's size in the words' coordinates.
    pub width: f32,
    pub height: f32,
    /// Degrees clockwise the page was turned to read it upright (0, 90,
    /// 180 or 270).
    pub rotation: u16,
}

// Sizes come from page sizes and pixel counts, never NaN.
impl Eq for OcrPage {}
