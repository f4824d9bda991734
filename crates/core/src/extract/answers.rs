//! How a job's answers are made, given what the field locator found in
//! the document before any model reads it:
//!
//! - `free`: the model writes every value (the schema as it is);
//! - `grounded`: the fields the locator is sure of take its value and
//!   are not asked; every other field it has candidates for is held to
//!   them (an `enum` of their normalised values, or null), so the model
//!   chooses rather than invents; names and fields with no candidate stay
//!   free. When nothing is left to ask, no model is called;
//! - `located`: the locator's best candidates alone, with no model (and
//!   no model server): the fastest way through a folder, and the floor
//!   every model must beat;
//! - `hybrid`: the locator's best candidate for every field it found,
//!   and the model writes only the fields it found nothing for (line
//!   items, payment terms, any field beyond its rules). On the locator's
//!   own fields it is `located`, so it cannot fall below it there.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sift_locate::{FieldCandidates, set_path};

use crate::error::CoreError;
use crate::models::provider::ProviderKind;

/// How a job's answers are made (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum AnswerMode {
    /// The model writes every value, with the schema as it is.
    Free,
    /// The locator's sure values are kept; the model chooses the other fields among the
    /// locator's candidates where it has some.
    Grounded,
    /// The locator's best candidates alone, with no model called.
    Located,
    /// The locator's best candidate for each field it found; the model writes the others.
    Hybrid,
}

impl AnswerMode {
    /// The mode's name as it is stored and written (`free`, `grounded`, `located`, `hybrid`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Free => "free",
            Self::Grounded => "grounded",
            Self::Located => "located",
            Self::Hybrid => "hybrid",
        }
    }

    /// The mode a job gets when it names none, by the kind of model it
    /// runs on. For the local server it was measured with SmolLM2-135M
    /// (docs/BENCHMARKS.md, "Right values by default"): the
    /// locator alone beat the model holding it to its candidates beyond
    /// noise, on the corpus (81% against 71%) and on a held-out set (68%
    /// against 60%), and both beat the model's free answers (24%, 17%).
    /// With Qwen2.5-Coder, `grounded` was level with `located` on the
    /// corpus's four invoice fields (89 against 90 of 96), and the set
    /// with fields beyond the locator's rules (e-invoices read from their
    /// pages; docs/BENCHMARKS.md, "The defaults") made `hybrid` the
    /// winner: with the 1.5B, the default model, 43 of 79 line-item rows
    /// exactly right on
    /// the tune split where `located` writes none (beyond noise, McNemar
    /// p < 0.001), and the other fields 174 of 217 to `located`'s 172.
    /// `hybrid` keeps every located value, even when the model's call
    /// fails, so it is never below `located`.
    /// Other servers keep their free answers until they are measured.
    pub fn default_for(provider: ProviderKind) -> Self {
        match provider {
            ProviderKind::Local => Self::Hybrid,
            _ => Self::Free,
        }
    }

    /// Whether a model is called at all.
    pub fn needs_model(self) -> bool {
        self != Self::Located
    }

    /// The mode a stored job recorded (`None`, from before modes: free).
    pub fn of_job(stored: Option<&str>) -> Self {
        stored.and_then(|s| s.parse().ok()).unwrap_or(Self::Free)
    }
}

impl fmt::Display for AnswerMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for AnswerMode {
    type Err = CoreError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "free" => Ok(Self::Free),
            "grounded" => Ok(Self::Grounded),
            "located" => Ok(Self::Located),
            "hybrid" => Ok(Self::Hybrid),
            other => Err(CoreError::Usage(format!(
                "unknown answers mode {other:?}: expected free, grounded, located or hybrid"
            ))),
        }
    }
}

/// What a grounded answer asks of the model, and what it does not.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GroundedAsk {
    /// The schema the model answers; `None` when nothing is left to ask.
    pub schema: Option<Value>,
    /// The values the locator is sure of, by key, set on the answer.
    pub fixed: Vec<(String, Value)>,
}

/// The grounded form of `schema` for a document with `located` fields
/// (see the module docs).
pub(crate) fn ground(schema: &Value, located: &[FieldCandidates]) -> GroundedAsk {
    let mut asked = schema.clone();
    let mut fixed = Vec::new();
    for field in located.iter().filter(|f| !f.free_text) {
        let Some(best) = field.best() else {
            continue;
        };
        if field.sure {
            fixed.push((field.key.clone(), best.clone()));
            remove_property(&mut asked, &field.key);
        } else if let Some(property) = property_mut(&mut asked, &field.key) {
            *property = held_to(property, field);
        }
    }
    let schema = (!is_empty_object(&asked)).then_some(asked);
    GroundedAsk { schema, fixed }
}

/// The hybrid form of `schema` (see the module docs): every field the
/// locator has a candidate for takes its best, and only the rest is asked.
pub(crate) fn fill_from_locator(schema: &Value, located: &[FieldCandidates]) -> GroundedAsk {
    let mut asked = schema.clone();
    let mut fixed = Vec::new();
    for field in located {
        if let Some(best) = field.best() {
            fixed.push((field.key.clone(), best.clone()));
            remove_property(&mut asked, &field.key);
        }
    }
    let schema = (!is_empty_object(&asked)).then_some(asked);
    GroundedAsk { schema, fixed }
}

/// `property` held to the field's candidates, or null.
fn held_to(property: &Value, field: &FieldCandidates) -> Value {
    let mut choices: Vec<Value> = Vec::new();
    for candidate in &field.candidates {
        if !choices.contains(&candidate.value) {
            choices.push(candidate.value.clone());
        }
    }
    choices.push(Value::Null);
    let mut types: Vec<Value> = match property.get("type") {
        Some(Value::Array(ts)) => ts.clone(),
        Some(t) => vec![t.clone()],
        None => Vec::new(),
    };
    if !types.is_empty() && !types.contains(&json!("null")) {
        types.push(json!("null"));
    }
    let mut held = Map::new();
    if let Some(description) = property.get("description") {
        held.insert("description".into(), description.clone());
    }
    if !types.is_empty() {
        held.insert("type".into(), Value::Array(types));
    }
    held.insert("enum".into(), Value::Array(choices));
    Value::Object(held)
}

/// The locator's answer alone: each field's best candidate, or null.
pub(crate) fn located_fields(located: &[FieldCandidates]) -> Vec<(String, Value)> {
    located
        .iter()
        .map(|f| (f.key.clone(), f.best().cloned().unwrap_or(Value::Null)))
        .collect()
}

/// `schema` without the fields of `values` (an e-invoice gave them).
pub(crate) fn without_fields(schema: &Value, values: &[(String, Value)]) -> Value {
    let mut schema = schema.clone();
    for (key, _) in values {
        remove_property(&mut schema, key);
    }
    schema
}

/// The answer with the fixed values set on it.
pub(crate) fn with_fixed(answer: Option<Value>, fixed: &[(String, Value)]) -> Value {
    let mut object = match answer {
        Some(Value::Object(map)) => map,
        _ => Map::new(),
    };
    for (key, value) in fixed {
        set_path(&mut object, key, value.clone());
    }
    Value::Object(object)
}

fn property_mut<'a>(schema: &'a mut Value, key: &str) -> Option<&'a mut Value> {
    let mut at = schema;
    for part in key.split('.') {
        at = at.get_mut("properties")?.get_mut(part)?;
    }
    Some(at)
}

fn remove_property(schema: &mut Value, key: &str) {
    let (parent, name) = match key.rsplit_once('.') {
        Some((parent, name)) => (property_mut(schema, parent), name),
        None => (Some(schema), key),
    };
    let Some(parent) = parent else { return };
    if let Some(properties) = parent.get_mut("properties").and_then(Value::as_object_mut) {
        properties.remove(name);
    }
    if let Some(required) = parent.get_mut("required").and_then(Value::as_array_mut) {
        required.retain(|r| r != name);
    }
}

/// An object schema with nothing left in it to answer.
fn is_empty_object(schema: &Value) -> bool {
    match schema.get("properties").and_then(Value::as_object) {
        Some(properties) => properties.values().all(|p| {
            p.get("properties").is_some() && p.get("items").is_none() && is_empty_object(p)
        }),
        None => false,
    }
}

/// A field whose candidates are `values`, each labelled on page 1, for
/// the tests of what is made of candidates.
#[cfg(test)]
pub(super) fn labelled_candidates(key: &str, values: &[Value], sure: bool) -> FieldCandidates {
    use sift_locate::Candidate;
    use sift_locate::pages::Place;
    FieldCandidates {
        key: key.into(),
        candidates: values
            .iter()
            .map(|value| Candidate {
                value: value.clone(),
                score: 100,
                place: Place {
                    page: 1,
                    quote: String::new(),
                    bbox: None,
                    labelled: true,
                },
            })
            .collect(),
        sure,
        free_text: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(key: &str, values: &[Value], sure: bool) -> FieldCandidates {
        labelled_candidates(key, values, sure)
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "invoice_number": {"type": "string", "description": "The number"},
            "total": {"type": "number", "description": "The total"},
            "date": {"type": "string", "format": "date"}
        }, "required": ["invoice_number", "total", "date"]})
    }

    #[test]
    fn sure_fields_are_fixed_and_the_others_held_to_their_candidates() {
        let located = [
            field("invoice_number", &[json!("INV-1")], true),
            field("total", &[json!(12.5), json!(10.0)], false),
            field("date", &[], false),
        ];
        let ask = ground(&schema(), &located);
        assert_eq!(
            ask.fixed,
            vec![("invoice_number".to_owned(), json!("INV-1"))]
        );
        assert_eq!(
            ask.schema,
            Some(json!({"type": "object", "properties": {
                "total": {"description": "The total", "type": ["number", "null"], "enum": [12.5, 10.0, null]},
                "date": {"type": "string", "format": "date"}
            }, "required": ["total", "date"]}))
        );
        assert_eq!(
            with_fixed(Some(json!({"total": 12.5, "date": null})), &ask.fixed),
            json!({"total": 12.5, "date": null, "invoice_number": "INV-1"})
        );
    }

    #[test]
    fn nothing_is_asked_when_every_field_is_sure() {
        let located = [
            field("invoice_number", &[json!("INV-1")], true),
            field("total", &[json!(12.5)], true),
            field("date", &[json!("2024-01-02")], true),
        ];
        assert_eq!(ground(&schema(), &located).schema, None);
    }

    #[test]
    fn hybrid_keeps_every_located_value_and_asks_only_what_was_not_found() {
        let mut seller = field("seller", &[json!("ACME GmbH")], false);
        seller.free_text = true;
        let located = [
            field("invoice_number", &[json!("INV-1")], true),
            field("total", &[json!(12.5), json!(10.0)], false),
            field("date", &[], false),
            seller,
        ];
        let mut with_names = schema();
        with_names["properties"]["seller"] = json!({"type": "string"});
        with_names["properties"]["lines"] = json!({"type": "array", "items": {"type": "object"}});
        let ask = fill_from_locator(&with_names, &located);
        assert_eq!(
            ask.fixed,
            vec![
                ("invoice_number".to_owned(), json!("INV-1")),
                ("total".to_owned(), json!(12.5)),
                ("seller".to_owned(), json!("ACME GmbH")),
            ]
        );
        assert_eq!(
            ask.schema,
            Some(json!({"type": "object", "properties": {
                "date": {"type": "string", "format": "date"},
                "lines": {"type": "array", "items": {"type": "object"}}
            }, "required": ["date"]}))
        );
        let all_found = [
            field("invoice_number", &[json!("INV-1")], false),
            field("total", &[json!(12.5)], false),
            field("date", &[json!("2024-01-02")], false),
        ];
        assert_eq!(fill_from_locator(&schema(), &all_found).schema, None);
    }

    #[test]
    fn modes_parse_and_refuse_others() {
        assert_eq!(
            "located".parse::<AnswerMode>().unwrap(),
            AnswerMode::Located
        );
        assert_eq!(
            "guess".parse::<AnswerMode>().unwrap_err().to_string(),
            "unknown answers mode \"guess\": expected free, grounded, located or hybrid"
        );
        assert_eq!("hybrid".parse::<AnswerMode>().unwrap(), AnswerMode::Hybrid);
        assert_eq!(AnswerMode::Hybrid.to_string(), "hybrid");
        assert_eq!(AnswerMode::of_job(None), AnswerMode::Free);
    }
}
