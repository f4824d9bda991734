//! Word documents (`.docx`): the body's paragraphs a line; a table a row a
//! line, its cells separated by ` | `.
//!
//! A cell's paragraphs are joined by a space, and a line break inside a
//! cell becomes a space, so that a row stays on one line. A merged cell's
//! text is repeated in every grid cell it covers (across and down), and a
//! row that starts late (`w:gridBefore`) gets empty cells first. Empty
//! cells at the end of a row are dropped; runs of empty lines become one;
//! deleted text (tracked changes) and field codes are left out.

use std::path::Path;

use quick_xml::Reader;
use quick_xml::events::Event;

use crate::ooxml::attribute;
use crate::{DocumentError, Limits, zipguard};

pub fn read(path: &Path, bytes: &[u8], limits: &Limits) -> Result<String, DocumentError> {
    let mut archive = zipguard::open(path, bytes, limits, "Word document")?;
    let xml = zipguard::read_entry(&mut archive, "word/document.xml", path, limits)?.ok_or_else(
        || DocumentError::corrupt(path, "not a Word document (it has no word/document.xml)"),
    )?;
    let xml = std::str::from_utf8(&xml)
        .map_err(|_| DocumentError::corrupt(path, "its document.xml is not UTF-8"))?;
    body_text(xml, limits.max_chars).map_err(|e| match e {
        BodyError::Xml(e) => DocumentError::corrupt(
            path,
            format_args!("its document.xml is not valid XML ({e})"),
        ),
        BodyError::TooMuchText => DocumentError::TooMuchText {
            path: path.to_path_buf(),
            limit: limits.max_chars,
        },
    })
}

/// Why a body's text is not given.
#[derive(Debug, thiserror::Error)]
pub enum BodyError {
    #[error("{0}")]
    Xml(#[from] quick_xml::Error),
    /// The text would pass the character limit.
    #[error("the text passes the character limit")]
    TooMuchText,
}

/// The characters a body's text holds so far, checked as each cell and
/// line is made: a merged cell is repeated across (`gridSpan`) and down
/// (`vMerge`), so a few kilobytes of XML could otherwise grow into
/// gigabytes before the text is counted at the end.
#[derive(Debug)]
struct Chars {
    held: usize,
    max: usize,
}

impl Chars {
    fn add(&mut self, n: usize) -> Result<(), BodyError> {
        self.held = self.held.saturating_add(n);
        if self.held > self.max {
            return Err(BodyError::TooMuchText);
        }
        Ok(())
    }

    fn remove(&mut self, n: usize) {
        self.held = self.held.saturating_sub(n);
    }
}

#[derive(Debug, Default)]
struct Cell {
    text: String,
    span: usize,
    continues_merge: bool,
    /// The characters of nested tables' text in `text`, already counted.
    counted: usize,
}

#[derive(Debug, Default)]
struct Table {
    lines: Vec<String>,
    row: Vec<String>,
    cell: Option<Cell>,
    /// The text of the last cell that started a vertical merge, by grid column.
    merge_above: Vec<String>,
    /// The characters this table's rows hold, counted in [`Chars`].
    counted: usize,
}

impl Table {
    /// Counts the cell's copies before making them, so that a refused
    /// cell costs nothing. Each copy counts the ` | ` that separates it
    /// too, so that a row of a million empty cells is not free.
    fn push_cell(&mut self, text: String, span: usize, chars: &mut Chars) -> Result<(), BodyError> {
        let span = span.max(1);
        let n = (text.chars().count() + SEPARATOR.len()).saturating_mul(span);
        chars.add(n)?;
        self.counted = self.counted.saturating_add(n);
        for _ in 0..span {
            self.row.push(text.clone());
        }
        Ok(())
    }

    fn end_row(&mut self) {
        let row = std::mem::take(&mut self.row);
        self.lines.push(join_row(&row));
    }
}

const SEPARATOR: &str = " | ";

/// Cells joined by ` | `, without the empty cells at the end.
pub fn join_row<S: AsRef<str>>(cells: &[S]) -> String {
    let used = cells
        .iter()
        .rposition(|c| !c.as_ref().is_empty())
        .map_or(0, |i| i + 1);
    let mut line = String::new();
    for (i, cell) in cells[..used].iter().enumerate() {
        if i > 0 {
            line.push_str(SEPARATOR);
        }
        line.push_str(cell.as_ref());
    }
    line
}

/// The text of a `word/document.xml`, refused once it holds more than
/// `max_chars` characters.
pub fn body_text(xml: &str, max_chars: usize) -> Result<String, BodyError> {
    let mut reader = Reader::from_str(xml);
    let mut chars = Chars {
        held: 0,
        max: max_chars,
    };
    let mut out: Vec<String> = Vec::new();
    let mut tables: Vec<Table> = Vec::new();
    // Paragraph buffers: a text box's paragraphs nest inside a paragraph.
    let mut paragraphs: Vec<String> = Vec::new();
    let mut in_text = false;
    let mut in_tc_pr = false;
    // `w:tabs` holds tab stops, not tab characters.
    let mut in_tabs = false;

    let append = |paragraphs: &mut Vec<String>, text: &str| {
        if let Some(p) = paragraphs.last_mut() {
            p.push_str(text);
        }
    };

    loop {
        let event = reader.read_event()?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(event, Event::Empty(_));
                match e.local_name().as_ref() {
                    "p" if !empty => paragraphs.push(String::new()),
                    // An empty paragraph is an empty line (outside tables).
                    "p" if paragraphs.is_empty()
                        && tables.last().is_none_or(|t| t.cell.is_none()) =>
                    {
                        out.push(String::new());
                    }
                    "t" if !empty => in_text = true,
                    "tabs" if !empty => in_tabs = true,
                    "tab" if !in_tabs => append(&mut paragraphs, "\t"),
                    "br" | "cr" => {
                        let in_cell = tables.last().is_some_and(|t| t.cell.is_some());
                        append(&mut paragraphs, if in_cell { " " } else { "\n" });
                    }
                    "noBreakHyphen" => append(&mut paragraphs, "-"),
                    "tbl" if !empty => tables.push(Table::default()),
                    "tr" if !empty => {}
                    "gridBefore" => {
                        if let Some(table) = tables.last_mut() {
                            let n: usize = attribute(e, "val")
                                .and_then(|v| v.parse().ok())
                                .unwrap_or(0);
                            for _ in 0..n.min(64) {
                                table.row.push(String::new());
                            }
                        }
                    }
                    "tc" if !empty => {
                        if let Some(table) = tables.last_mut() {
                            table.cell = Some(Cell {
                                span: 1,
                                ..Cell::default()
                            });
                        }
                    }
                    "tcPr" if !empty => in_tc_pr = true,
                    "gridSpan" if in_tc_pr => {
                        if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                            cell.span = attribute(e, "val")
                                .and_then(|v| v.parse().ok())
                                .unwrap_or(1)
                                .clamp(1, 64);
                        }
                    }
                    "vMerge" if in_tc_pr => {
                        if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                            cell.continues_merge =
                                attribute(e, "val").is_none_or(|v| v != "restart");
                        }
                    }
                    _ => {}
                }
            }
            Event::Text(ref t) if in_text => append(&mut paragraphs, &t.xml10_content()),
            Event::CData(ref t) if in_text => append(&mut paragraphs, &t.xml10_content()),
            Event::GeneralRef(ref r) if in_text => {
                if let Ok(Some(c)) = r.resolve_char_ref() {
                    append(&mut paragraphs, c.encode_utf8(&mut [0; 4]));
                } else if let Some(s) =
                    quick_xml::escape::resolve_predefined_entity(&r.xml10_content())
                {
                    append(&mut paragraphs, s);
                }
            }
            Event::End(ref e) => match e.local_name().as_ref() {
                "t" => in_text = false,
                "tcPr" => in_tc_pr = false,
                "tabs" => in_tabs = false,
                "p" => {
                    let Some(text) = paragraphs.pop() else {
                        continue;
                    };
                    if let Some(outer) = paragraphs.last_mut() {
                        // A text box's paragraph inside another paragraph.
                        if !text.is_empty() {
                            if !outer.is_empty() {
                                outer.push(' ');
                            }
                            outer.push_str(&text);
                        }
                    } else if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        let text = text.replace('\n', " ");
                        let text = text.trim();
                        if !text.is_empty() {
                            if !cell.text.is_empty() {
                                cell.text.push(' ');
                            }
                            cell.text.push_str(text);
                        }
                    } else {
                        let line = text.trim_end().to_string();
                        chars.add(line.chars().count())?;
                        out.push(line);
                    }
                }
                "tc" => {
                    let Some(table) = tables.last_mut() else {
                        continue;
                    };
                    let Some(cell) = table.cell.take() else {
                        continue;
                    };
                    let column = table.row.len();
                    let text = if cell.continues_merge {
                        table.merge_above.get(column).cloned().unwrap_or_default()
                    } else {
                        cell.text
                    };
                    // The nested tables' text is counted again as the cell's copies.
                    chars.remove(cell.counted);
                    if table.merge_above.len() < column + cell.span {
                        table.merge_above.resize(column + cell.span, String::new());
                    }
                    for slot in &mut table.merge_above[column..column + cell.span] {
                        slot.clone_from(&text);
                    }
                    table.push_cell(text, cell.span, &mut chars)?;
                }
                "tr" => {
                    if let Some(table) = tables.last_mut() {
                        table.end_row();
                    }
                }
                "tbl" => {
                    let Some(table) = tables.pop() else { continue };
                    if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        // A table inside a cell: its rows join the cell's
                        // text, and stay counted there until the cell is made.
                        cell.counted = cell.counted.saturating_add(table.counted);
                        for line in table.lines.iter().filter(|l| !l.is_empty()) {
                            if !cell.text.is_empty() {
                                cell.text.push(' ');
                            }
                            cell.text.push_str(line);
                        }
                    } else {
                        out.extend(table.lines);
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(collapse_blank_lines(&out))
}

/// Lines joined by `\n`, with runs of empty lines made one and none at the
/// start or end.
pub fn collapse_blank_lines(lines: &[String]) -> String {
    let mut text = String::new();
    let mut blank = false;
    for line in lines {
        for line in line.split('\n') {
            if line.trim().is_empty() {
                blank = !text.is_empty();
                continue;
            }
            if !text.is_empty() {
                text.push('\n');
                if blank {
                    text.push('\n');
                }
            }
            blank = false;
            text.push_str(line);
        }
    }
    text
}
