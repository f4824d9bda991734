//! The rules every field's values share: how a label's reach ends at a
//! bare number, what an unlabelled amount scores, what a value gains
//! for each other place it is printed at, a label word a PDF printed
//! split in two, and a column's sum under its heading.

use std::ops::Range;

use super::AmountAt;
use crate::fields::ValueKind;
use crate::labels::{ABOVE, SAME_LINE, fold_word, span};
use crate::lexicon;
use crate::pages::SearchPage;
use crate::proposal::Proposal;

/// What a value gains for each other place it is printed at, and the most
/// it gains so.
const ANOTHER_PLACE: i32 = 3;
const OTHER_PLACES_AT_MOST: i32 = 9;

/// A label governs the amount with cents after a bare whole number on its line, not the number.
///
/// `Total Qty 9 73.55`, `Total Inc. GST 9 6%: 739.78`: the whole number
/// (a count, a stray digit) loses its label's score.
/// Measured: LOCATOR_VERSION 11, with that version's first step of totals
/// rules (tuning receipts +8, held-out +2, pages starter schema +4)
/// Test: a_label_governs_the_amount_with_cents_after_a_bare_number
pub(crate) fn label_passes_a_bare_number_before_cents(at: &AmountAt, s: i32) -> i32 {
    if s >= ABOVE && !at.cents && at.cents_after {
        0
    } else {
        s
    }
}

/// An unlabelled amount with cents scores 1, one without 0: it is likelier money.
///
/// Measured: not measured
/// Test: an_unlabelled_amount_with_cents_outranks_a_bare_number
pub(crate) fn unlabelled_amount_with_cents_scores_one(at: &AmountAt, s: i32) -> i32 {
    if s == 0 { i32::from(at.cents) } else { s }
}

/// A value printed at another place gains 3 (9 at most); a currency gains a tenth of each place's score.
///
/// Applied as the proposals are merged by value: `extra` is what the value
/// has gained so far, `score` the other place's.
/// Measured: not measured
/// Test: a_value_printed_at_more_places_outranks_one_printed_once
pub(crate) fn another_place_gains(kind: ValueKind, extra: i32, score: i32) -> i32 {
    if kind == ValueKind::Currency {
        extra + score.min(SAME_LINE) / 10
    } else {
        (extra + ANOTHER_PLACE).min(OTHER_PLACES_AT_MOST)
    }
}

/// A word printed split in two (`Ver käufer:`, `Br uttosumme`) is read as one where the two start a label.
///
/// A PDF's text may part a word where its letters are spaced apart
/// (`Ver käufer:`, `Taxiunter nehmen TX GmbH`): `first`, all letters,
/// and `second`, starting in lower case as a word's rest does, read as
/// the one word (folded), which is looked up as a label phrase's first
/// word (on a text page: see `FoldedPages`).
/// Measured: LOCATOR_VERSION 16, e-invoice line items' tune split (seller,
/// buyer, total and tax +1 each), pages' four fields and starter schema
/// (total +1 each); none lost on the corpus, i2d, payment fields, einv
/// Test: a_label_word_printed_split_in_two_is_read_as_one
pub(crate) fn label_word_split_in_two(first: &str, second: &str) -> Option<String> {
    let fragment = first.chars().count() >= 2 && first.chars().all(char::is_alphabetic);
    let rest = second.chars().next().is_some_and(char::is_lowercase);
    (fragment && rest).then(|| {
        let mut joined = String::with_capacity(first.len() + second.len());
        joined.push_str(first);
        joined.push_str(second);
        fold_word(&joined)
    })
}

/// Whether the amount's last word ends in a decimal mark and two digits.
pub(crate) fn has_cents(pages: &[SearchPage], page: usize, words: &Range<usize>) -> bool {
    let Some(last) = pages[page].words[words.clone()].last() else {
        return false;
    };
    let digits = last.text.trim_end_matches(|c: char| !c.is_ascii_digit());
    let b = digits.as_bytes();
    b.len() >= 4 && matches!(b[b.len() - 3], b'.' | b',')
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::label_word_split_in_two;
    use crate::locate_fields;
    use crate::tests::text_document;

    /// A word's rest starts in lower case; a number is no word's start.
    #[test]
    fn two_words_are_one_where_the_second_goes_on_in_lower_case() {
        assert_eq!(
            label_word_split_in_two("Ver", "käufer:").as_deref(),
            Some("verkäufer")
        );
        assert_eq!(label_word_split_in_two("Der", "Käufer:"), None);
        assert_eq!(label_word_split_in_two("Nr.", "datum"), None);
    }

    fn best(text: &str, field: serde_json::Value) -> Option<serde_json::Value> {
        let schema = json!({"type": "object", "properties": {"x": field}});
        locate_fields(&text_document(text), &schema)[0]
            .best()
            .cloned()
    }

    #[test]
    fn an_unlabelled_amount_with_cents_outranks_a_bare_number() {
        // Neither is labelled; the larger would win a tie.
        let total = json!({"type": "number", "description": "The total amount due"});
        assert_eq!(best("Thank you\n120\n45.50", total), Some(json!(45.5)));
    }

    #[test]
    fn a_value_printed_at_more_places_outranks_one_printed_once() {
        // Unlabelled dates score alike: the one printed twice is first.
        let date = json!({"type": "string", "description": "The invoice's date"});
        assert_eq!(
            best("01.02.2024\n05.03.2024\nok 05.03.2024", date),
            Some(json!("2024-03-05"))
        );
        // A currency printed twice outweighs one printed once, earlier.
        let currency = json!({"type": "string", "description": "The currency of the total, as an ISO 4217 code"});
        assert_eq!(
            best("EUR 5.00\nUSD 1.00\nUSD 2.00", currency),
            Some(json!("USD"))
        );
    }
}

/// How many lines below the first value under a heading its column's
/// sum may be printed.
const COLUMN_SUM_WITHIN: usize = 8;

/// A column's sum takes its heading's score: the amounts under a heading, each on a line of numbers alone, that add up to one printed below them.
///
/// `Endbetrag` over `382,47` (the 19% goods) and `136,52` (the 7%), and
/// `518,99` below them: an invoice of two tax rates prints a total, net
/// and tax for each, then the invoice's. The first row, which the heading
/// governs, scores as an unlabelled amount; the sum scores as it did.
/// Lines of numbers alone (a currency's code aside): `Tax 19.00` under
/// `Subtotal 100.00` is no row of the subtotal's column.
/// Measured: LOCATOR_VERSION 20, e-invoice line items' tune split (total
/// and tax of a ZUGFeRD invoice of two rates)
/// Test: a_columns_sum_takes_its_heading
pub(crate) fn column_sum_takes_its_heading(pages: &[SearchPage], proposals: &mut [Proposal]) {
    for head in 0..proposals.len() {
        let first = &proposals[head];
        let Some(amount) = first.amount else {
            continue;
        };
        if first.score <= 1 || !numbers_alone_before(pages, first.page, &first.words) {
            continue;
        }
        let page = &pages[first.page];
        let line = page.words[first.words.start].line;
        let column = column_of(page, &first.words);
        // The rows under it, the first value of each in its column.
        let mut sum = amount;
        let mut summands = 1;
        for below in line + 1..=line + COLUMN_SUM_WITHIN {
            let Some(next) = proposals.iter().position(|p| {
                p.page == first.page
                    && page.words[p.words.start].line == below
                    && p.amount.is_some()
                    && overlaps(column, column_of(page, &p.words))
            }) else {
                continue;
            };
            if !numbers_alone_before(pages, first.page, &proposals[next].words) {
                break;
            }
            let value = proposals[next].amount.unwrap_or_default();
            if summands >= 2 && (value - sum).abs() < 0.005 {
                let score = proposals[head].score;
                proposals[next].score = proposals[next].score.max(score);
                proposals[head].score = 1;
                break;
            }
            sum += value;
            summands += 1;
        }
    }
}

/// Where a value is across its page: its words' left and right edges,
/// else (a page without boxes) its place in its line.
#[derive(Debug, Clone, Copy)]
enum Column {
    Edges(f32, f32),
    Place(usize),
}

fn column_of(page: &SearchPage, words: &Range<usize>) -> Column {
    let (left, right) = span(page, words.clone());
    if left <= right {
        Column::Edges(left, right)
    } else {
        let line = page.words[words.start].line;
        Column::Place(words.start - page.lines[line].start)
    }
}

fn overlaps(a: Column, b: Column) -> bool {
    match (a, b) {
        (Column::Edges(al, ar), Column::Edges(bl, br)) => al <= br && bl <= ar,
        (Column::Place(a), Column::Place(b)) => a == b,
        _ => false,
    }
}

/// Whether the words before a value on its line are numbers, marks or
/// a currency's code: no label.
fn numbers_alone_before(pages: &[SearchPage], page: usize, words: &Range<usize>) -> bool {
    let search = &pages[page];
    let line = &search.lines[search.words[words.start].line];
    search.words[line.start..words.start].iter().all(|w| {
        !w.text.chars().any(char::is_alphabetic)
            || lexicon::currency_code(w.text.trim_matches(|c: char| !c.is_alphanumeric())).is_some()
    })
}
