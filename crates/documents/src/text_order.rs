//! Which order a page's text is given in: a read option (see
//! [`crate::ReadOptions`]) that the layout renderer (`page_layout.rs`)
//! acts on, kept apart from both so the options need not know the
//! renderer.

use std::str::FromStr;

/// The order of a page's text as the model reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextOrder {
    /// Visual rows rebuilt from the words' boxes (this module).
    Layout,
    /// The order the reader gives: PDFium's text for a PDF's own text,
    /// the OCR's reading order for a scan or a photo.
    Pdfium,
}

impl TextOrder {
    /// The name the CLI and the configuration file use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Layout => "layout",
            Self::Pdfium => "pdfium",
        }
    }
}

impl std::fmt::Display for TextOrder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for TextOrder {
    type Err = UnknownTextOrder;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "layout" => Ok(Self::Layout),
            "pdfium" => Ok(Self::Pdfium),
            other => Err(UnknownTextOrder(other.to_string())),
        }
    }
}

/// A name that is not `layout` or `pdfium`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a text order (layout or pdfium)")]
pub struct UnknownTextOrder(pub String);
