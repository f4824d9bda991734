//! A schema's problems, each at its place (a JSON Pointer into the schema),
//! for an editor to show inline: the answer-schema rules the engine
//! enforces (these block saving and extracting), JSON Schema's own
//! meta-schema, and mistakes that are valid JSON Schema but almost
//! certainly not meant (warnings).

use serde::Serialize;
use serde_json::Value;
use sift_engine::{OutputSchema, SchemaError};

use crate::error::CoreError;

/// How bad a problem is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ProblemSeverity"))]
#[serde(rename_all = "camelCase")]
pub enum Severity {
    /// The schema cannot be saved or used as it is.
    Error,
    /// Accepted, but probably not what was meant.
    Warning,
}

/// A problem at its place in the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SchemaProblem {
    /// A JSON Pointer into the schema (`""`: the whole schema), e.g.
    /// `/properties/total/type`.
    pub path: String,
    /// What is wrong, for people.
    pub message: String,
    /// Whether the problem blocks saving and extracting, or is only a warning.
    pub severity: Severity,
}

const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

/// Every problem of `schema`, errors first, then by path.
pub fn schema_problems(schema: &Value) -> Vec<SchemaProblem> {
    let mut problems = Vec::new();
    if let Err(error) = OutputSchema::new(schema.clone()) {
        let path = match &error {
            SchemaError::NotObject => "/type".to_owned(),
            SchemaError::NoProperties => "/properties".to_owned(),
            SchemaError::RequiredNotListed(name) => required_path(schema, name),
            // The meta-schema's errors below say where.
            SchemaError::Invalid(_) => String::new(),
        };
        if !matches!(error, SchemaError::Invalid(_)) {
            problems.push(error_at(path, error.to_string()));
        }
    }
    for error in jsonschema::draft202012::meta::validator().iter_errors(schema) {
        problems.push(error_at(
            error.instance_path().to_string(),
            error.to_string(),
        ));
    }
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        lint_properties(properties, "/properties", &mut problems);
    }
    problems.sort_by(|a, b| {
        (a.severity == Severity::Warning, &a.path).cmp(&(b.severity == Severity::Warning, &b.path))
    });
    problems.dedup();
    problems
}

/// Whether `problems` leave the schema usable.
pub fn is_usable(problems: &[SchemaProblem]) -> bool {
    problems.iter().all(|p| p.severity == Severity::Warning)
}

/// The one rule a schema passes before it is saved to the library or
/// extracted with (the app's save and import, `sift schema import`,
/// `sift extract --schema`): no problem of [`schema_problems`] is an
/// error. A schema that only breaks one answer-schema rule is refused in
/// the engine's words (as a call would refuse it); otherwise every error
/// is listed, one a line, at its path.
pub fn check_usable(schema: &Value) -> Result<(), CoreError> {
    let errors: Vec<SchemaProblem> = schema_problems(schema)
        .into_iter()
        .filter(|p| p.severity == Severity::Error)
        .collect();
    match (errors.len(), OutputSchema::new(schema.clone())) {
        (0, Ok(_)) => Ok(()),
        (0 | 1, Err(error)) => Err(error.into()),
        _ => Err(SchemaError::Invalid(
            errors
                .iter()
                .map(|p| {
                    let path = if p.path.is_empty() { "/" } else { &p.path };
                    format!("{path}: {}", p.message)
                })
                .collect::<Vec<_>>()
                .join("\n"),
        )
        .into()),
    }
}

fn error_at(path: String, message: String) -> SchemaProblem {
    SchemaProblem {
        path,
        message,
        severity: Severity::Error,
    }
}

fn warning_at(path: String, message: String) -> SchemaProblem {
    SchemaProblem {
        path,
        message,
        severity: Severity::Warning,
    }
}

fn required_path(schema: &Value, name: &str) -> String {
    schema
        .get("required")
        .and_then(Value::as_array)
        .and_then(|names| names.iter().position(|n| n.as_str() == Some(name)))
        .map_or_else(|| "/required".to_owned(), |i| format!("/required/{i}"))
}

/// A pointer segment: `~` and `/` escaped (RFC 6901).
fn segment(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

fn lint_properties(
    properties: &serde_json::Map<String, Value>,
    at: &str,
    out: &mut Vec<SchemaProblem>,
) {
    for (name, property) in properties {
        let path = format!("{at}/{}", segment(name));
        if name.trim().is_empty() {
            out.push(warning_at(path.clone(), "a field needs a name".into()));
        }
        lint_property(property, &path, out);
    }
}

fn lint_property(property: &Value, path: &str, out: &mut Vec<SchemaProblem>) {
    let Some(object) = property.as_object() else {
        return; // the meta-schema reports it
    };
    let types: Vec<&str> = match object.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    for t in &types {
        if !TYPES.contains(t) {
            // The meta-schema reports it too, less plainly.
            out.push(error_at(
                format!("{path}/type"),
                format!("{t:?} is not a type: use one of {}", TYPES.join(", ")),
            ));
        }
    }
    if let Some(Value::Array(values)) = object.get("enum")
        && values.is_empty()
    {
        out.push(warning_at(
            format!("{path}/enum"),
            "an empty enum allows no value at all".into(),
        ));
    }
    if types.contains(&"array") && !object.contains_key("items") {
        out.push(warning_at(
            format!("{path}/items"),
            "an array without \"items\" lets the model put anything in it".into(),
        ));
    }
    if let Some(items) = object.get("items") {
        lint_property(items, &format!("{path}/items"), out);
    }
    let properties = object.get("properties").and_then(Value::as_object);
    if types.contains(&"object") && properties.is_none_or(serde_json::Map::is_empty) {
        out.push(warning_at(
            format!("{path}/properties"),
            "an object without properties lets the model put anything in it".into(),
        ));
    }
    if let Some(required) = object.get("required").and_then(Value::as_array) {
        for (i, name) in required.iter().enumerate() {
            let listed = name
                .as_str()
                .is_some_and(|n| properties.is_some_and(|p| p.contains_key(n)));
            if !listed {
                out.push(error_at(
                    format!("{path}/required/{i}"),
                    format!("\"required\" names {name}, which \"properties\" does not list"),
                ));
            }
        }
    }
    if let Some(properties) = properties {
        lint_properties(properties, &format!("{path}/properties"), out);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn paths(problems: &[SchemaProblem]) -> Vec<(&str, Severity)> {
        problems
            .iter()
            .map(|p| (p.path.as_str(), p.severity))
            .collect()
    }

    #[test]
    fn a_good_schema_has_no_problems() {
        let schema = json!({"type": "object", "properties": {
            "number": {"type": "string"},
            "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}, "required": ["qty"]}}
        }, "required": ["number"]});
        assert_eq!(schema_problems(&schema), []);
    }

    #[test]
    fn engine_rules_are_errors_at_their_place() {
        let problems = schema_problems(&json!({"type": "array"}));
        assert_eq!(paths(&problems), [("/type", Severity::Error)]);
        assert_eq!(
            problems[0].message,
            "the schema must declare \"type\": \"object\""
        );
        let problems = schema_problems(
            &json!({"type": "object", "properties": {"a": {}}, "required": ["a", "b"]}),
        );
        assert_eq!(paths(&problems), [("/required/1", Severity::Error)]);
        assert!(!is_usable(&problems));
    }

    #[test]
    fn nested_mistakes_are_found_with_their_paths() {
        let schema = json!({"type": "object", "properties": {
            "a/b": {"type": "strin"},
            "tags": {"type": "array"},
            "kind": {"type": "string", "enum": []},
            "address": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["zip"]}
        }});
        let problems = schema_problems(&schema);
        assert!(
            problems.contains(&error_at(
                "/properties/a~1b/type".into(),
                "\"strin\" is not a type: use one of string, number, integer, boolean, object, array, null".into()
            )),
            "{problems:?}"
        );
        assert!(problems.contains(&error_at(
            "/properties/address/required/0".into(),
            "\"required\" names \"zip\", which \"properties\" does not list".into()
        )));
        assert!(
            problems
                .iter()
                .any(|p| p.path == "/properties/tags/items" && p.severity == Severity::Warning)
        );
        assert!(
            problems
                .iter()
                .any(|p| p.path == "/properties/kind/enum" && p.severity == Severity::Warning)
        );
        // Errors come first.
        let first_warning = problems
            .iter()
            .position(|p| p.severity == Severity::Warning)
            .unwrap();
        assert!(
            problems[first_warning..]
                .iter()
                .all(|p| p.severity == Severity::Warning)
        );
    }
}
