//! The OCR input path without Tesseract, for the `ocr_output` fuzz target
//! (`crates/documents/fuzz`): everything Sift does with what it did not
//! produce itself. Tesseract's orientation report and its TSV are parsed,
//! the image is turned and scaled as placed, each word's box is tightened
//! to its ink and mapped back to the page, and the text is put in reading
//! order. Running Tesseract itself per input would make a fuzz run a few
//! inputs a second; its answers are what arrives from outside.

use image::GrayImage;

use super::OcrPage;
use super::layout::{Placement, parse_tsv, reading_text};
use super::recognize::{MIN_ORIENTATION_CONFIDENCE, prepare, tighten};
use super::tesseract::parse_orientation;

/// The widest and tallest grey image taken: a fuzz input's pixels fill
/// rows of `width` up to this, and scaling stays within it too.
const MAX_EDGE: u32 = 512;

/// What OCR makes of `osd` (Tesseract's `--psm 0` report) and `tsv` (its
/// words) for a grey image of `pixels` in rows of `width`, read at
/// `scale` (clamped to what OCR uses: 0.25 to 4).
#[doc(hidden)]
pub fn page_from_tesseract_answers(
    width: u32,
    pixels: &[u8],
    osd: &str,
    tsv: &str,
    scale: f32,
) -> OcrPage {
    let width = width.clamp(1, MAX_EDGE);
    let height = (pixels.len() as u32 / width).clamp(1, MAX_EDGE);
    let mut raw = pixels.to_vec();
    raw.resize((width * height) as usize, u8::MAX);
    let grey = GrayImage::from_raw(width, height, raw).unwrap_or_else(|| GrayImage::new(1, 1));
    let rotation = parse_orientation(osd)
        .filter(|o| o.confidence >= MIN_ORIENTATION_CONFIDENCE)
        .map_or(0, |o| o.rotate);
    let longest = width.max(height) as f32;
    let scale = if scale.is_finite() { scale } else { 1.0 };
    let scale = scale.clamp(0.25, 4.0).min(MAX_EDGE as f32 / longest);
    let placement = Placement {
        rotation,
        scale,
        source_width: width as f32,
        source_height: height as f32,
        page_units: 0.75,
    };
    let prepared = prepare(&grey, placement);
    let mut words = parse_tsv(tsv);
    for word in &mut words {
        tighten(&prepared, word);
    }
    OcrPage {
        text: reading_text(&words),
        words: words.iter().map(|w| placement.to_page(w)).collect(),
        width: width as f32 * placement.page_units,
        height: height as f32 * placement.page_units,
        rotation,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_turned_reports_words_come_back_on_the_upright_page() {
        // A 40 x 20 white image; Tesseract says it reads upright turned 90°
        // and finds one word at the top left of the turned image.
        let pixels = vec![255u8; 40 * 20];
        let osd = "Page number: 0\nOrientation in degrees: 270\nRotate: 90\nOrientation confidence: 9.5\n";
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
                   5\t1\t1\t1\t1\t1\t2\t4\t6\t8\t91.0\tTotal\n";
        let page = page_from_tesseract_answers(40, &pixels, osd, tsv, 1.0);
        assert_eq!(page.rotation, 90);
        assert_eq!(page.text, "Total");
        assert_eq!((page.width, page.height), (30.0, 15.0));
        let word = &page.words[0];
        // Turned back: (top, height - left - width, height, width) in pixels, times 0.75.
        assert_eq!(
            (word.left, word.top, word.width, word.height),
            (3.0, 9.0, 6.0, 4.5)
        );
    }

    #[test]
    fn nonsense_answers_give_an_empty_page() {
        let page = page_from_tesseract_answers(0, &[], "Rotate: NaN\n", "5\tx\n\t\t", f32::NAN);
        assert_eq!(page.text, "");
        assert!(page.words.is_empty());
        assert_eq!(page.rotation, 0);
    }
}
