//! One file of an evaluation: its structured call, and where each value
//! of the answer was found in the file, so that accuracy can be split by
//! evidence (are values not found in the document the wrong ones?).

use sift_store::{CallStatus, Store};

use super::score::EvalDocument;
use crate::calls::{CallRequest, run_call_read};
use crate::evidence::{locate_values, needed_correction};

/// Runs `request` (one file) and returns the document to score: its
/// values and their evidence, or the error of its call.
pub async fn run_document(store: &Store, request: &CallRequest) -> EvalDocument {
    let file = request
        .files
        .first()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let mut request = request.clone();
    // As an extraction reads: OCR for scans and photos, the words' boxes.
    request.read_options.word_boxes = true;
    request.read_options.ocr.mode = sift_documents::OcrMode::Always;
    match run_call_read(store, &request).await {
        Ok((call, documents)) if call.status == CallStatus::Completed => {
            let evidence = match (&call.output, documents.files.first()) {
                (Some(values), Some(document)) => {
                    let schema = request.schema.clone().unwrap_or_default();
                    let corrected = needed_correction(call.transcript.as_ref());
                    locate_values(document, &schema, values, corrected)
                }
                _ => Vec::new(),
            };
            EvalDocument {
                file,
                values: call.output,
                error: None,
                evidence,
            }
        }
        Ok((call, _)) => EvalDocument {
            file,
            values: None,
            error: Some(format!(
                "call {} {}: {}",
                call.id,
                call.status.as_str(),
                call.error.as_deref().unwrap_or("no output")
            )),
            evidence: Vec::new(),
        },
        Err(e) => EvalDocument {
            file,
            values: None,
            error: Some(e.to_string()),
            evidence: Vec::new(),
        },
    }
}
