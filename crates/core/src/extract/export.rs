//! Export of extraction results: CSV and JSONL, one row per document,
//! failed documents too.
//!
//! # CSV
//! - Columns: `file`, then the schema's properties in the schema's order,
//!   then `status` and `error`. The workspace builds serde_json with
//!   `preserve_order`, so a parsed [`Value`] (and one read back from the
//!   store) keeps that order; [`schema_columns_from_text`] reads it from
//!   the text for callers that hold only that.
//! - A property that is an object with `properties` is flattened into one
//!   column per leaf, named `a.b` (recursively: `a.b.c`).
//! - Arrays (of objects, e.g. line items, or of scalars) are **JSON in a
//!   cell**, with sorted keys ([`canonical_json`]): one row per document
//!   always holds, whatever the number of items. An object without
//!   declared `properties` is JSON in a cell as well.
//! - Strings go as they are, numbers and booleans as JSON writes them,
//!   null or missing values (and every value of a failed document) as an
//!   empty cell.
//! - RFC 4180: a cell holding a comma, a double quote, CR or LF is quoted,
//!   its quotes doubled; lines end with `\r\n`. An optional UTF-8 BOM
//!   helps Excel read the file as UTF-8.
//! - A cell a spreadsheet would run as a formula (starting with `=`, `+`,
//!   `-`, `@`, a tab or CR, and not a number) is written after a `'`, so
//!   that it shows as text (`crate::delimited`); `-5` stays `-5`.
//!
//! # JSONL
//! One object per document, `{"error","file","status","values"}`, keys
//! sorted at every level, one per line ending in `\n`.

use serde_json::{Value, json};

use crate::calls::canonical_json;
use crate::delimited::{Dialect, record_line};
use crate::evidence::{EvidenceStatus, FieldEvidence};

/// One document's result as exported.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportRow {
    /// The document's path, written in the `file` column.
    pub file: String,
    /// The document's status as stored (`completed`, `failed`, `pending`).
    pub status: String,
    /// Why the document failed; `None` exports an empty cell.
    pub error: Option<String>,
    /// The document's values (a user's revision when there is one); `None` for a document
    /// not completed, whose value cells are exported empty.
    pub values: Option<Value>,
    /// Where each value was found, when the export includes it (`None`:
    /// not asked for); see [`to_csv_with_columns`] and [`to_jsonl`].
    pub evidence: Option<Vec<FieldEvidence>>,
}

/// The CSV columns a schema gives (without `file`, `status`, `error`), each
/// as its path of property names.
pub fn schema_columns(schema: &Value) -> Vec<Vec<String>> {
    fn walk(
        properties: &serde_json::Map<String, Value>,
        prefix: &[String],
        out: &mut Vec<Vec<String>>,
    ) {
        for (name, property) in properties {
            let mut path = prefix.to_vec();
            path.push(name.clone());
            let nested = property
                .get("properties")
                .and_then(Value::as_object)
                .filter(|p| !p.is_empty() && is_object_type(property));
            match nested {
                Some(nested) => walk(nested, &path, out),
                None => out.push(path),
            }
        }
    }
    let mut out = Vec::new();
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        walk(properties, &[], &mut out);
    }
    out
}

fn is_object_type(property: &Value) -> bool {
    match property.get("type") {
        None => true,
        Some(Value::String(t)) => t == "object",
        Some(Value::Array(types)) => types.iter().any(|t| t == "object"),
        Some(_) => false,
    }
}

/// The columns of a schema given as JSON text, in the order its text
/// lists the properties (at every level): `serde_json`'s `preserve_order`
/// keeps objects' keys as written.
pub fn schema_columns_from_text(schema_text: &str) -> Result<Vec<Vec<String>>, serde_json::Error> {
    Ok(schema_columns(&serde_json::from_str(schema_text)?))
}

/// The CSV of `rows` under `schema` (see the module docs): property
/// columns in the order of `schema`'s `properties` map.
pub fn to_csv(schema: &Value, rows: &[ExportRow], bom: bool) -> String {
    to_csv_with_columns(&schema_columns(schema), rows, bom)
}

/// The CSV of `rows` with these property columns (each a path of names,
/// e.g. from [`schema_columns_from_text`]). When the rows carry evidence,
/// each column `K` is followed by the columns `K.page` (the page of its
/// best place) and `K.found` (`exact`, `normalised`, `not_found` or
/// `not_applicable`; for an array, the least found of its items' values).
pub fn to_csv_with_columns(columns: &[Vec<String>], rows: &[ExportRow], bom: bool) -> String {
    let csv = CsvRecords::new(columns.to_vec(), rows.iter().any(|r| r.evidence.is_some()));
    let mut out = csv.header(bom);
    for row in rows {
        out.push_str(&csv.record(row));
    }
    out
}

/// The CSV of [`to_csv_with_columns`] a line at a time, for an export
/// written as its rows are read (a large job is not held whole).
#[derive(Debug, Clone)]
pub struct CsvRecords {
    columns: Vec<Vec<String>>,
    /// Whether each column has its `K.page` and `K.found` beside it.
    with_evidence: bool,
}

impl CsvRecords {
    /// Records with these property columns (each a path of names), each followed by its
    /// `K.page` and `K.found` columns when `with_evidence`.
    pub fn new(columns: Vec<Vec<String>>, with_evidence: bool) -> Self {
        Self {
            columns,
            with_evidence,
        }
    }

    /// The header line, after a UTF-8 BOM when `bom`.
    pub fn header(&self, bom: bool) -> String {
        let mut out = String::new();
        if bom {
            out.push('\u{feff}');
        }
        let mut header = vec!["file".to_owned()];
        for path in &self.columns {
            let key = path.join(".");
            if self.with_evidence {
                header.extend([key.clone(), format!("{key}.page"), format!("{key}.found")]);
            } else {
                header.push(key);
            }
        }
        header.push("status".to_owned());
        header.push("error".to_owned());
        out.push_str(&record_line(&header, Dialect::Csv));
        out
    }

    /// One row's line, with its `\r\n`.
    pub fn record(&self, row: &ExportRow) -> String {
        let mut record = vec![row.file.clone()];
        for path in &self.columns {
            let value = row.values.as_ref().and_then(|values| {
                path.iter()
                    .try_fold(values, |value, key| value.get(key.as_str()))
            });
            record.push(cell(value));
            if self.with_evidence {
                let (page, found) = column_evidence(&path.join("."), row.evidence.as_deref());
                record.extend([page, found]);
            }
        }
        record.push(row.status.clone());
        record.push(row.error.clone().unwrap_or_default());
        record_line(&record, Dialect::Csv)
    }
}

/// The `K.page` and `K.found` cells of column `key`: its own evidence,
/// or its items' (`key[0].amount`, ...) for an array.
fn column_evidence(key: &str, evidence: Option<&[FieldEvidence]>) -> (String, String) {
    let item = format!("{key}[");
    let mine: Vec<&FieldEvidence> = evidence
        .unwrap_or_default()
        .iter()
        .filter(|e| e.key == key || e.key.starts_with(&item))
        .collect();
    let rank = |s: EvidenceStatus| match s {
        EvidenceStatus::NotFound => 0,
        EvidenceStatus::Normalised => 1,
        EvidenceStatus::Exact => 2,
        EvidenceStatus::NotApplicable => 3,
    };
    let Some(least) = mine.iter().map(|e| e.status).min_by_key(|s| rank(*s)) else {
        return (String::new(), String::new());
    };
    let page = mine
        .iter()
        .find_map(|e| e.places.first())
        .map(|p| p.page.to_string())
        .unwrap_or_default();
    (page, least.as_str().to_owned())
}

fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => b.to_string(),
        Some(Value::Number(n)) => n.to_string(),
        Some(other) => canonical_json(other),
    }
}

/// The JSONL of `rows`: one sorted-key object per document and line;
/// with evidence, its `evidence` object maps each value's key to where
/// it was found (`status`, `confidence`, `places`).
pub fn to_jsonl(rows: &[ExportRow]) -> String {
    rows.iter().map(jsonl_line).collect()
}

/// One row's line of [`to_jsonl`], with its `\n`.
pub fn jsonl_line(row: &ExportRow) -> String {
    let mut object = json!({
        "file": row.file,
        "status": row.status,
        "error": row.error,
        "values": row.values,
    });
    if let Some(evidence) = &row.evidence {
        let by_key: serde_json::Map<String, Value> = evidence
            .iter()
            .map(|e| {
                let found = json!({
                    "status": e.status,
                    "confidence": e.confidence,
                    "places": e.places,
                });
                (e.key.clone(), found)
            })
            .collect();
        object["evidence"] = Value::Object(by_key);
    }
    let mut out = canonical_json(&object);
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r#"{"type":"object","properties":{
                "vendor":{"type":"string"},
                "total":{"type":"number"},
                "address":{"type":"object","properties":{
                    "street":{"type":"string"},
                    "city":{"type":"string"}}},
                "items":{"type":"array","items":{"type":"object","properties":{
                    "name":{"type":"string"},"qty":{"type":"integer"}}}},
                "paid":{"type":"boolean"}
            },"required":["vendor"]}"#;

    fn schema() -> Value {
        serde_json::from_str(SCHEMA).unwrap()
    }

    fn columns() -> Vec<Vec<String>> {
        schema_columns_from_text(SCHEMA).unwrap()
    }

    fn rows() -> Vec<ExportRow> {
        vec![
            ExportRow {
                evidence: None,
                file: "a.pdf".into(),
                status: "completed".into(),
                error: None,
                values: Some(json!({
                    "vendor": "ACME, Inc. \"the best\"",
                    "total": 12.5,
                    "address": {"street": "1 Main St\nSuite 2", "city": "Zürich"},
                    "items": [{"qty": 2, "name": "bolt"}, {"name": "nut", "qty": 1}],
                    "paid": true
                })),
            },
            ExportRow {
                evidence: None,
                file: "b, c.pdf".into(),
                status: "failed".into(),
                error: Some("model said \"no\"".into()),
                values: None,
            },
            ExportRow {
                evidence: None,
                file: "d.pdf".into(),
                status: "completed".into(),
                error: None,
                values: Some(json!({"vendor": "Solo", "address": null, "total": 3})),
            },
        ]
    }

    #[test]
    fn columns_follow_schema_text_order_and_flatten_objects() {
        let columns: Vec<String> = columns().iter().map(|p| p.join(".")).collect();
        assert_eq!(
            columns,
            [
                "vendor",
                "total",
                "address.street",
                "address.city",
                "items",
                "paid"
            ]
        );
        // With the workspace's `preserve_order`, a parsed `Value` keeps the
        // schema's order too.
        let from_value: Vec<String> = schema_columns(&schema())
            .iter()
            .map(|p| p.join("."))
            .collect();
        assert_eq!(from_value, columns);
    }

    #[test]
    fn csv_is_exact_with_quoting_nesting_and_failures() {
        let csv = to_csv_with_columns(&columns(), &rows(), false);
        let expected = concat!(
            "file,vendor,total,address.street,address.city,items,paid,status,error\r\n",
            "a.pdf,\"ACME, Inc. \"\"the best\"\"\",12.5,\"1 Main St\nSuite 2\",Zürich,",
            "\"[{\"\"name\"\":\"\"bolt\"\",\"\"qty\"\":2},{\"\"name\"\":\"\"nut\"\",\"\"qty\"\":1}]\",",
            "true,completed,\r\n",
            "\"b, c.pdf\",,,,,,,failed,\"model said \"\"no\"\"\"\r\n",
            "d.pdf,Solo,3,,,,,completed,\r\n",
        );
        assert_eq!(csv, expected);
    }

    #[test]
    fn csv_bom_is_optional() {
        let schema = json!({"type":"object","properties":{"x":{"type":"string"}}});
        let rows = [ExportRow {
            evidence: None,
            file: "f".into(),
            status: "completed".into(),
            error: None,
            values: Some(json!({"x": "y"})),
        }];
        assert_eq!(
            to_csv(&schema, &rows, true),
            "\u{feff}file,x,status,error\r\nf,y,completed,\r\n"
        );
        assert_eq!(
            to_csv(&schema, &rows, false),
            "file,x,status,error\r\nf,y,completed,\r\n"
        );
    }

    #[test]
    fn a_formula_from_a_document_is_exported_as_text_and_a_number_as_a_number() {
        let schema = json!({"type":"object","properties":{
            "vendor":{"type":"string"},
            "total":{"type":"number"},
            "reference":{"type":"string"}}});
        let rows = [ExportRow {
            evidence: None,
            file: "=cmd|' /C calc'!A0.pdf".into(),
            status: "completed".into(),
            error: None,
            values: Some(json!({
                "vendor": "@SUM(1+1)*cmd|' /C calc'!A0",
                "total": -5,
                "reference": "-5"
            })),
        }];
        assert_eq!(
            to_csv(&schema, &rows, false),
            concat!(
                "file,vendor,total,reference,status,error\r\n",
                "'=cmd|' /C calc'!A0.pdf,'@SUM(1+1)*cmd|' /C calc'!A0,-5,-5,completed,\r\n"
            )
        );
    }

    #[test]
    fn jsonl_is_one_sorted_object_per_document() {
        let jsonl = to_jsonl(&rows()[1..]);
        assert_eq!(
            jsonl,
            concat!(
                r#"{"error":"model said \"no\"","file":"b, c.pdf","status":"failed","values":null}"#,
                "\n",
                r#"{"error":null,"file":"d.pdf","status":"completed","values":{"address":null,"total":3,"vendor":"Solo"}}"#,
                "\n",
            )
        );
    }
}
