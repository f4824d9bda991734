//! "Suggest a schema from this document": a structured call whose answer
//! lists the fields a person would extract from the document, turned into
//! a JSON Schema that the editor opens for review (nothing is saved).
//!
//! The model does not write JSON Schema itself. It answers a small fixed
//! form (a kind of document, then fields with a name, a type and a
//! description, one level of list items), which even a small local model
//! held to a grammar can fill, and which always converts to a schema the
//! answer-schema rules accept. The rules still check the result, and
//! their problems travel with it for the editor to show.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use sift_llm::{ErrorCategory, LlmError};
use sift_store::CallStatus;

use crate::calls::{CallRequest, run_call};
use crate::error::CoreError;
use crate::extract::one_document_options;
use crate::schemas::check::{SchemaProblem, schema_problems};
use crate::workspace::Workspace;

/// The kind a suggestion's call is stored under (its transcript is in the
/// Transcripts screen with the others).
pub const SUGGESTION_KIND: &str = "schema_suggestion";

const PROMPT: &str = "Suggest the fields to extract from documents like this one. \
List the values a person would want as data: numbers, amounts, dates, names, \
identifiers, and repeated lines (such as line items) as a list with their own \
fields. Give each field a short snake_case name, a type, and one sentence that \
says what the value is and where it is found, so that another reader can find \
it in a similar document.";

/// What to suggest a schema for, with which model.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SuggestSchemaRequest {
    /// The document (a path the user dropped or picked).
    pub file: String,
    /// A provider id from the settings; `null`: the default provider.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub provider_id: Option<String>,
    /// `null`: the provider's default model.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub model: Option<String>,
}

/// A suggested schema, not saved: the editor shows it for review.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SchemaSuggestion {
    /// A library name for it, from the kind of document (`delivery_note`).
    pub name: String,
    /// The JSON Schema made from the model's fields, titled after the kind of document.
    pub schema: Value,
    /// The answer-schema rules' problems with it (usually none).
    pub problems: Vec<SchemaProblem>,
    /// The stored call that produced it.
    pub call_id: String,
}

/// The form the model fills in.
pub fn suggestion_answer_schema() -> Value {
    let scalar_types = json!(["text", "number", "integer", "date", "yes_no"]);
    let all_types = json!(["text", "number", "integer", "date", "yes_no", "list"]);
    let field = |types: Value, with_items: bool| {
        let mut properties = json!({
            "name": {"type": "string", "description": "A short snake_case name, e.g. invoice_date."},
            "type": {"type": "string", "enum": types, "description": "What kind of value it is; list for repeated lines."},
            "description": {"type": "string", "description": "One sentence: what the value is and where it is found."}
        });
        let mut required = vec!["name", "type", "description"];
        if with_items {
            properties["item_fields"] = json!({
                "type": "array",
                "description": "For a list: the fields of each of its lines; otherwise empty.",
                "items": field_of(scalar_types.clone())
            });
            required.push("item_fields");
        }
        json!({"type": "object", "properties": properties, "required": required})
    };
    json!({
        "type": "object",
        "properties": {
            "document_kind": {
                "type": "string",
                "description": "What kind of document this is, in one to three words, e.g. invoice, delivery note, payslip."
            },
            "fields": {"type": "array", "items": field(all_types, true)}
        },
        "required": ["document_kind", "fields"]
    })
}

/// A list line's field: no list inside a list.
fn field_of(types: Value) -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "type": {"type": "string", "enum": types},
            "description": {"type": "string"}
        },
        "required": ["name", "type", "description"]
    })
}

/// Runs the suggestion call on `request.file` (a path the workspace lets
/// be read) and converts its answer.
pub async fn suggest_schema(
    ws: &Workspace,
    request: SuggestSchemaRequest,
) -> Result<SchemaSuggestion, CoreError> {
    ws.grants().check_read(Path::new(&request.file))?;
    let settings = ws.settings();
    let selection = settings.selection(request.provider_id.as_deref(), request.model.as_deref())?;
    let provider_id = settings
        .provider_or_default(request.provider_id.as_deref())?
        .id
        .clone();
    let options = one_document_options(ws, selection, Some(provider_id)).await?;
    let mut call = CallRequest::new(options.selection.clone(), PROMPT);
    call.kind = SUGGESTION_KIND.to_owned();
    call.schema = Some(suggestion_answer_schema());
    call.files = vec![PathBuf::from(&request.file)];
    call.context = options.context.clone();
    call.read_options = options.read_options.clone();
    let store = ws.store()?;
    let stored = run_call(&store, &call).await?;
    let (CallStatus::Completed, Some(answer)) = (&stored.status, &stored.output) else {
        return Err(failed_call(&stored));
    };
    let (name, schema) = schema_of_answer(answer)?;
    Ok(SchemaSuggestion {
        name: free_name(&store, &name)?,
        problems: schema_problems(&schema),
        schema,
        call_id: stored.id,
    })
}

/// `base`, or `base_2`, `base_3`, ... when the library has it: saving a
/// suggestion must not quietly make a new version of a schema the user
/// already has.
fn free_name(store: &sift_store::Store, base: &str) -> Result<String, CoreError> {
    let taken: HashSet<String> = store.list_schemas()?.into_iter().map(|s| s.name).collect();
    let mut name = base.to_owned();
    let mut n = 2;
    while taken.contains(&name) {
        name = format!("{base}_{n}");
        n += 1;
    }
    Ok(name)
}

/// A call that ended without an answer, as the error of its category.
fn failed_call(call: &sift_store::StructuredCall) -> CoreError {
    let category = call
        .error_category
        .as_deref()
        .and_then(|c| serde_json::from_value(Value::String(c.to_owned())).ok())
        .unwrap_or(ErrorCategory::Other);
    let reason = call
        .error
        .clone()
        .unwrap_or_else(|| "the model gave no answer".to_owned());
    CoreError::Llm(LlmError::new(category, reason))
}

/// The library name and the JSON Schema for a filled-in form. Field names
/// become snake_case identifiers, unique within their object; a field
/// with no usable name is left out.
pub fn schema_of_answer(answer: &Value) -> Result<(String, Value), CoreError> {
    let kind = answer
        .get("document_kind")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim();
    let fields = answer
        .get("fields")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let mut schema = object_schema(fields, true);
    if schema["properties"].as_object().is_none_or(Map::is_empty) {
        return Err(CoreError::Llm(LlmError::new(
            ErrorCategory::Model,
            "the model named no field with a usable name",
        )));
    }
    let name = identifier(kind).unwrap_or_else(|| "suggested_schema".to_owned());
    if !kind.is_empty() {
        schema["title"] = Value::String(title_case(kind));
        schema["description"] = Value::String(format!("Suggested from a {kind}."));
    }
    Ok((name, schema))
}

fn object_schema(fields: &[Value], lists_allowed: bool) -> Value {
    let mut properties = Map::new();
    let mut taken = HashSet::new();
    for field in fields {
        let Some(base) = field
            .get("name")
            .and_then(Value::as_str)
            .and_then(identifier)
        else {
            continue;
        };
        let name = unique(&base, &mut taken);
        let description = field
            .get("description")
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|d| !d.is_empty());
        let kind = field.get("type").and_then(Value::as_str).unwrap_or("text");
        let mut property = match kind {
            "number" => json!({"type": "number"}),
            "integer" => json!({"type": "integer"}),
            "date" => json!({"type": "string", "format": "date"}),
            "yes_no" => json!({"type": "boolean"}),
            "list" if lists_allowed => {
                let items = field
                    .get("item_fields")
                    .and_then(Value::as_array)
                    .map(Vec::as_slice)
                    .unwrap_or_default();
                let item = object_schema(items, false);
                if item["properties"].as_object().is_none_or(Map::is_empty) {
                    json!({"type": "array", "items": {"type": "string"}})
                } else {
                    json!({"type": "array", "items": item})
                }
            }
            _ => json!({"type": "string"}),
        };
        if let Some(description) = description {
            property["description"] = Value::String(description.to_owned());
        }
        properties.insert(name, property);
    }
    let required: Vec<Value> = properties.keys().cloned().map(Value::String).collect();
    json!({"type": "object", "properties": properties, "required": required})
}

/// `Invoice Date` → `invoice_date`: lowercase ASCII letters, digits and
/// `_`, starting with a letter; `None` when nothing is left.
fn identifier(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut gap = false;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c.to_ascii_lowercase());
        } else {
            gap = true;
        }
    }
    let start = out.find(|c: char| c.is_ascii_lowercase())?;
    let trimmed: String = out[start..].chars().take(64).collect();
    Some(trimmed.trim_end_matches('_').to_owned())
}

fn unique(base: &str, taken: &mut HashSet<String>) -> String {
    let mut name = base.to_owned();
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base}_{n}");
        n += 1;
    }
    name
}

fn title_case(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_passes_the_answer_schema_rules() {
        assert_eq!(schema_problems(&suggestion_answer_schema()), vec![]);
    }

    #[test]
    fn a_filled_form_becomes_a_schema_with_every_field_required() {
        let answer = json!({
            "document_kind": "delivery note",
            "fields": [
                {"name": "Note Number", "type": "text", "description": "The note's number, top right.", "item_fields": []},
                {"name": "delivered on", "type": "date", "description": "The delivery date.", "item_fields": []},
                {"name": "weight_kg", "type": "number", "description": "", "item_fields": []},
                {"name": "signed", "type": "yes_no", "description": "Whether it is signed.", "item_fields": []},
                {"name": "lines", "type": "list", "description": "Each delivered article.", "item_fields": [
                    {"name": "article", "type": "text", "description": "The article's name."},
                    {"name": "count", "type": "integer", "description": "How many."}
                ]}
            ]
        });
        let (name, schema) = schema_of_answer(&answer).unwrap();
        assert_eq!(name, "delivery_note");
        assert_eq!(
            schema,
            json!({
                "title": "Delivery note",
                "description": "Suggested from a delivery note.",
                "type": "object",
                "properties": {
                    "note_number": {"type": "string", "description": "The note's number, top right."},
                    "delivered_on": {"type": "string", "format": "date", "description": "The delivery date."},
                    "weight_kg": {"type": "number"},
                    "signed": {"type": "boolean", "description": "Whether it is signed."},
                    "lines": {"type": "array", "description": "Each delivered article.", "items": {
                        "type": "object",
                        "properties": {
                            "article": {"type": "string", "description": "The article's name."},
                            "count": {"type": "integer", "description": "How many."}
                        },
                        "required": ["article", "count"]
                    }}
                },
                "required": ["note_number", "delivered_on", "weight_kg", "signed", "lines"]
            })
        );
        assert_eq!(schema_problems(&schema), vec![]);
    }

    #[test]
    fn names_are_made_identifiers_and_unique_and_unusable_ones_are_dropped() {
        let answer = json!({
            "document_kind": "",
            "fields": [
                {"name": "Total (EUR)", "type": "number", "description": "x", "item_fields": []},
                {"name": "total eur", "type": "number", "description": "y", "item_fields": []},
                {"name": "%%", "type": "text", "description": "z", "item_fields": []},
                {"name": "2nd line", "type": "text", "description": "w", "item_fields": []},
                {"name": "items", "type": "list", "description": "v", "item_fields": []}
            ]
        });
        let (name, schema) = schema_of_answer(&answer).unwrap();
        assert_eq!(name, "suggested_schema");
        let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["total_eur", "total_eur_2", "nd_line", "items"]);
        // A list with no item fields is a list of text.
        assert_eq!(
            schema["properties"]["items"]["items"],
            json!({"type": "string"})
        );
        assert!(schema.get("title").is_none());
    }

    #[test]
    fn a_form_with_no_usable_field_is_the_models_error() {
        let error = schema_of_answer(&json!({"document_kind": "memo", "fields": [
            {"name": "???", "type": "text", "description": "", "item_fields": []}
        ]}))
        .unwrap_err();
        assert_eq!(error.code(), "model");
        assert_eq!(
            error.to_string(),
            "the model named no field with a usable name"
        );
    }
}
