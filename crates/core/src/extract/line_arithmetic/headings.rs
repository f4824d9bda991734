//! Which of a table's two factors is its quantity, as the heading over
//! its quantities says (`Menge`, `Qty`, `Qté`): where both factors are
//! whole numbers (`26,00` and `10` under `Nettopreis` and `Menge`),
//! neither the numbers nor a model's answer tell them apart.

use sift_locate::lexicon::quantity_headings;

use super::column_order;
use super::printed::{PrintedLine, PrintedRows, folded};

/// A heading row holds at least this many words: a table's headings, not
/// a sentence's word (`Anzahl Packstücke: 1` prints a digit, too).
const HEADING_WORDS: usize = 3;

/// Whether the quantity is each table row's left factor, as the heading
/// over its quantities tells: for each row, the nearest row above it on
/// its page that holds a quantity heading (a row of headings: three words
/// or more and no digit), and which of the row's factors sits nearer
/// below that heading. `None` when no row has such a heading above it,
/// the rows disagree, or the page has no word boxes.
pub(super) fn quantity_left_by_heading(
    printed: &PrintedRows,
    table: &[((usize, usize), PrintedLine)],
) -> Option<bool> {
    let headings = quantity_headings();
    let (mut quantity_left, mut price_left) = (0, 0);
    for &((page, row), line) in table {
        let page = &printed.pages[page];
        let heads_quantities = |w: usize| headings.contains(&folded(&page.words[w].text).as_str());
        let heading = (0..row).rev().find_map(|r| {
            let words = page.lines.get(r)?.clone();
            let heading_row = words.len() >= HEADING_WORDS
                && !words
                    .clone()
                    .any(|w| page.words[w].text.chars().any(|c| c.is_ascii_digit()));
            heading_row.then(|| words.clone().find(|&w| heads_quantities(w)))?
        });
        let Some(heading) = heading else {
            continue;
        };
        let middle = |first: usize, last: usize| {
            let (a, b) = (page.words[first].bbox?, page.words[last].bbox?);
            Some((a.x + b.x + b.width) / 2.0)
        };
        let run_middle = |run: usize| {
            let words = &printed.runs[run].words;
            middle(words.start, words.end - 1)
        };
        let (Some(over), Some(left), Some(right)) = (
            middle(heading, heading),
            run_middle(line.left.run),
            run_middle(line.right.run),
        ) else {
            continue;
        };
        if (over - left).abs() < (over - right).abs() {
            quantity_left += 1;
        } else {
            price_left += 1;
        }
    }
    column_order(quantity_left, price_left)
}
