//! One prompt, one answer: what `sift ask` does, and the app's `ask`
//! with its reply streamed as [`AskEvent`]s.

use serde::{Deserialize, Serialize};
use sift_llm::{ChatRequest, Message, ModelRoute, StreamDelta, Usage, complete_first};

use crate::error::CoreError;
use crate::models::local::{LocalServerHandle, ensure_local_server};
use crate::models::provider::{ProviderKind, ProviderSettings};
use crate::workspace::Workspace;

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
        crate::ModelSelection {
            provider: self.provider.clone(),
            models: self.models.clone(),
            ..crate::ModelSelection::default()
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

/// The app's `ask`: a prompt and, optionally, where to send it.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AskArgs {
    /// The user message to answer.
    pub prompt: String,
    /// A system message sent ahead of the prompt; unset or blank sends none.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub system: Option<String>,
    /// `openai`, `anthropic` or `local`; unset means the configured default.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub provider: Option<String>,
    /// The server's address; unset or blank means `SIFT_BASE_URL`, else the
    /// provider's usual address.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub base_url: Option<String>,
    /// The model to ask; unset or blank means `SIFT_MODEL`, else the local
    /// server's model when the provider is local.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub model: Option<String>,
}

/// What the UI receives while a reply is produced.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AskEvent {
    /// Something slow is happening before the first word, such as starting
    /// the local model server.
    Status {
        /// What is happening, for the user to read.
        message: String,
    },
    /// The next piece of the reply, in order.
    Text {
        /// The piece's text, to append to what came before.
        text: String,
    },
    /// The reply is complete; nothing follows.
    #[serde(rename_all = "camelCase")]
    Done {
        /// The model that answered.
        model: String,
        /// Tokens the request sent to the model.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        input_tokens: u64,
        /// Tokens the model generated for the reply.
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        output_tokens: u64,
    },
}

/// Sends the prompt; `sink` receives the reply piece by piece, then
/// `Done`. The local server at its own address is the workspace's:
/// started once, on demand, and stopped when the workspace shuts down.
pub async fn ask_streamed(
    ws: &Workspace,
    args: AskArgs,
    sink: impl Fn(AskEvent) + Send + Sync + 'static,
) -> Result<(), CoreError> {
    let provider = ProviderSettings {
        provider: args.provider.as_deref().map(str::parse).transpose()?,
        base_url: args.base_url.filter(|u| !u.trim().is_empty()),
        extra_base_urls: Vec::new(),
        api_key_env: None,
        api_key_account: None,
        key_scope: Default::default(),
    }
    .with_env_defaults()?;
    if provider.choice() == ProviderKind::Local && provider.base_url.is_none() {
        sink(AskEvent::Status {
            message: "Starting the local model…".to_owned(),
        });
        ws.local_server().ensure_running().await?;
    }
    let request = AskRequest {
        provider,
        models: args
            .model
            .filter(|m| !m.trim().is_empty())
            .into_iter()
            .collect(),
        system: args.system.filter(|s| !s.trim().is_empty()),
        prompt: args.prompt,
        stream: true,
    };
    let outcome = ask(&request, &mut |text: &str| {
        sink(AskEvent::Text {
            text: text.to_owned(),
        });
    })
    .await?;
    sink(AskEvent::Done {
        model: outcome.model,
        input_tokens: outcome.usage.input_tokens,
        output_tokens: outcome.usage.output_tokens,
    });
    Ok(())
}
