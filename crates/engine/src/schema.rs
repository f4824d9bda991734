//! The answer's JSON Schema: checked for the rules every answer schema
//! follows, compiled once, and used to validate answers with errors that
//! name their paths.

use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error("the schema must declare \"type\": \"object\"")]
    NotObject,
    #[error("the schema must list at least one property under \"properties\"")]
    NoProperties,
    #[error("\"required\" names {0:?}, which \"properties\" does not list")]
    RequiredNotListed(String),
    #[error("the schema is not valid JSON Schema: {0}")]
    Invalid(String),
}

#[derive(Debug)]
pub struct OutputSchema {
    schema: Value,
    validator: jsonschema::Validator,
}

impl OutputSchema {
    pub fn new(schema: Value) -> Result<Self, SchemaError> {
        if schema.get("type").and_then(Value::as_str) != Some("object") {
            return Err(SchemaError::NotObject);
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        let Some(properties) = properties.filter(|p| !p.is_empty()) else {
            return Err(SchemaError::NoProperties);
        };
        for name in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let name = name.as_str().unwrap_or_default();
            if !properties.contains_key(name) {
                return Err(SchemaError::RequiredNotListed(name.to_owned()));
            }
        }
        let validator =
            jsonschema::validator_for(&schema).map_err(|e| SchemaError::Invalid(e.to_string()))?;
        Ok(Self { schema, validator })
    }

    pub fn schema(&self) -> &Value {
        &self.schema
    }

    /// Every way `value` breaks the schema, one line each, led by the path
    /// (`/total: "abc" is not of type "number"`; the whole value is `/`),
    /// sorted so that the same answer always gets the same message.
    pub fn errors(&self, value: &Value) -> Vec<String> {
        let mut errors: Vec<String> = self
            .validator
            .iter_errors(value)
            .map(|error| {
                let path = error.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("{path}: {error}")
            })
            .collect();
        errors.sort();
        errors
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_rules_every_answer_schema_follows() {
        assert_eq!(
            OutputSchema::new(json!({"type": "array"})).unwrap_err(),
            SchemaError::NotObject
        );
        assert_eq!(
            OutputSchema::new(json!({"type": "object", "properties": {}})).unwrap_err(),
            SchemaError::NoProperties
        );
        assert_eq!(
            OutputSchema::new(
                json!({"type": "object", "properties": {"a": {}}, "required": ["b"]})
            )
            .unwrap_err(),
            SchemaError::RequiredNotListed("b".into())
        );
    }

    #[test]
    fn errors_name_their_paths() {
        let schema = OutputSchema::new(json!({
            "type": "object",
            "properties": {"total": {"type": "number"}, "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}}}},
            "required": ["total"],
        }))
        .unwrap();
        assert!(schema.errors(&json!({"total": 3.5})).is_empty());
        assert_eq!(
            schema.errors(&json!({"total": "abc", "items": [{"qty": 1}, {"qty": "two"}]})),
            vec![
                "/items/1/qty: \"two\" is not of type \"integer\"".to_owned(),
                "/total: \"abc\" is not of type \"number\"".to_owned(),
            ]
        );
        assert_eq!(
            schema.errors(&json!({})),
            vec!["/: \"total\" is a required property".to_owned()]
        );
    }
}
