//! The `ask` command: one prompt to the configured model, the reply
//! streamed back over a channel.

use serde::{Deserialize, Serialize};
use sift_core::{AskRequest, ProviderChoice, ProviderSettings};
use tauri::State;
use tauri::ipc::Channel;
use ts_rs::TS;

use crate::LocalModel;
use crate::error::IpcError;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AskArgs {
    pub prompt: String,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub system: Option<String>,
    /// `openai`, `anthropic` or `local`; unset means the configured default.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub provider: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub base_url: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub model: Option<String>,
}

/// What the UI receives while a reply is produced.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AskEvent {
    /// Something slow is happening before the first word, such as starting
    /// the local model server.
    Status {
        message: String,
    },
    Text {
        text: String,
    },
    #[serde(rename_all = "camelCase")]
    Done {
        model: String,
        #[ts(type = "number")]
        input_tokens: u64,
        #[ts(type = "number")]
        output_tokens: u64,
    },
}

#[tauri::command]
pub async fn ask(
    args: AskArgs,
    local: State<'_, LocalModel>,
    events: Channel<AskEvent>,
) -> Result<(), IpcError> {
    let provider = ProviderSettings {
        provider: args.provider.as_deref().map(str::parse).transpose()?,
        base_url: args.base_url.filter(|u| !u.trim().is_empty()),
        api_key_env: None,
        api_key_account: None,
    }
    .with_env_defaults()?;
    if provider.choice() == ProviderChoice::Local && provider.base_url.is_none() {
        // The window's lifetime owns the server: started once, on demand,
        // and stopped when the app exits.
        let _ = events.send(AskEvent::Status {
            message: "Starting the local model…".to_owned(),
        });
        local.ensure_running().await?;
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
    let outcome = sift_core::ask(&request, &mut |text: &str| {
        let _ = events.send(AskEvent::Text {
            text: text.to_owned(),
        });
    })
    .await?;
    let _ = events.send(AskEvent::Done {
        model: outcome.model,
        input_tokens: outcome.usage.input_tokens,
        output_tokens: outcome.usage.output_tokens,
    });
    Ok(())
}
