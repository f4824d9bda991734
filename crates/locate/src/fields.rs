//! The fields the locator proposes values for: each scalar leaf of the
//! schema outside an array (a line item's fields stay the model's), with
//! what kind of value it holds and the concept its labels come from.

use serde_json::Value;

use super::lexicon::{Concept, concept_of};
use crate::names::{label_words, split_name};

/// What a value looks like on the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueKind {
    /// A number: every number field is one, whatever its name (a total, a tax).
    Amount,
    /// A date, proposed as `yyyy-mm-dd`.
    Date,
    /// A currency, proposed as its ISO 4217 code.
    Currency,
    /// A number or code that names something (an invoice number, an IBAN).
    Identifier,
    /// A name or other words: proposed only after a label.
    Text,
}

/// One field to locate.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldSpec {
    /// Its path of property names (`["seller", "name"]`).
    pub path: Vec<String>,
    /// What its value looks like.
    pub kind: ValueKind,
    /// What it holds, as far as its labels go; `None` when its words name none of its kind.
    pub concept: Option<Concept>,
    /// The field's own words, as a label (`invoice number`).
    pub own_label: String,
    /// The answer is a JSON number (else a string).
    pub number: bool,
    /// An integer: a located amount with cents does not fit it.
    pub integer: bool,
}

impl FieldSpec {
    /// `a.b`, as evidence and the table name a field.
    pub fn key(&self) -> String {
        self.path.join(".")
    }
}

/// The schema's scalar leaves outside arrays, in its order.
pub fn field_specs(schema: &Value) -> Vec<FieldSpec> {
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), &mut out);
    out
}

fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<FieldSpec>) {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, property) in properties {
        path.push(name.clone());
        let types = types_of(property);
        if types.iter().any(|t| t == "object") {
            walk(property, path, out);
        } else if property.get("enum").is_none()
            && property.get("const").is_none()
            && !types.iter().any(|t| t == "array" || t == "boolean")
            && let Some(spec) = spec_of(path, property, &types)
        {
            out.push(spec);
        }
        path.pop();
    }
}

fn types_of(schema: &Value) -> Vec<String> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

fn spec_of(path: &[String], schema: &Value, types: &[String]) -> Option<FieldSpec> {
    let name = path.last()?;
    let name_words = split_name(name);
    let description = schema.get("description").and_then(Value::as_str);
    // The name says what a field is; its description only when the name
    // says nothing the lexicon knows (a description lists what a field is
    // not, too: "not an order, customer or tax number"). The name's words
    // still rule a concept out: a `buyer_name` described as the party
    // "billed" is not the bill's number.
    let concept = concept_of(&name_words).or_else(|| {
        let words = label_words(name, description);
        concept_of(&words)
    });
    let number = types.iter().any(|t| t == "number" || t == "integer");
    let integer = types.iter().any(|t| t == "integer") && !types.iter().any(|t| t == "number");
    let format = schema.get("format").and_then(Value::as_str);
    let by_concept = concept.map(|c| match c {
        Concept::Total | Concept::Net | Concept::Tax => ValueKind::Amount,
        Concept::IssueDate | Concept::DueDate => ValueKind::Date,
        Concept::Currency => ValueKind::Currency,
        Concept::DocumentNumber | Concept::TaxId | Concept::Iban => ValueKind::Identifier,
        Concept::Issuer | Concept::Buyer => ValueKind::Text,
    });
    let kind = if number {
        // A number is an amount whatever its name says.
        ValueKind::Amount
    } else if matches!(format, Some("date" | "date-time")) {
        ValueKind::Date
    } else {
        by_concept?
    };
    // A concept of another kind than the value's says nothing about it.
    let concept = concept.filter(|_| by_concept == Some(kind));
    Some(FieldSpec {
        path: path.to_vec(),
        kind,
        concept,
        own_label: name_words.join(" "),
        number,
        integer,
    })
}
