//! Payment terms in words: `Zahlbar innerhalb 30 Tagen netto bis
//! 04.07.2013`, `Bitte überweisen Sie bis zum 04.07.2015`, `Please pay
//! by 3 May 2024`. The date after a word of paying and a word of "by" is
//! when payment is due, though no due date's label governs it (`bis` on
//! its own is a period's end, a rival of every date's label).

use std::ops::Range;

use crate::pages::SearchPage;

/// Words of paying, folded, in the languages Sift reads.
const PAY: &[&str] = &[
    "pay",
    "payable",
    "zahlbar",
    "zahlen",
    "überweisen",
    "ueberweisen",
    "zahlung",
    "payer",
    "réglable",
    "betalen",
    "betaalbaar",
    "pagar",
    "pagadero",
    "pagare",
    "pagabile",
];
/// Words of "by" a date, folded.
const BY: &[&str] = &[
    "by",
    "before",
    "until",
    "bis",
    "zum",
    "avant",
    "le",
    "vóór",
    "voor",
    "uiterlijk",
    "antes",
    "del",
    "entro",
    "il",
];

/// Whether the date at `date` on `page` is a payment's deadline: a word
/// of "by" right before it, and a word of paying between it and the
/// previous date on its line (`… netto bis 04.07.2013, 3% Skonto
/// innerhalb 10 Tagen bis 15.06.2013`: the discount's date is not).
pub(super) fn is_payment_deadline(
    page: &SearchPage,
    folded: &[String],
    dates_before: impl Iterator<Item = usize>,
    date: &Range<usize>,
) -> bool {
    let line = &page.lines[page.words[date.start].line];
    let since = dates_before
        .filter(|end| *end > line.start && *end <= date.start)
        .max()
        .unwrap_or(line.start);
    let words = &folded[since..date.start];
    let by = words.last().is_some_and(|w| BY.contains(&w.as_str()));
    by && words.iter().any(|w| PAY.contains(&w.as_str()))
}
