//! What a read gives: the kinds of files and the documents, their pages
//! and images (data only; reading is in [`crate::read`]).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::ocr::OcrPage;
pub use crate::page_word::PageWord;

/// The kind of a file, from its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    Text,
    Word,
    Excel,
    Pdf,
    Image,
}

/// The kind a path's extension names, or `None` for a kind Sift does not read.
pub fn kind_of(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "txt" | "md" | "csv" | "tsv" | "json" | "jsonl" | "yaml" | "yml" | "xml" | "html"
        | "htm" | "log" => Kind::Text,
        "docx" => Kind::Word,
        "xlsx" | "xlsm" => Kind::Excel,
        "pdf" => Kind::Pdf,
        "png" | "jpg" | "jpeg" | "gif" | "webp" => Kind::Image,
        _ => return None,
    })
}

/// An image as the model receives it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocImage {
    /// What the image is: the file name (`receipt.png`), or the file name
    /// and page for a rendered page (`scan.pdf page 2`).
    pub name: String,
    /// `image/jpeg` or `image/png` (or the original's type when it was
    /// already compact and needed no change).
    pub mime: String,
    pub width: u32,
    pub height: u32,
    /// The encoded bytes (base64 when serialised: a reader process sends
    /// them so, a third larger rather than four times as a JSON array).
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
}

impl std::fmt::Debug for DocImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DocImage")
            .field("name", &self.name)
            .field("mime", &self.mime)
            .field("width", &self.width)
            .field("height", &self.height)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// The words of a page, line by line in reading order, in page
/// coordinates ([`PageWord`]), with the page's size in them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WordLines {
    pub width: f32,
    pub height: f32,
    pub lines: Vec<Vec<PageWord>>,
}

// Sizes and boxes come from page sizes and PDFium's or Tesseract's boxes,
// never NaN.
impl Eq for WordLines {}

/// One page of a PDF.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Page {
    /// From 1.
    pub number: usize,
    /// The page's text as the model reads it: its own text; for a page
    /// without visible text of its own, its invisible text, or what OCR
    /// read on it when OCR ran (which replaces an empty or garbage layer).
    pub text: String,
    /// The rendered page, for a page without visible text of its own
    /// (unless the model cannot take images).
    pub image: Option<DocImage>,
    /// A page without visible text of its own that was not rendered,
    /// because the model cannot take images.
    pub image_omitted: bool,
    /// What OCR read on the page, with its words' boxes, when it ran.
    pub ocr: Option<OcrPage>,
    /// The words of the page's own text with their boxes, when they were
    /// asked for ([`crate::ReadOptions::word_boxes`]) and OCR did not
    /// replace that text.
    pub text_words: Option<WordLines>,
}

/// What a file holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Content {
    /// Text, Word and Excel files; and an image file read for a model that
    /// cannot take images (its OCR text, or nothing with OCR off).
    Text(String),
    /// A PDF.
    Pages(Vec<Page>),
    /// An image file.
    Image(DocImage),
}

impl Content {
    /// Characters of the file's own text (not counting markers).
    pub fn chars(&self) -> usize {
        match self {
            Self::Text(text) => text.chars().count(),
            Self::Pages(pages) => pages.iter().map(|p| p.text.chars().count()).sum(),
            Self::Image(_) => 0,
        }
    }

    /// The file's images, in order.
    pub fn images(&self) -> Vec<&DocImage> {
        match self {
            Self::Text(_) => Vec::new(),
            Self::Pages(pages) => pages.iter().filter_map(|p| p.image.as_ref()).collect(),
            Self::Image(image) => vec![image],
        }
    }
}

/// One file, read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    pub path: PathBuf,
    /// The file name without its directory.
    pub name: String,
    pub kind: Kind,
    pub content: Content,
    /// For an image file, what OCR read on it when OCR ran.
    pub ocr: Option<OcrPage>,
    /// For a PDF read with [`crate::ReadOptions::invoice_xml`], the
    /// e-invoice XML it carries, if any.
    #[serde(default)]
    pub invoice_xml: Option<EmbeddedXml>,
}

impl Document {
    /// An image file whose image the model does not receive.
    pub fn image_omitted(&self) -> bool {
        self.kind == Kind::Image && !matches!(self.content, Content::Image(_))
    }

    /// The text the model reads besides the file's own: an image file's
    /// OCR text, when the image is sent with it.
    pub fn ocr_text(&self) -> Option<&str> {
        match (&self.content, &self.ocr) {
            (Content::Image(_), Some(ocr)) if !ocr.text.is_empty() => Some(&ocr.text),
            _ => None,
        }
    }
}

/// The files, read in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Documents {
    pub files: Vec<Document>,
}

impl Documents {
    /// All images in the order the model receives them (image 1 first).
    pub fn images(&self) -> Vec<&DocImage> {
        self.files.iter().flat_map(|d| d.content.images()).collect()
    }

    /// Characters of text in all files.
    pub fn chars(&self) -> usize {
        self.files
            .iter()
            .map(|d| d.content.chars() + d.ocr_text().map_or(0, |t| t.chars().count()))
            .sum()
    }
}

pub(crate) mod base64_bytes {
    use base64::Engine;
    use base64::engine::general_purpose::STANDARD;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(deserializer)?;
        STANDARD
            .decode(text.as_bytes())
            .map_err(serde::de::Error::custom)
    }
}

/// An XML file a PDF carries as an attachment.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct EmbeddedXml {
    /// Its name in the PDF (`factur-x.xml`, `ZUGFeRD-invoice.xml`).
    pub name: String,
    /// Base64 when serialised, as a reader process sends it.
    #[serde(with = "base64_bytes")]
    pub bytes: Vec<u8>,
}
