//! The Settings screen's "Try a model" panel: one prompt to the
//! configured model, the reply streamed to the window as [`AskEvent`]s.
//! The call is `calls/ask.rs`'s; what this adds is the window's arguments
//! and the workspace's local server, started once and kept for the app.

use serde::{Deserialize, Serialize};

use crate::calls::ask::{AskRequest, ask};
use crate::error::CoreError;
use crate::models::provider::{ProviderKind, ProviderSettings};
use crate::workspace::Workspace;

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
