//! Tesseract's TSV as words with boxes, and as text in reading order.

use super::PageWord;

/// One word as Tesseract printed it, in the pixels of the image it read.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TsvWord {
    /// Block, paragraph and line numbers: the reading order's structure.
    pub block: u32,
    pub paragraph: u32,
    pub line: u32,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
    pub confidence: f32,
    pub text: String,
}

/// Far above any image OCR reads (an A0 page at 300 dpi is 14,043 px).
const MAX_PIXELS: f32 = 1_000_000.0;

/// The words (level 5 rows) of Tesseract's TSV, in its reading order;
/// rows that are not words, or whose text is blank, are left out.
pub(crate) fn parse_tsv(tsv: &str) -> Vec<TsvWord> {
    let mut words = Vec::new();
    for line in tsv.lines().skip(1) {
        let fields: Vec<&str> = line.splitn(12, '\t').collect();
        if fields.len() < 12 || fields[0] != "5" {
            continue;
        }
        // Tesseract prints pixel counts and a confidence; anything else in
        // those columns (`inf`, `NaN`, `1e30`) is not a word's box, and
        // would turn into a box off every page.
        let number = |i: usize| {
            fields[i]
                .trim()
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite() && v.abs() <= MAX_PIXELS)
        };
        let (Some(left), Some(top), Some(width), Some(height), Some(confidence)) =
            (number(6), number(7), number(8), number(9), number(10))
        else {
            continue;
        };
        let text = fields[11].trim();
        if text.is_empty() || confidence < 0.0 {
            continue;
        }
        let index = |i: usize| fields[i].trim().parse::<u32>().unwrap_or(0);
        words.push(TsvWord {
            block: index(2),
            paragraph: index(3),
            line: index(4),
            left,
            top,
            width,
            height,
            confidence: confidence.clamp(0.0, 100.0),
            text: text.to_string(),
        });
    }
    words
}

/// The words' text: a line a line, a blank line between blocks.
pub(crate) fn reading_text(words: &[TsvWord]) -> String {
    let mut out = String::new();
    let mut previous: Option<(u32, u32, u32)> = None;
    for word in words {
        let key = (word.block, word.paragraph, word.line);
        match previous {
            None => {}
            Some(p) if p == key => out.push(' '),
            Some((block, _, _)) if block != word.block => out.push_str("\n\n"),
            Some(_) => out.push('\n'),
        }
        out.push_str(&word.text);
        previous = Some(key);
    }
    out
}

/// How the image Tesseract read relates to the page: it was the page
/// turned `rotation` degrees clockwise, then scaled by `scale`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Placement {
    pub rotation: u16,
    pub scale: f32,
    /// The upright source image's size, in pixels (before turning).
    pub source_width: f32,
    pub source_height: f32,
    /// Page units per source pixel (PDF points for a page, 1 for an image).
    pub page_units: f32,
}

impl Placement {
    /// A word's box in page coordinates.
    pub fn to_page(self, word: &TsvWord) -> PageWord {
        let s = self.scale.max(f32::MIN_POSITIVE);
        let (l, t, w, h) = (word.left / s, word.top / s, word.width / s, word.height / s);
        let (sw, sh) = (self.source_width, self.source_height);
        // Undo the turn: a point of the turned image back on the source.
        let (left, top, width, height) = match self.rotation {
            90 => (t, sh - l - w, h, w),
            180 => (sw - l - w, sh - t - h, w, h),
            270 => (sw - t - h, l, h, w),
            _ => (l, t, w, h),
        };
        let u = self.page_units;
        PageWord {
            text: word.text.clone(),
            left: round2(left * u),
            top: round2(top * u),
            width: round2(width * u),
            height: round2(height * u),
            confidence: word.confidence,
        }
    }
}

/// Rounded to hundredths: finer than any page needs, and stable in the cache.
fn round2(value: f32) -> f32 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n";

    /// Found by the `ocr_output` fuzz target: a box of `-inf` became a
    /// word at minus infinity on the page.
    #[test]
    fn a_row_whose_box_is_not_a_finite_pixel_count_is_no_word() {
        let tsv = format!(
            "{HEADER}5\t1\t1\t1\t1\t1\t-inf\t4\t6\t8\t90\tA\n\
             5\t1\t1\t1\t1\t2\t1\tNaN\t6\t8\t90\tB\n\
             5\t1\t1\t1\t1\t3\t1\t4\t1e30\t8\t90\tC\n\
             5\t1\t1\t1\t1\t4\t1\t4\t6\t8\tinf\tD\n\
             5\t1\t1\t1\t1\t5\t1\t4\t6\t8\t90\tE\n"
        );
        let words = parse_tsv(&tsv);
        assert_eq!(words.len(), 1);
        assert_eq!(words[0].text, "E");
    }
}
