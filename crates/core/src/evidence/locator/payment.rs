//! A receipt's payment as a check on its total: what was handed over
//! (`CASH 50.00`) less what was given back (`CHANGE 11.00`) is what was
//! paid, the total. On a scan whose total OCR misread (`TOTAL 48.16`, or
//! a label too garbled to find) while the two payment lines read well,
//! their difference is the total.

use std::ops::Range;

use super::labels::FoldedPages;
use super::propose::{DocumentValues, has_cents};
use crate::evidence::pages::SearchPage;

/// The words that label what was handed over, folded, in the languages
/// Sift reads.
const TENDERED: &[&str] = &[
    "cash", "tendered", "tender", "bar", "gegeben", "espèces", "especes", "contant", "efectivo",
    "contanti",
];
/// The words that label what was given back.
const CHANGE: &[&str] = &[
    "change",
    "rückgeld",
    "ruckgeld",
    "wechselgeld",
    "rendu",
    "wisselgeld",
    "cambio",
    "resto",
];

/// The total a receipt's payment lines give, with the place of what was
/// handed over: the first amount with cents labelled as tendered less
/// the first labelled as change, when both are there and the difference
/// is more than nothing.
pub(super) fn paid_total(
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    // Money handed over and back is printed with its cents: `CASH 6` is
    // a till's number.
    let labelled = |words: &[&str]| {
        values.amounts.iter().find(|(page, at, _)| {
            has_cents(pages, *page, at) && label_before(pages, folded, *page, at, words)
        })
    };
    let (page, at, tendered) = labelled(TENDERED)?;
    let (_, _, change) = labelled(CHANGE)?;
    let paid = ((tendered - change) * 100.0).round() / 100.0;
    (paid > 0.0 && *change >= 0.0).then(|| (paid, *page, at.clone()))
}

/// Whether the nearest word with letters before `at` on its row is one
/// of `words`, with no number between them.
fn label_before(
    pages: &[SearchPage],
    folded: &FoldedPages,
    page: usize,
    at: &Range<usize>,
    words: &[&str],
) -> bool {
    let search = &pages[page];
    let row = &search.lines[search.words[at.start].line];
    for w in (row.start..at.start).rev() {
        let text = &search.words[w].text;
        if text.chars().any(|c| c.is_ascii_digit()) {
            return false;
        }
        if text.chars().any(char::is_alphabetic) {
            return words.contains(&folded.0[page][w].as_str());
        }
    }
    false
}
