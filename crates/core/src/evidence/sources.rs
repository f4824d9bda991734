//! Asking the model where each value came from: the schema gains a
//! `NAME_source` string beside each scalar property (the text of the
//! document the value was read from, word for word), the answer is
//! validated against that schema, and the sources are taken out of the
//! values before they are stored or exported. A source, when it is on the
//! page, says which of a value's places is the one the model read.

use std::collections::HashMap;

use serde_json::{Map, Value, json};

/// The suffix of a source property.
pub const SOURCE_SUFFIX: &str = "_source";

const SOURCE_DESCRIPTION: &str =
    "The exact text of the document this value was read from, copied word for word.";

/// `schema` with a `NAME_source` string beside each scalar property of
/// every object (nested ones and array items too). Not required: an
/// answer without them stays valid, so asking costs no correction.
pub fn with_sources(schema: &Value) -> Value {
    let mut out = schema.clone();
    add_sources(&mut out);
    out
}

fn add_sources(node: &mut Value) {
    if let Some(items) = node.get_mut("items") {
        add_sources(items);
    }
    let Some(properties) = node.get_mut("properties").and_then(Value::as_object_mut) else {
        return;
    };
    let mut added = Vec::new();
    for (name, property) in properties.iter_mut() {
        if is_container(property) {
            add_sources(property);
        } else if !name.ends_with(SOURCE_SUFFIX) {
            added.push(format!("{name}{SOURCE_SUFFIX}"));
        }
    }
    for name in &added {
        properties.insert(
            name.clone(),
            json!({"type": "string", "description": SOURCE_DESCRIPTION}),
        );
    }
}

fn is_container(schema: &Value) -> bool {
    schema.get("properties").is_some() || schema.get("items").is_some()
}

/// The values without their sources, and the sources by the evidence key
/// of their value (`total`, `items[0].amount`). Only a `NAME_source`
/// beside a `NAME` counts; other properties stay.
pub fn split_sources(values: &Value) -> (Value, HashMap<String, String>) {
    let mut sources = HashMap::new();
    let stripped = strip(values, "", &mut sources);
    (stripped, sources)
}

fn strip(value: &Value, key: &str, sources: &mut HashMap<String, String>) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (name, child) in map {
                let base = name.strip_suffix(SOURCE_SUFFIX);
                if let Some(base) = base.filter(|b| map.contains_key(*b)) {
                    if let Some(text) = child.as_str().filter(|t| !t.trim().is_empty()) {
                        sources.insert(join(key, base), text.to_owned());
                    }
                    continue;
                }
                out.insert(name.clone(), strip(child, &join(key, name), sources));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, item)| strip(item, &format!("{key}[{i}]"), sources))
                .collect(),
        ),
        other => other.clone(),
    }
}

fn join(key: &str, name: &str) -> String {
    if key.is_empty() {
        name.to_owned()
    } else {
        format!("{key}.{name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scalar_gets_a_source_and_the_answer_loses_them() {
        let schema = json!({"type": "object", "required": ["total"], "properties": {
            "total": {"type": "number"},
            "note": {"type": "string"},
            "items": {"type": "array", "items": {"type": "object", "properties": {"amount": {"type": "number"}}}}
        }});
        let with = with_sources(&schema);
        assert_eq!(with["required"], json!(["total"]));
        assert_eq!(with["properties"]["note_source"]["type"], "string");
        assert_eq!(
            with["properties"]["items"]["items"]["properties"]["amount_source"]["type"],
            "string"
        );
        assert!(with["properties"].get("items_source").is_none());
        let answer = json!({"total": 5, "total_source": "Total 5.00", "note_source": "orphan",
            "items": [{"amount": 2, "amount_source": "2.00"}]});
        let (values, sources) = split_sources(&answer);
        assert_eq!(
            values,
            json!({"total": 5, "note_source": "orphan", "items": [{"amount": 2}]})
        );
        assert_eq!(sources.get("total").map(String::as_str), Some("Total 5.00"));
        assert_eq!(
            sources.get("items[0].amount").map(String::as_str),
            Some("2.00")
        );
        assert_eq!(sources.len(), 2);
    }
}
