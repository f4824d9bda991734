//! One page image to an [`OcrPage`]: size, orientation, then Tesseract.

use image::{DynamicImage, GrayImage, ImageEncoder};

use super::layout::{Placement, TsvWord, parse_tsv, reading_text};
use super::paddle::PaddleReader;
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

/// The share of the darkest, and of the brightest, pixels a contrast
/// stretch makes black and white: on four receipt photos of which plain
/// Tesseract read next to nothing (tuning receipts, BENCHMARKS.md),
/// clipping 5% read 37 to 135 confident words each; clipping 1% rescued
/// one of the four, and the plain stretch none.
const STRETCH_CLIP: f32 = 0.05;

/// An upright image at least this many times as high as it is wide is a
/// receipt, read as one column (on the corpus's receipts `--psm 4` found
/// values that `--psm 3` split off or lost).
const RECEIPT_ASPECT: f32 = 1.8;

/// Orientation detection is followed only at this confidence or above
/// (Tesseract's scale; a receipt upright often gets 0.3 for a wrong turn).
pub(super) const MIN_ORIENTATION_CONFIDENCE: f32 = 1.5;

/// Reads `image`, a page `page_width` units wide (PDF points, or the
/// image's own pixels for an image file), with Tesseract.
pub fn recognize(
    image: &DynamicImage,
    page_width: f32,
    options: &OcrOptions,
) -> Result<OcrPage, OcrError> {
    let engine = Tesseract::new(options)?;
    let mut grey = image.to_luma8();
    let (sw, sh) = (grey.width() as f32, grey.height() as f32);
    let page_units = if sw > 0.0 { page_width / sw } else { 1.0 };
    let placement = |rotation: u16, scale: f32| Placement {
        rotation,
        scale,
        source_width: sw,
        source_height: sh,
        page_units,
    };
    let mut best = read_at_size(&engine, &grey, placement(0, 1.0))?;
    // Next to nothing read: faint print, or a dark edge that set the
    // threshold (a receipt's torn border), lost the text. Read again with
    // the contrast stretched; a page read well never is.
    if best.confident_words() < SURE_WORDS {
        let stretched = stretch_contrast(&grey, STRETCH_CLIP);
        let again = read_at_size(&engine, &stretched, placement(0, 1.0))?;
        if again.score() > best.score() {
            best = again;
            grey = stretched;
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
    if let Some(dir) = &options.paddle {
        return read_with_paddle(dir, image, &grey, best, page_width, page_units);
    }
    // A second reading as one uniform block, and the lines of it that hold
    // a number the first reading lacks: on 70 receipt photos no rule was
    // written for, this brought the ground-truth values read from 85.2%
    // to 89.5%, beyond noise (`scripts/bench-ocr-values.sh`, BENCHMARKS.md).
    // The first reading keeps its order; only new numbers are added, so a
    // value either reading found reaches the model once or twice, never
    // lost, without the whole page twice over.
    let second = read_as(&engine, &grey, best.placement, Some(Layout::Block))?;
    add_new_number_lines(&mut best.words, second.words);
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

/// The page's words read by PaddleOCR, upright as Tesseract's `best`
/// reading placed it; the lines of Tesseract's reading that hold a number
/// PaddleOCR's lacks are added as a block at the end, as the second
/// Tesseract reading's are without PaddleOCR.
fn read_with_paddle(
    dir: &std::path::Path,
    image: &DynamicImage,
    grey: &GrayImage,
    best: Reading,
    page_width: f32,
    page_units: f32,
) -> Result<OcrPage, OcrError> {
    let placement = Placement {
        scale: 1.0,
        ..best.placement
    };
    let upright = match placement.rotation {
        90 => image.rotate90(),
        180 => image.rotate180(),
        270 => image.rotate270(),
        _ => image.clone(),
    }
    .to_rgb8();
    // Tesseract's words were read at its placement's scale.
    let s = best.placement.scale.max(f32::MIN_POSITIVE);
    let tesseract: Vec<TsvWord> = best
        .words
        .into_iter()
        .map(|w| TsvWord {
            left: w.left / s,
            top: w.top / s,
            width: w.width / s,
            height: w.height / s,
            ..w
        })
        .collect();
    let mut words = PaddleReader::get(dir)?
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .read(&upright, &tesseract)?;
    let upright_grey = prepare(grey, placement);
    for word in &mut words {
        tighten(&upright_grey, word);
    }
    add_new_number_lines(&mut words, tesseract);
    Ok(OcrPage {
        text: reading_text(&words),
        words: words.iter().map(|w| placement.to_page(w)).collect(),
        width: page_width,
        height: placement.source_height * page_units,
        rotation: placement.rotation,
    })
}

/// Reads the image as placed, and again larger when its text is small
/// (the median word under [`MIN_WORD_HEIGHT`]): the better reading.
fn read_at_size(
    engine: &Tesseract,
    grey: &GrayImage,
    placement: Placement,
) -> Result<Reading, OcrError> {
    let first = read(engine, grey, placement)?;
    let Some(height) = first.median_height().filter(|h| *h < MIN_WORD_HEIGHT) else {
        return Ok(first);
    };
    let (sw, sh) = (placement.source_width, placement.source_height);
    let scale = (MIN_WORD_HEIGHT / height)
        .min(MAX_UPSCALE)
        .min((MAX_UPSCALED_PIXELS / (sw * sh).max(1.0)).sqrt());
    if scale <= 1.1 {
        return Ok(first);
    }
    let larger = read(engine, grey, Placement { scale, ..placement })?;
    Ok(if larger.score() > first.score() {
        larger
    } else {
        first
    })
}

/// `grey` with its levels stretched so that the darkest and the brightest
/// `clip` of its pixels are black and white (a dark border or a glare
/// spot no longer sets the range).
fn stretch_contrast(grey: &GrayImage, clip: f32) -> GrayImage {
    let mut histogram = [0usize; 256];
    for pixel in grey.pixels() {
        histogram[usize::from(pixel.0[0])] += 1;
    }
    let cut = (grey.pixels().len() as f32 * clip) as usize;
    let low = level_past(&histogram, 0..256, cut);
    let high = level_past(&histogram, (0..256).rev(), cut);
    let mut out = grey.clone();
    if high <= low {
        return out;
    }
    // Each of the 256 levels mapped once, not each pixel.
    let range = (high - low) as f32;
    let mapped: Vec<u8> = (0..256)
        .map(|level| {
            ((level as f32 - low as f32) * 255.0 / range)
                .round()
                .clamp(0.0, 255.0) as u8
        })
        .collect();
    for pixel in out.pixels_mut() {
        pixel.0[0] = mapped[usize::from(pixel.0[0])];
    }
    out
}

/// The first of `levels` by which more than `cut` pixels are counted.
fn level_past(histogram: &[usize; 256], levels: impl Iterator<Item = usize>, cut: usize) -> usize {
    let mut seen = 0;
    for level in levels {
        seen += histogram[level];
        if seen > cut {
            return level;
        }
    }
    0
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

    /// The words read with confidence ([`SURE_WORD`] or more).
    fn confident_words(&self) -> usize {
        self.words
            .iter()
            .filter(|w| w.confidence >= SURE_WORD)
            .count()
    }

    fn is_sure(&self) -> bool {
        let sure = self.confident_words();
        sure >= SURE_WORDS && sure * 2 >= self.words.len()
    }
}

fn read(engine: &Tesseract, grey: &GrayImage, placement: Placement) -> Result<Reading, OcrError> {
    read_as(engine, grey, placement, None)
}

/// One pass in `layout`; `None`: by the image's shape (a receipt is read
/// as one column, anything else with the automatic layout).
fn read_as(
    engine: &Tesseract,
    grey: &GrayImage,
    placement: Placement,
    layout: Option<Layout>,
) -> Result<Reading, OcrError> {
    let prepared = prepare(grey, placement);
    let layout = layout.unwrap_or(
        if prepared.height() as f32 >= RECEIPT_ASPECT * prepared.width() as f32 {
            Layout::Column
        } else {
            Layout::Page
        },
    );
    let png = encode(&prepared)?;
    let mut words = parse_tsv(&engine.tsv(&png, layout)?);
    for word in &mut words {
        tighten(&prepared, word);
    }
    Ok(Reading { placement, words })
}

/// Appends to `first` the lines of `second` (a reading of the same image,
/// as placed) that hold a word with a digit that no word of `first` is, as
/// blocks after the first reading's, so that they read as a block of their
/// own at the end of the page.
fn add_new_number_lines(first: &mut Vec<TsvWord>, second: Vec<TsvWord>) {
    let has_digit = |w: &TsvWord| w.text.chars().any(|c| c.is_ascii_digit());
    let known: std::collections::HashSet<String> = first
        .iter()
        .filter(|w| has_digit(w))
        .map(|w| w.text.clone())
        .collect();
    let after = first.iter().map(|w| w.block).max().map_or(0, |b| b + 1);
    let mut line: Vec<TsvWord> = Vec::new();
    let flush = |line: &mut Vec<TsvWord>, first: &mut Vec<TsvWord>| {
        if line
            .iter()
            .any(|w| has_digit(w) && !known.contains(&w.text))
        {
            for mut word in line.drain(..) {
                word.block += after;
                first.push(word);
            }
        }
        line.clear();
    };
    for word in second {
        let same = line.last().is_some_and(|l| {
            (l.block, l.paragraph, l.line) == (word.block, word.paragraph, word.line)
        });
        if !same {
            flush(&mut line, first);
        }
        line.push(word);
    }
    flush(&mut line, first);
}

/// Shrinks a word's box to its ink. Tesseract's boxes can reach several
/// pixels past the letters (the first word of a line, most often); the
/// evidence drawn from them should not. Ink is what is darker than the
/// middle of the box's darkest and lightest pixels; a box mostly dark
/// (light text on a dark ground) is left as it is.
pub(super) fn tighten(image: &GrayImage, word: &mut TsvWord) {
    let x0 = (word.left.max(0.0) as u32).min(image.width());
    let y0 = (word.top.max(0.0) as u32).min(image.height());
    let x1 = ((word.left + word.width).max(0.0) as u32).min(image.width());
    let y1 = ((word.top + word.height).max(0.0) as u32).min(image.height());
    if x1 <= x0 || y1 <= y0 {
        return;
    }
    let (mut darkest, mut lightest) = (u8::MAX, u8::MIN);
    for y in y0..y1 {
        for x in x0..x1 {
            let v = image.get_pixel(x, y)[0];
            darkest = darkest.min(v);
            lightest = lightest.max(v);
        }
    }
    if lightest.saturating_sub(darkest) < 32 {
        return;
    }
    let middle = (u16::from(darkest) + u16::from(lightest)) / 2;
    let (mut left, mut top, mut right, mut bottom) = (x1, y1, x0, y0);
    let mut ink = 0u64;
    for y in y0..y1 {
        for x in x0..x1 {
            if u16::from(image.get_pixel(x, y)[0]) < middle {
                ink += 1;
                left = left.min(x);
                top = top.min(y);
                right = right.max(x + 1);
                bottom = bottom.max(y + 1);
            }
        }
    }
    let area = u64::from(x1 - x0) * u64::from(y1 - y0);
    if ink == 0 || ink * 2 > area {
        return;
    }
    word.left = left as f32;
    word.top = top as f32;
    word.width = (right - left) as f32;
    word.height = (bottom - top) as f32;
}

/// The source turned and scaled as placed.
pub(super) fn prepare(grey: &GrayImage, placement: Placement) -> GrayImage {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn word(block: u32, line: u32, text: &str) -> TsvWord {
        TsvWord {
            block,
            paragraph: 1,
            line,
            left: 0.0,
            top: 0.0,
            width: 10.0,
            height: 10.0,
            confidence: 90.0,
            text: text.into(),
        }
    }

    fn texts(words: &[TsvWord]) -> Vec<(u32, &str)> {
        words.iter().map(|w| (w.block, w.text.as_str())).collect()
    }

    #[test]
    fn a_stretch_makes_the_clipped_darkest_and_brightest_levels_black_and_white() {
        // 100 pixels: a dark border (2), faint print (8 at 150), and a
        // background of two shades; 5% clipped is 5 pixels each side.
        let levels: Vec<u8> = [(0u8, 2), (150, 8), (220, 45), (240, 45)]
            .iter()
            .flat_map(|&(level, n)| std::iter::repeat_n(level, n))
            .collect();
        let grey = GrayImage::from_raw(10, 10, levels).unwrap();
        let stretched = stretch_contrast(&grey, 0.05);
        let mut out: Vec<u8> = stretched.pixels().map(|p| p.0[0]).collect();
        out.dedup();
        // 150 and below black, 240 white, 220 at (220 − 150) / 90 of the way.
        assert_eq!(out, [0, 198, 255]);
        // A page of one level is left as it is.
        let flat = GrayImage::from_pixel(4, 4, image::Luma([200]));
        assert_eq!(stretch_contrast(&flat, 0.05), flat);
    }

    #[test]
    fn only_the_second_readings_lines_with_new_numbers_are_added_after_the_first() {
        let mut first = vec![word(1, 1, "Total"), word(1, 1, "91.00"), word(2, 1, "Cash")];
        let second = vec![
            // The same number: nothing new.
            word(1, 1, "Cash"),
            word(1, 1, "91.00"),
            // A number the first reading lacks: its whole line.
            word(1, 2, "Rounded"),
            word(1, 2, "Total"),
            word(1, 2, "9.00"),
            // Words without digits add nothing.
            word(3, 1, "THANK"),
            word(3, 1, "YOU"),
            word(4, 1, "25/12/2018"),
        ];
        add_new_number_lines(&mut first, second);
        assert_eq!(
            texts(&first),
            [
                (1, "Total"),
                (1, "91.00"),
                (2, "Cash"),
                (4, "Rounded"),
                (4, "Total"),
                (4, "9.00"),
                (7, "25/12/2018"),
            ]
        );
        assert_eq!(
            reading_text(&first),
            "Total 91.00\n\nCash\n\nRounded Total 9.00\n\n25/12/2018"
        );
    }
}
