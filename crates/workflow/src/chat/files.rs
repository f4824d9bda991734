//! `with.files`: read once each, in the order named, before any request.

use std::path::Path;

use serde_json::Value;
use sift_documents::{Documents, ReadOptions, read_documents, resolve_files};

use crate::file_gate::FileGate;

/// The files the specs name, read; `None` when there are none. A spec
/// that is a JSON list (as an earlier step publishes one) names each entry.
/// Every file passes `gate` before any is read, so a refused one fails the
/// step with nothing sent.
pub(crate) async fn read(
    specs: &[String],
    dir: &Path,
    options: &ReadOptions,
    gate: &FileGate,
) -> Result<Option<Documents>, String> {
    if specs.is_empty() {
        return Ok(None);
    }
    let mut expanded = Vec::new();
    for spec in specs {
        match serde_json::from_str::<Value>(spec.trim()) {
            Ok(Value::Array(items)) if spec.trim().starts_with('[') => {
                expanded.extend(items.iter().map(|v| match v {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }));
            }
            _ => expanded.push(spec.clone()),
        }
    }
    let paths = resolve_files(&expanded, dir).map_err(|e| e.to_string())?;
    for path in &paths {
        gate.check(path)?;
    }
    let options = options.clone();
    tokio::task::spawn_blocking(move || read_documents(&paths, &options))
        .await
        .map_err(|e| format!("reading the files stopped unexpectedly: {e}"))?
        .map(Some)
        .map_err(|e| e.to_string())
}
