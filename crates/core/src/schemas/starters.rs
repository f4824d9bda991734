//! The schemas a new library starts with, so that a first extraction needs
//! no schema writing: an invoice with its line items, a receipt, a bank
//! statement and a purchase order. Each field has a description, because
//! the description is what a model reads to tell one date from another.
//!
//! They are ordinary library entries once installed: the user edits them
//! (a new version) or saves a copy under another name. They are installed
//! only into an empty library, so a library the user has filled is never
//! touched, and an upgrade never overwrites an edited starter.

use serde_json::Value;
use sift_store::Store;

use crate::error::CoreError;
use crate::schemas::check::check_usable;

/// A starter: its library name and its JSON Schema text.
const STARTERS: [(&str, &str); 4] = [
    (
        "invoice",
        include_str!("../../starter-schemas/invoice.json"),
    ),
    (
        "receipt",
        include_str!("../../starter-schemas/receipt.json"),
    ),
    (
        "bank_statement",
        include_str!("../../starter-schemas/bank_statement.json"),
    ),
    (
        "purchase_order",
        include_str!("../../starter-schemas/purchase_order.json"),
    ),
];

/// The starter schemas, by library name, in the order above.
pub fn starter_schemas() -> Vec<(&'static str, Value)> {
    STARTERS
        .iter()
        .map(|(name, text)| {
            // The files are part of the build and a unit test parses and
            // checks each, so this cannot fail at run time.
            let schema = serde_json::from_str(text).unwrap_or(Value::Null);
            (*name, schema)
        })
        .collect()
}

/// Saves the starters into `store` when its library is empty (a new
/// database, or one that never held a schema); returns how many were
/// saved. The check and the saves are not one transaction: two processes
/// starting on a fresh file at once both save, and the library's rule
/// (the same JSON is the same version) keeps one version of each.
pub fn install_when_library_empty(store: &Store) -> Result<usize, CoreError> {
    if !store.list_schemas()?.is_empty() {
        return Ok(0);
    }
    let starters = starter_schemas();
    for (name, schema) in &starters {
        check_usable(schema)?;
        store.save_schema(name, schema)?;
    }
    Ok(starters.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schemas::check::schema_problems;

    /// A fresh database in its own folder (one per test: they run at once).
    fn store() -> Store {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("sift-starters-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Store::open(dir.join("sift.db")).unwrap()
    }

    #[test]
    fn every_starter_passes_the_answer_schema_rules_with_no_warning() {
        for (name, schema) in starter_schemas() {
            assert!(schema.is_object(), "{name} is not a JSON object");
            assert_eq!(schema_problems(&schema), vec![], "{name}");
        }
    }

    #[test]
    fn every_field_of_every_starter_says_what_it_is() {
        fn walk(name: &str, path: &str, schema: &Value) {
            let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            for (field, sub) in properties {
                let at = format!("{path}/{field}");
                let description = sub.get("description").and_then(Value::as_str);
                assert!(
                    description.is_some_and(|d| d.len() >= 10),
                    "{name}: {at} has no description"
                );
                walk(name, &at, sub);
                if let Some(items) = sub.get("items") {
                    walk(name, &format!("{at}[]"), items);
                }
            }
        }
        for (name, schema) in starter_schemas() {
            walk(name, "", &schema);
        }
    }

    #[test]
    fn an_empty_library_gets_the_four_starters_once() {
        let store = store();
        assert_eq!(install_when_library_empty(&store).unwrap(), 4);
        let names: Vec<(String, i64)> = store
            .list_schemas()
            .unwrap()
            .into_iter()
            .map(|s| (s.name, s.version))
            .collect();
        assert_eq!(
            names,
            [
                ("bank_statement".to_owned(), 1),
                ("invoice".to_owned(), 1),
                ("purchase_order".to_owned(), 1),
                ("receipt".to_owned(), 1),
            ]
        );
        // A second start finds the library filled: nothing is saved again.
        assert_eq!(install_when_library_empty(&store).unwrap(), 0);
        let invoice = store.get_schema("invoice", None).unwrap().unwrap();
        assert_eq!(invoice.version, 1);
        assert_eq!(invoice.schema["properties"]["total"]["type"], "number");
    }

    #[test]
    fn a_library_the_user_filled_is_left_alone() {
        let store = store();
        let own = serde_json::json!({
            "type": "object",
            "properties": {"total": {"type": "number"}},
            "required": ["total"]
        });
        store.save_schema("mine", &own).unwrap();
        assert_eq!(install_when_library_empty(&store).unwrap(), 0);
        let names: Vec<String> = store
            .list_schemas()
            .unwrap()
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(names, ["mine"]);
    }

    #[test]
    fn an_edited_starter_is_not_overwritten_by_a_later_start() {
        let store = store();
        install_when_library_empty(&store).unwrap();
        let mut edited = store.get_schema("receipt", None).unwrap().unwrap().schema;
        edited["properties"]["total"]["description"] = "What I paid.".into();
        assert_eq!(store.save_schema("receipt", &edited).unwrap(), 2);
        assert_eq!(install_when_library_empty(&store).unwrap(), 0);
        let latest = store.get_schema("receipt", None).unwrap().unwrap();
        assert_eq!(latest.version, 2);
        assert_eq!(
            latest.schema["properties"]["total"]["description"],
            "What I paid."
        );
    }
}
