//! From "which provider, which models" to ready engines.

use sift_engine::{ContextSettings, Engine, EngineContext};

use crate::error::CoreError;
use crate::local::{LocalServerHandle, ensure_local_server};
use crate::provider::{ProviderKind, ProviderSettings};

/// The provider and the models to try, in order.
#[derive(Debug, Clone, Default)]
pub struct ModelSelection {
    pub provider: ProviderSettings,
    /// Empty means `SIFT_MODEL`, else the local model for the local provider.
    pub models: Vec<String>,
}

/// Engines ready to call, and the local server when one was started for
/// them: keep it alive while they are used, then `release` it.
#[derive(Debug)]
pub struct Engines {
    pub engines: Vec<Engine>,
    pub local: Option<LocalServerHandle>,
}

impl Engines {
    pub async fn release(self) {
        if let Some(local) = self.local {
            local.release().await;
        }
    }
}

impl ModelSelection {
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
            ProviderKind::Local => Ok(vec![crate::LOCAL_DEFAULT_MODEL.to_owned()]),
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
        }
        .resolved_models()?;
        let local = if provider.choice() == ProviderKind::Local && provider.base_url.is_none() {
            Some(ensure_local_server().await?)
        } else {
            None
        };
        let client = provider.client()?;
        let context_window = match provider.choice() {
            // The context the local server is started with.
            ProviderKind::Local => 2048,
            ProviderKind::Anthropic => 200_000,
            ProviderKind::OpenAi => 128_000,
        };
        let engine_type = match provider.choice() {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi | ProviderKind::Local => "openai",
        };
        let engines = models
            .into_iter()
            .map(|model| Engine {
                client: client.clone(),
                model,
                engine_type: engine_type.to_owned(),
                context: EngineContext::new(context_window),
                settings: settings.clone(),
            })
            .collect();
        Ok(Engines { engines, local })
    }
}
