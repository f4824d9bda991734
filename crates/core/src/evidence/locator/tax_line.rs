//! A tax line's amounts: `USt. 19% 198,00 37,62` prints the rate, the
//! base and the tax, and the tax is the amount that is the rate of
//! another (the base is the one nearer the label).

use std::ops::Range;

use crate::evidence::pages::SearchPage;

/// Whether `amount` is a rate printed on its line (`19%`, `5,5 %`) of
/// another of the page's `amounts` on that line, to the cent.
pub(super) fn is_rate_of_another(
    pages: &[SearchPage],
    amounts: &[(usize, Range<usize>, f64)],
    page: usize,
    line: usize,
    amount: f64,
) -> bool {
    let search = &pages[page];
    let row = search.lines[line].clone();
    let words = &search.words[row];
    let number = |text: &str| text.replace(',', ".").parse::<f64>().ok();
    let rates: Vec<f64> = words
        .iter()
        .enumerate()
        .filter_map(|(i, word)| match word.text.strip_suffix('%')? {
            "" => number(&words[i.checked_sub(1)?].text),
            rate => number(rate),
        })
        .filter(|rate| *rate > 0.0 && *rate < 100.0)
        .collect();
    if rates.is_empty() {
        return false;
    }
    amounts
        .iter()
        .filter(|(p, at, other)| {
            *p == page && search.words[at.start].line == line && (other - amount).abs() > 0.005
        })
        .any(|(_, _, base)| {
            rates
                .iter()
                .any(|rate| (base * rate / 100.0 - amount).abs() < 0.011)
        })
}
