//! Which model server to talk to, resolved from flags, the environment and
//! defaults into a ready [`Client`].

use std::fmt;
use std::str::FromStr;

use sift_llm::{ApiKey, Client, ClientConfig, ProviderKind, ServerFlavor};

use crate::error::CoreError;

/// The port Sift's local model server listens on, so that the app and the
/// CLI find one already running. `SIFT_LOCAL_PORT` overrides it.
pub const DEFAULT_LOCAL_PORT: u16 = 39281;

pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderChoice {
    /// Any OpenAI-compatible server.
    OpenAi,
    Anthropic,
    /// Sift's own llama.cpp server on loopback: the default, so that
    /// nothing leaves the machine unless the user picks a cloud provider.
    Local,
}

impl ProviderChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Local => "local",
        }
    }
}

impl fmt::Display for ProviderChoice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderChoice {
    type Err = CoreError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "openai" => Ok(Self::OpenAi),
            "anthropic" => Ok(Self::Anthropic),
            "local" => Ok(Self::Local),
            other => Err(CoreError::Usage(format!(
                "unknown provider {other:?}: use openai, anthropic or local"
            ))),
        }
    }
}

/// Settings as the user gave them; `None` means "use the default".
#[derive(Debug, Clone, Default)]
pub struct ProviderSettings {
    pub provider: Option<ProviderChoice>,
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// The keychain account holding the API key; by default the
    /// provider's name (`openai`, `anthropic`).
    pub api_key_account: Option<String>,
}

impl ProviderSettings {
    /// Fills what is unset from `SIFT_PROVIDER` and `SIFT_BASE_URL`.
    pub fn with_env_defaults(mut self) -> Result<Self, CoreError> {
        if self.provider.is_none()
            && let Some(value) = env_value("SIFT_PROVIDER")
        {
            self.provider = Some(value.parse()?);
        }
        if self.base_url.is_none() {
            self.base_url = env_value("SIFT_BASE_URL");
        }
        Ok(self)
    }

    pub fn choice(&self) -> ProviderChoice {
        self.provider.unwrap_or(ProviderChoice::Local)
    }

    /// The base URL to use: the one given, else the provider's default.
    pub fn effective_base_url(&self) -> String {
        match (&self.base_url, self.choice()) {
            (Some(url), _) => url.clone(),
            (None, ProviderChoice::OpenAi) => OPENAI_BASE_URL.to_owned(),
            (None, ProviderChoice::Anthropic) => ANTHROPIC_BASE_URL.to_owned(),
            (None, ProviderChoice::Local) => local_base_url(),
        }
    }

    /// The key: from the variable the settings name when they name one;
    /// else from the keychain (the account the settings name, by default
    /// the provider's name: what `sift key set` writes); else from the
    /// provider's default variables. The local server takes none.
    pub fn api_key(&self) -> Option<ApiKey> {
        if let Some(var) = &self.api_key_env {
            return ApiKey::from_env(var);
        }
        if self.choice() == ProviderChoice::Local {
            return None;
        }
        let account = self
            .api_key_account
            .as_deref()
            .unwrap_or(self.choice().as_str());
        crate::keychain::load_key(account).or_else(|| {
            self.api_key_vars()
                .iter()
                .find_map(|var| ApiKey::from_env(var))
        })
    }

    /// The variables the key is looked up in, in order.
    pub fn api_key_vars(&self) -> Vec<String> {
        if let Some(var) = &self.api_key_env {
            return vec![var.clone()];
        }
        match self.choice() {
            ProviderChoice::OpenAi => vec!["OPENAI_API_KEY".into(), "SIFT_API_KEY".into()],
            ProviderChoice::Anthropic => vec!["ANTHROPIC_API_KEY".into(), "SIFT_API_KEY".into()],
            ProviderChoice::Local => Vec::new(),
        }
    }

    pub fn client_config(&self) -> ClientConfig {
        let base_url = self.effective_base_url();
        let kind = match self.choice() {
            ProviderChoice::Anthropic => ProviderKind::Anthropic,
            ProviderChoice::OpenAi | ProviderChoice::Local => ProviderKind::OpenAi,
        };
        let mut config = ClientConfig::new(kind, base_url.clone());
        config.flavor = match self.choice() {
            ProviderChoice::Local => ServerFlavor::LlamaCpp,
            ProviderChoice::Anthropic => ServerFlavor::Anthropic,
            ProviderChoice::OpenAi if base_url.starts_with(OPENAI_BASE_URL) => ServerFlavor::OpenAi,
            ProviderChoice::OpenAi => ServerFlavor::Generic,
        };
        config.api_key = self.api_key();
        config
    }

    pub fn client(&self) -> Result<Client, CoreError> {
        Ok(Client::new(self.client_config())?)
    }
}

pub fn local_port() -> u16 {
    env_value("SIFT_LOCAL_PORT")
        .and_then(|p| p.parse().ok())
        .unwrap_or(DEFAULT_LOCAL_PORT)
}

pub fn local_base_url() -> String {
    format!("http://127.0.0.1:{}/v1", local_port())
}

fn env_value(var: &str) -> Option<String> {
    std::env::var(var)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}
