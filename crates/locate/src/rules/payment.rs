//! A receipt's payment as a check on its total. What was handed over
//! (`CASH 50.00`) less what was given back (`CHANGE 11.00`) is what was
//! paid, the total: on a scan whose total's label OCR garbled while the
//! two payment lines read well, their difference is the total. And where
//! cash is rounded (to 5 cents: Malaysia, Switzerland, the Netherlands),
//! a page with a rounding line pays its total rounded (`Total 31.02`,
//! `Rounding Adj -0.02`, `CASH 31.00`). What a card was charged is the
//! total too; and a scan's total off that step, beside an amount on it
//! one misread last digit away, is that amount.

use std::ops::Range;

use super::currency::currency;
use super::shared::has_cents;
use crate::fields::FieldSpec;
use crate::labels::{ABOVE, FoldedPages, SAME_LINE, lines_with};
use crate::languages::lexicon;
use crate::lexicon::{Concept, rounding_words};
use crate::misread::is_digit_misread;
use crate::pages::SearchPage;
use crate::proposal::{Amount, Proposal, amount_value};

/// What a card was charged is the total: the first amount with cents a card's word labels (`VISA 62.88`, `CREDIT RM 45.35`).
///
/// With its place. Taken where no label governs the total, or, on a scan,
/// where the total is off the cash step and the charge on it (see
/// [`paid_total_first`]).
/// Measured: LOCATOR_VERSION 13, tuning receipts' totals (321 of 395, +4 / −0)
/// Test: a_card_charge_is_the_total_where_no_label_or_a_misread_total_disagrees
pub(crate) fn card_total(
    pages: &[SearchPage],
    amounts: &[Amount],
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    amounts
        .iter()
        .find(|(page, at, amount)| {
            *amount > 0.0
                && has_cents(pages, *page, at)
                && label_before(pages, folded, *page, at, &lexicon().card)
        })
        .map(|(page, at, amount)| (*amount, *page, at.clone()))
}

/// A receipt's cash less its change is its total, where no label gives it, or picks it among the candidates.
///
/// With the place of what was
/// handed over: an amount with cents labelled as tendered less the first
/// labelled as change, when both are there and the difference is more
/// than nothing. Of several tendered (`Cash 71.00`, `Cash Received
/// 101.00`, `Change 30.00`), the one whose difference the page prints
/// elsewhere, else the first. None where an amount tendered is the
/// labelled `total`: paid exactly, whatever the change line was read as
/// (`CASH 248.05`, `Change 0.01)` for `0.00`).
/// Measured: LOCATOR_VERSION 9, tuning receipts +7 / −1, held-out +5; of
/// several tendered, at LOCATOR_VERSION 11 (with that version's first step
/// of totals rules); cash equal to the total, LOCATOR_VERSION 13 (tuning
/// receipts' totals +1 / −0)
/// Test: a_receipts_cash_less_its_change_is_the_total_its_label_does_not_give
pub(crate) fn paid_total(
    total: Option<f64>,
    pages: &[SearchPage],
    amounts: &[Amount],
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    // Money handed over and back is printed with its cents: `CASH 6` is
    // a till's number.
    let labelled = |words: &'static [&'static str]| {
        amounts.iter().filter(move |(page, at, _)| {
            has_cents(pages, *page, at) && label_before(pages, folded, *page, at, words)
        })
    };
    let change @ (_, _, change_amount) = labelled(&lexicon().change).next()?;
    if *change_amount < 0.0 {
        return None;
    }
    let paid = |tendered: f64| ((tendered - change_amount) * 100.0).round() / 100.0;
    // Printed at a place other than the two payment lines'.
    let printed = |amount: f64, tendered: &(usize, Range<usize>, f64)| {
        amounts
            .iter()
            .any(|other| other != tendered && other != change && (other.2 - amount).abs() < 0.005)
    };
    if total.is_some_and(|total| {
        labelled(&lexicon().tendered).any(|(_, _, t)| (t - total).abs() < 0.005)
    }) {
        return None;
    }
    let mut tendered = labelled(&lexicon().tendered).filter(|(_, _, t)| paid(*t) > 0.0);
    let first = tendered.next()?;
    let (page, at, amount) = std::iter::once(first)
        .chain(tendered)
        .find(|t| printed(paid(t.2), t))
        .unwrap_or(first);
    Some((paid(*amount), *page, at.clone()))
}

/// Whether the nearest word with letters before `at` on its row is one
/// of `words`, with no number between them; a currency between them is
/// the amount's (`CASH RM 20.00`).
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
        if text.chars().any(char::is_alphabetic) && currency(text).is_none() {
            return words.contains(&folded.0[page][w]);
        }
    }
    false
}

/// Whether `amount` is a whole five cents, the step cash is rounded to
/// where the smallest coins are gone.
pub(crate) fn on_cash_step(amount: f64) -> bool {
    cents(amount) % 5 == 0
}

/// An amount in whole cents.
fn cents(amount: f64) -> i64 {
    (amount * 100.0).round() as i64
}

/// The total as paid in cash, where it is printed as another amount: rounded to five cents beside a rounding line, or a scan's last digit misread off that step.
///
/// On a page with a rounding line, the amount printed within five cents of
/// `total` that is a whole five cents (and `total` is not), the total
/// rounded for payment; else, on a scan, an amount printed on that step
/// that differs from `total` in its last digit only, one OCR misreads
/// (see [`is_digit_misread`]): the total read a digit off (`Total 11.46`
/// beside `CASH 11.40`). With its place.
/// Measured: LOCATOR_VERSION 9, the rounding (corpus +1, tuning receipts
/// +6 / −2, held-out +2); LOCATOR_VERSION 13, the last digit misread
/// (tuning receipts' totals +6 / −0)
/// Test: with_a_rounding_line_the_total_rounded_to_five_cents_is_paid
pub(crate) fn rounded_total(
    total: f64,
    pages: &[SearchPage],
    amounts: &[Amount],
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    if on_cash_step(total) {
        return None;
    }
    let t = cents(total);
    let on_step = |page: usize, at: &Range<usize>, amount: f64| {
        on_cash_step(amount) && cents(amount) != t && has_cents(pages, page, at)
    };
    let rounded = amounts
        .iter()
        .find(|(page, at, amount)| on_step(*page, at, *amount) && (cents(*amount) - t).abs() < 5);
    // Looked for last: most pages have no such amount.
    let rounding = || {
        lines_with(folded, pages, rounding_words())
            .iter()
            .flatten()
            .any(|l| *l)
    };
    if let Some((page, at, amount)) = rounded.filter(|_| rounding()) {
        return Some((*amount, *page, at.clone()));
    }
    let misread = amounts.iter().find(|(page, at, amount)| {
        let a = cents(*amount);
        let last = |cents: i64| (cents % 10) as u8;
        pages[*page].ocr
            && t > 0
            && a > 0
            && a / 10 == t / 10
            && is_digit_misread(last(a), last(t))
            && on_step(*page, at, *amount)
    })?;
    Some((misread.2, misread.0, misread.1.clone()))
}

/// A receipt whose payment lines give the total, or whose total is paid
/// rounded: that amount first, where it was a candidate or not, and never
/// sure (the page's own total disagrees, or has no label). The payment's
/// difference ([`paid_total`]) first, else what a card was charged
/// ([`card_total`]), else the total rounded ([`rounded_total`]).
pub(crate) fn paid_total_first(
    spec: &FieldSpec,
    mut ranked: Vec<Proposal>,
    pages: &[SearchPage],
    amounts: &[Amount],
    folded: &FoldedPages,
) -> Vec<Proposal> {
    if spec.concept != Some(Concept::Total) {
        return ranked;
    }
    let best = ranked
        .first()
        .filter(|p| p.score >= ABOVE)
        .and_then(|p| p.amount);
    let first_score = ranked.first().map_or(0, |p| p.score);
    // The rounded total is printed (often beside `CASH`, a rival label);
    // a difference of payment lines may be printed nowhere.
    let rounded = || {
        let (amount, page, words) = rounded_total(best?, pages, amounts, folded)?;
        Some((amount, page, words, true))
    };
    // What a card was charged is read a digit off as often as the total
    // is: it is taken where no label governs the total, or, on a scan,
    // where the total is off the step cash is rounded to and the charge
    // on it (a typed page's digits are as written).
    let card = || {
        let (amount, page, words) = card_total(pages, amounts, folded)?;
        let off_step = ranked
            .first()
            .and_then(|p| p.amount)
            .is_some_and(|total| pages[page].ocr && !on_cash_step(total) && on_cash_step(amount));
        (first_score < ABOVE || off_step).then_some((amount, page, words, true))
    };
    let paid = paid_total(best, pages, amounts, folded)
        .map(|(amount, page, words)| (amount, page, words, false))
        .or_else(card)
        .or_else(rounded);
    let Some((paid, page, words, printed)) = paid else {
        return ranked;
    };
    let at = ranked
        .iter()
        .position(|p| p.amount.is_some_and(|a| (a - paid).abs() < 0.005));
    let mut moved = match at {
        Some(0) => return ranked,
        Some(at) => ranked.remove(at),
        None if first_score >= SAME_LINE && !printed => return ranked,
        None => Proposal {
            value: amount_value(spec, paid),
            page,
            words,
            score: 0,
            amount: Some(paid),
        },
    };
    moved.score = first_score;
    ranked.insert(0, moved);
    ranked
}
