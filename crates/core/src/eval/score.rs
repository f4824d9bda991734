//! Accuracy per field: each scored truth cell compared with the result.

use serde_json::Value;

use super::normalise::matches;
use super::truth::Truth;

/// One document's result for scoring: `values` is `None` when its call
/// failed.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalDocument {
    pub file: String,
    pub values: Option<Value>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FieldScore {
    pub field: String,
    pub correct: usize,
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
    pub file: String,
    pub field: String,
    pub truth: String,
    pub got: Option<Value>,
    pub correct: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EvalReport {
    pub fields: Vec<FieldScore>,
    pub overall: FieldScore,
    pub comparisons: Vec<Comparison>,
    /// Documents without a truth row (not scored).
    pub unmatched: Vec<String>,
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
            comparisons.push(Comparison {
                file: document.file.clone(),
                field: score.field.clone(),
                truth: expected.to_owned(),
                got: got.cloned(),
                correct,
            });
        }
    }
    let overall = FieldScore {
        field: "overall".into(),
        correct: scores.iter().map(|s| s.correct).sum(),
        scored: scores.iter().map(|s| s.scored).sum(),
    };
    EvalReport {
        fields: scores,
        overall,
        comparisons,
        unmatched,
    }
}
