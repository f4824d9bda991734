//! What is left of the totals (characters, images) while files are read.

use std::path::Path;

use crate::document::{Content, Document};
use crate::error::DocumentError;
use crate::limits::Limits;

/// What is left of the totals while reading.
#[derive(Debug)]
pub(crate) struct Budget {
    pub chars_left: usize,
    pub images_left: usize,
    pub max_chars: usize,
    pub max_images: usize,
}

impl Budget {
    pub fn take_chars(&mut self, path: &Path, text: &str) -> Result<(), DocumentError> {
        // Counting stops as soon as the limit is passed.
        let count = text.chars().take(self.chars_left + 1).count();
        if count > self.chars_left {
            return Err(DocumentError::TooMuchText {
                path: path.to_path_buf(),
                limit: self.max_chars,
            });
        }
        self.chars_left -= count;
        Ok(())
    }

    pub fn take_image(&mut self, path: &Path) -> Result<(), DocumentError> {
        if self.images_left == 0 {
            return Err(DocumentError::TooManyImages {
                path: path.to_path_buf(),
                limit: self.max_images,
            });
        }
        self.images_left -= 1;
        Ok(())
    }
}

impl Budget {
    pub fn new(limits: &Limits) -> Self {
        Self {
            chars_left: limits.max_chars,
            images_left: limits.max_images,
            max_chars: limits.max_chars,
            max_images: limits.max_images,
        }
    }

    /// Charges a file's text and images, in the order a reader meets them.
    pub fn charge(&mut self, document: &Document) -> Result<(), DocumentError> {
        let path = &document.path;
        match &document.content {
            Content::Text(text) => self.take_chars(path, text),
            Content::Pages(pages) => {
                for page in pages {
                    self.take_chars(path, &page.text)?;
                    if page.image.is_some() {
                        self.take_image(path)?;
                    }
                }
                Ok(())
            }
            Content::Image(_) => {
                self.take_image(path)?;
                self.take_chars(path, document.ocr_text().unwrap_or_default())
            }
        }
    }
}
