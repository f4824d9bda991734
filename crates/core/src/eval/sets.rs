//! Labelled sets: documents with their true values, stored in the
//! database. A set comes from a TSV (like the corpus's `MANIFEST.tsv`),
//! or from a job whose values the user checked or corrected ("Save as a
//! labelled set"); it goes back out as the same TSV.
//!
//! A set is tied to a schema version: its fields are that schema's
//! columns (`a.b` for nested objects) that have a true value somewhere.
//! Only a value someone vouched for is truth: from a job, a field is
//! taken only when the user checked it or corrected it (a correction
//! checks the field); a document with no such field is left out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;
use sift_store::{LabelledDocument, LabelledSet, NewLabelledSet, Store};

use super::truth::parse_truth;
use crate::delimited::{Dialect, record_line};
use crate::error::CoreError;
use crate::extract::export::schema_columns;
use crate::extract::{evidence_key, job_results};
use crate::workspace::Workspace;

/// A set as the Evaluate screen lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelledSetSummary {
    /// The set's name, unique among the sets.
    pub name: String,
    /// The schema the set's fields come from.
    pub schema_name: String,
    /// The version of that schema the set is tied to.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub schema_version: i64,
    /// The fields with true values (`a.b` names), in the schema's order.
    pub fields: Vec<String>,
    /// `file NAME.tsv` or `job ID`.
    pub source: String,
    /// How many documents the set has.
    pub documents: u32,
    /// When the set was made, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
}

/// One document of a set, with its true values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelledDocumentView {
    /// Where the document is on disk.
    pub path: String,
    /// The path's last component, for display.
    pub file_name: String,
    /// The document's true values by `a.b` field name; a field with no true
    /// value is absent.
    pub truth: BTreeMap<String, String>,
}

/// A set with all its documents.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LabelledSetView {
    /// The set as the list shows it.
    pub set: LabelledSetSummary,
    /// Its documents, in the set's order.
    pub documents: Vec<LabelledDocumentView>,
}

pub(crate) fn file_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_owned(), |n| n.to_string_lossy().into_owned())
}

fn summary(set: &LabelledSet) -> LabelledSetSummary {
    LabelledSetSummary {
        name: set.name.clone(),
        schema_name: set.schema_name.clone(),
        schema_version: set.schema_version,
        fields: set.fields.clone(),
        source: set.source.clone(),
        documents: u32::try_from(set.document_count).unwrap_or(u32::MAX),
        created_at: set.created_at,
    }
}

fn view(set: &LabelledSet) -> LabelledSetView {
    LabelledSetView {
        set: summary(set),
        documents: set
            .documents
            .iter()
            .map(|d| LabelledDocumentView {
                path: d.path.clone(),
                file_name: file_name(&d.path),
                truth: d.truth.clone(),
            })
            .collect(),
    }
}

/// A set's name, trimmed, that no set has yet.
fn free_name(store: &Store, name: &str) -> Result<String, CoreError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(CoreError::Usage("a labelled set needs a name".into()));
    }
    if store.labelled_set(name)?.is_some() {
        return Err(CoreError::Usage(format!(
            "a labelled set named {name:?} already exists: pick another name, or delete that set first"
        )));
    }
    Ok(name.to_owned())
}

/// The schema's scalar columns as `a.b` keys, in the schema's order.
fn column_keys(schema: &Value) -> Vec<String> {
    schema_columns(schema)
        .iter()
        .map(|path| path.join("."))
        .collect()
}

/// Every set, by name.
pub fn list_sets(store: &Store) -> Result<Vec<LabelledSetSummary>, CoreError> {
    Ok(store.labelled_sets()?.iter().map(summary).collect())
}

/// A set with its documents; not found is an error.
pub fn get_set(store: &Store, name: &str) -> Result<LabelledSetView, CoreError> {
    Ok(view(&stored_set(store, name)?))
}

pub(crate) fn stored_set(store: &Store, name: &str) -> Result<LabelledSet, CoreError> {
    store
        .labelled_set(name)?
        .ok_or_else(|| CoreError::NotFound(format!("no labelled set named {name:?}")))
}

/// Deletes a set and its evaluation runs; false when there was none.
pub fn delete_set(store: &Store, name: &str) -> Result<bool, CoreError> {
    Ok(store.delete_labelled_set(name)?)
}

/// A set from a ground-truth TSV: its `file` column names each document
/// (relative to the TSV's folder, or absolute), and the columns named as
/// `schema`'s fields hold their true values (`schema_version` `None`:
/// the latest). Rows with no value for any field are left out; a file
/// that is not there is an error naming it.
pub fn import_set(
    store: &Store,
    name: &str,
    tsv: &Path,
    schema_name: &str,
    schema_version: Option<i64>,
) -> Result<LabelledSetSummary, CoreError> {
    let name = free_name(store, name)?;
    let text = std::fs::read_to_string(tsv).map_err(|e| {
        CoreError::Usage(format!("cannot read the truth file {}: {e}", tsv.display()))
    })?;
    let truth = parse_truth(&text)?;
    let schema = store
        .get_schema(schema_name, schema_version)?
        .ok_or_else(|| CoreError::NotFound(format!("no schema {schema_name}")))?;
    let fields: Vec<String> = column_keys(&schema.schema)
        .into_iter()
        .filter(|f| truth.columns.contains(f))
        .collect();
    if fields.is_empty() {
        return Err(CoreError::Usage(format!(
            "no field of the schema {schema_name} has a column in {}",
            tsv.display()
        )));
    }
    let folder = tsv.parent().map_or_else(PathBuf::new, Path::to_path_buf);
    let mut documents = Vec::new();
    for (file, row) in &truth.rows {
        let cells: BTreeMap<String, String> = fields
            .iter()
            .filter_map(|f| {
                let value = row.get(f).map(|v| v.trim()).unwrap_or_default();
                (!value.is_empty()).then(|| (f.clone(), value.to_owned()))
            })
            .collect();
        if cells.is_empty() {
            continue;
        }
        let path = folder.join(file);
        if !path.is_file() {
            return Err(CoreError::Usage(format!(
                "the set's document {file} is not at {}",
                path.display()
            )));
        }
        let path = path.canonicalize().unwrap_or(path);
        documents.push(LabelledDocument {
            path: path.display().to_string(),
            truth: cells,
        });
    }
    if documents.is_empty() {
        return Err(CoreError::Usage(format!(
            "no row of {} has a value for {}",
            tsv.display(),
            fields.join(", ")
        )));
    }
    let source = format!("file {}", file_name(&tsv.display().to_string()));
    let set = store.create_labelled_set(NewLabelledSet {
        name,
        schema_name: schema.name,
        schema_version: schema.version,
        fields,
        source,
        documents,
    })?;
    Ok(summary(&set))
}

/// A value as a truth cell: text as it is, numbers and booleans as JSON
/// writes them; nothing for null, objects and lists.
fn truth_cell(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// "Save as a labelled set": a finished job's values that the user
/// checked or corrected become the truth of its documents.
pub fn set_from_job(
    store: &Store,
    job_id: &str,
    name: &str,
) -> Result<LabelledSetSummary, CoreError> {
    let name = free_name(store, name)?;
    let job = store
        .get_extraction_job(job_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no extraction job {job_id}")))?;
    let columns = schema_columns(&job.schema);
    let mut fields: Vec<String> = Vec::new();
    let mut documents = Vec::new();
    for result in job_results(store, job_id)? {
        let Some(values) = result.values() else {
            continue;
        };
        let mut truth = BTreeMap::new();
        for path in &columns {
            if !result.checked.contains(&evidence_key(path)) {
                continue;
            }
            let value = path.iter().try_fold(values, |v, key| v.get(key));
            if let Some(cell) = value.and_then(truth_cell) {
                truth.insert(path.join("."), cell);
            }
        }
        if truth.is_empty() {
            continue;
        }
        for key in truth.keys() {
            if !fields.contains(key) {
                fields.push(key.clone());
            }
        }
        documents.push(LabelledDocument {
            path: result.document.path.clone(),
            truth,
        });
    }
    if documents.is_empty() {
        return Err(CoreError::Usage(format!(
            "no value of job {job_id} is checked or corrected: check the values you trust, then save the set"
        )));
    }
    // In the schema's order, not the order first seen.
    let order = column_keys(&job.schema);
    fields.sort_by_key(|f| order.iter().position(|o| o == f));
    let set = store.create_labelled_set(NewLabelledSet {
        name,
        schema_name: job.schema_name,
        schema_version: job.schema_version,
        fields,
        source: format!("job {job_id}"),
        documents,
    })?;
    Ok(summary(&set))
}

/// A set as a TSV that [`import_set`] reads back: `file` (the absolute
/// path) and a column per field; a cell a spreadsheet would run as a
/// formula goes after a `'`, which the import takes off again.
pub fn set_tsv(set: &LabelledSet) -> String {
    let mut header = vec!["file".to_owned()];
    header.extend(set.fields.iter().cloned());
    let mut out = record_line(&header, Dialect::Tsv);
    for document in &set.documents {
        let mut cells = vec![document.path.clone()];
        cells.extend(
            set.fields
                .iter()
                .map(|field| document.truth.get(field).cloned().unwrap_or_default()),
        );
        out.push_str(&record_line(&cells, Dialect::Tsv));
    }
    out
}

/// Writes a set as a TSV to `path` (in the app, a path the save dialog
/// granted; any other is refused). Returns the documents written.
pub fn export_set(ws: &Workspace, name: &str, path: &Path) -> Result<u32, CoreError> {
    let target = ws.grants().check_write(path)?;
    let set = stored_set(&ws.store()?, name)?;
    crate::atomic_file::write_atomically(&target, set_tsv(&set).as_bytes())?;
    Ok(u32::try_from(set.documents.len()).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_with_a_tab_a_quote_and_a_line_break_survives_export_and_import() {
        let value = "Acme \"Tools\"\tGmbH\nBerlin";
        let set = LabelledSet {
            name: "s".into(),
            schema_name: "invoice".into(),
            schema_version: 1,
            fields: vec!["seller".into(), "total".into()],
            source: "job j".into(),
            created_at: 0,
            document_count: 1,
            documents: vec![LabelledDocument {
                path: "/in/a\tb.pdf".into(),
                truth: BTreeMap::from([
                    ("seller".to_owned(), value.to_owned()),
                    ("total".to_owned(), "4.11".to_owned()),
                ]),
            }],
        };
        let truth = parse_truth(&set_tsv(&set)).unwrap();
        assert_eq!(truth.columns, ["seller", "total"]);
        assert_eq!(truth.rows["/in/a\tb.pdf"]["seller"], value);
        assert_eq!(truth.rows["/in/a\tb.pdf"]["total"], "4.11");
    }

    #[test]
    fn a_formula_is_exported_as_text_and_imported_as_it_was() {
        let set = LabelledSet {
            name: "s".into(),
            schema_name: "invoice".into(),
            schema_version: 1,
            fields: vec!["seller".into(), "total".into(), "note".into()],
            source: "job j".into(),
            created_at: 0,
            document_count: 1,
            documents: vec![LabelledDocument {
                path: "=x.pdf".into(),
                truth: BTreeMap::from([
                    ("seller".to_owned(), "=HYPERLINK(\"http://x\")".to_owned()),
                    ("total".to_owned(), "-5".to_owned()),
                    ("note".to_owned(), "'@quoted".to_owned()),
                ]),
            }],
        };
        let tsv = set_tsv(&set);
        assert_eq!(
            tsv,
            "file\tseller\ttotal\tnote\n'=x.pdf\t\"'=HYPERLINK(\"\"http://x\"\")\"\t-5\t''@quoted\n"
        );
        let truth = parse_truth(&tsv).unwrap();
        assert_eq!(truth.rows["=x.pdf"], set.documents[0].truth);
    }

    #[test]
    fn numbers_and_text_are_truth_and_nothing_else_is() {
        assert_eq!(truth_cell(&serde_json::json!(4.11)), Some("4.11".into()));
        assert_eq!(
            truth_cell(&serde_json::json!(" INV-1 ")),
            Some("INV-1".into())
        );
        assert_eq!(truth_cell(&serde_json::json!(null)), None);
        assert_eq!(truth_cell(&serde_json::json!("")), None);
        assert_eq!(truth_cell(&serde_json::json!([1])), None);
    }
}
