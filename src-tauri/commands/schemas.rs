//! The schema library: named JSON Schemas with versions, their problems
//! at their paths, and import from / export to `.json` files.

use std::path::PathBuf;

use serde_json::Value;
use sift_core::Workspace;
use sift_core::extract::schema_suggestion::{self, SchemaSuggestion, SuggestSchemaRequest};
use sift_core::schemas::check::{SchemaProblem, schema_problems};
use sift_core::schemas::{self, SavedSchema, SchemaDoc, SchemaSummary};
use tauri::State;

use crate::error::IpcResult;

#[tauri::command]
pub fn list_schemas(ws: State<'_, Workspace>) -> IpcResult<Vec<SchemaSummary>> {
    Ok(schemas::library(&ws.store()?)?)
}

/// A version of a schema (the latest when `version` is null).
#[tauri::command]
pub fn get_schema(
    name: String,
    version: Option<i64>,
    ws: State<'_, Workspace>,
) -> IpcResult<SchemaDoc> {
    Ok(schemas::get_schema(&ws.store()?, &name, version)?)
}

/// Saves a new version unless the schema has errors or equals the latest.
#[tauri::command]
pub fn save_schema(
    name: String,
    schema: Value,
    ws: State<'_, Workspace>,
) -> IpcResult<SavedSchema> {
    Ok(schemas::save_schema(&ws.store()?, &name, &schema)?)
}

/// Every problem of `schema` with its path, errors first.
#[tauri::command]
pub fn check_schema(schema: Value) -> Vec<SchemaProblem> {
    schema_problems(&schema)
}

/// Saves the schema in a `.json` file under `name` (default: the file's
/// stem); the file must be one the open dialog returned.
#[tauri::command]
pub fn import_schema(
    path: PathBuf,
    name: Option<String>,
    ws: State<'_, Workspace>,
) -> IpcResult<SchemaDoc> {
    ws.grants().check_read(&path)?;
    Ok(schemas::import_schema(&ws.store()?, &path, name.as_deref())?.into())
}

/// Writes a version of a schema (the latest when null) to `path` (from
/// `pickSavePath`), as the JSON an import reads back unchanged.
#[tauri::command]
pub fn export_schema(
    name: String,
    version: Option<i64>,
    path: PathBuf,
    ws: State<'_, Workspace>,
) -> IpcResult<()> {
    // The workspace's write checks the path against the save dialog's grant.
    let text = schemas::export_schema(&ws.store()?, &name, version)?;
    ws.write_file(&path, text.as_bytes())?;
    Ok(())
}

/// A schema suggested from a document's fields by the chosen model, for
/// the editor to open (nothing is saved).
#[tauri::command]
pub async fn suggest_schema(
    request: SuggestSchemaRequest,
    ws: State<'_, Workspace>,
) -> IpcResult<SchemaSuggestion> {
    Ok(schema_suggestion::suggest_schema(&ws, request).await?)
}
