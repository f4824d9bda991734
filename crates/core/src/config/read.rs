//! The `[read]` table of the configuration file: the order of a page's
//! text as a model reads it.
//!
//! ```toml
//! [read]
//! order = "pdfium"   # layout (the default): visual rows; pdfium: as PDFium or the OCR gives it
//! ```

use serde::Deserialize;
use sift_documents::{TextOrder, UnknownTextOrder};

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ReadTable {
    order: Option<String>,
}

impl ReadTable {
    /// The order the table names; `None` when it names none.
    pub(super) fn order(&self) -> Result<Option<TextOrder>, UnknownTextOrder> {
        self.order.as_deref().map(|o| o.trim().parse()).transpose()
    }
}
