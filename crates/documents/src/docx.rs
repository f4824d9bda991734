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
use quick_xml::events::{BytesStart, Event};

use crate::{DocumentError, Limits, zipguard};

pub fn read(path: &Path, bytes: &[u8], limits: &Limits) -> Result<String, DocumentError> {
    let mut archive = zipguard::open(path, bytes, limits, "Word document")?;
    let xml = zipguard::read_entry(&mut archive, "word/document.xml", path, limits)?.ok_or_else(
        || DocumentError::corrupt(path, "not a Word document (it has no word/document.xml)"),
    )?;
    let xml = std::str::from_utf8(&xml)
        .map_err(|_| DocumentError::corrupt(path, "its document.xml is not UTF-8"))?;
    body_text(xml).map_err(|e| {
        DocumentError::corrupt(
            path,
            format_args!("its document.xml is not valid XML ({e})"),
        )
    })
}

#[derive(Debug, Default)]
struct Cell {
    text: String,
    span: usize,
    continues_merge: bool,
}

#[derive(Debug, Default)]
struct Table {
    lines: Vec<String>,
    row: Vec<String>,
    cell: Option<Cell>,
    /// The text of the last cell that started a vertical merge, by grid column.
    merge_above: Vec<String>,
}

impl Table {
    fn push_cell(&mut self, text: String, span: usize) {
        let span = span.max(1);
        for _ in 0..span {
            self.row.push(text.clone());
        }
    }

    fn end_row(&mut self) {
        let row = std::mem::take(&mut self.row);
        self.lines.push(join_row(&row));
    }
}

/// Cells joined by ` | `, without the empty cells at the end.
pub fn join_row<S: AsRef<str>>(cells: &[S]) -> String {
    let used = cells
        .iter()
        .rposition(|c| !c.as_ref().is_empty())
        .map_or(0, |i| i + 1);
    let mut line = String::new();
    for (i, cell) in cells[..used].iter().enumerate() {
        if i > 0 {
            line.push_str(" | ");
        }
        line.push_str(cell.as_ref());
    }
    line
}

fn attr(element: &BytesStart<'_>, local: &str) -> Option<String> {
    element
        .attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == local)
        .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
        .map(|v| v.into_owned())
}

/// The text of a `word/document.xml`.
pub fn body_text(xml: &str) -> Result<String, quick_xml::Error> {
    let mut reader = Reader::from_str(xml);
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
                            let n: usize = attr(e, "val").and_then(|v| v.parse().ok()).unwrap_or(0);
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
                            cell.span = attr(e, "val")
                                .and_then(|v| v.parse().ok())
                                .unwrap_or(1)
                                .clamp(1, 64);
                        }
                    }
                    "vMerge" if in_tc_pr => {
                        if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                            cell.continues_merge = attr(e, "val").is_none_or(|v| v != "restart");
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
                        out.push(text.trim_end().to_string());
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
                    if table.merge_above.len() < column + cell.span {
                        table.merge_above.resize(column + cell.span, String::new());
                    }
                    for slot in &mut table.merge_above[column..column + cell.span] {
                        slot.clone_from(&text);
                    }
                    table.push_cell(text, cell.span);
                }
                "tr" => {
                    if let Some(table) = tables.last_mut() {
                        table.end_row();
                    }
                }
                "tbl" => {
                    let Some(table) = tables.pop() else { continue };
                    if let Some(cell) = tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        // A table inside a cell: its rows join the cell's text.
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
