//! CSV and TSV, read and written by the `csv` crate, for the job exports
//! (CSV) and the labelled sets (TSV) alike: a value with a delimiter, a
//! quote or a line break is quoted and comes back as it was.
//!
//! # Formulas
//! Values come from documents and models, and a spreadsheet runs a cell
//! that starts with `=`, `+`, `-`, `@`, a tab or a carriage return as a
//! formula (which can fetch a URL or start a program). So such a cell is
//! written after a single quote, which makes a spreadsheet show it as
//! text (OWASP's rule for CSV injection), and the quote is taken off again
//! when the table is read. Numbers (`-5`, `+1.5e3`, `-1.234,50`) stay as
//! they are: a sign before digits is no formula, and a spreadsheet should
//! still read them as numbers. A value that already starts with quotes
//! before such a character gets one more, so that reading takes off
//! exactly the one added and every value comes back as it was.

use std::borrow::Cow;

use crate::error::CoreError;

/// The first characters that make a spreadsheet read a cell as a formula.
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// The quote that makes a spreadsheet show a cell as text.
const TEXT_QUOTE: char = '\'';

/// Which of the two tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Commas, records ending `\r\n` (RFC 4180, as spreadsheets expect).
    Csv,
    /// Tabs, records ending `\n` (as the corpus's manifests are written).
    Tsv,
}

impl Dialect {
    fn delimiter(self) -> u8 {
        match self {
            Self::Csv => b',',
            Self::Tsv => b'\t',
        }
    }

    fn terminator(self) -> csv::Terminator {
        match self {
            Self::Csv => csv::Terminator::CRLF,
            Self::Tsv => csv::Terminator::Any(b'\n'),
        }
    }
}

/// One record as a line with its terminator, its cells quoted where they
/// need it (a delimiter, a quote, `\r` or `\n` in them).
pub fn record_line(cells: &[String], dialect: Dialect) -> String {
    let mut writer = csv::WriterBuilder::new()
        .delimiter(dialect.delimiter())
        .terminator(dialect.terminator())
        .quote_style(csv::QuoteStyle::Necessary)
        .from_writer(Vec::new());
    // Writing to memory cannot fail, and the cells are UTF-8 in and out.
    let written = writer
        .write_record(cells.iter().map(|cell| as_text(cell).into_owned()))
        .ok()
        .and_then(|()| writer.into_inner().ok())
        .unwrap_or_default();
    String::from_utf8(written).unwrap_or_default()
}

/// Every record of `text` (a leading byte-order mark and blank lines
/// skipped, each cell trimmed); records may have different lengths.
/// Either line end is read in both dialects.
pub fn read_records(text: &str, dialect: Dialect) -> Result<Vec<Vec<String>>, CoreError> {
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(dialect.delimiter())
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_reader(text.trim_start_matches('\u{feff}').as_bytes());
    reader
        .records()
        .map(|record| {
            let record =
                record.map_err(|e| CoreError::Usage(format!("cannot read the table: {e}")))?;
            Ok(record
                .iter()
                .map(|cell| from_text(cell).to_owned())
                .collect())
        })
        .collect()
}

/// `cell` as written: after a quote when a spreadsheet would take it for
/// a formula (see the module's docs).
fn as_text(cell: &str) -> Cow<'_, str> {
    if reads_as_formula(cell.trim_start_matches(TEXT_QUOTE)) {
        Cow::Owned(format!("{TEXT_QUOTE}{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// A cell as read back: the quote [`as_text`] added taken off, and only
/// that one.
fn from_text(cell: &str) -> &str {
    match cell.strip_prefix(TEXT_QUOTE) {
        Some(rest) if reads_as_formula(rest.trim_start_matches(TEXT_QUOTE)) => rest,
        _ => cell,
    }
}

fn reads_as_formula(text: &str) -> bool {
    text.starts_with(FORMULA_STARTS) && !is_number(text)
}

/// A signed number as a table holds one: digits with `.` or `,` between
/// them, and an exponent. Nothing a spreadsheet could run.
fn is_number(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((mantissa, exponent)) => (mantissa, Some(exponent)),
        None => (unsigned, None),
    };
    let mantissa_is_number = mantissa.contains(|c: char| c.is_ascii_digit())
        && mantissa
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',');
    let exponent_is_number = exponent.is_none_or(|exponent| {
        let digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_is_number && exponent_is_number
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn a_formula_is_written_as_text_and_a_number_as_it_is() {
        let values = cells(&[
            "=HYPERLINK(\"http://x\")",
            "+1+2",
            "-2+3",
            "@SUM(A1)",
            "\tcmd",
            "\rcmd",
            "-5",
            "+1.5e3",
            "-1.234,50",
            "-",
            "'=already",
            "'plain",
            "a=b",
        ]);
        let line = record_line(&values, Dialect::Csv);
        assert_eq!(
            line,
            concat!(
                "\"'=HYPERLINK(\"\"http://x\"\")\",'+1+2,'-2+3,'@SUM(A1),'\tcmd,\"'\rcmd\",",
                "-5,+1.5e3,\"-1.234,50\",'-,''=already,'plain,a=b\r\n"
            )
        );
        assert_eq!(read_records(&line, Dialect::Csv).unwrap(), vec![values]);
    }

    #[test]
    fn a_formula_survives_a_tsv_and_a_quote_is_taken_off_only_where_added() {
        let values = cells(&["\t=1", "''-x", "'", "''", "'-5", "=1"]);
        let line = record_line(&values, Dialect::Tsv);
        assert_eq!(line, "\"'\t=1\"\t'''-x\t'\t''\t'-5\t'=1\n");
        assert_eq!(read_records(&line, Dialect::Tsv).unwrap(), vec![values]);
    }

    #[test]
    fn a_cell_with_a_tab_a_quote_and_a_line_break_comes_back_as_it_was() {
        let cells = [
            "file".to_owned(),
            "say \"hi\"\tthen\nbye".to_owned(),
            "plain".to_owned(),
        ];
        let line = record_line(&cells, Dialect::Tsv);
        assert_eq!(line, "file\t\"say \"\"hi\"\"\tthen\nbye\"\tplain\n");
        let text = format!("{line}{line}");
        assert_eq!(
            read_records(&text, Dialect::Tsv).unwrap(),
            vec![cells.to_vec(), cells.to_vec()]
        );
    }

    #[test]
    fn commas_quote_in_csv_and_blank_lines_and_a_bom_are_skipped() {
        let line = record_line(
            &["a,b".to_owned(), "x\ry".to_owned(), String::new()],
            Dialect::Csv,
        );
        assert_eq!(line, "\"a,b\",\"x\ry\",\r\n");
        assert_eq!(
            read_records("\u{feff}file\tx\r\n\n f.pdf \t 1 \n", Dialect::Tsv).unwrap(),
            vec![
                vec!["file".to_owned(), "x".to_owned()],
                vec!["f.pdf".to_owned(), "1".to_owned()]
            ]
        );
    }
}
