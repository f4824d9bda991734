//! The pages as the locator reads them: in visual rows. A label and its
//! value are beside each other on the page, but not always in the text's
//! order: PDFium gives a form's labels and values in the order they were
//! drawn (`Rechnungsnr.` three lines after its number), and Tesseract
//! reads a receipt's label and its amount, far apart on one row, as two
//! blocks. On a page whose words all have boxes, its lines are put back
//! in rows, top to bottom, each row left to right: lines side by side are
//! joined, each kept whole (Tesseract's follow a skewed photo, and a
//! PDF's line is level).

use std::ops::Range;

use crate::pages::WordBox;
use crate::pages::{SearchPage, SearchWord};

/// How much of the shorter of two boxes' heights they must share to be
/// on one row.
const SAME_ROW: f32 = 0.5;
/// How many of the rows last begun a unit may join.
const RECENT_ROWS: usize = 8;

/// The pages in rows, where every word has a box; others as they are.
/// (Core reads a line item's numbers on these rows too.) Each word is
/// copied once, to its row: its text is shared, not copied.
pub fn in_rows(pages: &[SearchPage]) -> Vec<SearchPage> {
    pages.iter().map(page_in_rows).collect()
}

/// What rows are built of: a line of the page, with its box.
struct Unit {
    words: Range<usize>,
    top: f32,
    bottom: f32,
    left: f32,
    right: f32,
}

/// Whether two units share half the narrower one's width.
fn overlaps(a: &Unit, b: &Unit) -> bool {
    let shared = a.right.min(b.right) - a.left.max(b.left);
    let narrower = (a.right - a.left).min(b.right - b.left);
    shared > 0.0 && shared >= SAME_ROW * narrower
}

fn page_in_rows(page: &SearchPage) -> SearchPage {
    let Some(boxes) = page
        .words
        .iter()
        .map(|w| w.bbox)
        .collect::<Option<Vec<WordBox>>>()
    else {
        return page.clone();
    };
    let mut units: Vec<Unit> = page
        .lines
        .iter()
        .filter(|s| !s.is_empty())
        .map(|words| {
            let words = words.clone();
            let b = &boxes[words.clone()];
            Unit {
                top: b.iter().map(|b| b.y).fold(f32::MAX, f32::min),
                bottom: b.iter().map(|b| b.y + b.height).fold(f32::MIN, f32::max),
                left: b.iter().map(|b| b.x).fold(f32::MAX, f32::min),
                right: b.iter().map(|b| b.x + b.width).fold(f32::MIN, f32::max),
                words,
            }
        })
        .collect();
    units.sort_by(|a, b| {
        ((a.top + a.bottom) / 2.0)
            .total_cmp(&((b.top + b.bottom) / 2.0))
            .then(a.left.total_cmp(&b.left))
    });
    // Each row grows from its first unit (the highest): a unit joins it
    // when the two share half the shorter one's height, and it is beside
    // the row's units, not over one of them: two lines in one place are
    // two readings of it (OCR's second reading), each a row of its own.
    let mut rows: Vec<Vec<Unit>> = Vec::new();
    for unit in units {
        // Rows grow in the order of their centres: only the last few can
        // be level with this unit.
        let recent = rows.len().saturating_sub(RECENT_ROWS);
        let joins = rows[recent..].iter().rposition(|row| {
            let seed = &row[0];
            let shared = seed.bottom.min(unit.bottom) - seed.top.max(unit.top);
            let shorter = (seed.bottom - seed.top).min(unit.bottom - unit.top);
            shorter > 0.0
                && shared >= SAME_ROW * shorter
                && row.iter().all(|other| !overlaps(other, &unit))
        });
        match joins {
            Some(at) => rows[recent + at].push(unit),
            None => rows.push(vec![unit]),
        }
    }
    let mut out = SearchPage {
        number: page.number,
        words: Vec::with_capacity(page.words.len()),
        lines: Vec::with_capacity(rows.len()),
        ocr: page.ocr,
    };
    // Each line is one unit, and each unit in one row: each word is
    // copied once.
    for mut row in rows {
        row.sort_by(|a, b| a.left.total_cmp(&b.left));
        let start = out.words.len();
        let line = out.lines.len();
        for unit in row {
            out.words
                .extend(page.words[unit.words].iter().map(|word| SearchWord {
                    line,
                    ..word.clone()
                }));
        }
        out.lines.push(start..out.words.len());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, x: f32, y: f32) -> (String, WordBox) {
        (
            text.to_owned(),
            WordBox {
                x,
                y,
                width: 0.05,
                height: 0.01,
            },
        )
    }

    fn page(lines: &[&[(String, WordBox)]], ocr: bool) -> SearchPage {
        let mut page = SearchPage {
            number: 1,
            words: Vec::new(),
            lines: Vec::new(),
            ocr,
        };
        for (l, line) in lines.iter().enumerate() {
            let start = page.words.len();
            page.words.extend(line.iter().map(|(text, b)| SearchWord {
                text: std::sync::Arc::from(text.as_str()),
                line: l,
                bbox: Some(*b),
            }));
            page.lines.push(start..page.words.len());
        }
        page
    }

    fn texts(page: &SearchPage) -> Vec<String> {
        (0..page.lines.len()).map(|l| page.line_text(l)).collect()
    }

    #[test]
    fn a_pdfs_words_drawn_out_of_order_are_read_in_rows() {
        // As PDFium gave a form's header: labels and values in the order drawn.
        let drawn = page(
            &[
                &[word("Rechnungsdatum", 0.1, 0.32)],
                &[word("30064443", 0.25, 0.306), word("Kundennr.", 0.6, 0.306)],
                &[
                    word("7.", 0.25, 0.32),
                    word("Mai", 0.31, 0.32),
                    word("2014", 0.37, 0.32),
                ],
                &[word("47774", 0.75, 0.306)],
                &[word("Rechnungsnr.", 0.1, 0.306)],
            ],
            false,
        );
        assert_eq!(
            texts(&in_rows(&[drawn])[0]),
            [
                "Rechnungsnr. 30064443 Kundennr. 47774",
                "Rechnungsdatum 7. Mai 2014"
            ]
        );
    }

    #[test]
    fn ocr_lines_side_by_side_are_one_row_and_a_skewed_line_stays_whole() {
        // Tesseract's blocks: a label and its amount far apart on a row,
        // and a line that slopes by more than its height.
        let mut sloped = vec![
            word("THANK", 0.1, 0.5),
            word("YOU", 0.4, 0.508),
            word("AGAIN", 0.7, 0.516),
        ];
        sloped[0].1.height = 0.01;
        let read = page(
            &[
                &[word("TOTAL", 0.1, 0.3)],
                &sloped,
                &[word("9.00", 0.8, 0.301)],
            ],
            true,
        );
        assert_eq!(
            texts(&in_rows(&[read])[0]),
            ["TOTAL 9.00", "THANK YOU AGAIN"]
        );
    }

    #[test]
    fn two_readings_of_one_place_are_two_rows() {
        // OCR's second reading adds a line where the first one is.
        let read = page(
            &[
                &[word("TOTAL", 0.1, 0.3), word("14.10", 0.8, 0.3)],
                &[word("CASH", 0.1, 0.32), word("20.00", 0.8, 0.32)],
                &[word("TOTAL", 0.1, 0.301), word("14.19", 0.8, 0.301)],
            ],
            true,
        );
        assert_eq!(
            texts(&in_rows(&[read])[0]),
            ["TOTAL 14.10", "TOTAL 14.19", "CASH 20.00"]
        );
    }

    #[test]
    fn a_page_with_a_word_without_a_box_is_left_as_it_is() {
        let mut text = page(
            &[&[word("Total", 0.1, 0.5)], &[word("12.00", 0.5, 0.5)]],
            false,
        );
        text.words[1].bbox = None;
        assert_eq!(texts(&in_rows(&[text])[0]), ["Total", "12.00"]);
    }
}
