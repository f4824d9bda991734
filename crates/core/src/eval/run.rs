//! One file of an evaluation: its structured call, and where each value
//! of the answer was found in the file, so that accuracy can be split by
//! evidence (are values not found in the document the wrong ones?).

use futures_util::StreamExt;
use sift_store::{CallStatus, Store};

use super::score::{CallFigures, EvalDocument, Sources};
use crate::calls::{CallRequest, run_call_read};
use crate::evidence::{locate_quoted_values, needed_correction, split_sources, with_sources};

/// Runs each request (one file each), at most `jobs` at once, and returns
/// the documents in the requests' order. The local server, when the
/// requests go to it, is started once for all of them (and stopped after,
/// if this started it), not once per document.
pub async fn run_documents(
    store: &Store,
    requests: &[CallRequest],
    ask_sources: bool,
    jobs: usize,
) -> Vec<EvalDocument> {
    let local = match requests.first() {
        Some(first) if crate::extract::local_provider(&first.selection).unwrap_or(false) => {
            crate::models::local::ensure_local_server().await.ok()
        }
        _ => None,
    };
    let documents = futures_util::stream::iter(requests)
        .map(|request| run_document(store, request, ask_sources))
        .buffered(jobs.max(1))
        .collect()
        .await;
    if let Some(local) = local {
        local.release().await;
    }
    documents
}

/// Runs `request` (one file) and returns the document to score: its
/// values and their evidence, or the error of its call. With
/// `ask_sources`, the model is also asked for the text each value came
/// from ([`with_sources`]); the values are scored without those sources.
pub async fn run_document(store: &Store, request: &CallRequest, ask_sources: bool) -> EvalDocument {
    let file = request
        .files
        .first()
        .map(|f| f.display().to_string())
        .unwrap_or_default();
    let mut request = request.clone();
    let schema = request.schema.clone().unwrap_or_default();
    if ask_sources {
        request.schema = Some(with_sources(&schema));
    }
    // As an extraction reads: OCR for scans and photos, the words' boxes.
    request.read_options.word_boxes = true;
    request.read_options.ocr.mode = sift_documents::OcrMode::Always;
    match run_call_read(store, &request).await {
        Ok((call, documents)) if call.status == CallStatus::Completed => {
            let (values, quotes) = match &call.output {
                Some(output) if ask_sources => {
                    let (values, quotes) = split_sources(output);
                    (Some(values), quotes)
                }
                other => (other.clone(), Default::default()),
            };
            let (evidence, sources) = match (&values, documents.files.first()) {
                (Some(values), Some(document)) => {
                    let corrected = needed_correction(call.transcript.as_ref());
                    let evidence =
                        locate_quoted_values(document, &schema, values, &quotes, corrected);
                    let sources = Sources::of(document, &quotes);
                    (evidence, ask_sources.then_some(sources))
                }
                _ => (Vec::new(), None),
            };
            EvalDocument {
                file,
                values,
                error: None,
                evidence,
                sources,
                call: CallFigures::of(&call),
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
            sources: None,
            call: CallFigures::of(&call),
        },
        Err(e) => EvalDocument {
            file,
            values: None,
            error: Some(e.to_string()),
            call: CallFigures {
                error_category: Some(e.code().to_owned()),
                ..CallFigures::default()
            },
            ..EvalDocument::default()
        },
    }
}
