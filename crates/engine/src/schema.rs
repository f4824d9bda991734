//! The answer's JSON Schema: checked for the rules every answer schema
//! follows, compiled once, and used to validate answers with errors that
//! name their paths. For a server that holds answers by grammar it also
//! gives the schema with every key required ([`OutputSchema::with_every_key`])
//! and takes the nulls that form added back out of an answer.

use serde_json::{Map, Value, json};

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

    /// The schema with every property of every object required, and each
    /// one the schema leaves optional made nullable: what a grammar-held
    /// answer is held to (see `sift_llm::Capabilities::grammar_held_answers`),
    /// so that a small model writes every key, `null` where the document
    /// has no value. Property order is kept: it is the order the model
    /// writes them in.
    pub fn with_every_key(&self) -> Value {
        every_key(&self.schema)
    }

    /// `value` with the nulls that [`Self::with_every_key`] allowed taken
    /// out again: an optional property whose value is `null`, where the
    /// schema itself does not accept `null` there, is dropped, as if the
    /// model had left it out. The result is checked against the schema as
    /// the user wrote it.
    pub fn without_added_nulls(&self, value: Value) -> Value {
        drop_added_nulls(&self.schema, value)
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

fn every_key(schema: &Value) -> Value {
    let Some(object) = schema.as_object() else {
        return schema.clone();
    };
    let mut out = Map::with_capacity(object.len() + 1);
    for (key, sub) in object {
        let converted = match key.as_str() {
            "properties" => {
                let required = required_names(schema);
                let properties = sub.as_object().map(|properties| {
                    properties
                        .iter()
                        .map(|(name, property)| {
                            let property = every_key(property);
                            let property = if required.contains(&name.as_str()) {
                                property
                            } else {
                                nullable(property)
                            };
                            (name.clone(), property)
                        })
                        .collect::<Map<_, _>>()
                });
                properties.map_or_else(|| sub.clone(), Value::Object)
            }
            "items" | "additionalProperties" => every_key(sub),
            "anyOf" | "oneOf" | "allOf" => sub
                .as_array()
                .map_or_else(|| sub.clone(), |all| all.iter().map(every_key).collect()),
            _ => sub.clone(),
        };
        out.insert(key.clone(), converted);
    }
    if let Some(properties) = out.get("properties").and_then(Value::as_object) {
        let every: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
        out.insert("required".to_owned(), Value::Array(every));
    }
    Value::Object(out)
}

fn required_names(schema: &Value) -> Vec<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// Whether the schema says outright that `null` is a value it takes.
fn takes_null(schema: &Value) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) => t == "null",
        Some(Value::Array(types)) => types.iter().any(|t| t == "null"),
        _ => false,
    }
}

/// `schema`, accepting `null` as well.
fn nullable(schema: Value) -> Value {
    if takes_null(&schema) {
        return schema;
    }
    let Value::Object(mut object) = schema else {
        return schema;
    };
    match object.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            object.insert("type".to_owned(), json!([t, "null"]));
        }
        Some(Value::Array(types)) => types.push(Value::from("null")),
        // No type to widen (an `anyOf`, a `$ref`, an `enum` alone): the
        // schema or null.
        _ => return json!({"anyOf": [Value::Object(object), {"type": "null"}]}),
    }
    if let Some(Value::Array(values)) = object.get_mut("enum")
        && !values.contains(&Value::Null)
    {
        values.push(Value::Null);
    }
    Value::Object(object)
}

fn drop_added_nulls(schema: &Value, value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return Value::Object(map);
            };
            let required = required_names(schema);
            map.into_iter()
                .filter_map(|(name, item)| match properties.get(&name) {
                    Some(property)
                        if item.is_null()
                            && !required.contains(&name.as_str())
                            && !takes_null(property) =>
                    {
                        None
                    }
                    Some(property) => Some((name, drop_added_nulls(property, item))),
                    None => Some((name, item)),
                })
                .collect::<Map<_, _>>()
                .into()
        }
        Value::Array(items) => match schema.get("items") {
            Some(item_schema) => items
                .into_iter()
                .map(|item| drop_added_nulls(item_schema, item))
                .collect(),
            None => Value::Array(items),
        },
        other => other,
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

    #[test]
    fn every_key_is_required_and_the_optional_ones_nullable() {
        let schema = OutputSchema::new(json!({
            "type": "object",
            "properties": {
                "number": {"type": "string", "description": "As printed"},
                "date": {"type": "string", "format": "date"},
                "total": {"type": "number"},
                "currency": {"type": "string", "enum": ["EUR", "USD"]},
                "note": {"type": ["string", "null"]},
                "party": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "items": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"qty": {"type": "integer"}, "amount": {"type": "number"}},
                    "required": ["amount"],
                }},
            },
            "required": ["total"],
        }))
        .unwrap();
        assert_eq!(
            schema.with_every_key(),
            json!({
                "type": "object",
                "properties": {
                    "number": {"type": ["string", "null"], "description": "As printed"},
                    "date": {"type": ["string", "null"], "format": "date"},
                    "total": {"type": "number"},
                    "currency": {"type": ["string", "null"], "enum": ["EUR", "USD", null]},
                    "note": {"type": ["string", "null"]},
                    "party": {"anyOf": [
                        {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                        {"type": "null"},
                    ]},
                    "items": {"type": ["array", "null"], "items": {
                        "type": "object",
                        "properties": {
                            "qty": {"type": ["integer", "null"]},
                            "amount": {"type": "number"},
                        },
                        "required": ["qty", "amount"],
                    }},
                },
                "required": ["number", "date", "total", "currency", "note", "party", "items"],
            })
        );
        // Keys keep their order: it is the order the model writes them in.
        let every = schema.with_every_key();
        let keys: Vec<&String> = every["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "number", "date", "total", "currency", "note", "party", "items"
            ]
        );
    }

    #[test]
    fn the_added_nulls_come_out_and_the_answer_meets_the_users_schema() {
        let schema = OutputSchema::new(json!({
            "type": "object",
            "properties": {
                "number": {"type": "string"},
                "note": {"type": ["string", "null"]},
                "total": {"type": "number"},
                "items": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"qty": {"type": "integer"}, "amount": {"type": "number"}},
                }},
            },
            "required": ["total"],
        }))
        .unwrap();
        let answer = json!({
            "number": null, "note": null, "total": 12.5,
            "items": [{"qty": null, "amount": 3.0}, {"qty": 2, "amount": null}],
        });
        let cleaned = schema.without_added_nulls(answer);
        // `note` takes null as written, so its null stays.
        assert_eq!(
            cleaned,
            json!({"note": null, "total": 12.5, "items": [{"amount": 3.0}, {"qty": 2}]})
        );
        assert!(schema.errors(&cleaned).is_empty());
        // A required key's null is the model's, and the schema refuses it.
        let required_null = schema.without_added_nulls(json!({"total": null}));
        assert_eq!(
            schema.errors(&required_null),
            ["/total: null is not of type \"number\"".to_owned()]
        );
    }
}
