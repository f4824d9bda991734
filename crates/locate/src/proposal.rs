//! A value proposed for a field, before ranking, and the two ways values
//! are compared and written: an amount as a field's answer, and whether
//! two values are one.

use std::ops::Range;

use serde_json::{Value, json};

use crate::fields::FieldSpec;

/// One proposal: a value at a place, with its score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Proposal {
    pub value: Value,
    pub page: usize,
    pub words: Range<usize>,
    pub score: i32,
    /// Its amount, for ranking totals.
    pub amount: Option<f64>,
}

/// An amount as the field's answer: a number (whole for an integer
/// field), or its text for a string field.
pub(crate) fn amount_value(spec: &FieldSpec, amount: f64) -> Value {
    if spec.number {
        if spec.integer {
            json!(amount as i64)
        } else {
            json!(amount)
        }
    } else {
        json!(amount.to_string())
    }
}

/// Whether two values are one: numbers within a float's error, else equal.
pub(crate) fn same_value(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => (x - y).abs() < 1e-9,
        _ => a == b,
    }
}

/// An amount of the document: its page, its words and its value.
pub(crate) type Amount = (usize, Range<usize>, f64);
