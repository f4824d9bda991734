//! [`PageWord`]: the one shape a word on a page has, whether PDFium or
//! Tesseract found it, below both the documents and the OCR that make them.

use serde::{Deserialize, Serialize};

/// A word on a page, with its box in page coordinates: for a PDF page,
/// PDF points from the page's top-left corner (y downwards, the space
/// PDFium's character boxes use, turned); for an image file, pixels of
/// the image as oriented by its EXIF tag, before any scaling. From OCR,
/// or from a PDF page's own text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageWord {
    pub text: String,
    pub left: f32,
    pub top: f32,
    pub width: f32,
    pub height: f32,
    /// Tesseract's confidence, 0–100 (100 for a PDF's own text).
    pub confidence: f32,
}

// Boxes and confidences come from integers Tesseract prints and from
// PDFium's boxes, never NaN.
impl Eq for PageWord {}
