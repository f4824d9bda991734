//! PaddleOCR's PP-OCRv4 models, run through ONNX Runtime: the reader of
//! the words of scans and photos when they are installed (Tesseract still
//! turns a page upright first; see [`super::recognize`]).
//!
//! On 395 receipt photos its text held 393 of the ground-truth totals
//! against Tesseract's 352 (BENCHMARKS.md, "The same two engines on 395
//! receipt photos"). The models come from the `rapidocr-onnxruntime`
//! wheel and the library from the `onnxruntime` wheel (PyPI), put in one
//! folder by `scripts/setup.sh` ([`MODEL_FILES`]); the build downloads
//! nothing.
//!
//! The pipeline follows RapidOCR's defaults: the page scaled to at most
//! 2,000 px and its short side to at least 736 px for detection, the
//! probability map thresholded and dilated, each box grown back by the
//! unclip ratio, each line read 48 px high and decoded greedily (CTC).
//! Boxes are axis-aligned (connected components, not rotated
//! rectangles): pages are upright by then.

mod detect;
mod unreadable;
mod words;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use image::imageops::FilterType;
use image::{GenericImageView, RgbImage};
use ort::session::Session;
use ort::value::Tensor;

use super::OcrError;
use super::layout::TsvWord;
use detect::{Box4, bounded, detect};
use unreadable::restore_unreadable;
use words::{Decoded, halfwidth, line_words, reading_lines, word_gaps};

/// The ONNX Runtime library and the two models, as named in the folder.
pub const MODEL_FILES: [&str; 3] = [
    "libonnxruntime.so",
    "ch_PP-OCRv4_det_infer.onnx",
    "ch_PP-OCRv4_rec_infer.onnx",
];

/// A line is read at this height, and padded to at least this width.
const REC_HEIGHT: u32 = 48;
const REC_MIN_WIDTH: u32 = 320;
/// Lines whose characters' mean probability is under this are dropped.
const TEXT_SCORE: f32 = 0.5;

/// The folder holding [`MODEL_FILES`], where it is looked for: the
/// `SIFT_PADDLE` folder when set (and nothing else), then `DATA_DIR/paddle`,
/// then an installed package's bundle. `None` when none holds all three.
pub fn installed_paddle_dir(data_dir: &Path) -> Option<PathBuf> {
    let holds_all = |dir: &Path| MODEL_FILES.iter().all(|f| dir.join(f).is_file());
    if let Some(dir) = std::env::var_os("SIFT_PADDLE").filter(|d| !d.is_empty()) {
        let dir = PathBuf::from(dir);
        return holds_all(&dir).then_some(dir);
    }
    std::iter::once(data_dir.join("paddle"))
        .chain(crate::platform::bundle_dir().map(|b| b.join("paddle")))
        .find(|dir| holds_all(dir))
}

/// The two models, loaded once per process (ONNX Runtime's library can be
/// bound only once), behind a lock: a session runs one image at a time.
pub(super) struct PaddleReader {
    det: Session,
    rec: Session,
    /// The recogniser's classes: CTC's blank, its listed characters, a space.
    alphabet: Vec<String>,
    /// The characters among them (see [`unreadable`]).
    readable: HashSet<char>,
}

static READER: OnceLock<Result<Mutex<PaddleReader>, String>> = OnceLock::new();

impl PaddleReader {
    /// The reader of the models in `dir`, loaded on first use.
    pub fn get(dir: &Path) -> Result<&'static Mutex<PaddleReader>, OcrError> {
        READER
            .get_or_init(|| Self::load(dir).map(Mutex::new))
            .as_ref()
            .map_err(|reason| OcrError::Failed {
                reason: format!("PaddleOCR in {} cannot be loaded: {reason}", dir.display()),
            })
    }

    fn load(dir: &Path) -> Result<Self, String> {
        let text = |e: &dyn std::fmt::Display| e.to_string();
        let environment = ort::init_from(dir.join(MODEL_FILES[0]))
            .map_err(|e| text(&e))?
            .build()
            .map_err(|e| text(&e))?;
        let threads = std::thread::available_parallelism().map_or(1, usize::from);
        let session = |name: &str| -> Result<Session, String> {
            Session::builder(&environment)
                .map_err(|e| text(&e))?
                .with_intra_threads(threads)
                .map_err(|e| text(&e))?
                .commit_from_file(dir.join(name))
                .map_err(|e| text(&e))
        };
        let det = session(MODEL_FILES[1])?;
        let rec = session(MODEL_FILES[2])?;
        // The alphabet is in the recogniser's metadata; index 0 is CTC's
        // blank, and a space follows the listed characters.
        let listed = rec
            .metadata()
            .map_err(|e| text(&e))?
            .custom("character")
            .ok_or("the recogniser has no character list")?;
        let mut alphabet = vec![String::new()];
        alphabet.extend(listed.lines().map(halfwidth));
        alphabet.push(" ".into());
        let readable = alphabet.iter().flat_map(|c| c.chars()).collect();
        Ok(Self {
            det,
            rec,
            alphabet,
            readable,
        })
    }

    /// The words of `page` (upright), in its pixels: a line of the page is
    /// one Tesseract-style line (block 1), in reading order. `other` is
    /// another reading of the page (Tesseract's, in the same pixels), whose
    /// gaps between words split the lines (see [`words`]) and whose
    /// characters PaddleOCR cannot read are put back (see [`unreadable`]).
    pub fn read(&mut self, page: &RgbImage, other: &[TsvWord]) -> Result<Vec<TsvWord>, OcrError> {
        let failed = |e: ort::Error| OcrError::Failed {
            reason: format!("PaddleOCR: {e}"),
        };
        let (page, scale) = bounded(page);
        let boxes = detect(&mut self.det, &page).map_err(failed)?;
        let mut lines = Vec::new();
        for b in boxes {
            if let Some(decoded) = self.recognise(&page, b).map_err(failed)? {
                lines.push((b, decoded));
            }
        }
        let mut words: Vec<TsvWord> = reading_lines(lines)
            .into_iter()
            .enumerate()
            .flat_map(|(i, line)| {
                line.into_iter().flat_map(move |(b, decoded)| {
                    let gaps = word_gaps(b, other, scale);
                    line_words(b, &decoded, i as u32 + 1, &gaps)
                })
            })
            .collect();
        for word in &mut words {
            word.left /= scale;
            word.top /= scale;
            word.width /= scale;
            word.height /= scale;
        }
        restore_unreadable(&mut words, other, |c| self.readable.contains(&c));
        Ok(words)
    }

    /// One line's characters with the steps they were read at, or `None`
    /// when it reads as nothing sure.
    fn recognise(&mut self, page: &RgbImage, b: Box4) -> Result<Option<Decoded>, ort::Error> {
        let (x, y) = (b.x0 as u32, b.y0 as u32);
        let (w, h) = ((b.x1 - b.x0) as u32, (b.y1 - b.y0) as u32);
        if w < 2 || h < 2 || x >= page.width() || y >= page.height() {
            return Ok(None);
        }
        let crop = page
            .view(x, y, w.min(page.width() - x), h.min(page.height() - y))
            .to_image();
        let width = ((REC_HEIGHT as f32 * w as f32 / h as f32).ceil() as u32).max(1);
        let line = image::imageops::resize(&crop, width, REC_HEIGHT, FilterType::Triangle);
        // Padded to at least the model's 320 px, as RapidOCR does.
        let padded = width.max(REC_MIN_WIDTH);
        let outputs = self.rec.run(ort::inputs![tensor(&line, padded)?])?;
        let (shape, probs) = outputs[0].try_extract_tensor::<f32>()?;
        let (steps, classes) = (shape[1] as usize, shape[2] as usize);
        let decoded = words::decode(probs, steps, classes, &self.alphabet);
        if decoded.chars.is_empty() || decoded.score() < TEXT_SCORE {
            return Ok(None);
        }
        // A step's width in the line image's pixels, and in the crop's.
        let step = padded as f32 / steps.max(1) as f32;
        let grey = image::imageops::grayscale(&line);
        let blanks = words::blank_columns(grey.as_raw(), width as usize, REC_HEIGHT as usize)
            .into_iter()
            .map(|(s, e)| (s as f32 / step, e as f32 / step))
            .collect();
        Ok(Some(Decoded {
            step_px: step * (w as f32 / width as f32),
            blanks,
            ..decoded
        }))
    }
}

/// `(x/255 - 0.5) / 0.5` per channel, in BGR order (the models were
/// trained on OpenCV's), as an NCHW tensor `width` wide: columns past the
/// image are 0 after normalisation (RapidOCR's padding of a text line).
fn tensor(img: &RgbImage, width: u32) -> Result<Tensor<f32>, ort::Error> {
    let (h, width) = (img.height() as usize, width as usize);
    let plane = width * h;
    let mut data = vec![0f32; 3 * plane];
    for (x, y, p) in img.enumerate_pixels() {
        let i = y as usize * width + x as usize;
        for (c, &v) in [p[2], p[1], p[0]].iter().enumerate() {
            data[c * plane + i] = (f32::from(v) / 255.0 - 0.5) / 0.5;
        }
    }
    Tensor::from_array(([1usize, 3, h, width], data))
}
