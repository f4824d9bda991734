//! The flags that choose a provider and models, shared by every command
//! that calls a model.

use clap::Args;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use sift_core::{ModelSelection, ProviderKind, ProviderSettings};

/// `--provider`: one of the kinds' names (listed in the help and in the
/// error for any other word), parsed by core.
fn provider_kind() -> impl TypedValueParser<Value = ProviderKind> {
    PossibleValuesParser::new(ProviderKind::NAMES).try_map(|name| name.parse::<ProviderKind>())
}

#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// The provider [default: $SIFT_PROVIDER, else local].
    #[arg(long, value_parser = provider_kind())]
    pub provider: Option<ProviderKind>,
    /// The server's base URL [default: $SIFT_BASE_URL, else the provider's].
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model; repeat to fall back to the next on failure [default:
    /// $SIFT_MODEL].
    #[arg(long = "model")]
    pub models: Vec<String>,
    /// The environment variable that holds the API key [default:
    /// OPENAI_API_KEY or ANTHROPIC_API_KEY, then SIFT_API_KEY].
    #[arg(long)]
    pub api_key_env: Option<String>,
    /// The OS keychain account that holds the API key (see `sift key`)
    /// [default: the provider's name].
    #[arg(long)]
    pub api_key_account: Option<String>,
}

impl ModelArgs {
    pub fn provider_settings(&self) -> ProviderSettings {
        ProviderSettings {
            provider: self.provider,
            base_url: self.base_url.clone(),
            extra_base_urls: Vec::new(),
            api_key_env: self.api_key_env.clone(),
            api_key_account: self.api_key_account.clone(),
            key_scope: Default::default(),
        }
    }

    /// The provider and models given, with the workspace's `[[models]]`
    /// overrides, which decide how each model answers.
    pub fn selection(&self, ws: &sift_core::Workspace) -> ModelSelection {
        ModelSelection {
            provider: self.provider_settings(),
            models: self.models.clone(),
            overrides: ws.config().model_overrides,
            provider_id: None,
        }
    }
}
