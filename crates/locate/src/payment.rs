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
use super::labels::{FoldedPages, lines_with};
use super::lexicon::rounding_words;
use super::propose::{DocumentValues, has_cents};
use crate::languages::lexicon;
use crate::misread::is_digit_misread;
use crate::pages::SearchPage;

/// What a card was charged, with its place: the first amount with cents
/// that a card's word labels (`VISA 62.88`, `CREDIT RM 45.35`).
pub(super) fn card_total(
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    values
        .amounts
        .iter()
        .find(|(page, at, amount)| {
            *amount > 0.0
                && has_cents(pages, *page, at)
                && label_before(pages, folded, *page, at, &lexicon().card)
        })
        .map(|(page, at, amount)| (*amount, *page, at.clone()))
}

/// The total a receipt's payment lines give, with the place of what was
/// handed over: an amount with cents labelled as tendered less the first
/// labelled as change, when both are there and the difference is more
/// than nothing. Of several tendered (`Cash 71.00`, `Cash Received
/// 101.00`, `Change 30.00`), the one whose difference the page prints
/// elsewhere, else the first. None where an amount tendered is the
/// labelled `total`: paid exactly, whatever the change line was read as
/// (`CASH 248.05`, `Change 0.01)` for `0.00`).
pub(super) fn paid_total(
    total: Option<f64>,
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    // Money handed over and back is printed with its cents: `CASH 6` is
    // a till's number.
    let labelled = |words: &'static [&'static str]| {
        values.amounts.iter().filter(move |(page, at, _)| {
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
        values
            .amounts
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
            return words.contains(&folded.0[page][w].as_str());
        }
    }
    false
}

/// Whether `amount` is a whole five cents, the step cash is rounded to
/// where the smallest coins are gone.
pub(super) fn on_cash_step(amount: f64) -> bool {
    cents(amount) % 5 == 0
}

/// An amount in whole cents.
fn cents(amount: f64) -> i64 {
    (amount * 100.0).round() as i64
}

/// The total as paid in cash, where it is printed as another amount: on
/// a page with a rounding line, the amount printed within five cents of
/// `total` that is a whole five cents (and `total` is not), the total
/// rounded for payment; else, on a scan, an amount printed on that step
/// that differs from `total` in its last digit only, one OCR misreads
/// (see [`is_digit_misread`]): the total read a digit off (`Total 11.46`
/// beside `CASH 11.40`). With its place.
pub(super) fn rounded_total(
    total: f64,
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Option<(f64, usize, Range<usize>)> {
    if on_cash_step(total) {
        return None;
    }
    let t = cents(total);
    let on_step = |page: usize, at: &Range<usize>, amount: f64| {
        on_cash_step(amount) && cents(amount) != t && has_cents(pages, page, at)
    };
    let rounded = values
        .amounts
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
    let misread = values.amounts.iter().find(|(page, at, amount)| {
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
