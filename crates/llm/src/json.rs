//! Reading fields from provider JSON, where a missing field means empty.

use serde_json::Value;

/// The string at `value[key]`, or `""` when it is missing or not a string.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// One line of JSON with object keys sorted at every depth: the form
/// answers, tool results and CLI output take wherever key order is part
/// of a contract (serde_json keeps insertion order in this workspace).
pub fn canonical_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}
