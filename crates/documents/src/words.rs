//! A page's words with their boxes, a line at a time: what finding a
//! value on the page (the evidence of an extraction) searches. A text PDF
//! page gets them from PDFium's character boxes; a scan or a photo from
//! its OCR.

use std::borrow::Cow;

use pdfium_render::prelude::PdfPageText;

use crate::document::{Document, Page, PageWord, WordLines};
use crate::ocr::OcrPage;

impl WordLines {
    /// OCR's words, split into the lines of its text. The text is built
    /// from the words in order (a line a line, words joined by a space),
    /// so each line's tokens are the next words.
    pub fn of_ocr(ocr: &OcrPage) -> Self {
        let mut words = ocr.words.iter();
        let mut lines = Vec::new();
        for line in ocr.text.lines() {
            let mut out = Vec::new();
            for token in line.split(' ').filter(|t| !t.is_empty()) {
                match words.next() {
                    Some(word) if word.text == token => out.push(word.clone()),
                    // Not the text's own words (a hand-made page): stop
                    // rather than give boxes to the wrong words.
                    _ => return Self::sized(ocr, lines),
                }
            }
            if !out.is_empty() {
                lines.push(out);
            }
        }
        Self::sized(ocr, lines)
    }

    fn sized(ocr: &OcrPage, lines: Vec<Vec<PageWord>>) -> Self {
        Self {
            width: ocr.width,
            height: ocr.height,
            lines,
        }
    }
}

impl Page {
    /// The page's words with their boxes: OCR's when the page was OCR'd,
    /// else its own text's when they were read
    /// ([`crate::ReadOptions::word_boxes`]).
    pub fn word_lines(&self) -> Option<Cow<'_, WordLines>> {
        match &self.ocr {
            Some(ocr) => Some(Cow::Owned(WordLines::of_ocr(ocr))),
            None => self.text_words.as_ref().map(Cow::Borrowed),
        }
    }
}

impl Document {
    /// An image file's words with their boxes, when it was OCR'd.
    pub fn word_lines(&self) -> Option<WordLines> {
        self.ocr.as_ref().map(WordLines::of_ocr)
    }
}

/// The words of a PDF page's text layer (visible or not) with PDFium's
/// loose character boxes, turned into points from the page's top-left
/// corner. A word is a run of characters other than whitespace; a line
/// ends at a line break in PDFium's text (its own or one it generated).
pub(crate) fn pdf_text_words(text: &PdfPageText<'_>, width: f32, height: f32) -> WordLines {
    let mut lines = Vec::new();
    let mut line: Vec<PageWord> = Vec::new();
    let mut word: Option<(String, [f32; 4])> = None;
    let flush = |word: &mut Option<(String, [f32; 4])>, line: &mut Vec<PageWord>| {
        if let Some((text, [left, top, right, bottom])) = word.take() {
            line.push(PageWord {
                text,
                left: round2(left),
                top: round2(top),
                width: round2(right - left),
                height: round2(bottom - top),
                confidence: 100.0,
            });
        }
    };
    for c in text.chars().iter() {
        match c.unicode_char() {
            Some('\n' | '\r') => {
                flush(&mut word, &mut line);
                if !line.is_empty() {
                    lines.push(std::mem::take(&mut line));
                }
            }
            Some(ch) if !ch.is_whitespace() && !ch.is_control() => {
                let Ok(rect) = c.loose_bounds() else {
                    continue;
                };
                // PDF space has y upwards from the bottom; boxes here go
                // downwards from the top, as OCR's and images' do.
                let b = [
                    rect.left().value,
                    height - rect.top().value,
                    rect.right().value,
                    height - rect.bottom().value,
                ];
                match &mut word {
                    Some((text, bounds)) => {
                        text.push(ch);
                        bounds[0] = bounds[0].min(b[0]);
                        bounds[1] = bounds[1].min(b[1]);
                        bounds[2] = bounds[2].max(b[2]);
                        bounds[3] = bounds[3].max(b[3]);
                    }
                    None => word = Some((ch.to_string(), b)),
                }
            }
            _ => flush(&mut word, &mut line),
        }
    }
    flush(&mut word, &mut line);
    if !line.is_empty() {
        lines.push(line);
    }
    WordLines {
        width,
        height,
        lines,
    }
}

/// Rounded to hundredths of a point: finer than any highlight needs.
fn round2(value: f32) -> f32 {
    (value * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, left: f32) -> PageWord {
        PageWord {
            text: text.into(),
            left,
            top: 10.0,
            width: 20.0,
            height: 8.0,
            confidence: 90.0,
        }
    }

    #[test]
    fn ocr_words_follow_the_lines_of_its_text() {
        let ocr = OcrPage {
            text: "Total 12.00\n\nThank you".into(),
            words: vec![
                word("Total", 1.0),
                word("12.00", 2.0),
                word("Thank", 3.0),
                word("you", 4.0),
            ],
            width: 100.0,
            height: 200.0,
            rotation: 0,
        };
        let lines = WordLines::of_ocr(&ocr);
        let texts: Vec<Vec<&str>> = lines
            .lines
            .iter()
            .map(|l| l.iter().map(|w| w.text.as_str()).collect())
            .collect();
        assert_eq!(texts, vec![vec!["Total", "12.00"], vec!["Thank", "you"]]);
        assert_eq!((lines.width, lines.height), (100.0, 200.0));
    }

    #[test]
    fn ocr_text_that_is_not_its_words_gives_no_wrong_boxes() {
        let ocr = OcrPage {
            text: "Total 12.00".into(),
            words: vec![word("Total", 1.0), word("99.00", 2.0)],
            width: 100.0,
            height: 200.0,
            rotation: 0,
        };
        assert!(WordLines::of_ocr(&ocr).lines.is_empty());
    }
}
