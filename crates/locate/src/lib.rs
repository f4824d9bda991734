//! The field locator: before any model reads a document, each scalar
//! field of the schema gets ranked candidate values from the document
//! itself, found by their type (amounts, dates, identifiers, currencies,
//! names after a label) and by the label words beside them in the
//! languages Sift reads (on the same line before the value, or above it
//! in its column). It searches the pages evidence searches, with the same
//! readings of amounts and dates, so a located value is always found
//! again by evidence.
//!
//! A candidate carries its normalised value (a number, an ISO date, an
//! ISO 4217 code) and its place. A field is *sure* when its best
//! candidate has a label on its own line and no other value comes close;
//! then no model needs to be asked for it. What the locator knows is
//! general (labels, types, languages), never a vendor's or a file's.
//!
//! A pure function of a document's pages and a schema: no I/O, no
//! workspace, no store. Below the locator lie what evidence (in core)
//! shares with it, so both read a page alike: [`pages`] (a document as
//! the words searched), [`runs`] (the words that read as an amount or a
//! date), `misread` (OCR's misreadings read back), [`normalise`]
//! (dates and amounts made comparable), [`shapes`] (an IBAN's, a VAT
//! number's, a plausible year) and [`names`] (a field's label words).
//!
//! # Its files
//!
//! - `fields.rs` what a field holds, from its name, description and type
//! - `lexicon.rs` the concepts, the words of a field's name that choose
//!   one (schema names are English identifiers, so they stay in code),
//!   each concept's labels and rivals, currency codes and signs
//! - `languages.rs` the words as data, read once from
//!   `crates/locate/languages/`: a file per language (`en`, `de`, `fr`,
//!   `nl`, `es`, `it`.toml: labels per concept, what labels something
//!   else, month names, legal forms, payment words; a concept a language
//!   lacks is a documented gap, and a test names any other), `common.toml`
//!   (words of no one language: `iban`, card brands), and `countries.toml`
//!   (each country's currency, names, legal forms, taxes, regions, towns)
//! - `labels.rs` each word folded as labels are compared (two joined by a
//!   slash, `GST/TAX`, as the first; on an OCR page, a label word's
//!   misreadings undone: `Tota!`, `Tatal`), and the score a value gets from
//!   the label that governs it (before it on its line, or above it in its
//!   column; a tax's word after a total's label qualifies it)
//! - `phrases.rs` a field's label phrases (each concept's folded once, by
//!   first word) and where they are on each line (`labels.rs` holds what a
//!   found phrase is)
//! - `rows.rs` a page's lines put back in visual rows where its words have
//!   boxes
//! - `propose.rs` the document's amounts and dates (found once for all
//!   fields), identifiers, currencies and names, each scored by the rules
//!   in their order (the amount rules are `AMOUNT_RULES`)
//! - `proposal.rs` a value proposed for a field, before ranking
//! - `rules/` the scoring rules, one module per concept (`totals`, `tax`,
//!   `net`, `dates`, `identifiers`, `currency`, `parties`, `forms` (where on a
//!   form a party's name is), `payment`, and
//!   `shared` for every field's), each rule a named item with a one-line
//!   doc, its test and the set it was measured on; `docs/LOCATOR_RULES.md`
//!   lists them (`scripts/locator-rules.py`)
//! - `country.rs` the country a document is from (its name, a legal form, a
//!   state, a large town; a tax only some countries levy, `GST`, votes for
//!   each), for the currency it does not print or prints as a bare `$`
//! - `lib.rs` (this file) merging, ranking (then the rules that reorder
//!   a field's ranked values: the subtotal, the payment, the tax by
//!   difference; and one between fields: the buyer is not the seller),
//!   when a field is sure
//! - `tests/` its rules' tests, by part of the invoice
//! - `misread.rs` values as OCR misreads them read back (an amount split at
//!   its decimal mark, a 5 read as `§` before it, the digits OCR reads for
//!   others, a date with a letter for a digit, a month's name a letter off,
//!   a label glued on, a year, day or month a digit off; a date read back
//!   is proposed only where none was read as printed)

#![deny(missing_docs)]
pub mod concept;
pub mod country;
pub mod fields;
mod labels;
mod languages;
pub mod lexicon;
mod misread;
pub mod names;
pub mod normalise;
pub mod pages;
mod phrases;
mod proposal;
mod propose;
pub mod rows;
mod rules;
pub mod runs;
pub mod shapes;
#[cfg(test)]
mod tests;

use std::hash::BuildHasher;

use foldhash::HashMap;

use serde::Serialize;
use serde_json::{Map, Value};
use sift_documents::Document;

use fields::{FieldSpec, ValueKind, field_specs};
use labels::{FoldedPages, FoldedText, PhraseStarts, SAME_LINE};
use lexicon::Concept;
use pages::{Match, Place, SearchPage, place, search_pages};
use proposal::{Proposal, same_value};
pub use propose::reads_as_an_amount;
use propose::{DocumentValues, propose};
use rows::in_rows;
use rules::{forms, parties, payment, shared, tax, totals};

/// Changed whenever the locator's rules change what it finds, so that an
/// evaluation does not reuse results an older locator gave.
pub const LOCATOR_VERSION: u32 = 21;
/// The most candidates kept for a field: what an answer may choose from.
pub const MAX_CANDIDATES: usize = 5;
/// How far ahead of the next value a labelled best candidate must be for
/// the field to be sure.
const SURE_MARGIN: i32 = 15;

/// A value proposed for a field.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// Normalised: a number, `yyyy-mm-dd`, an ISO 4217 code, or the text.
    pub value: Value,
    /// Higher is better; labelled on its own line from 100.
    pub score: i32,
    /// Where in the document the candidate was found.
    pub place: Place,
}

/// A field's candidates, best first.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldCandidates {
    /// The column key (`total`, `seller.name`).
    pub key: String,
    /// Ranked best first, at most [`MAX_CANDIDATES`]; empty when nothing fits the field.
    pub candidates: Vec<Candidate>,
    /// The best candidate needs no model's judgement.
    pub sure: bool,
    /// The field is a name or other words: its candidates are only
    /// suggestions, never offered as the only answers.
    pub free_text: bool,
}

impl FieldCandidates {
    /// The best candidate's normalised value, or `None` without candidates.
    pub fn best(&self) -> Option<&Value> {
        self.candidates.first().map(|c| &c.value)
    }
}

/// Every scalar field of `schema` outside an array, with its candidates
/// from `document`, in the schema's order.
pub fn locate_fields(document: &Document, schema: &Value) -> Vec<FieldCandidates> {
    locate_in_pages(&search_pages(document), schema)
}

/// [`locate_fields`] on a document's pages as [`search_pages`] gives
/// them: a job builds them once and evidence then searches the same
/// pages (the locator reads its own copy in rows).
pub fn locate_in_pages(pages: &[SearchPage], schema: &Value) -> Vec<FieldCandidates> {
    let pages = in_rows(pages);
    let values = DocumentValues::new(&pages);
    let text = FoldedText::new(&pages);
    let folded = FoldedPages::with_phrase_starts(
        &pages,
        &text,
        &PhraseStarts {
            split_in_two: shared::label_word_split_in_two,
            first_word: phrases::first_word,
        },
    );
    let mut fields: Vec<(FieldSpec, Vec<Proposal>)> = field_specs(schema)
        .into_iter()
        .map(|spec| {
            let proposals = propose(&spec, &pages, &values, &folded);
            let labelled = |concept| labelled_as(concept, &spec, &pages, &values, &folded);
            // The rules that reorder a field's ranked values, in order.
            let ranked = rank(&spec, proposals);
            let ranked = totals::subtotal_first_without_a_total_label(
                &spec,
                ranked,
                &labelled,
                &values.amounts,
            );
            let ranked = payment::paid_total_first(&spec, ranked, &pages, &values.amounts, &folded);
            let ranked = tax::tax_by_difference(&spec, ranked, &labelled);
            let ranked = forms::name_cut_short_is_its_longer_reading(&spec, ranked);
            (spec, ranked)
        })
        .collect();
    // The rules between fields.
    parties::buyer_is_not_the_seller(&mut fields);
    fields
        .into_iter()
        .map(|(spec, ranked)| {
            let sure = is_sure(&spec, &ranked);
            let candidates = ranked
                .into_iter()
                .take(MAX_CANDIDATES)
                .map(|p| Candidate {
                    place: place(
                        &pages,
                        &Match {
                            page: p.page,
                            words: p.words.clone(),
                            exact: true,
                            label: u32::from(p.score >= SAME_LINE),
                        },
                    ),
                    value: p.value,
                    score: p.score,
                })
                .collect();
            FieldCandidates {
                key: spec.key(),
                candidates,
                sure,
                free_text: spec.kind == ValueKind::Text,
            }
        })
        .collect()
}

/// The proposals merged by value (the best place kept, a little more
/// for each other place it is at, every place for a currency), best
/// first: by score, then the larger amount for a total (a grand total is
/// the largest of the totals), else the earlier place.
fn rank(spec: &FieldSpec, proposals: Vec<Proposal>) -> Vec<Proposal> {
    let mut merged: Vec<(Proposal, i32)> = Vec::with_capacity(proposals.len());
    // Where each value was merged, by its key: a page of many values
    // looks each up, instead of comparing it with every one before. The
    // last merged at each key, and for each merged value the one merged
    // at its key before it: two values at one key are rare, so a chain
    // through the merged values, not a vector for every key.
    let mut last_at: HashMap<ValueKey, usize> = HashMap::default();
    let mut before_at: Vec<Option<usize>> = Vec::with_capacity(proposals.len());
    for p in proposals {
        let key = ValueKey::of(&p.value);
        let at = key
            .neighbours()
            .into_iter()
            .flatten()
            .filter_map(|k| last_at.get(&k).copied())
            .flat_map(|last| std::iter::successors(Some(last), |&i| before_at[i]))
            .filter(|&i| same_value(&merged[i].0.value, &p.value))
            .min();
        match at.map(|i| &mut merged[i]) {
            Some((best, extra)) => {
                *extra = shared::another_place_gains(spec.kind, *extra, p.score);
                if p.score > best.score {
                    *best = p;
                }
            }
            None => {
                before_at.push(last_at.insert(key, merged.len()));
                merged.push((p, 0));
            }
        }
    }
    let mut ranked: Vec<Proposal> = merged
        .into_iter()
        .map(|(mut p, extra)| {
            if p.score > 0 {
                p.score += extra;
            }
            p
        })
        .collect();
    let larger_first = spec.kind == ValueKind::Amount;
    ranked.sort_by(|a, b| {
        b.score
            .cmp(&a.score)
            .then_with(|| {
                if larger_first {
                    let (x, y) = (a.amount.unwrap_or(0.0), b.amount.unwrap_or(0.0));
                    y.abs().total_cmp(&x.abs())
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .then((a.page, a.words.start).cmp(&(b.page, b.words.start)))
    });
    // A value only a rival label governs is no candidate.
    ranked.retain(|p| p.score >= 0);
    ranked
}

/// The best value the labels of `concept` give on its line, for a field
/// like `spec` (its kind, its type): another field's view of the page.
fn labelled_as(
    concept: Concept,
    spec: &FieldSpec,
    pages: &[SearchPage],
    values: &DocumentValues,
    folded: &FoldedPages,
) -> Option<Proposal> {
    let other = FieldSpec {
        concept: Some(concept),
        own_label: String::new(),
        ..spec.clone()
    };
    rank(&other, propose(&other, pages, values, folded))
        .into_iter()
        .find(|p| p.score >= SAME_LINE)
}

/// A value as [`rank`] finds it again: a number in millionths (a number
/// [`same_value`] takes for it is in its key or one beside it), else a
/// hash of its text (a string's, or another value's JSON). Values found
/// by a key are compared before they are merged, so two texts that hash
/// alike are never taken for one; a hash spares every proposal's text a
/// copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum ValueKey {
    Millionths(i64),
    Text(u64),
}

impl ValueKey {
    fn of(value: &Value) -> Self {
        let hashed = |tag: u8, text: &str| {
            Self::Text(foldhash::fast::FixedState::default().hash_one((tag, text)))
        };
        match value {
            Value::String(string) => hashed(0, string),
            other => match other.as_f64() {
                Some(x) => Self::Millionths((x * 1e6).round() as i64),
                None => hashed(1, &other.to_string()),
            },
        }
    }

    /// The keys a value equal to this key's may have (without a new
    /// vector: every proposal asks).
    fn neighbours(self) -> [Option<Self>; 3] {
        match self {
            Self::Millionths(n) => {
                [n.saturating_sub(1), n, n.saturating_add(1)].map(|n| Some(Self::Millionths(n)))
            }
            Self::Text(_) => [Some(self), None, None],
        }
    }
}

/// Sure: labelled on its own line and ahead of the next value by
/// [`SURE_MARGIN`]; a currency, when the page names one currency (or
/// one at least twice as often as any other). A name never is.
fn is_sure(spec: &FieldSpec, ranked: &[Proposal]) -> bool {
    let Some(best) = ranked.first() else {
        return false;
    };
    let second = ranked.get(1).map(|p| p.score);
    match spec.kind {
        ValueKind::Text => false,
        ValueKind::Currency => second.is_none_or(|s| best.score >= 2 * s),
        _ => best.score >= SAME_LINE && second.is_none_or(|s| best.score - s >= SURE_MARGIN),
    }
}

/// The answer the locator alone gives: each field's best candidate, or
/// null; fields it does not locate (arrays, booleans, enums) are left out.
pub fn located_answer(located: &[FieldCandidates]) -> Value {
    let mut answer = Map::new();
    for field in located {
        let value = field.best().cloned().unwrap_or(Value::Null);
        set_path(&mut answer, &field.key, value);
    }
    Value::Object(answer)
}

/// Sets `a.b` in `object`, making the objects on the way.
pub fn set_path(object: &mut Map<String, Value>, key: &str, value: Value) {
    let mut parts = key.split('.').peekable();
    let mut at = object;
    while let Some(part) = parts.next() {
        if parts.peek().is_none() {
            at.insert(part.to_owned(), value);
            return;
        }
        let next = at
            .entry(part.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !next.is_object() {
            *next = Value::Object(Map::new());
        }
        let Value::Object(map) = next else { return };
        at = map;
    }
}
