//! Which of a table's two factors is its quantity, as the heading over
//! its quantities says (`Menge`, `Qty`, `Qté`): where both factors are
//! whole numbers (`26,00` and `10` under `Nettopreis` and `Menge`),
//! neither the numbers nor a model's answer tell them apart.

use std::collections::BTreeMap;

use sift_locate::lexicon::quantity_headings;
use sift_locate::pages::SearchPage;

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
    // Each page's quantity headings, by row, found once for all its lines.
    let mut headings: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    let (mut quantity_left, mut price_left) = (0, 0);
    for &((page, row), line) in table {
        let on_page = headings
            .entry(page)
            .or_insert_with(|| headings_of(&printed.pages[page]));
        let at = on_page.partition_point(|&(r, _)| r < row);
        let Some(&(_, heading)) = at.checked_sub(1).map(|at| &on_page[at]) else {
            continue;
        };
        let words = &printed.pages[page].words;
        let middle = |first: usize, last: usize| {
            let (a, b) = (words[first].bbox?, words[last].bbox?);
            Some((a.x + b.x + b.width) / 2.0)
        };
        let run_middle = |run: usize| {
            let run = &printed.runs[run].words;
            middle(run.start, run.end - 1)
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

/// The page's rows of headings that head a column of quantities, top
/// first: each row and its quantity heading's word.
fn headings_of(page: &SearchPage) -> Vec<(usize, usize)> {
    let names = quantity_headings();
    page.lines
        .iter()
        .enumerate()
        .filter(|&(_, words)| {
            words.len() >= HEADING_WORDS
                && !page.words[words.clone()]
                    .iter()
                    .any(|w| w.text.chars().any(|c| c.is_ascii_digit()))
        })
        .filter_map(|(row, words)| {
            let heading = words
                .clone()
                .find(|&w| names.contains(&folded(&page.words[w].text).as_str()))?;
            Some((row, heading))
        })
        .collect()
}
