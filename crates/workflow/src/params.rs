//! A DAG's declared parameters: how they are written in YAML, their
//! values at run time, and the JSON Schema a model sees when the DAG is
//! offered as a tool.

use serde_json::{Map, Value, json};

/// One declared parameter. A bare `NAME` is required; `NAME=default` is not.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamDef {
    pub name: String,
    pub default: Option<String>,
    /// A declared type (`string`, `integer`, `number`, `boolean`, `array`,
    /// `object`); else it is inferred from the default.
    pub kind: Option<String>,
    pub description: Option<String>,
    pub enum_values: Vec<Value>,
}

impl ParamDef {
    fn bare(name: &str, default: Option<String>) -> Self {
        Self {
            name: name.to_owned(),
            default,
            kind: None,
            description: None,
            enum_values: Vec::new(),
        }
    }

    /// The JSON Schema type: the declared one, else inferred from the
    /// default (`10` integer, `0.7` number, `true` boolean, `[]` array,
    /// `{}` object, a quoted or other value a string).
    pub fn json_type(&self) -> &str {
        if let Some(kind) = &self.kind {
            return kind;
        }
        let Some(default) = &self.default else {
            return "string";
        };
        let text = default.trim();
        if text.parse::<i64>().is_ok() {
            "integer"
        } else if text.parse::<f64>().is_ok() {
            "number"
        } else if text == "true" || text == "false" {
            "boolean"
        } else if text.starts_with('[') && serde_json::from_str::<Value>(text).is_ok() {
            "array"
        } else if text.starts_with('{') && serde_json::from_str::<Value>(text).is_ok() {
            "object"
        } else {
            "string"
        }
    }

    fn typed_default(&self) -> Option<Value> {
        let default = self.default.as_ref()?;
        Some(match self.json_type() {
            "string" => Value::String(default.clone()),
            _ => serde_json::from_str(default.trim()).unwrap_or(Value::String(default.clone())),
        })
    }
}

/// Reads `params:` in any of its forms: `"A B=2"`, a list of `NAME`,
/// `NAME=default` or `{NAME: default}`, a mapping, or a list of typed
/// definitions (`{name, type, default, description, enum}`).
pub(crate) fn parse_params(value: &Value) -> Result<Vec<ParamDef>, String> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(text) => Ok(split_words(text)
            .iter()
            .map(|w| assignment_def(w))
            .collect()),
        Value::Array(items) => items.iter().map(param_item).collect::<Result<Vec<_>, _>>(),
        Value::Object(map) => Ok(map
            .iter()
            .map(|(name, default)| ParamDef::bare(name, Some(scalar_text(default))))
            .collect()),
        _ => Err("params must be a string, a list or a mapping".to_owned()),
    }
}

fn param_item(item: &Value) -> Result<ParamDef, String> {
    match item {
        Value::String(text) => Ok(assignment_def(text)),
        Value::Object(map) if map.contains_key("name") => {
            let name = map
                .get("name")
                .and_then(Value::as_str)
                .ok_or("a typed param needs a name")?;
            Ok(ParamDef {
                name: name.to_owned(),
                default: map.get("default").map(scalar_text),
                kind: map.get("type").and_then(Value::as_str).map(str::to_owned),
                description: map
                    .get("description")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                enum_values: map
                    .get("enum")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            })
        }
        Value::Object(map) if map.len() == 1 => {
            let (name, default) = map.iter().next().ok_or("empty param")?;
            Ok(ParamDef::bare(name, Some(scalar_text(default))))
        }
        _ => Err("each param must be NAME, NAME=default or {NAME: default}".to_owned()),
    }
}

/// A YAML scalar as the text a shell step sees: strings as they are,
/// anything else as JSON (`10`, `true`, `[1,2]`).
pub(crate) fn scalar_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// `NAME=value` or `NAME`; a quoted default declares a string.
fn assignment_def(text: &str) -> ParamDef {
    let (name, default) = parse_param_assignment(text);
    let mut def = ParamDef::bare(&name, default);
    let quoted = text
        .split_once('=')
        .is_some_and(|(_, v)| unquote(v).len() + 2 == v.trim().len());
    if quoted {
        def.kind = Some("string".to_owned());
    }
    def
}

/// `NAME=value` (the value unquoted when quoted), or a bare `NAME`.
pub fn parse_param_assignment(text: &str) -> (String, Option<String>) {
    match text.split_once('=') {
        Some((name, value)) => (name.trim().to_owned(), Some(unquote(value).to_owned())),
        None => (text.trim().to_owned(), None),
    }
}

fn unquote(value: &str) -> &str {
    let value = value.trim();
    for quote in ['"', '\''] {
        if value.len() >= 2 && value.starts_with(quote) && value.ends_with(quote) {
            return &value[1..value.len() - 1];
        }
    }
    value
}

/// Splits `A B=2 C="x y"` into assignments, honouring quotes.
pub(crate) fn split_assignments(text: &str) -> Vec<(String, Option<String>)> {
    split_words(text)
        .iter()
        .map(|w| parse_param_assignment(w))
        .collect()
}

/// Splits on whitespace outside quotes; the quotes stay in the words.
fn split_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => {
                quote = None;
                word.push(c);
            }
            (Some(_), c) => word.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                word.push(c);
            }
            (None, c) if c.is_whitespace() => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            (None, c) => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The tool parameters a model sees for a DAG with these params.
pub(crate) fn tool_schema(params: &[ParamDef]) -> Value {
    let mut properties = Map::new();
    let mut required = Vec::new();
    for param in params {
        let mut property = Map::new();
        property.insert("type".into(), json!(param.json_type()));
        let description = param
            .description
            .clone()
            .unwrap_or_else(|| format!("{} parameter", param.name));
        property.insert("description".into(), json!(description));
        if let Some(default) = param.typed_default() {
            property.insert("default".into(), default);
        }
        if !param.enum_values.is_empty() {
            property.insert("enum".into(), Value::Array(param.enum_values.clone()));
        }
        properties.insert(param.name.clone(), Value::Object(property));
        if param.default.is_none() {
            required.push(json!(param.name));
        }
    }
    let mut schema = Map::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), Value::Object(properties));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    Value::Object(schema)
}

/// A tool argument as a parameter value: strings as they are, integral
/// numbers without a fraction (`42`), `null` empty, arrays and objects as JSON.
pub(crate) fn argument_text(value: &Value) -> String {
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e15 && n.is_f64() => format!("{f:.0}"),
            _ => n.to_string(),
        },
        other => scalar_text(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_in_every_form() {
        let defs = parse_params(&json!("CITY UNITS=metric")).unwrap();
        assert_eq!(defs[0], ParamDef::bare("CITY", None));
        assert_eq!(defs[1], ParamDef::bare("UNITS", Some("metric".into())));
        let defs = parse_params(&json!(["query", "max_results=10", {"ratio": 0.7}])).unwrap();
        assert_eq!(
            defs.iter().map(ParamDef::json_type).collect::<Vec<_>>(),
            ["string", "integer", "number"]
        );
        assert_eq!(
            split_assignments(r#"A=1 B="x y" C"#),
            vec![
                ("A".into(), Some("1".into())),
                ("B".into(), Some("x y".into())),
                ("C".into(), None)
            ]
        );
    }

    #[test]
    fn tool_schema_marks_bare_params_required_and_infers_types_from_defaults() {
        let defs = parse_params(&json!([
            "query",
            "max_results=10",
            "ratio=0.7",
            "strict=false",
            "tags=[]",
            "label=\"7\""
        ]))
        .unwrap();
        assert_eq!(
            tool_schema(&defs),
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "query parameter"},
                    "max_results": {"type": "integer", "description": "max_results parameter", "default": 10},
                    "ratio": {"type": "number", "description": "ratio parameter", "default": 0.7},
                    "strict": {"type": "boolean", "description": "strict parameter", "default": false},
                    "tags": {"type": "array", "description": "tags parameter", "default": []},
                    "label": {"type": "string", "description": "label parameter", "default": "7"},
                },
                "required": ["query"],
            })
        );
        assert_eq!(
            tool_schema(&[]),
            json!({"type": "object", "properties": {}})
        );
    }

    #[test]
    fn arguments_become_parameter_text() {
        assert_eq!(argument_text(&json!(42.0)), "42");
        assert_eq!(argument_text(&json!(2.75)), "2.75");
        assert_eq!(argument_text(&json!(5)), "5");
        assert_eq!(argument_text(&json!(null)), "");
        assert_eq!(argument_text(&json!(["a", "b"])), r#"["a","b"]"#);
        assert_eq!(argument_text(&json!("hello world")), "hello world");
    }
}
