//! A document's e-invoice data, when it has some: the invoice XML a
//! hybrid PDF carries (Factur-X, ZUGFeRD, through PDFium), or a dropped
//! XRechnung or UBL `.xml` itself. Its values are exact, so a job that
//! locates fields takes them first and asks nobody for them; an XML that
//! is broken or not an invoice leaves the page to be read as before.

use serde_json::Value;
use sift_documents::{Content, Document, Kind, ReadOptions, embedded_invoice_xml};

use crate::error::CoreError;
use crate::evidence::locator::einvoice_fields;

/// The values `document`'s e-invoice gives `schema`'s fields, by key:
/// none for a document without one, or whose XML does not read as an
/// invoice.
pub(super) async fn einvoice_values(
    document: &Document,
    schema: &Value,
    options: &ReadOptions,
) -> Result<Vec<(String, Value)>, CoreError> {
    let xml = match (&document.kind, &document.content) {
        (Kind::Pdf, _) => {
            let (path, options) = (document.path.clone(), options.clone());
            let embedded =
                tokio::task::spawn_blocking(move || embedded_invoice_xml(&path, &options))
                    .await
                    .map_err(|e| {
                        CoreError::Internal(format!("reading the PDF's attachments stopped: {e}"))
                    })?;
            match embedded {
                Ok(Some(xml)) => Some(xml.bytes),
                // The page was read; its attachments are a bonus.
                Ok(None) | Err(_) => None,
            }
        }
        (Kind::Text, Content::Text(text))
            if document
                .path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("xml")) =>
        {
            Some(text.clone().into_bytes())
        }
        _ => None,
    };
    let Some(bytes) = xml else {
        return Ok(Vec::new());
    };
    Ok(einvoice_fields(&bytes, schema).unwrap_or_default())
}
