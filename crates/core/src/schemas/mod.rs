//! Schemas: the library (here), a schema's problems ([`check`]) and the
//! schemas a new library starts with (`starters.rs`). It needs only the
//! store, so the workspace can install the starters when it opens one.
//!
//! The schema library: named JSON Schemas with versions, imported from and
//! exported to `.json` files. Every way into the library (a save, an
//! import) checks the schema with [`check_usable`] first.

pub mod check;
pub(crate) mod starters;

use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use sift_store::{SchemaVersion, Store};

use crate::error::CoreError;
use crate::schemas::check::check_usable;

/// A schema in the library, by its latest version.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SchemaSummary {
    /// The schema's name in the library.
    pub name: String,
    /// The latest version's number (versions count from 1).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub latest_version: i64,
    /// Every version, oldest first.
    #[cfg_attr(feature = "ts", ts(type = "Array<number>"))]
    pub versions: Vec<i64>,
    /// The latest version's top-level fields, in order.
    pub fields: Vec<String>,
    /// Milliseconds since the epoch, of the latest version.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub updated_at: i64,
}

/// One version of a schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SchemaDoc {
    /// The schema's name in the library.
    pub name: String,
    /// The version's number, from 1.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub version: i64,
    /// The JSON Schema of this version.
    pub schema: Value,
    /// When this version was saved, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
}

impl From<SchemaVersion> for SchemaDoc {
    fn from(saved: SchemaVersion) -> Self {
        Self {
            name: saved.name,
            version: saved.version,
            schema: saved.schema,
            created_at: saved.created_at,
        }
    }
}

/// The outcome of a save.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SavedSchema {
    /// The version saved, or the latest one when the schema equalled it.
    pub schema: SchemaDoc,
    /// False when the schema equalled the latest version (no new one).
    pub new_version: bool,
}

fn top_level_fields(schema: &Value) -> Vec<String> {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// Every schema of the library, by its latest version.
pub fn library(store: &Store) -> Result<Vec<SchemaSummary>, CoreError> {
    Ok(store
        .list_schemas()?
        .into_iter()
        .map(|latest| SchemaSummary {
            fields: top_level_fields(&latest.schema),
            versions: (1..=latest.version).collect(),
            latest_version: latest.version,
            updated_at: latest.created_at,
            name: latest.name,
        })
        .collect())
}

/// A version of a schema (the latest when `version` is `None`).
pub fn get_schema(store: &Store, name: &str, version: Option<i64>) -> Result<SchemaDoc, CoreError> {
    store
        .get_schema(name, version)?
        .map(SchemaDoc::from)
        .ok_or_else(|| match version {
            Some(v) => CoreError::NotFound(format!("no schema {name} version {v}")),
            None => CoreError::NotFound(format!("no schema {name}")),
        })
}

/// Saves a new version under `name` (trimmed) unless the schema is not
/// usable or equals the latest.
pub fn save_schema(store: &Store, name: &str, schema: &Value) -> Result<SavedSchema, CoreError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(CoreError::Usage("a schema needs a name".into()));
    }
    check_usable(schema)?;
    let previous = store.get_schema(name, None)?.map(|s| s.version);
    let version = store.save_schema(name, schema)?;
    Ok(SavedSchema {
        schema: get_schema(store, name, Some(version))?,
        new_version: previous != Some(version),
    })
}

/// Reads the schema in a `.json` file (refused as the CLI's usage error
/// when it cannot be read or is not JSON).
pub fn read_schema_file(path: &Path) -> Result<Value, CoreError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CoreError::Usage(format!("cannot read the schema {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| CoreError::Usage(format!("the schema {} is not JSON: {e}", path.display())))
}

/// The schema a command line names, as `(name, schema)`: a `.json` file
/// when `arg` is one (saved under its stem, as before), else the latest
/// version of the library schema of that name (`--schema invoice`).
pub fn schema_by_file_or_name(store: &Store, arg: &Path) -> Result<(String, Value), CoreError> {
    if arg.is_file() {
        let name = name_of_file(arg).unwrap_or_else(|| "schema".into());
        return Ok((name, read_schema_file(arg)?));
    }
    let name = arg.to_string_lossy();
    let is_name = arg.components().count() == 1 && arg.extension().is_none();
    if let Some(found) = is_name
        .then(|| store.get_schema(&name, None))
        .transpose()?
        .flatten()
    {
        return Ok((found.name, found.schema));
    }
    let names: Vec<String> = store.list_schemas()?.into_iter().map(|s| s.name).collect();
    let known = if names.is_empty() {
        "the library is empty".to_owned()
    } else {
        format!("the library has {}", names.join(", "))
    };
    Err(CoreError::Usage(format!(
        "no schema file {} and no library schema named {name} ({known})",
        arg.display()
    )))
}

/// The name a schema file is saved under: its stem.
pub fn name_of_file(path: &Path) -> Option<String> {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
}

/// Saves the schema in `path` under `name` (default: the file's stem;
/// a blank name counts as none). A new version is made only when it
/// differs from the latest.
pub fn import_schema(
    store: &Store,
    path: &Path,
    name: Option<&str>,
) -> Result<SchemaVersion, CoreError> {
    let schema = read_schema_file(path)?;
    check_usable(&schema)?;
    let name = match name.filter(|n| !n.trim().is_empty()) {
        Some(name) => name.to_owned(),
        None => name_of_file(path).ok_or_else(|| {
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
    let saved = get_schema(store, name, version)?;
    let mut text = serde_json::to_string_pretty(&saved.schema).unwrap_or_default();
    text.push('\n');
    Ok(text)
}
