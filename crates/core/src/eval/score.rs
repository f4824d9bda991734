//! Accuracy per field: each scored truth cell compared with the result.

use std::collections::HashMap;

use serde_json::Value;
use sift_documents::Document;
use sift_locate::normalise::matches;

use super::truth::Truth;
use crate::evidence::{EvidenceStatus, FieldEvidence, quote_is_on_page};

/// What a document's stored call took: its time from start to end, its
/// tokens, and the category of its error (`model`, `network`…, or the
/// error's code when the document failed before a call).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallFigures {
    /// The stored call's id; `None` when there is no stored call (the document
    /// failed before one was made).
    pub call_id: Option<String>,
    /// Milliseconds from the call's start to its end; `None` without a stored call.
    pub latency_ms: Option<i64>,
    /// Input tokens spent on the document.
    pub input_tokens: u64,
    /// Output tokens spent on the document.
    pub output_tokens: u64,
    /// Why the document failed (as above); `None` when it did not.
    pub error_category: Option<String>,
}

impl CallFigures {
    /// The figures of a stored call.
    pub fn of(call: &sift_store::StructuredCall) -> Self {
        Self {
            call_id: Some(call.id.clone()),
            latency_ms: Some(call.finished_at - call.created_at),
            input_tokens: call.input_tokens,
            output_tokens: call.output_tokens,
            error_category: call.error_category.clone(),
        }
    }
}

/// One document's result for scoring: `values` is `None` when its call
/// failed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EvalDocument {
    /// The document's path; its truth row is found by file name, else by the whole
    /// path.
    pub file: String,
    /// The answer's values (a JSON object); `None` when the call failed.
    pub values: Option<Value>,
    /// What went wrong, when the document failed.
    pub error: Option<String>,
    /// Where each value was found (empty when unknown).
    pub evidence: Vec<FieldEvidence>,
    /// The model's quotes of its values' sources, when it was asked.
    pub sources: Option<Sources>,
    /// What its call took: time, tokens and error category.
    pub call: CallFigures,
}

/// How a model cited its values' sources in one document.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Sources {
    /// Values it gave a source for.
    pub given: usize,
    /// Sources found on the page, as they are or alike
    /// ([`crate::evidence::MIN_LIKENESS`]).
    pub on_page: usize,
}

impl Sources {
    /// The quotes' counts against `document`.
    pub fn of(document: &Document, quotes: &HashMap<String, String>) -> Self {
        Self {
            given: quotes.len(),
            on_page: quotes
                .values()
                .filter(|q| quote_is_on_page(document, q))
                .count(),
        }
    }
}

/// How many of a field's scored cells were right; also the form of the
/// `overall` score and of the scores by evidence status.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldScore {
    /// The field's `a.b` name, or `overall`, or an evidence status's name.
    pub field: String,
    /// Cells whose value matched the truth.
    pub correct: usize,
    /// Cells compared: those with a non-empty true value.
    pub scored: usize,
}

impl FieldScore {
    /// `correct / scored`, or `None` when nothing was scored.
    pub fn accuracy(&self) -> Option<f64> {
        (self.scored > 0).then(|| self.correct as f64 / self.scored as f64)
    }
}

/// One scored cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The document's path.
    pub file: String,
    /// The field's `a.b` name.
    pub field: String,
    /// The true value, trimmed.
    pub truth: String,
    /// The value the model gave; `None` when it left the field out or the call
    /// failed.
    pub got: Option<Value>,
    /// Whether the value matches the truth once both are normalised; false for a
    /// failed call.
    pub correct: bool,
    /// The value's evidence status, when it has one.
    pub evidence: Option<EvidenceStatus>,
}

/// One candidate's documents scored against the truth.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalReport {
    /// One score per field, in the fields' order.
    pub fields: Vec<FieldScore>,
    /// All the fields' cells together, named `overall`.
    pub overall: FieldScore,
    /// Every scored cell, document by document, field by field.
    pub comparisons: Vec<Comparison>,
    /// The accuracy of the values found `exact`, `normalised` and
    /// `not_found` (fields named so); empty when no value has evidence.
    pub by_evidence: Vec<FieldScore>,
    /// Documents without a truth row (not scored).
    pub unmatched: Vec<String>,
    /// The sources cited over the scored documents, when asked for.
    pub sources: Option<Sources>,
}

/// Scores `documents` against `truth` on `fields`.
pub fn score(fields: &[String], truth: &Truth, documents: &[EvalDocument]) -> EvalReport {
    let mut scores: Vec<FieldScore> = fields
        .iter()
        .map(|f| FieldScore {
            field: f.clone(),
            correct: 0,
            scored: 0,
        })
        .collect();
    let mut comparisons = Vec::new();
    let mut unmatched = Vec::new();
    for document in documents {
        let Some(row) = truth.row_for(&document.file) else {
            unmatched.push(document.file.clone());
            continue;
        };
        for score in &mut scores {
            let expected = row.get(&score.field).map(|s| s.trim()).unwrap_or_default();
            if expected.is_empty() {
                continue;
            }
            let got = document
                .values
                .as_ref()
                .and_then(|values| score.field.split('.').try_fold(values, |v, key| v.get(key)));
            let correct = document.values.is_some() && matches(expected, got);
            score.scored += 1;
            score.correct += usize::from(correct);
            let evidence = document
                .evidence
                .iter()
                .find(|e| e.key == score.field)
                .map(|e| e.status);
            comparisons.push(Comparison {
                file: document.file.clone(),
                field: score.field.clone(),
                truth: expected.to_owned(),
                got: got.cloned(),
                correct,
                evidence,
            });
        }
    }
    let overall = FieldScore {
        field: "overall".into(),
        correct: scores.iter().map(|s| s.correct).sum(),
        scored: scores.iter().map(|s| s.scored).sum(),
    };
    let by_evidence = if comparisons.iter().any(|c| c.evidence.is_some()) {
        [
            EvidenceStatus::Exact,
            EvidenceStatus::Normalised,
            EvidenceStatus::NotFound,
        ]
        .into_iter()
        .map(|status| {
            let of: Vec<&Comparison> = comparisons
                .iter()
                .filter(|c| c.evidence == Some(status))
                .collect();
            FieldScore {
                field: status.as_str().to_owned(),
                correct: of.iter().filter(|c| c.correct).count(),
                scored: of.len(),
            }
        })
        .collect()
    } else {
        Vec::new()
    };
    let sources = documents
        .iter()
        .filter(|d| truth.row_for(&d.file).is_some())
        .filter_map(|d| d.sources)
        .reduce(|a, b| Sources {
            given: a.given + b.given,
            on_page: a.on_page + b.on_page,
        });
    EvalReport {
        fields: scores,
        overall,
        comparisons,
        by_evidence,
        unmatched,
        sources,
    }
}
