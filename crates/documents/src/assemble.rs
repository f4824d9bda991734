//! Putting the files in front of the last user message (see the crate
//! documentation for the block format).

use sift_llm::message::{Image, Message, Part, Role};

use crate::{Content, DocumentError, Documents};

/// The `name` attribute of a file's block: the name with `&`, `"`, `<` and
/// `>` escaped.
pub fn block_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            other => out.push(other),
        }
    }
    out
}

/// The text the model receives for the files: one block a file, separated
/// by a blank line. Images are numbered from 1 across all files.
pub fn render_text(documents: &Documents) -> String {
    let mut out = String::new();
    let mut image_number = 0;
    for (i, document) in documents.files.iter().enumerate() {
        if i > 0 {
            out.push_str("\n\n");
        }
        out.push_str("<file name=\"");
        out.push_str(&block_name(&document.name));
        out.push_str("\">\n");
        let mut body = String::new();
        match &document.content {
            Content::Text(text) if document.image_omitted() => {
                if document.ocr.is_some() {
                    body.push_str(&format!(
                        "[Image omitted: {}; the model reads its text.]",
                        document.name
                    ));
                } else {
                    body.push_str(&format!("[Image omitted: {}.]", document.name));
                }
                if !text.is_empty() {
                    body.push('\n');
                    body.push_str(text);
                }
            }
            Content::Text(text) => body.push_str(text),
            Content::Pages(pages) => {
                for page in pages {
                    if !body.is_empty() {
                        body.push('\n');
                    }
                    if page.image.is_some() {
                        image_number += 1;
                        body.push_str(&format!(
                            "--- page {}: image {image_number} ---",
                            page.number
                        ));
                    } else if page.image_omitted && page.ocr.is_some() {
                        body.push_str(&format!(
                            "--- page {}: image omitted, the model reads its text ---",
                            page.number
                        ));
                    } else if page.image_omitted {
                        body.push_str(&format!("--- page {}: image omitted ---", page.number));
                    } else {
                        body.push_str(&format!("--- page {} ---", page.number));
                    }
                    if !page.text.is_empty() {
                        body.push('\n');
                        body.push_str(&page.text);
                    }
                }
            }
            Content::Image(_) => {
                image_number += 1;
                body.push_str(&format!("[Image {image_number} is {}.]", document.name));
                if let Some(text) = document.ocr_text() {
                    body.push('\n');
                    body.push_str(text);
                }
            }
        }
        let body = body.trim_end_matches('\n');
        out.push_str(body);
        if !body.is_empty() {
            out.push('\n');
        }
        out.push_str("</file>");
    }
    out
}

/// Puts the files in front of the last user message: their text ahead of
/// the message's text (followed by a blank line), their images after its
/// parts, in order. Nothing changes when there are no files.
pub fn attach(messages: &mut [Message], documents: &Documents) -> Result<(), DocumentError> {
    if documents.files.is_empty() {
        return Ok(());
    }
    let message = messages
        .iter_mut()
        .rev()
        .find(|m| m.role == Role::User)
        .ok_or(DocumentError::NoUserMessage)?;
    let files = render_text(documents);
    match message.parts.iter_mut().find_map(|p| match p {
        Part::Text { text } => Some(text),
        _ => None,
    }) {
        Some(text) => {
            *text = if text.is_empty() {
                files
            } else {
                format!("{files}\n\n{text}")
            };
        }
        None => message.parts.insert(0, Part::Text { text: files }),
    }
    for image in documents.images() {
        message.parts.push(Part::Image(Image {
            mime: image.mime.clone(),
            data: image.data.clone(),
        }));
    }
    Ok(())
}
