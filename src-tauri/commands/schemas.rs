//! The schema library: named JSON Schemas with versions, their problems
//! at their paths, and import from / export to `.json` files.

use std::path::PathBuf;

use serde::Serialize;
use serde_json::Value;
use sift_core::schema_check::{self, Severity};
use sift_core::schemas;
use sift_core::store::{SchemaVersion, Store};
use tauri::State;
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

/// A schema in the library, by its latest version.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SchemaSummary {
    pub name: String,
    #[ts(type = "number")]
    pub latest_version: i64,
    /// Every version, oldest first.
    #[ts(type = "Array<number>")]
    pub versions: Vec<i64>,
    /// The latest version's top-level fields, in order.
    pub fields: Vec<String>,
    /// Milliseconds since the epoch, of the latest version.
    #[ts(type = "number")]
    pub updated_at: i64,
}

/// One version of a schema.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SchemaDoc {
    pub name: String,
    #[ts(type = "number")]
    pub version: i64,
    pub schema: Value,
    #[ts(type = "number")]
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

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ProblemSeverity {
    /// The schema cannot be saved or used as it is.
    Error,
    /// Accepted, but probably not what was meant.
    Warning,
}

/// A problem at its place in the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SchemaProblem {
    /// A JSON Pointer into the schema (`""`: the whole schema), e.g.
    /// `/properties/total/type`.
    pub path: String,
    pub message: String,
    pub severity: ProblemSeverity,
}

/// The outcome of a save.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SavedSchema {
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

pub(crate) fn library(store: &Store) -> IpcResult<Vec<SchemaSummary>> {
    store
        .list_schemas()?
        .into_iter()
        .map(|latest| {
            Ok(SchemaSummary {
                fields: top_level_fields(&latest.schema),
                versions: (1..=latest.version).collect(),
                latest_version: latest.version,
                updated_at: latest.created_at,
                name: latest.name,
            })
        })
        .collect()
}

pub(crate) fn problems(schema: &Value) -> Vec<SchemaProblem> {
    schema_check::schema_problems(schema)
        .into_iter()
        .map(|p| SchemaProblem {
            path: p.path,
            message: p.message,
            severity: match p.severity {
                Severity::Error => ProblemSeverity::Error,
                Severity::Warning => ProblemSeverity::Warning,
            },
        })
        .collect()
}

/// Saves a new version unless the schema has errors (their list is the
/// error's message) or equals the latest.
pub(crate) fn save(store: &Store, name: &str, schema: &Value) -> IpcResult<SavedSchema> {
    let name = name.trim();
    if name.is_empty() {
        return Err(IpcError::usage("a schema needs a name"));
    }
    let errors: Vec<String> = problems(schema)
        .into_iter()
        .filter(|p| p.severity == ProblemSeverity::Error)
        .map(|p| {
            format!(
                "{}: {}",
                if p.path.is_empty() { "/" } else { &p.path },
                p.message
            )
        })
        .collect();
    if !errors.is_empty() {
        return Err(IpcError::new("schema", errors.join("\n")));
    }
    let previous = store.get_schema(name, None)?.map(|s| s.version);
    let version = store.save_schema(name, schema)?;
    let saved = store
        .get_schema(name, Some(version))?
        .ok_or_else(|| IpcError::not_found(format!("schema {name} version {version}")))?;
    Ok(SavedSchema {
        schema: saved.into(),
        new_version: previous != Some(version),
    })
}

#[tauri::command]
pub fn list_schemas(state: State<'_, AppState>) -> IpcResult<Vec<SchemaSummary>> {
    library(&state.store()?)
}

/// A version of a schema (the latest when `version` is null).
#[tauri::command]
pub fn get_schema(
    name: String,
    version: Option<i64>,
    state: State<'_, AppState>,
) -> IpcResult<SchemaDoc> {
    let saved = state
        .store()?
        .get_schema(&name, version)?
        .ok_or_else(|| match version {
            Some(v) => IpcError::not_found(format!("no schema {name} version {v}")),
            None => IpcError::not_found(format!("no schema {name}")),
        })?;
    Ok(saved.into())
}

#[tauri::command]
pub fn save_schema(
    name: String,
    schema: Value,
    state: State<'_, AppState>,
) -> IpcResult<SavedSchema> {
    save(&state.store()?, &name, &schema)
}

/// Every problem of `schema` with its path, errors first.
#[tauri::command]
pub fn check_schema(schema: Value) -> Vec<SchemaProblem> {
    problems(&schema)
}

/// Saves the schema in a `.json` file under `name` (default: the file's
/// stem).
#[tauri::command]
pub fn import_schema(
    path: PathBuf,
    name: Option<String>,
    state: State<'_, AppState>,
) -> IpcResult<SchemaDoc> {
    let name = name.filter(|n| !n.trim().is_empty());
    Ok(schemas::import_schema(&state.store()?, &path, name.as_deref())?.into())
}

/// Writes a version of a schema (the latest when null) to `path`, as the
/// JSON an import reads back unchanged.
#[tauri::command]
pub fn export_schema(
    name: String,
    version: Option<i64>,
    path: PathBuf,
    state: State<'_, AppState>,
) -> IpcResult<()> {
    let text = schemas::export_schema(&state.store()?, &name, version)?;
    std::fs::write(&path, text).map_err(|e| IpcError::io("write", &path, &e))
}
