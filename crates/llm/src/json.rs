//! Reading fields from provider JSON, where a missing field means empty.

use serde_json::Value;

/// The string at `value[key]`, or `""` when it is missing or not a string.
pub(crate) fn str_field<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}
