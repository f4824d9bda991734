//! A page's text as it is laid out: each visual row on one line, top to
//! bottom, its words left to right, the gaps between them kept as spaces.
//!
//! PDFium gives a page's text in the order it was drawn, and a line
//! item's description can come forty lines before its amounts; a small
//! model then pairs the wrong numbers with it. Rebuilt from the words'
//! boxes, the description and its amounts share a line, and a column gap
//! stays wider than a space between words, so the table's columns show.
//!
//! Rows are built as the locator's are (`crates/core`'s `rows.rs`, which
//! reads the same pages above this crate): two pieces of a line share a
//! row when they share half the shorter one's height and do not sit over
//! one another. The boxes come from untrusted files, so nothing here is
//! sized by a coordinate: a gap is at most [`MAX_GAP_SPACES`] spaces and
//! a vertical gap at most one blank line.

use crate::document::{PageWord, WordLines};
use crate::ocr::OcrPage;
use crate::text_order::TextOrder;

/// How much of the shorter of two boxes' heights they must share to be
/// on one row.
const SAME_ROW: f32 = 0.5;
/// How many of the rows last begun a piece of a line may join: rows are
/// begun in the order of their centres, so only the last few can be level
/// with the next piece.
const RECENT_ROWS: usize = 8;
/// The most spaces a gap between two words becomes: a gap across half
/// the page says "another column" as well as sixty spaces would, and
/// costs the model fewer tokens.
pub const MAX_GAP_SPACES: usize = 8;
/// A vertical gap between rows, in the page's usual word heights, from
/// which a blank line separates them.
const BLANK_LINE_GAP: f32 = 1.0;

/// The text the model reads for a PDF page whose text is `text` and
/// whose words are `words`, in `order`.
pub(crate) fn pdf_text_in(order: TextOrder, text: &str, words: Option<&WordLines>) -> String {
    match (order, words) {
        (TextOrder::Layout, Some(words)) if words.lines.iter().any(|l| !l.is_empty()) => {
            laid_out_text(words)
        }
        _ => text.to_owned(),
    }
}

/// The text the model reads for an OCR'd page, in `order`. A page whose
/// text is not its words (made by hand, or an older cache's) keeps its
/// text rather than lose the words that have no box.
pub(crate) fn ocr_text_in(order: TextOrder, ocr: &OcrPage) -> String {
    let words = WordLines::of_ocr(ocr);
    let count: usize = words.lines.iter().map(Vec::len).sum();
    match order {
        TextOrder::Layout if count > 0 && count == ocr.text.split_whitespace().count() => {
            laid_out_text(&words)
        }
        _ => ocr.text.clone(),
    }
}

/// A run of a line's words on one row, going rightwards, with its box.
struct Piece<'a> {
    words: &'a [PageWord],
    top: f32,
    bottom: f32,
    left: f32,
    right: f32,
}

impl<'a> Piece<'a> {
    fn of(words: &'a [PageWord]) -> Self {
        Self {
            words,
            top: words.iter().map(|w| w.top).fold(f32::MAX, f32::min),
            bottom: words.iter().map(bottom).fold(f32::MIN, f32::max),
            left: words.iter().map(|w| w.left).fold(f32::MAX, f32::min),
            right: words.iter().map(right).fold(f32::MIN, f32::max),
        }
    }

    fn centre(&self) -> f32 {
        (self.top + self.bottom) / 2.0
    }
}

fn bottom(word: &PageWord) -> f32 {
    word.top + word.height
}

fn right(word: &PageWord) -> f32 {
    word.left + word.width
}

/// Whether two spans share half the shorter one.
fn share_half(a: (f32, f32), b: (f32, f32)) -> bool {
    let shared = a.1.min(b.1) - a.0.max(b.0);
    let shorter = (a.1 - a.0).min(b.1 - b.0);
    shorter > 0.0 && shared >= SAME_ROW * shorter
}

/// The page's text laid out: a visual row a line, words left to right,
/// each gap between words as many spaces as the characters that would
/// fit in it (one at least, [`MAX_GAP_SPACES`] at most), and a blank line
/// where rows are a word's height or more apart.
pub(crate) fn laid_out_text(page: &WordLines) -> String {
    let pieces = pieces(page);
    let char_width = median(page.lines.iter().flatten().filter_map(|w| {
        let chars = w.text.chars().count();
        (chars > 0 && w.width > 0.0).then(|| w.width / chars as f32)
    }));
    let word_height = median(
        page.lines
            .iter()
            .flatten()
            .map(|w| w.height)
            .filter(|h| *h > 0.0),
    );
    let mut out = String::new();
    let mut last_bottom: Option<f32> = None;
    for row in rows(pieces) {
        let (top, row_bottom) = row.iter().fold((f32::MAX, f32::MIN), |(t, b), p| {
            (t.min(p.top), b.max(p.bottom))
        });
        if let Some(above) = last_bottom {
            out.push('\n');
            if word_height.is_some_and(|h| top - above >= BLANK_LINE_GAP * h) {
                out.push('\n');
            }
        }
        last_bottom = Some(last_bottom.map_or(row_bottom, |b| b.max(row_bottom)));
        let mut previous: Option<&PageWord> = None;
        for word in row.iter().flat_map(|p| p.words) {
            if let Some(before) = previous {
                let gap = word.left - right(before);
                for _ in 0..gap_spaces(gap, char_width) {
                    out.push(' ');
                }
            }
            out.push_str(&word.text);
            previous = Some(word);
        }
    }
    out
}

/// The spaces a horizontal gap becomes: the characters of the page's
/// width that fit in it, rounded, between one and [`MAX_GAP_SPACES`]
/// (a gap that is not a number, from a broken box, is one space).
fn gap_spaces(gap: f32, char_width: Option<f32>) -> usize {
    let Some(width) = char_width else {
        return 1;
    };
    let chars = (gap / width).round();
    if chars >= MAX_GAP_SPACES as f32 {
        MAX_GAP_SPACES
    } else if chars >= 1.0 {
        chars as usize
    } else {
        1
    }
}

/// The median of the values (the upper one of an even count), or `None`
/// for none; values that are not finite are left out.
fn median(values: impl Iterator<Item = f32>) -> Option<f32> {
    let mut values: Vec<f32> = values.filter(|v| v.is_finite()).collect();
    if values.is_empty() {
        return None;
    }
    let middle = values.len() / 2;
    let (_, value, _) = values.select_nth_unstable_by(middle, f32::total_cmp);
    Some(*value)
}

/// The page's lines cut where a line leaves its row or turns back
/// leftwards: PDFium's lines follow the order text was drawn in, and
/// one may hold words from two places on the page.
fn pieces(page: &WordLines) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    for line in &page.lines {
        let mut start = 0;
        for at in 1..line.len() {
            let (before, word) = (&line[at - 1], &line[at]);
            let level = share_half((before.top, bottom(before)), (word.top, bottom(word)));
            if !level || word.left < before.left {
                pieces.push(Piece::of(&line[start..at]));
                start = at;
            }
        }
        if start < line.len() {
            pieces.push(Piece::of(&line[start..]));
        }
    }
    pieces
}

/// The pieces in rows, top to bottom, each row's pieces left to right.
/// A row grows from its first piece (the highest): a piece joins it when
/// the two share half the shorter one's height and it is beside the
/// row's pieces, not over one of them (two readings of one place stay
/// two rows).
fn rows(mut pieces: Vec<Piece<'_>>) -> Vec<Vec<Piece<'_>>> {
    pieces.sort_by(|a, b| {
        a.centre()
            .total_cmp(&b.centre())
            .then(a.left.total_cmp(&b.left))
    });
    let mut rows: Vec<Vec<Piece<'_>>> = Vec::new();
    for piece in pieces {
        let recent = rows.len().saturating_sub(RECENT_ROWS);
        let joins = rows[recent..].iter().rposition(|row| {
            share_half((row[0].top, row[0].bottom), (piece.top, piece.bottom))
                && row
                    .iter()
                    .all(|other| !share_half((other.left, other.right), (piece.left, piece.right)))
        });
        match joins {
            Some(at) => rows[recent + at].push(piece),
            None => rows.push(vec![piece]),
        }
    }
    for row in &mut rows {
        row.sort_by(|a, b| a.left.total_cmp(&b.left));
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A word on a page of 5-point characters, 10 points high.
    fn word(text: &str, left: f32, top: f32) -> PageWord {
        PageWord {
            text: text.into(),
            left,
            top,
            width: 5.0 * text.chars().count() as f32,
            height: 10.0,
            confidence: 100.0,
        }
    }

    fn page(lines: Vec<Vec<PageWord>>) -> WordLines {
        WordLines {
            width: 600.0,
            height: 800.0,
            lines,
        }
    }

    #[test]
    fn a_line_items_description_and_amounts_drawn_apart_share_a_row() {
        // As PDFium gives a table drawn column by column: the
        // descriptions first, the amounts after them.
        let text = laid_out_text(&page(vec![
            vec![word("Widget", 10.0, 100.0)],
            vec![word("Gadget", 10.0, 112.0)],
            vec![word("2", 200.0, 100.0), word("19.90", 300.0, 100.0)],
            vec![word("1", 200.0, 112.0), word("5.00", 300.0, 112.0)],
        ]));
        assert_eq!(
            text,
            "Widget        2        19.90\nGadget        1        5.00"
        );
    }

    #[test]
    fn gaps_become_the_characters_that_fit_in_them() {
        // Gaps of 2, 5 and 14 points with 5-point characters: one space
        // (never none), one, and three (a column gap stays wider than a
        // space between words).
        let text = laid_out_text(&page(vec![vec![
            word("Net", 10.0, 50.0),
            word("amount", 27.0, 50.0),
            word("EUR", 62.0, 50.0),
            word("12.00", 91.0, 50.0),
        ]]));
        assert_eq!(text, "Net amount EUR   12.00");
    }

    #[test]
    fn a_wide_gap_is_at_most_the_bound_and_a_tall_one_one_blank_line() {
        let text = laid_out_text(&page(vec![
            vec![word("Total", 10.0, 100.0), word("9.00", 1.0e30, 100.0)],
            vec![word("Thanks", 10.0, 1.0e30)],
        ]));
        assert_eq!(text, "Total        9.00\n\nThanks");
        assert_eq!(MAX_GAP_SPACES, 8);
    }

    #[test]
    fn rows_a_little_apart_stay_together_and_a_words_height_apart_get_a_blank_line() {
        let text = laid_out_text(&page(vec![
            vec![word("Invoice", 10.0, 100.0)],
            vec![word("No.", 10.0, 111.0), word("7", 30.0, 111.0)],
            vec![word("Bill", 10.0, 131.0), word("to", 35.0, 131.0)],
        ]));
        assert_eq!(text, "Invoice\nNo. 7\n\nBill to");
    }

    #[test]
    fn a_line_that_turns_back_to_the_left_is_cut_into_its_rows() {
        // One PDFium line holding a label's row and the row below it.
        let text = laid_out_text(&page(vec![vec![
            word("Date", 10.0, 100.0),
            word("Due", 10.0, 112.0),
            word("2024-03-01", 100.0, 100.0),
        ]]));
        assert_eq!(text, "Date        2024-03-01\nDue");
    }

    #[test]
    fn two_readings_of_one_place_stay_two_rows() {
        let text = laid_out_text(&page(vec![
            vec![word("Total", 10.0, 100.0)],
            vec![word("Tota1", 11.0, 101.0)],
        ]));
        assert_eq!(text, "Total\nTota1");
    }

    #[test]
    fn broken_boxes_give_text_and_no_panic() {
        let mut nan = word("x", 0.0, 0.0);
        nan.left = f32::NAN;
        nan.top = f32::NAN;
        let mut flat = word("y", 5.0, 5.0);
        flat.height = 0.0;
        flat.width = f32::INFINITY;
        let text = laid_out_text(&page(vec![vec![nan, flat, word("z", -1.0e38, 5.0)]]));
        let mut words: Vec<&str> = text.split_whitespace().collect();
        words.sort_unstable();
        assert_eq!(words, ["x", "y", "z"]);
        assert!(text.len() <= 3 + 2 * (MAX_GAP_SPACES + 2));
    }

    /// A receipt as Tesseract reads it in two blocks: the labels, then
    /// the amounts beside them.
    fn receipt(text: &str) -> OcrPage {
        OcrPage {
            text: text.into(),
            words: vec![
                word("Coffee", 10.0, 100.0),
                word("Total", 10.0, 120.0),
                word("3.50", 200.0, 100.0),
                word("3.50", 200.0, 120.0),
            ],
            width: 300.0,
            height: 400.0,
            rotation: 0,
        }
    }

    #[test]
    fn an_ocr_pages_blocks_are_laid_out_in_rows() {
        let ocr = receipt("Coffee\nTotal\n\n3.50\n3.50");
        assert_eq!(
            ocr_text_in(TextOrder::Layout, &ocr),
            "Coffee        3.50\n\nTotal        3.50"
        );
        assert_eq!(ocr_text_in(TextOrder::Pdfium, &ocr), ocr.text);
    }

    #[test]
    fn an_ocr_page_whose_text_is_not_its_words_keeps_its_text() {
        let ocr = receipt("Coffee\nTotal\n\n3.50\n4.50");
        assert_eq!(ocr_text_in(TextOrder::Layout, &ocr), ocr.text);
    }

    #[test]
    fn a_pdf_page_without_words_keeps_its_text() {
        let empty = page(vec![]);
        assert_eq!(
            pdf_text_in(TextOrder::Layout, "Total 3.50", Some(&empty)),
            "Total 3.50"
        );
        assert_eq!(
            pdf_text_in(TextOrder::Layout, "Total 3.50", None),
            "Total 3.50"
        );
        let words = page(vec![vec![
            word("Total", 10.0, 10.0),
            word("3.50", 200.0, 10.0),
        ]]);
        assert_eq!(
            pdf_text_in(TextOrder::Pdfium, "Total 3.50", Some(&words)),
            "Total 3.50"
        );
        assert_eq!(
            pdf_text_in(TextOrder::Layout, "Total 3.50", Some(&words)),
            "Total        3.50"
        );
    }

    #[test]
    fn a_page_without_words_is_empty() {
        assert_eq!(laid_out_text(&page(vec![])), "");
        assert_eq!(laid_out_text(&page(vec![vec![]])), "");
    }

    #[test]
    fn the_orders_read_from_their_names() {
        assert_eq!("layout".parse(), Ok(TextOrder::Layout));
        assert_eq!("pdfium".parse(), Ok(TextOrder::Pdfium));
        assert_eq!(
            "visual".parse::<TextOrder>().unwrap_err().to_string(),
            "\"visual\" is not a text order (layout or pdfium)"
        );
        assert_eq!(TextOrder::Pdfium.to_string(), "pdfium");
    }
}
