//! The ground truth: a TSV with a `file` column and a column per field.

use std::collections::BTreeMap;
use std::path::Path;

use crate::delimited::{Dialect, read_records};
use crate::error::CoreError;

/// Ground truth: its columns (after `file`) and, per file name, its cells.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Truth {
    /// The field columns, in the file's order, `file` left out.
    pub columns: Vec<String>,
    /// Each row's cells by column name, keyed by its `file` cell; a row with an
    /// empty `file` is left out.
    pub rows: BTreeMap<String, BTreeMap<String, String>>,
}

impl Truth {
    /// The truth row of a document, by its file name.
    pub fn row_for(&self, file: &str) -> Option<&BTreeMap<String, String>> {
        let name = Path::new(file)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(file);
        self.rows.get(name).or_else(|| self.rows.get(file))
    }
}

/// Parses a ground-truth TSV (quoted cells as `delimited.rs` writes
/// them).
pub fn parse_truth(text: &str) -> Result<Truth, CoreError> {
    let mut records = read_records(text, Dialect::Tsv)?
        .into_iter()
        .filter(|cells| cells.iter().any(|c| !c.is_empty()));
    let header = records
        .next()
        .ok_or_else(|| CoreError::Usage("the truth file is empty".into()))?;
    let file_index = header
        .iter()
        .position(|c| c == "file")
        .ok_or_else(|| CoreError::Usage("the truth file has no `file` column".into()))?;
    let mut truth = Truth {
        columns: header
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != file_index)
            .map(|(_, c)| c.clone())
            .collect(),
        rows: BTreeMap::new(),
    };
    for cells in records {
        let Some(file) = cells.get(file_index).filter(|f| !f.is_empty()) else {
            continue;
        };
        let row = header
            .iter()
            .zip(cells.iter())
            .enumerate()
            .filter(|(i, _)| *i != file_index)
            .map(|(_, (c, v))| (c.clone(), v.clone()))
            .collect();
        truth.rows.insert(file.clone(), row);
    }
    Ok(truth)
}

/// The fields to score: the schema's columns (see
/// [`crate::extract::export::schema_columns_from_text`]) that the truth has, in the
/// columns' order.
pub fn scored_fields(columns: &[Vec<String>], truth: &Truth) -> Vec<String> {
    columns
        .iter()
        .map(|p| p.join("."))
        .filter(|f| truth.columns.contains(f))
        .collect()
}
