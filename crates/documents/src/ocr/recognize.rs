//! One page image to an [`OcrPage`]: size, orientation, then Tesseract.

use image::{DynamicImage, GrayImage, ImageEncoder};

use super::layout::{Placement, TsvWord, parse_tsv, reading_text};
use super::tesseract::{Layout, Orientation, Tesseract};
use super::{OcrError, OcrOptions, OcrPage};

/// The resolution PDF pages are rendered at for OCR, in dots per inch.
pub const OCR_DPI: f32 = 300.0;

/// The word height, in pixels, below which an image is upscaled: Tesseract
/// reads letters about 20 px high or more best.
pub const MIN_WORD_HEIGHT: f32 = 20.0;

/// The largest upscale, and the largest image it may make (pixels).
const MAX_UPSCALE: f32 = 4.0;
const MAX_UPSCALED_PIXELS: f32 = 40_000_000.0;

/// A reading is sure enough not to ask for the page's orientation when it
/// has this many confident words (confidence ≥ [`SURE_WORD`]) and they are
/// at least half of its words.
const SURE_WORDS: usize = 12;
const SURE_WORD: f32 = 70.0;

/// An upright image at least this many times as high as it is wide is a
/// receipt, read as one column (on the corpus's receipts `--psm 4` found
/// values that `--psm 3` split off or lost).
const RECEIPT_ASPECT: f32 = 1.8;

/// Orientation detection is followed only at this confidence or above
/// (Tesseract's scale; a receipt upright often gets 0.3 for a wrong turn).
const MIN_ORIENTATION_CONFIDENCE: f32 = 1.5;

/// Reads `image`, a page `page_width` units wide (PDF points, or the
/// image's own pixels for an image file), with Tesseract.
pub fn recognize(
    image: &DynamicImage,
    page_width: f32,
    options: &OcrOptions,
) -> Result<OcrPage, OcrError> {
    let engine = Tesseract::new(options)?;
    let grey = image.to_luma8();
    let (sw, sh) = (grey.width() as f32, grey.height() as f32);
    let page_units = if sw > 0.0 { page_width / sw } else { 1.0 };
    let placement = |rotation: u16, scale: f32| Placement {
        rotation,
        scale,
        source_width: sw,
        source_height: sh,
        page_units,
    };
    let mut best = read(&engine, &grey, placement(0, 1.0))?;
    // Small text: read again larger.
    if let Some(height) = best.median_height()
        && height < MIN_WORD_HEIGHT
    {
        let scale = (MIN_WORD_HEIGHT / height)
            .min(MAX_UPSCALE)
            .min((MAX_UPSCALED_PIXELS / (sw * sh).max(1.0)).sqrt());
        if scale > 1.1 {
            let larger = read(&engine, &grey, placement(0, scale))?;
            if larger.score() > best.score() {
                best = larger;
            }
        }
    }
    if !best.is_sure() {
        let turned = best.placement;
        let png = encode(&prepare(&grey, turned))?;
        if let Some(Orientation { rotate, confidence }) = engine.orientation(&png)?
            && rotate != 0
            && confidence >= MIN_ORIENTATION_CONFIDENCE
        {
            let upright = read(&engine, &grey, placement(rotate, turned.scale))?;
            if upright.score() > best.score() {
                best = upright;
            }
        }
    }
    let words = best
        .words
        .iter()
        .map(|w| best.placement.to_page(w))
        .collect();
    Ok(OcrPage {
        text: reading_text(&best.words),
        words,
        width: page_width,
        height: sh * page_units,
        rotation: best.placement.rotation,
    })
}

/// One pass of Tesseract over the image as placed.
struct Reading {
    placement: Placement,
    words: Vec<TsvWord>,
}

impl Reading {
    /// The median height of the confident words, in the source's pixels.
    fn median_height(&self) -> Option<f32> {
        let mut heights: Vec<f32> = self
            .words
            .iter()
            .filter(|w| w.confidence >= 50.0)
            .map(|w| w.height / self.placement.scale)
            .collect();
        if heights.is_empty() {
            return None;
        }
        heights.sort_by(f32::total_cmp);
        Some(heights[heights.len() / 2])
    }

    /// How much was read with confidence: the confidence of the words
    /// read well, summed over their characters.
    fn score(&self) -> f32 {
        self.words
            .iter()
            .filter(|w| w.confidence >= 50.0)
            .map(|w| w.confidence * w.text.chars().count() as f32)
            .sum()
    }

    fn is_sure(&self) -> bool {
        let sure = self
            .words
            .iter()
            .filter(|w| w.confidence >= SURE_WORD)
            .count();
        sure >= SURE_WORDS && sure * 2 >= self.words.len()
    }
}

fn read(engine: &Tesseract, grey: &GrayImage, placement: Placement) -> Result<Reading, OcrError> {
    let prepared = prepare(grey, placement);
    let layout = if prepared.height() as f32 >= RECEIPT_ASPECT * prepared.width() as f32 {
        Layout::Column
    } else {
        Layout::Page
    };
    let png = encode(&prepared)?;
    let words = parse_tsv(&engine.tsv(&png, layout)?);
    Ok(Reading { placement, words })
}

/// The source turned and scaled as placed.
fn prepare(grey: &GrayImage, placement: Placement) -> GrayImage {
    let turned = match placement.rotation {
        90 => image::imageops::rotate90(grey),
        180 => image::imageops::rotate180(grey),
        270 => image::imageops::rotate270(grey),
        _ => grey.clone(),
    };
    if (placement.scale - 1.0).abs() < f32::EPSILON {
        return turned;
    }
    let w = ((turned.width() as f32) * placement.scale).round().max(1.0) as u32;
    let h = ((turned.height() as f32) * placement.scale)
        .round()
        .max(1.0) as u32;
    let source = DynamicImage::ImageLuma8(turned);
    let mut scaled = DynamicImage::new_luma8(w, h);
    use fast_image_resize::{FilterType, ResizeAlg, ResizeOptions, Resizer};
    let resize = ResizeOptions::new().resize_alg(ResizeAlg::Convolution(FilterType::CatmullRom));
    match Resizer::new().resize(&source, &mut scaled, &resize) {
        Ok(()) => scaled.into_luma8(),
        Err(_) => source
            .resize_exact(w, h, image::imageops::FilterType::CatmullRom)
            .into_luma8(),
    }
}

/// A PNG Tesseract reads fast: uncompressed-ish (the pipe is local).
fn encode(image: &GrayImage) -> Result<Vec<u8>, OcrError> {
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let mut out = Vec::with_capacity(image.as_raw().len() / 2);
    PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::NoFilter)
        .write_image(
            image.as_raw(),
            image.width(),
            image.height(),
            image::ExtendedColorType::L8,
        )
        .map_err(|e| OcrError::Failed {
            reason: format!("encoding the page for Tesseract: {e}"),
        })?;
    Ok(out)
}
