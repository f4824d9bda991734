//! A page's words with their boxes, as the preview shows them to click.

use serde::Serialize;
use sift_documents::Document;

use super::{PageBox, search_pages};

/// A word on a page with its box, to click.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(rename = "PageWord"))]
pub struct PageWordBox {
    /// The word as it is on the page (a run of text between spaces).
    pub text: String,
    /// Where the word is on the page.
    #[serde(rename = "box")]
    #[cfg_attr(feature = "ts", ts(rename = "box"))]
    pub bbox: PageBox,
}

/// The words of one page of a document that have boxes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PageWords {
    /// 0-based, as the preview counts pages.
    pub page: u32,
    /// How many pages the document has.
    pub page_count: u32,
    /// The page's words in reading order; empty for a file whose words have no boxes.
    pub words: Vec<PageWordBox>,
}

/// Page `page` (0-based) of `document`: its words with boxes (none for a
/// file without boxes).
pub fn page_words_of(document: &Document, page: u32) -> Option<PageWords> {
    let pages = search_pages(document);
    let found = pages.get(page as usize)?;
    Some(PageWords {
        page,
        page_count: u32::try_from(pages.len()).unwrap_or(u32::MAX),
        words: found
            .words
            .iter()
            .filter_map(|w| {
                Some(PageWordBox {
                    text: w.text.to_string(),
                    bbox: w.bbox?.into(),
                })
            })
            .collect(),
    })
}
