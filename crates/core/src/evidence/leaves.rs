//! The leaf values of an answer, walked with its schema: what is looked
//! for, under which key, and with which label words.

use serde_json::Value;

/// One value of an answer to look for.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Leaf {
    /// `a.b`, `items[0].amount`, `tags[1]`.
    pub key: String,
    /// The property's name (an array item's: its array's).
    pub name: String,
    pub description: Option<String>,
    /// The text to find; `None` when the value is not looked for
    /// (booleans, enum values, nulls, empty strings).
    pub text: Option<String>,
    /// A number (by its schema or its JSON type): only ever compared as
    /// a number.
    pub numeric: bool,
}

/// The answer's leaves in the schema's order (then the answer's, for
/// properties the schema does not name).
pub(super) fn leaves(schema: &Value, values: &Value) -> Vec<Leaf> {
    let mut out = Vec::new();
    walk(schema, values, String::new(), "", &mut out);
    out
}

fn walk(schema: &Value, value: &Value, key: String, name: &str, out: &mut Vec<Leaf>) {
    match value {
        Value::Object(map) => {
            let properties = schema.get("properties").and_then(Value::as_object);
            let mut names: Vec<&String> =
                properties.map(|p| p.keys().collect()).unwrap_or_default();
            names.retain(|n| map.contains_key(*n));
            names.extend(
                map.keys()
                    .filter(|k| properties.is_none_or(|p| !p.contains_key(*k))),
            );
            for property in names {
                let child = properties
                    .and_then(|p| p.get(property))
                    .unwrap_or(&Value::Null);
                let child_key = if key.is_empty() {
                    property.clone()
                } else {
                    format!("{key}.{property}")
                };
                walk(child, &map[property], child_key, property, out);
            }
        }
        Value::Array(items) => {
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            for (index, item) in items.iter().enumerate() {
                walk(item_schema, item, format!("{key}[{index}]"), name, out);
            }
        }
        leaf => out.push(Leaf {
            key,
            name: name.to_owned(),
            description: schema
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_owned),
            text: looked_for(schema, leaf),
            numeric: leaf.is_number() || is_number_type(schema),
        }),
    }
}

fn looked_for(schema: &Value, value: &Value) -> Option<String> {
    if schema.get("enum").is_some() || schema.get("const").is_some() {
        return None;
    }
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_number_type(schema: &Value) -> bool {
    let is = |t: &Value| t == "number" || t == "integer";
    match schema.get("type") {
        Some(Value::Array(types)) => types.iter().any(is),
        Some(t) => is(t),
        None => false,
    }
}
