//! Evidence: each value of an extraction traced to its place in the
//! document it came from, so that a user checks the doubtful values and
//! not every one, and a value the model invented is caught before export.
//! The field locator (the `sift_locate` crate) proposes each field's
//! values before any model reads the document; [`preview`] shows a
//! document's page beside its values.
//!
//! After a document's structured call, [`locate_values`] looks for every
//! leaf value of the answer in the document's text, page by page:
//!
//! - `exact`: the value's text appears as it is, between word
//!   boundaries (`INV-001` in `Invoice INV-001`, not `1` in `12`);
//! - `normalised`: it appears in another form: an amount with either
//!   decimal mark, thousands separators or a currency sign (`1.234,56 €`
//!   for `1234.56`), a date in numeric or month-name form in English,
//!   German, French or Dutch (`28.11.2022`, `28 November 2022` for
//!   `2022-11-28`), or an identifier or text with case and spacing
//!   ignored (`inv 001` for `INV001`, also across lines), or a currency
//!   code as its sign (`$4.11` for `USD`; a bare `$` only for it). Numbers are
//!   compared exactly once normalised: no ratio lets `5%` match `6%`;
//! - `not_found`: nowhere in the document;
//! - `not_applicable`: booleans, enum values, nulls and empty strings,
//!   which a document does not spell out.
//!
//! Every place a value occurs is kept (at most [`MAX_PLACES`]), best
//! first: the one nearest a label that names the field (its name's
//! words, `invoice_number` as `invoice` and `number`, or its
//! description's words; `No.` or `Inv` count as the start of a word),
//! on the same line before the value or on the line above. The fields of
//! an array's item (a line item) are put first on the line where most of
//! that item's fields are found together: the quantity `20` of the row
//! `Trennblätter A4 9,9000 20 Stk 198,00`, not of `Lieferantenstraße 20`
//! higher up. A place has
//! its page, the line around it as a quote, and its box on the page when
//! the page's words have boxes: PDFium's character boxes on a text page,
//! the OCR words on a scan or a photo.
//!
//! Evidence is stored with the result (and with each revision) beside
//! the fingerprint of what it was found in (the file's bytes and the OCR
//! settings); a resume of the job finds the values again in a file that
//! changed since.
//!
//! Optionally the model is asked for the text each value came from
//! ([`with_sources`]): where that quote is on the page (as it is, else
//! the run of words most like it, at least [`MIN_LIKENESS`] alike), the
//! value's places inside it go first.
//!
//! # Confidence
//!
//! A ranking for review, not a probability (it is not calibrated on
//! labelled documents): `high` for an exact match, `medium` for a
//! normalised one, `low` for a value not found; one step lower for a
//! short value (fewer than three letters or digits, such as `1`) whose
//! best place has no label, and one step lower again when the model's
//! first answer had to be corrected. The servers' token
//! log-probabilities are not requested, so they do not count yet.

mod consistency;
mod job;
mod label;
mod leaves;
pub(crate) mod line_columns;
mod matching;
mod page_words;
pub mod preview;
mod quotes;
mod sources;
#[cfg(test)]
pub(crate) mod tests;

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_documents::Document;
use sift_locate::pages::{self, Match, Place, SearchPage, WordBox};

pub use consistency::value_problems;
pub use job::page_words;
pub(crate) use job::{ValueSources, evidence_value, locate_in_file, refresh_evidence};
pub use page_words::{PageWordBox, PageWords, page_words_of};
pub use quotes::MIN_LIKENESS;
pub use sources::{SOURCE_SUFFIX, split_sources, with_sources};

/// The most places kept for one value: enough to step through, without
/// keeping every `1` of a page.
pub const MAX_PLACES: usize = 20;

/// How a value was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum EvidenceStatus {
    /// The value's text appears as it is, between word boundaries.
    Exact,
    /// The value appears in another form (decimal mark, date format, case, spacing...).
    Normalised,
    /// The value appears nowhere in the document.
    NotFound,
    /// A value a document does not spell out: a boolean, enum value, null or empty string.
    NotApplicable,
}

impl EvidenceStatus {
    /// The status's name as it is serialised (`exact`, `not_found`...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Exact => "exact",
            Self::Normalised => "normalised",
            Self::NotFound => "not_found",
            Self::NotApplicable => "not_applicable",
        }
    }
}

/// A ranking for review (see the module docs), not a probability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Confidence {
    /// A value not found, one marked down from a higher rank, or one a consistency check
    /// found wrong.
    Low,
    /// A normalised match, or an exact one marked down a step (a short value without a
    /// label, or an answer that had to be corrected).
    Medium,
    /// An exact match, with nothing to mark it down.
    High,
}

/// A box on a page, as fractions of the page's width and height from its
/// top-left corner, so that it lays over a picture of the page at any
/// size.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PageBox {
    /// Left edge, as a fraction of the page's width (0 is the left side).
    pub x: f32,
    /// Top edge, as a fraction of the page's height (0 is the top).
    pub y: f32,
    /// Width, as a fraction of the page's width.
    pub width: f32,
    /// Height, as a fraction of the page's height.
    pub height: f32,
}

impl From<WordBox> for PageBox {
    fn from(b: WordBox) -> Self {
        Self {
            x: b.x,
            y: b.y,
            width: b.width,
            height: b.height,
        }
    }
}

/// One place a value occurs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct EvidencePlace {
    /// From 1 (1 for a file without pages).
    pub page: u32,
    /// The line around the value (the lines, for a value across lines).
    pub quote: String,
    /// Where on the page; `None` for a file whose words have no boxes
    /// (text, Word, Excel).
    #[serde(rename = "box")]
    #[cfg_attr(feature = "ts", ts(rename = "box"))]
    pub bbox: Option<PageBox>,
    /// Whether a label naming the field is beside it.
    pub labelled: bool,
}

impl From<Place> for EvidencePlace {
    fn from(place: Place) -> Self {
        Self {
            page: place.page,
            quote: place.quote,
            bbox: place.bbox.map(PageBox::from),
            labelled: place.labelled,
        }
    }
}

/// Where one value of an answer was found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldEvidence {
    /// The field: its column key (`total`, `vendor.name`), or an array
    /// item's (`line_items[0].amount`, `tags[2]`).
    pub key: String,
    /// Whether the value was found in the document, and in what form.
    pub status: EvidenceStatus,
    /// `None` for `not_applicable`.
    pub confidence: Option<Confidence>,
    /// Best first; empty unless found.
    pub places: Vec<EvidencePlace>,
    /// Where the value came from when it was not the model's choice:
    /// `located`, the field locator's own (no model was asked for it);
    /// `e_invoice`, the document's e-invoice XML (exact);
    /// `line_arithmetic`, a line item's value read from its line on the
    /// page, where quantity × unit price = amount: a number worked out
    /// from the line's other two or read again from its row, or a line
    /// the model left out taken from the page's table (the model left it
    /// empty or wrote it wrong).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub origin: Option<ValueOrigin>,
    /// What the consistency checks found wrong with the value (the
    /// amounts do not add up, no such date, an IBAN's check digits...);
    /// such a value has low confidence and needs a look.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub problems: Vec<String>,
}

/// Who gave a value other than a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ValueOrigin {
    /// The field locator, sure of it or asked alone.
    Located,
    /// The invoice XML the document carries (or is): exact.
    #[serde(rename = "e_invoice")]
    EInvoice,
    /// A line item's value the model left empty or wrote wrong, read from
    /// its line on the page (quantity × unit price = amount): worked out
    /// from the line's other two, read again from its row, or a line the
    /// model left out taken from the page's table
    /// (`extract::line_arithmetic`).
    LineArithmetic,
}

/// Finds every leaf of `values` in `document` (see the module docs).
/// `corrected`: the model's first answer had to be corrected, which lowers
/// each confidence a step.
pub fn locate_values(
    document: &Document,
    schema: &Value,
    values: &Value,
    corrected: bool,
) -> Vec<FieldEvidence> {
    locate_quoted_values(document, schema, values, &HashMap::new(), corrected)
}

/// [`locate_values`] with the model's quotes of where values came from
/// (by evidence key; see [`with_sources`]): a value's places inside its
/// quote, aligned on the page, go first.
pub fn locate_quoted_values(
    document: &Document,
    schema: &Value,
    values: &Value,
    quoted: &HashMap<String, String>,
    corrected: bool,
) -> Vec<FieldEvidence> {
    locate_values_in_pages(&search_pages(document), schema, values, quoted, corrected)
}

/// The pages of `document` as evidence and the field locator search
/// them ([`sift_locate::pages::search_pages`]). A job builds them once
/// per document, hands them to the locator
/// ([`sift_locate::locate_in_pages`]) and then finds the answer's values
/// in the same pages ([`locate_values_in_pages`]).
pub fn search_pages(document: &Document) -> Vec<SearchPage> {
    #[cfg(test)]
    PAGES_BUILT.with(|built| built.set(built.get() + 1));
    pages::search_pages(document)
}

#[cfg(test)]
thread_local! {
    /// How many times this thread built a document's pages: a job's
    /// test counts one per document.
    pub(crate) static PAGES_BUILT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// [`locate_quoted_values`] in pages already built with [`search_pages`]
/// (those the locator searched), so a document's pages are built once.
pub fn locate_values_in_pages(
    pages: &[SearchPage],
    schema: &Value,
    values: &Value,
    quoted: &HashMap<String, String>,
    corrected: bool,
) -> Vec<FieldEvidence> {
    let index = matching::SearchIndex::new(pages);
    let leaves = leaves::leaves(schema, values);
    let mut found: Vec<Option<Vec<Match>>> = leaves
        .iter()
        .map(|leaf| {
            let text = leaf.text.as_deref()?;
            let labels = sift_locate::names::label_words(&leaf.name, leaf.description.as_deref());
            let mut found = matching::find(&index, text, leaf.numeric);
            label::rank(pages, &labels, &mut found);
            if let Some((page, words)) = quoted.get(&leaf.key).and_then(|q| quotes::align(pages, q))
            {
                found.sort_by_key(|m| {
                    !(m.page == page && m.words.start < words.end && words.start < m.words.end)
                });
            }
            Some(found)
        })
        .collect();
    label::rank_item_rows(pages, &leaves, &mut found);
    let mut problems = value_problems(schema, values);
    leaves
        .into_iter()
        .zip(found)
        .map(|(leaf, found)| {
            let Some(found) = found else {
                return FieldEvidence {
                    key: leaf.key,
                    status: EvidenceStatus::NotApplicable,
                    confidence: None,
                    places: Vec::new(),
                    origin: None,
                    problems: Vec::new(),
                };
            };
            let status = match found.first() {
                None => EvidenceStatus::NotFound,
                Some(best) if best.exact => EvidenceStatus::Exact,
                Some(_) => EvidenceStatus::Normalised,
            };
            // A short value (`1`, `8`) is on most pages somewhere: found
            // without a label beside it, it says little.
            let weak = found.first().is_some_and(|best| best.label == 0)
                && leaf.text.as_deref().is_some_and(is_short);
            let places = found
                .iter()
                .take(MAX_PLACES)
                .map(|m| pages::place(pages, m).into())
                .collect();
            // A value a check finds wrong is a value to look at, found
            // on the page or not.
            let problems = problems.remove(&leaf.key).unwrap_or_default();
            let confidence = if problems.is_empty() {
                confidence(status, weak, corrected)
            } else {
                Confidence::Low
            };
            FieldEvidence {
                key: leaf.key,
                status,
                confidence: Some(confidence),
                places,
                origin: None,
                problems,
            }
        })
        .collect()
}

fn confidence(status: EvidenceStatus, weak: bool, corrected: bool) -> Confidence {
    let base = match status {
        EvidenceStatus::Exact => Confidence::High,
        EvidenceStatus::Normalised => Confidence::Medium,
        _ => Confidence::Low,
    };
    let lower = |c: Confidence| match c {
        Confidence::High => Confidence::Medium,
        _ => Confidence::Low,
    };
    let base = if weak { lower(base) } else { base };
    if corrected { lower(base) } else { base }
}

/// Fewer than three letters or digits.
fn is_short(text: &str) -> bool {
    text.chars().filter(|c| c.is_alphanumeric()).count() < 3
}

/// Whether a quote is on the pages of `document` (as it is, or alike).
pub fn quote_is_on_page(document: &Document, quote: &str) -> bool {
    quotes::align(&search_pages(document), quote).is_some()
}

/// How many values were not found.
pub fn not_found_count(evidence: &[FieldEvidence]) -> usize {
    evidence
        .iter()
        .filter(|e| e.status == EvidenceStatus::NotFound)
        .count()
}

/// Whether a structured call's first answer had to be corrected: its
/// transcript has a user message after the first (the engine's
/// corrections are user messages; tool results are not).
pub fn needed_correction(transcript: Option<&Value>) -> bool {
    let Some(messages) = transcript.and_then(Value::as_array) else {
        return false;
    };
    messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("user"))
        .count()
        > 1
}
