//! A document as people see it beside its values: a PDF page or an image
//! (scaled for the screen), or the text a model reads for other kinds.
//! The app's preview reads only a document of an extraction job: its
//! path comes from the webview, which is not trusted with the disk.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde::Serialize;
use sift_documents::Kind;
use sift_documents::{
    Content, DocumentError, ReadOptions, kind_of, read_documents, render_pdf_page,
};
use sift_store::Store;

use crate::error::CoreError;
use crate::workspace::Workspace;

/// The long edge of a preview, in pixels: sharp on a screen, small to send.
pub const PREVIEW_EDGE: u32 = 1400;

/// What a preview shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PreviewContent {
    /// A PDF page rendered with its long edge at most [`PREVIEW_EDGE`] pixels, or an image file
    /// as the document reader prepared it.
    Image {
        /// The image's media type (`image/png`, `image/jpeg`).
        mime: String,
        /// The encoded image bytes.
        data: Vec<u8>,
        /// Width in pixels.
        width: u32,
        /// Height in pixels.
        height: u32,
    },
    /// The text the model reads (spreadsheets, Word, text files).
    Text(String),
}

/// One page of a document as a preview shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    /// 0-based.
    pub page: usize,
    /// How many pages the document has; 1 for a file without pages.
    pub page_count: usize,
    /// The page as a picture, or the document's text.
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

/// A page of a PDF or an image as a `data:` URL, or the text a model
/// reads for other kinds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct DocumentPreview {
    /// The document's path, as the job recorded it.
    pub path: String,
    /// 0-based.
    pub page: u32,
    /// How many pages the document has; 1 for a file without pages.
    pub page_count: u32,
    /// `data:image/png;base64,...` (the CSP allows `data:` images);
    /// `null` for text.
    pub data_url: Option<String>,
    /// The image's width in pixels; 0 for text.
    pub width: u32,
    /// The image's height in pixels; 0 for text.
    pub height: u32,
    /// Set for kinds shown as text (spreadsheets, Word, text files).
    pub text: Option<String>,
}

impl DocumentPreview {
    fn of(path: &Path, shown: Preview) -> Self {
        let (data_url, width, height, text) = match shown.content {
            PreviewContent::Image {
                mime,
                data,
                width,
                height,
            } => (
                Some(format!(
                    "data:{mime};base64,{}",
                    base64::engine::general_purpose::STANDARD.encode(data)
                )),
                width,
                height,
                None,
            ),
            PreviewContent::Text(text) => (None, 0, 0, Some(text)),
        };
        Self {
            path: path.display().to_string(),
            page: u32::try_from(shown.page).unwrap_or(u32::MAX),
            page_count: u32::try_from(shown.page_count).unwrap_or(u32::MAX),
            data_url,
            width,
            height,
            text,
        }
    }
}

/// Whether `path` (as the job recorded it) is a document of some
/// extraction job in the store.
pub(crate) fn is_job_document(store: &Store, path: &str) -> Result<bool, CoreError> {
    for job in store.list_extraction_jobs(u32::MAX)? {
        if store
            .extraction_documents(&job.id)?
            .iter()
            .any(|d| d.path == path)
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Page `page` (0-based) of a document of an extraction job, for the row
/// detail; any other path is refused, unread. Rendering a page takes a
/// moment, so it runs off the caller's thread.
pub async fn preview_document(
    ws: &Workspace,
    path: &str,
    page: u32,
) -> Result<DocumentPreview, CoreError> {
    let store = ws.store()?;
    if !is_job_document(&store, path)? {
        return Err(CoreError::NotFound(format!(
            "{path} is not a document of any extraction job"
        )));
    }
    let path = PathBuf::from(path);
    tokio::task::spawn_blocking(move || {
        preview(&path, page as usize).map(|shown| DocumentPreview::of(&path, shown))
    })
    .await
    .map_err(|e| CoreError::Internal(format!("the preview stopped: {e}")))?
}
