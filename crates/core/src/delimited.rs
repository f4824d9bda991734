//! CSV and TSV, read and written by the `csv` crate, for the job exports
//! (CSV) and the labelled sets (TSV) alike: a value with a delimiter, a
//! quote or a line break is quoted and comes back as it was.

use crate::error::CoreError;

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
        .write_record(cells)
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
            Ok(record.iter().map(str::to_owned).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
