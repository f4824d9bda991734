//! Proposing a field's values from the page: every amount, date,
//! identifier or currency of the document, each scored by the label that
//! governs it (the nearest label before it on its line, else the one
//! above it), then merged by value and ranked.

use std::collections::BTreeMap;
use std::ops::Range;

use foldhash::HashMap;

use serde_json::json;

use super::country::home_country;
use super::fields::{FieldSpec, ValueKind};
use super::labels::{FoldedPages, Occurrence, label_score, lines_with};
use super::lexicon::{self, Concept};
use super::phrases::{FieldPhrases, occurrences, total_lines};
use crate::pages::SearchPage;
use crate::proposal::{Amount, Proposal, amount_value};
use crate::rules::currency::{
    bare_dollar_is_the_home_dollar, currency, currency_in_letters_outweighs_a_sign,
    currency_on_the_total_line_gains, foreign_currency_on_a_scan_is_capped, home_countrys_money,
    printed_currency, takes_the_total_line,
};
use crate::rules::dates::{
    any_date_beats_none, date_after_the_number_is_the_issue_date,
    date_linked_to_the_number_is_the_issue_date, dates_in_plausible_years,
    due_date_needs_its_label_or_terms, linked_to_the_number,
};
use crate::rules::identifiers::{
    bracketed_code_loses, grouped_iban, iban_has_its_shape, identifier, says_buyer,
    series_identifier, short_number, short_number_only_right_after_its_label, spec_words,
    tax_id_answers_its_own_party, unlabelled_vat_number_is_a_tax_id, vat_shaped_tax_id_gains,
};
use crate::rules::parties::party_names;
use crate::rules::shared::{has_cents, label_passes_a_bare_number_before_cents};
use crate::rules::tax::{AmountsByValue, tax_line_rate_of_another_gains};
use crate::rules::{AmountAt, AmountRule, net, shared, totals};
use crate::runs::{Run, value_runs};

/// The rules that adjust an amount's label score, in the order they apply
/// (each sees the score the one before left).
const AMOUNT_RULES: [AmountRule; 7] = [
    net::net_total_at_rounding_is_the_total,
    label_passes_a_bare_number_before_cents,
    totals::scan_label_above_governs_no_bare_whole_number,
    shared::unlabelled_amount_with_cents_scores_one,
    totals::total_below_rounding_line_gains,
    tax_line_rate_of_another_gains,
    totals::tax_of_another_is_no_total,
];

/// The amounts and dates of a document, found once for all its fields.
pub(super) struct DocumentValues {
    pub amounts: Vec<Amount>,
    dates: Vec<(usize, Range<usize>, String)>,
    by_value: AmountsByValue,
    /// For each line of each page with an amount with cents, the first
    /// word of the last such amount (see [`cents_after`]).
    last_with_cents: HashMap<(usize, usize), usize>,
}

impl DocumentValues {
    pub fn new(pages: &[SearchPage]) -> Self {
        let runs = value_runs(pages);
        let dates = dates_in_plausible_years(pages, &runs);
        let amounts = amounts(pages, &runs, &dates);
        let mut last_with_cents = HashMap::default();
        for (page, words, _) in amounts.iter().filter(|(p, w, _)| has_cents(pages, *p, w)) {
            let line = pages[*page].words[words.start].line;
            let last = last_with_cents.entry((*page, line)).or_insert(words.start);
            *last = (*last).max(words.start);
        }
        Self {
            by_value: AmountsByValue::new(pages, &amounts),
            amounts,
            dates,
            last_with_cents,
        }
    }
}

/// Every proposal for `spec` on the pages, scored (not yet merged).
pub(super) fn propose(
    spec: &FieldSpec,
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Vec<Proposal> {
    let found = occurrences(pages, folded, &FieldPhrases::of(spec));
    let score = |page: usize, words: &Range<usize>| label_score(pages, &found, page, words);
    let mut out = Vec::new();
    match spec.kind {
        ValueKind::Amount => {
            let is_total = spec.concept == Some(Concept::Total);
            let rounding = is_total.then(|| lines_with(folded, pages, lexicon::rounding_words()));
            for (page, words, amount) in values.amounts.iter().cloned() {
                if spec.integer && amount.fract() != 0.0 {
                    continue;
                }
                if totals::zero_is_no_total(spec, amount) {
                    continue;
                }
                let line = pages[page].words[words.start].line;
                let below_rounding = rounding.as_ref().is_some_and(|lines| {
                    (line.saturating_sub(totals::ROUNDED_WITHIN)..=line).any(|l| lines[page][l])
                });
                let at = AmountAt {
                    spec,
                    pages,
                    folded,
                    by_value: &values.by_value,
                    page,
                    line,
                    amount,
                    is_total,
                    below_rounding,
                    cents: has_cents(pages, page, &words),
                    cents_after: cents_after(values, page, line, words.end),
                };
                let s = AMOUNT_RULES
                    .iter()
                    .fold(score(page, &words), |s, rule| rule(&at, s));
                out.push(Proposal {
                    value: amount_value(spec, amount),
                    page,
                    words,
                    score: s,
                    amount: Some(amount),
                });
            }
            shared::column_sum_takes_its_heading(pages, &mut out);
        }
        ValueKind::Date => {
            // `Invoice No. 42 of 3 May 2024`, `Rechnung Nr. 7 vom`: a date
            // after the document's number on its line is its date.
            let numbered = std::cell::OnceCell::new();
            let numbered = || numbered.get_or_init(|| document_number_labels(spec, pages, folded));
            for (page, words, date) in values.dates.iter().cloned() {
                let ends = values.dates.iter().filter(|d| d.0 == page).map(|d| d.1.end);
                let Some(labelled) = due_date_needs_its_label_or_terms(
                    spec.concept,
                    score(page, &words),
                    &pages[page],
                    &folded.0[page],
                    ends,
                    &words,
                ) else {
                    continue;
                };
                let s = any_date_beats_none(labelled);
                let line = pages[page].words[words.start].line;
                // Looked for only where it could matter: the labels of
                // the number are a second search of the pages.
                let after_number = || {
                    numbered()[page][line]
                        .iter()
                        .any(|o| !o.rival && o.end <= words.start)
                };
                let s = date_after_the_number_is_the_issue_date(spec.concept, s, after_number);
                let linked =
                    || linked_to_the_number(pages, &folded.0[page], numbered(), page, &words);
                let s = date_linked_to_the_number_is_the_issue_date(spec.concept, s, linked);
                out.push(Proposal {
                    value: json!(date),
                    page,
                    words,
                    score: s,
                    amount: None,
                });
            }
        }
        ValueKind::Identifier => {
            let in_dates = &values.dates;
            // Whether the field asks the buyer's id (`buyer_vat_id`).
            let asks_buyer = says_buyer(&spec_words(spec));
            for (p, page) in pages.iter().enumerate() {
                for (w, word) in page.words.iter().enumerate() {
                    // An identifier is only ever proposed beside its label
                    // (which governs a run of words by its first): the
                    // label first, as most words have none.
                    let s =
                        unlabelled_vat_number_is_a_tax_id(spec, &word.text, score(p, &(w..w + 1)));
                    if s <= 0 {
                        continue;
                    }
                    // An IBAN is printed in groups of four: its words joined.
                    let grouped = (spec.concept == Some(Concept::Iban))
                        .then(|| grouped_iban(page, w))
                        .flatten();
                    let short = short_number(&word.text);
                    let Some((id, end)) = grouped
                        .or_else(|| series_identifier(page, w))
                        .or_else(|| Some((identifier(&word.text)?, w + 1)))
                        .or_else(|| short.clone().map(|n| (n, w + 1)))
                    else {
                        continue;
                    };
                    // A year of `March 3, 2024` is a date's.
                    if in_dates
                        .iter()
                        .any(|(dp, dw, _)| *dp == p && dw.contains(&w))
                    {
                        continue;
                    }
                    let words = w..end;
                    if !short_number_only_right_after_its_label(short.is_some(), s) {
                        continue;
                    }
                    let s = bracketed_code_loses(&word.text, s);
                    let s = vat_shaped_tax_id_gains(spec, &id, s);
                    if !tax_id_answers_its_own_party(spec, page, &folded.0[p], w, asks_buyer) {
                        continue;
                    }
                    if !iban_has_its_shape(spec, &id) {
                        continue;
                    }
                    if s > 0 {
                        out.push(Proposal {
                            value: json!(id),
                            page: p,
                            words,
                            score: s,
                            amount: None,
                        });
                    }
                }
            }
        }
        ValueKind::Currency => {
            let total_lines = total_lines(pages, folded);
            let home = home_country(pages, folded);
            for (p, page) in pages.iter().enumerate() {
                for (w, word) in page.words.iter().enumerate() {
                    let Some(mut code) = printed_currency(&word.text) else {
                        continue;
                    };
                    code = bare_dollar_is_the_home_dollar(&word.text, code, home.as_ref());
                    let words = w..w + 1;
                    let s = currency_in_letters_outweighs_a_sign(&word.text, score(p, &words));
                    let s = if takes_the_total_line(total_lines[p][word.line], &word.text, page.ocr)
                    {
                        currency_on_the_total_line_gains(s)
                    } else {
                        foreign_currency_on_a_scan_is_capped(code, page.ocr, home.as_ref(), s)
                    };
                    out.push(Proposal {
                        value: json!(code),
                        page: p,
                        words,
                        score: s,
                        amount: None,
                    });
                }
            }
            out.extend(home.map(home_countrys_money));
        }
        ValueKind::Text => {
            let names = party_names(spec, pages, folded, &found);
            out.extend(names.into_iter().map(|name| Proposal {
                value: json!(name.text),
                page: name.page,
                words: name.words,
                score: name.score,
                amount: None,
            }));
        }
    }
    out
}

/// Where the labels of the document's number are, for a field of another
/// concept.
fn document_number_labels(
    spec: &FieldSpec,
    pages: &[SearchPage],
    folded: &FoldedPages,
) -> Vec<Vec<Vec<Occurrence>>> {
    let number = FieldSpec {
        kind: ValueKind::Identifier,
        concept: Some(Concept::DocumentNumber),
        own_label: String::new(),
        ..spec.clone()
    };
    occurrences(pages, folded, &FieldPhrases::of(&number))
}

/// Whether a run of `pages` reads as an amount as printed, not as a
/// percentage (`19%`, `6.00 %`: a rate, its sign a word of its own) nor
/// a code (a word whose letters are not a currency, `F20180027`). Core's
/// line arithmetic reads a line's numbers with it too.
pub fn reads_as_an_amount(pages: &[SearchPage], r: &Run) -> bool {
    let words = &pages[r.page].words;
    words[r.words.clone()].iter().all(|w| {
        !w.text.contains('%')
            && (!w.text.chars().any(|c| c.is_ascii_digit())
                || !w.text.chars().any(char::is_alphabetic)
                || currency(&w.text).is_some())
    }) && words
        .get(r.words.end)
        .is_none_or(|next| next.line != words[r.words.start].line || !next.text.starts_with('%'))
}

/// The amounts of the pages: the runs that read as one and not as a
/// date or a percentage, the longest run where runs overlap, each cut to
/// its words with digits (so that a label just before it is before it).
/// A word whose letters are not a currency (`F20180027`) is no amount.
fn amounts(
    pages: &[SearchPage],
    runs: &[Run],
    in_dates: &[(usize, Range<usize>, String)],
) -> Vec<(usize, Range<usize>, f64)> {
    let mut runs: Vec<_> = runs
        .iter()
        .filter(|r| r.dates.is_empty() && !r.amounts.is_empty())
        // `3 , 2014` of `August 3 , 2014` is a date's, not an amount.
        .filter(|r| {
            !in_dates
                .iter()
                .any(|(p, w, _)| *p == r.page && w.start < r.words.end && r.words.start < w.end)
        })
        .filter(|r| reads_as_an_amount(pages, r))
        .collect();
    runs.sort_by_key(|r| std::cmp::Reverse(r.words.len()));
    let mut kept: Vec<(usize, Range<usize>, f64)> = Vec::new();
    // The kept words by (page, first word): they never overlap, so the
    // one starting last before a run ends is the only one it could meet.
    let mut kept_ends: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for run in runs {
        let overlaps = kept_ends
            .range((run.page, 0)..(run.page, run.words.end))
            .next_back()
            .is_some_and(|(_, end)| run.words.start < *end);
        if !overlaps {
            let words = &pages[run.page].words;
            let digits = |i: &usize| words[*i].text.chars().any(|c| c.is_ascii_digit());
            let start = run.words.clone().find(digits).unwrap_or(run.words.start);
            let end = run
                .words
                .clone()
                .rev()
                .find(digits)
                .map_or(run.words.end, |i| i + 1);
            kept_ends.insert((run.page, start), end);
            kept.push((run.page, start..end, run.amounts[0]));
        }
    }
    kept.sort_by_key(|(p, w, _)| (*p, w.start));
    kept
}

/// Whether an amount with cents follows word `after` on `line`.
fn cents_after(values: &DocumentValues, page: usize, line: usize, after: usize) -> bool {
    values
        .last_with_cents
        .get(&(page, line))
        .is_some_and(|last| *last >= after)
}
