//! How a job reads its documents: the OCR text goes to every model (it
//! helps vision models too), the images only to a model that takes them.
//! So Sift's local default, Qwen2.5-Coder-1.5B, reads a scan as its OCR
//! text and never receives an image.

use sift_documents::{OcrMode, ReadOptions};

use super::{AnswerMode, ExtractOptions};
use crate::error::CoreError;
use crate::models::ModelSelection;
use crate::models::capabilities;
use crate::workspace::Workspace;

/// The job's read options for its models: OCR always, and images only
/// when every model of the fallback list takes them (a document's message
/// is built once, and a model tried after the first gets the same one: a
/// text-only fallback must never receive an image). For the local
/// provider, called once its server is up, so that the server is asked.
/// A job whose answers are located alone asks no server: no model reads
/// its documents, so none gets an image.
pub(super) async fn job_read_options(
    options: &ExtractOptions,
    mode: AnswerMode,
) -> Result<ReadOptions, CoreError> {
    let provider = options.selection.provider.clone().with_env_defaults()?;
    let models = options.selection.resolved_models()?;
    let mut read = options.read_options.clone();
    read.ocr.mode = if options.flavour.ocr {
        OcrMode::Always
    } else {
        OcrMode::Off
    };
    // The words' boxes, to find each value on its page afterwards.
    read.word_boxes = true;
    // An e-invoice's values, which a job that locates fields takes
    // before the page's.
    read.invoice_xml = mode != AnswerMode::Free;
    if !mode.needs_model() {
        read.model_takes_images = false;
        return Ok(read);
    }
    let selection = &options.selection;
    let provider_id = selection
        .provider_id
        .clone()
        .unwrap_or_else(|| provider.choice().to_string());
    read.model_takes_images =
        capabilities::all_take_images(&selection.overrides, &provider_id, &provider, &models).await;
    Ok(read)
}

/// How documents are read for these models outside a job (`sift eval
/// --schema --truth FILES`): the workspace's reading (its OCR languages,
/// cache and PDFium) as a job reads, OCR always and images only for
/// models that take them, so that every reader of documents sends a
/// model the same message for the same file.
pub async fn read_options_for_models(
    ws: &Workspace,
    selection: &ModelSelection,
) -> Result<ReadOptions, CoreError> {
    let provider = selection.provider.clone().with_env_defaults()?;
    let models = selection.resolved_models()?;
    let mut read = ws.read_options();
    read.ocr.mode = OcrMode::Always;
    read.word_boxes = true;
    let provider_id = provider.choice().to_string();
    read.model_takes_images = capabilities::all_take_images(
        &ws.config().model_overrides,
        &provider_id,
        &provider,
        &models,
    )
    .await;
    Ok(read)
}
