//! The schema library: named JSON Schemas with versions, imported from and
//! exported to `.json` files. A schema is checked with the answer-schema
//! rules (an object with at least one property, every required name
//! listed) before it is saved.

use std::path::Path;

use serde_json::Value;
use sift_engine::OutputSchema;
use sift_store::{SchemaVersion, Store};

use crate::error::CoreError;

/// Saves the schema in `path` under `name` (default: the file's stem).
/// A new version is made only when it differs from the latest.
pub fn import_schema(
    store: &Store,
    path: &Path,
    name: Option<&str>,
) -> Result<SchemaVersion, CoreError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CoreError::Usage(format!("cannot read the schema {}: {e}", path.display())))?;
    let schema: Value = serde_json::from_str(&text)
        .map_err(|e| CoreError::Usage(format!("the schema {} is not JSON: {e}", path.display())))?;
    OutputSchema::new(schema.clone())?;
    let name = match name {
        Some(name) => name.to_owned(),
        None => path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                CoreError::Usage(format!("{} has no name to save it under", path.display()))
            })?,
    };
    let version = store.save_schema(&name, &schema)?;
    store
        .get_schema(&name, Some(version))?
        .ok_or_else(|| CoreError::NotFound(format!("schema {name} version {version}")))
}

/// The schema `name` (its latest version unless one is named), as the
/// pretty-printed JSON an import reads back unchanged.
pub fn export_schema(store: &Store, name: &str, version: Option<i64>) -> Result<String, CoreError> {
    let saved = store
        .get_schema(name, version)?
        .ok_or_else(|| match version {
            Some(v) => CoreError::NotFound(format!("no schema {name} version {v}")),
            None => CoreError::NotFound(format!("no schema {name}")),
        })?;
    let mut text = serde_json::to_string_pretty(&saved.schema).unwrap_or_default();
    text.push('\n');
    Ok(text)
}
