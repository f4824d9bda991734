//! One prompt, one answer: what `sift ask` does.

use sift_llm::{ChatRequest, Message, ModelRoute, StreamDelta, Usage, complete_first};

use crate::error::CoreError;
use crate::local::{LocalServerHandle, ensure_local_server};
use crate::provider::{ProviderChoice, ProviderSettings};

/// The local server's model name, used when no model is named.
pub const LOCAL_DEFAULT_MODEL: &str = sift_llm::local_server::DEFAULT_MODEL_ALIAS;

#[derive(Debug, Clone, Default)]
pub struct AskRequest {
    pub provider: ProviderSettings,
    /// Tried in order; several means fallback, which is never streamed.
    pub models: Vec<String>,
    pub system: Option<String>,
    pub prompt: String,
    pub stream: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AskOutcome {
    pub text: String,
    /// The model that answered.
    pub model: String,
    pub usage: Usage,
    /// Whether the text was already passed to `on_text` piece by piece.
    pub streamed: bool,
}

impl AskRequest {
    /// The models to try: those given, else `SIFT_MODEL`, else the local
    /// server's model when the provider is local.
    pub fn resolved_models(&self) -> Result<Vec<String>, CoreError> {
        crate::ModelSelection {
            provider: self.provider.clone(),
            models: self.models.clone(),
        }
        .resolved_models()
    }

    fn messages(&self) -> Vec<Message> {
        let mut messages = Vec::with_capacity(2);
        if let Some(system) = &self.system {
            messages.push(Message::system(system.clone()));
        }
        messages.push(Message::user(self.prompt.clone()));
        messages
    }
}

/// Sends the prompt and returns the answer. When streaming (one model, and
/// `stream` set), `on_text` receives each piece as it arrives.
pub async fn ask(
    request: &AskRequest,
    on_text: &mut (dyn FnMut(&str) + Send),
) -> Result<AskOutcome, CoreError> {
    let provider = request.provider.clone().with_env_defaults()?;
    let models = request.resolved_models()?;
    // The local server is started for this call when nothing serves at its
    // address and no other URL was given, and stopped after it.
    let local = if provider.choice() == ProviderChoice::Local && provider.base_url.is_none() {
        Some(ensure_local_server().await?)
    } else {
        None::<LocalServerHandle>
    };
    let result = ask_with(&provider, &models, request, on_text).await;
    if let Some(local) = local {
        local.release().await;
    }
    result
}

async fn ask_with(
    provider: &ProviderSettings,
    models: &[String],
    request: &AskRequest,
    on_text: &mut (dyn FnMut(&str) + Send),
) -> Result<AskOutcome, CoreError> {
    let client = provider.client()?;
    let chat = ChatRequest::new(models[0].clone(), request.messages());

    if request.stream && models.len() == 1 {
        let mut forward = |delta: StreamDelta| {
            if let StreamDelta::Text(text) = delta {
                on_text(&text);
            }
        };
        let response = client.stream(&chat, &mut forward).await?;
        return Ok(AskOutcome {
            text: response.message.text_content(),
            model: response.model,
            usage: response.usage,
            streamed: true,
        });
    }
    let routes: Vec<ModelRoute<'_>> = models
        .iter()
        .map(|model| ModelRoute {
            client: &client,
            model,
        })
        .collect();
    let (_, response) = complete_first(&routes, &chat, |_, _| {}).await?;
    Ok(AskOutcome {
        text: response.message.text_content(),
        model: response.model,
        usage: response.usage,
        streamed: false,
    })
}
