//! A document as people see it beside its values: a PDF page or an image
//! (scaled for the screen), or the text a model reads for other kinds.

use std::path::Path;

use sift_documents::Kind;
use sift_documents::{
    Content, DocumentError, ReadOptions, kind_of, read_documents, render_pdf_page,
};

use crate::error::CoreError;

/// The long edge of a preview, in pixels: sharp on a screen, small to send.
pub const PREVIEW_EDGE: u32 = 1400;

/// What a preview shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewContent {
    Image {
        mime: String,
        data: Vec<u8>,
        width: u32,
        height: u32,
    },
    /// The text the model reads (spreadsheets, Word, text files).
    Text(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// 0-based.
    pub page: usize,
    pub page_count: usize,
    pub content: PreviewContent,
}

/// The preview of page `page` (0-based; ignored for files without pages).
pub fn preview(path: &Path, page: usize) -> Result<Preview, CoreError> {
    let options = ReadOptions::default();
    if kind_of(path) == Some(Kind::Pdf) {
        let (image, page_count) = render_pdf_page(path, page, PREVIEW_EDGE, &options)?;
        return Ok(Preview {
            page,
            page_count,
            content: PreviewContent::Image {
                mime: image.mime,
                width: image.width,
                height: image.height,
                data: image.data,
            },
        });
    }
    let mut documents = read_documents(&[path.to_path_buf()], &options)?;
    let document = documents.files.pop().ok_or_else(|| {
        CoreError::Document(DocumentError::NotFound {
            path: path.to_path_buf(),
        })
    })?;
    let content = match document.content {
        Content::Image(image) => PreviewContent::Image {
            mime: image.mime,
            width: image.width,
            height: image.height,
            data: image.data,
        },
        Content::Text(text) => PreviewContent::Text(text),
        Content::Pages(pages) => PreviewContent::Text(
            pages
                .into_iter()
                .map(|p| p.text)
                .collect::<Vec<_>>()
                .join("\n\n"),
        ),
    };
    Ok(Preview {
        page: 0,
        page_count: 1,
        content,
    })
}
