//! The schema library: versions, problems at their paths, and the one
//! rule every way into the library checks.

use serde_json::{Value, json};
use sift_core::schemas::check::{Severity, check_usable, schema_problems};
use sift_core::schemas::{import_schema, library, save_schema};
use sift_store::Store;

use crate::TempDir;

fn invoice_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "number": {"type": "string"},
            "total": {"type": "number"},
            "seller": {"type": "object", "properties": {"name": {"type": "string"}}}
        },
        "required": ["number", "total"]
    })
}

#[test]
fn the_library_saves_versions_only_when_the_schema_changes() {
    let dir = TempDir::new("library");
    let store = Store::open(dir.db()).unwrap();
    let first = save_schema(&store, " invoice ", &invoice_schema()).unwrap();
    assert_eq!(
        (first.schema.name.as_str(), first.schema.version),
        ("invoice", 1)
    );
    assert!(first.new_version);
    let same = save_schema(&store, "invoice", &invoice_schema()).unwrap();
    assert_eq!((same.schema.version, same.new_version), (1, false));
    let mut changed = invoice_schema();
    changed["properties"]["currency"] = json!({"type": "string"});
    let second = save_schema(&store, "invoice", &changed).unwrap();
    assert_eq!((second.schema.version, second.new_version), (2, true));
    let library = library(&store).unwrap();
    assert_eq!(library.len(), 1);
    assert_eq!(library[0].versions, [1, 2]);
    assert_eq!(library[0].fields, ["number", "total", "seller", "currency"]);
}

#[test]
fn a_schema_with_errors_is_not_saved_and_its_problems_have_paths() {
    let dir = TempDir::new("bad-schema");
    let store = Store::open(dir.db()).unwrap();
    let bad = json!({"type": "object", "properties": {"a": {"type": "text"}}, "required": ["b"]});
    let problems = schema_problems(&bad);
    let errors: Vec<&str> = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .map(|p| p.path.as_str())
        .collect();
    assert!(errors.contains(&"/required/0"), "{problems:?}");
    assert!(errors.contains(&"/properties/a/type"), "{problems:?}");
    let error = save_schema(&store, "bad", &bad).unwrap_err();
    assert_eq!(error.code(), "schema");
    assert!(
        error
            .to_string()
            .contains("/required/0: \"required\" names \"b\", which \"properties\" does not list"),
        "{error}"
    );
    assert!(library(&store).unwrap().is_empty());
    assert_eq!(
        save_schema(&store, "  ", &invoice_schema())
            .unwrap_err()
            .code(),
        "usage"
    );
}

/// A save (the app's) and an import from a file (the app's and `sift
/// schema import`) refuse a schema with the same error, and one that
/// breaks a single answer-schema rule in the engine's words.
#[test]
fn a_save_and_an_import_refuse_a_schema_alike() {
    let dir = TempDir::new("schema-rule");
    let store = Store::open(dir.db()).unwrap();
    let bad = json!({"type": "object", "properties": {"a": {"type": "text"}}, "required": ["b"]});
    let file = dir.0.join("bad.json");
    std::fs::write(&file, bad.to_string()).unwrap();
    let saved = save_schema(&store, "bad", &bad).unwrap_err();
    let imported = import_schema(&store, &file, None).unwrap_err();
    let checked = check_usable(&bad).unwrap_err();
    assert_eq!(
        (saved.code(), saved.to_string()),
        (imported.code(), imported.to_string())
    );
    assert_eq!(saved.to_string(), checked.to_string());
    assert_eq!(
        saved.to_string(),
        "invalid schema: the schema is not valid JSON Schema: \
         /properties/a/type: \"text\" is not valid under any of the schemas listed in the 'anyOf' keyword\n\
         /properties/a/type: \"text\" is not a type: use one of string, number, integer, boolean, object, array, null\n\
         /required/0: \"required\" names \"b\", which \"properties\" does not list"
    );
    let one_rule = json!({"type": "object", "properties": {}});
    assert_eq!(
        check_usable(&one_rule).unwrap_err().to_string(),
        "invalid schema: the schema must list at least one property under \"properties\""
    );
    assert!(store.list_schemas().unwrap().is_empty());
    assert!(check_usable(&invoice_schema()).is_ok());
}
