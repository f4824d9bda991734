//! A chat message's files, read for the models that will read them: a
//! tier in which any model cannot take images gets the files' text, with
//! the OCR text of their scans and photos, and no image (the documents
//! crate's `image omitted` lines say so).

use std::path::PathBuf;

use sift_documents::ReadOptions;
use sift_llm::Message;

use crate::error::CoreError;
use crate::models::ModelOverride;
use crate::models::ModelSelection;
use crate::models::capabilities;

/// Who may answer the message, as the capabilities are asked for.
pub(crate) struct Readers<'a> {
    pub selection: &'a ModelSelection,
    /// Whether a refused turn goes to the next model of the tier: then
    /// every model may read the files, else only the first.
    pub auto: bool,
    /// The settings' id of the provider, as `[[models]]` overrides name it.
    pub provider_id: &'a str,
    pub overrides: &'a [ModelOverride],
}

impl Readers<'_> {
    /// Whether every model that may read the files takes images (the
    /// override, else the server, else the known families).
    async fn take_images(&self) -> Result<bool, CoreError> {
        let provider = self.selection.provider.clone().with_env_defaults()?;
        let mut models = ModelSelection {
            provider: provider.clone(),
            models: self.selection.models.clone(),
            ..ModelSelection::default()
        }
        .resolved_models()?;
        if !self.auto {
            models.truncate(1);
        }
        Ok(
            capabilities::all_take_images(self.overrides, self.provider_id, &provider, &models)
                .await,
        )
    }
}

/// The user message with its files attached (see `sift_documents::attach`),
/// read with `options` (OCR as they say, `auto` by default) for `readers`.
pub(crate) async fn with_files(
    message: Message,
    files: &[PathBuf],
    options: &ReadOptions,
    readers: &Readers<'_>,
) -> Result<Message, CoreError> {
    if files.is_empty() {
        return Ok(message);
    }
    let mut options = options.clone();
    options.model_takes_images = readers.take_images().await?;
    let paths = files.to_vec();
    let documents =
        tokio::task::spawn_blocking(move || sift_documents::read_documents(&paths, &options))
            .await
            .map_err(|e| {
                CoreError::Usage(format!("reading the files stopped unexpectedly: {e}"))
            })??;
    let mut messages = [message];
    sift_documents::attach(&mut messages, &documents)?;
    let [message] = messages;
    Ok(message)
}
