//! Tax amounts by arithmetic. A tax line (`USt. 19% 198,00 37,62`)
//! prints the rate, the base and the tax, and the tax is the amount that
//! is the rate of another (the base is the one nearer the label). And a
//! tax is never the total: an amount that is the tax, at a rate printed
//! on its page, of another amount there (`(Inclusive) GST 6% 33,57` under
//! `Total 593,10`) is no total, whatever label is near it.

use std::ops::Range;

use crate::evidence::pages::{SearchPage, SearchWord};

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
    let rates = rates(&search.words[search.lines[line].clone()]);
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

/// Whether `amount` is the tax of a larger amount of its page at one of
/// the page's printed `rates`: charged on it (`100.00` at 6% is `6.00`)
/// or included in it (`106.00` at 6% includes `6.00`), to the cent.
pub(super) fn is_tax_of_another(
    amounts: &[(usize, Range<usize>, f64)],
    rates: &[f64],
    page: usize,
    amount: f64,
) -> bool {
    amount > 0.0
        && amounts
            .iter()
            .filter(|(p, _, base)| *p == page && *base > amount)
            .any(|(_, _, base)| {
                rates.iter().any(|rate| {
                    (base * rate / 100.0 - amount).abs() < 0.011
                        || (base * rate / (100.0 + rate) - amount).abs() < 0.011
                })
            })
}

/// The rates (`19%`, `5,5 %`) printed among `words`, each more than
/// nothing and less than a hundred.
pub(super) fn rates(words: &[SearchWord]) -> Vec<f64> {
    let number = |text: &str| text.replace(',', ".").parse::<f64>().ok();
    words
        .iter()
        .enumerate()
        .filter_map(|(i, word)| match word.text.strip_suffix('%')? {
            "" => number(&words[i.checked_sub(1)?].text),
            rate => number(rate),
        })
        .filter(|rate| *rate > 0.0 && *rate < 100.0)
        .collect()
}
