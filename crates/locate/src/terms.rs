//! Payment terms in words: `Zahlbar innerhalb 30 Tagen netto bis
//! 04.07.2013`, `Bitte überweisen Sie bis zum 04.07.2015`, `Please pay
//! by 3 May 2024`. The date after a word of paying and a word of "by" is
//! when payment is due, though no due date's label governs it (`bis` on
//! its own is a period's end, a rival of every date's label). The words of
//! paying and of "by" are the language files' `pay` and `by`.

use std::ops::Range;

use crate::languages::lexicon;
use crate::pages::SearchPage;

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
    let by = words
        .last()
        .is_some_and(|w| lexicon().by.contains(&w.as_str()));
    by && words.iter().any(|w| lexicon().pay.contains(&w.as_str()))
}
