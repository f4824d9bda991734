//! The tax's rules, by arithmetic. A tax line (`USt. 19% 198,00 37,62`)
//! prints the rate, the base and the tax, and the tax is the amount that
//! is the rate of another (the base is the one nearer the label). And a
//! tax is never the total: an amount that is the tax, at a rate printed
//! on its page, of another amount there (`(Inclusive) GST 6% 33,57` under
//! `Total 593,10`) is no total, whatever label is near it.
//!
//! Each question is asked of every amount of a page, so the amounts are
//! sorted by value once and each base looked up in the range that could
//! give the amount at a rate: a page of many amounts costs n log n, not
//! every amount compared with every other.
//!
//! And the tax that is the labelled total less the labelled net gains.

use std::ops::Range;

use foldhash::HashMap;

use super::AmountAt;
use crate::fields::FieldSpec;
use crate::labels::ABOVE;
use crate::lexicon::Concept;
use crate::pages::{SearchPage, SearchWord};
use crate::proposal::Proposal;

/// What an amount on a tax line gains for being its rate of another
/// amount there.
const TAX_OF_BASE: i32 = 15;
/// What a tax amount gains for being the total less the net.
const TAX_DIFFERENCE: i32 = 25;

/// How far (in cents' fractions) a rate of a base may be from the
/// amount printed for it: rounding to the cent, and a float's error.
const TO_THE_CENT: f64 = 0.011;

/// Of a tax line's amounts (`USt. 19% 198,00 37,62`), the one that is the line's printed rate of another gains 15.
///
/// The base is nearer the label than the tax.
/// Measured: LOCATOR_VERSION 10, pages' payment fields, with the tax's
/// labels in other words (tax 2 → 16 of 42)
/// Test: the_tax_of_a_tax_line_is_the_amount_that_is_its_rate_of_another
pub(crate) fn tax_line_rate_of_another_gains(at: &AmountAt, s: i32) -> i32 {
    if s >= ABOVE
        && at.spec.concept == Some(Concept::Tax)
        && is_rate_of_another(at.by_value, at.page, at.line, at.amount)
    {
        s + TAX_OF_BASE
    } else {
        s
    }
}

/// The tax amount that is the labelled total less the labelled net gains 25.
///
/// `Bruttosumme 23,54`, `Rechnungssumme ohne USt. 22,00`: the tax is 1,54.
/// A tax table prints each rate's base beside its tax, nearer the label
/// than the tax. `labelled` is the best value another concept's labels
/// give.
/// Measured: LOCATOR_VERSION 10, pages' payment fields and starter schema
/// (tax 16 → 25 of 42, 9 won, none lost)
/// Test: the_tax_is_the_amount_that_is_the_total_less_the_net
pub(crate) fn tax_by_difference(
    spec: &FieldSpec,
    mut ranked: Vec<Proposal>,
    labelled: &dyn Fn(Concept) -> Option<Proposal>,
) -> Vec<Proposal> {
    if spec.concept != Some(Concept::Tax) {
        return ranked;
    }
    let amount = |concept| labelled(concept)?.amount;
    // The net is looked for (another search of the page) only with a total.
    let Some(total) = amount(Concept::Total) else {
        return ranked;
    };
    let Some(net) = amount(Concept::Net) else {
        return ranked;
    };
    let tax = ((total - net) * 100.0).round() / 100.0;
    if net <= 0.0 || tax < 0.0 {
        return ranked;
    }
    for p in &mut ranked {
        if p.score > 0 && p.amount.is_some_and(|a| (a - tax).abs() < 0.005) {
            p.score += TAX_DIFFERENCE;
        }
    }
    // Stable: equal scores keep the order ranking gave them.
    ranked.sort_by_key(|p| std::cmp::Reverse(p.score));
    ranked
}

/// The page's amounts sorted by value, on each page and on each line
/// that has some, with the distinct rates printed there.
pub(crate) struct AmountsByValue {
    by_page: Vec<Vec<f64>>,
    by_line: HashMap<(usize, usize), Vec<f64>>,
    page_rates: Vec<Vec<f64>>,
    line_rates: HashMap<(usize, usize), Vec<f64>>,
}

impl AmountsByValue {
    pub fn new(pages: &[SearchPage], amounts: &[(usize, Range<usize>, f64)]) -> Self {
        let mut by_page = vec![Vec::new(); pages.len()];
        let mut by_line: HashMap<(usize, usize), Vec<f64>> = HashMap::default();
        for (page, words, amount) in amounts {
            by_page[*page].push(*amount);
            let line = pages[*page].words[words.start].line;
            by_line.entry((*page, line)).or_default().push(*amount);
        }
        for sorted in by_page.iter_mut().chain(by_line.values_mut()) {
            sorted.sort_by(f64::total_cmp);
        }
        let page_rates = pages.iter().map(|p| distinct(rates(&p.words))).collect();
        let line_rates = by_line
            .keys()
            .map(|&(page, line)| {
                let words = &pages[page].words[pages[page].lines[line].clone()];
                ((page, line), distinct(rates(words)))
            })
            .collect();
        Self {
            by_page,
            by_line,
            page_rates,
            line_rates,
        }
    }
}

/// The values of `sorted` strictly between `low` and `high`, widened by
/// a float's error (the caller's own test decides).
fn between(sorted: &[f64], low: f64, high: f64) -> &[f64] {
    let slack = 1e-9 * (1.0 + low.abs().max(high.abs()));
    let from = sorted.partition_point(|v| *v <= low - slack);
    let to = sorted.partition_point(|v| *v < high + slack);
    &sorted[from..to.max(from)]
}

/// Whether `amount` is a rate printed on its line (`19%`, `5,5 %`) of
/// another of the page's amounts on that line, to the cent.
pub(crate) fn is_rate_of_another(
    by_value: &AmountsByValue,
    page: usize,
    line: usize,
    amount: f64,
) -> bool {
    let (Some(on_line), Some(rates)) = (
        by_value.by_line.get(&(page, line)),
        by_value.line_rates.get(&(page, line)),
    ) else {
        return false;
    };
    rates.iter().any(|rate| {
        // base * rate / 100 within a cent of the amount.
        let low = (amount - TO_THE_CENT) * 100.0 / rate;
        let high = (amount + TO_THE_CENT) * 100.0 / rate;
        between(on_line, low, high).iter().any(|base| {
            (base - amount).abs() > 0.005 && (base * rate / 100.0 - amount).abs() < TO_THE_CENT
        })
    })
}

/// Whether `amount` is the tax of a larger amount of its page at one of
/// the page's printed rates: charged on it (`100.00` at 6% is `6.00`) or
/// included in it (`106.00` at 6% includes `6.00`), to the cent.
pub(crate) fn is_tax_of_another(by_value: &AmountsByValue, page: usize, amount: f64) -> bool {
    let on_page = &by_value.by_page[page];
    let rates = &by_value.page_rates[page];
    let larger = &on_page[on_page.partition_point(|base| *base <= amount)..];
    amount > 0.0
        && rates.iter().any(|rate| {
            let charged = |base: f64| (base * rate / 100.0 - amount).abs() < TO_THE_CENT;
            let included = |base: f64| (base * rate / (100.0 + rate) - amount).abs() < TO_THE_CENT;
            let scale_charged = 100.0 / rate;
            let scale_included = (100.0 + rate) / rate;
            between(
                larger,
                (amount - TO_THE_CENT) * scale_charged,
                (amount + TO_THE_CENT) * scale_charged,
            )
            .iter()
            .any(|base| charged(*base))
                || between(
                    larger,
                    (amount - TO_THE_CENT) * scale_included,
                    (amount + TO_THE_CENT) * scale_included,
                )
                .iter()
                .any(|base| included(*base))
        })
}

/// `rates` once each, in order: a page printing `19%` on every line asks
/// each question once.
fn distinct(mut rates: Vec<f64>) -> Vec<f64> {
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    rates
}

/// The rates (`19%`, `5,5 %`) printed among `words`, each more than
/// nothing and less than a hundred.
pub(crate) fn rates(words: &[SearchWord]) -> Vec<f64> {
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
