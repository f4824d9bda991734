//! One prompt, one answer: what `sift ask` does. The Settings screen's
//! panel streams it from the window (`settings/ask.rs`, which holds the
//! workspace's local server; the call itself needs no workspace).

use sift_llm::{ChatRequest, Message, ModelRoute, StreamDelta, Usage, complete_first};

use crate::error::CoreError;
use crate::models::ModelSelection;
use crate::models::local::{LocalServerHandle, ensure_local_server};
use crate::models::provider::{ProviderKind, ProviderSettings};

/// A single prompt for [`ask`]: where to send it and whether to stream the reply.
#[derive(Debug, Clone, Default)]
pub struct AskRequest {
    /// The server to ask; what is unset comes from `SIFT_PROVIDER` and
    /// `SIFT_BASE_URL`.
    pub provider: ProviderSettings,
    /// Tried in order; several means fallback, which is never streamed.
    pub models: Vec<String>,
    /// Sent as a system message ahead of the prompt; `None` sends none.
    pub system: Option<String>,
    /// The user message to answer.
    pub prompt: String,
    /// Stream the reply to `on_text` as it arrives; honoured only with a
    /// single model.
    pub stream: bool,
}

/// The answer [`ask`] got back.
#[derive(Debug, Clone, PartialEq)]
pub struct AskOutcome {
    /// The reply's text, whole, even when it was also streamed.
    pub text: String,
    /// The model that answered.
    pub model: String,
    /// The input and output tokens of the request that answered.
    pub usage: Usage,
    /// Whether the text was already passed to `on_text` piece by piece.
    pub streamed: bool,
}

impl AskRequest {
    /// The models to try: those given, else `SIFT_MODEL`, else the local
    /// server's model when the provider is local.
    pub fn resolved_models(&self) -> Result<Vec<String>, CoreError> {
        ModelSelection {
            provider: self.provider.clone(),
            models: self.models.clone(),
            ..ModelSelection::default()
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
    let local = if provider.choice() == ProviderKind::Local && provider.base_url.is_none() {
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
