//! How a step reaches its model: the endpoint a step names, the
//! [`ModelConnector`] that turns it into a client and says what its model
//! can take, and why that can fail.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use sift_llm::{
    ApiKey, Client, ClientConfig, ErrorCategory, LlmError, ModelFeatures, ProviderKind,
    ServerFlavor,
};

/// Where a model is served, as a step names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelEndpoint {
    /// `local`, `openai` or `anthropic`.
    pub provider: String,
    pub base_url: Option<String>,
    /// The environment variable holding the API key.
    pub api_key_name: Option<String>,
}

/// Turns an endpoint into a client. The app and the CLI give one that
/// starts Sift's local model server on demand and reads the keychain;
/// [`DirectConnector`] needs everything spelled out.
pub trait ModelConnector: Send + Sync + fmt::Debug {
    fn connect<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
    ) -> Pin<Box<dyn Future<Output = Result<Client, ConnectError>> + Send + 'a>>;

    /// What `model` at `endpoint` can take: a step with files asks before
    /// reading them, so that a model that cannot take images gets their
    /// text instead. By default the table of known model families says
    /// ([`known_features`]); a connector that can ask the server does.
    fn features<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
        model: &'a str,
    ) -> Pin<Box<dyn Future<Output = ModelFeatures> + Send + 'a>> {
        Box::pin(async move { known_features(endpoint, model) })
    }
}

/// What the table of known model families says `model` takes, else what
/// an unknown model is assumed to take on the endpoint's kind of server
/// (a `local` one is some OpenAI-compatible server: no images).
pub fn known_features(endpoint: &ModelEndpoint, model: &str) -> ModelFeatures {
    let flavor = match endpoint.provider.as_str() {
        "openai" => ServerFlavor::OpenAi,
        "anthropic" => ServerFlavor::Anthropic,
        _ => ServerFlavor::Generic,
    };
    ModelFeatures::known_family(model)
        .map_or_else(|| ModelFeatures::unknown_model(flavor), |f| f.features)
}

/// Why a step could not get a client for its model. Each has a
/// [`category`](ConnectError::category), the same as a failed model call's,
/// so a step's record says what kind of failure it was.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConnectError {
    #[error("invalid provider {0:?}")]
    InvalidProvider(String),
    #[error("provider local needs base_url here")]
    NoBaseUrl,
    /// `api_key_name` names an environment variable without a key.
    #[error("the environment variable {0} holds no API key")]
    NoApiKey(String),
    /// The client could not be built.
    #[error(transparent)]
    Client(#[from] LlmError),
    /// The connector's own failure (reading the keychain, starting a
    /// local server), with the category it belongs to.
    #[error("{message}")]
    Connector {
        category: ErrorCategory,
        message: String,
    },
}

impl ConnectError {
    pub fn category(&self) -> ErrorCategory {
        match self {
            Self::InvalidProvider(_) | Self::NoBaseUrl => ErrorCategory::Other,
            Self::NoApiKey(_) => ErrorCategory::Auth,
            Self::Client(e) => e.category,
            Self::Connector { category, .. } => *category,
        }
    }
}

/// Connects to exactly the URL a step names (`local` needs `base_url`);
/// the key comes from `api_key_name`, else `OPENAI_API_KEY` or
/// `ANTHROPIC_API_KEY`, which go only to their kind's official URL: a
/// step's other `base_url` is its author's, and gets no key it does not
/// name (Sift's own connector keeps the same rule, `KeyScope` in sift-core).
#[derive(Debug, Clone, Copy, Default)]
pub struct DirectConnector;

impl DirectConnector {
    pub fn client(endpoint: &ModelEndpoint) -> Result<Client, ConnectError> {
        let (kind, flavor, default_url, default_key) = match endpoint.provider.as_str() {
            // Some OpenAI-compatible server on this machine, of a kind
            // not known: assume only what they all do.
            "local" => (ProviderKind::OpenAi, ServerFlavor::Generic, None, None),
            "openai" => (
                ProviderKind::OpenAi,
                ServerFlavor::OpenAi,
                Some("https://api.openai.com/v1"),
                Some("OPENAI_API_KEY"),
            ),
            "anthropic" => (
                ProviderKind::Anthropic,
                ServerFlavor::Anthropic,
                Some("https://api.anthropic.com"),
                Some("ANTHROPIC_API_KEY"),
            ),
            other => return Err(ConnectError::InvalidProvider(other.to_owned())),
        };
        let base_url = endpoint
            .base_url
            .clone()
            .or(default_url.map(str::to_owned))
            .ok_or(ConnectError::NoBaseUrl)?;
        let mut config = ClientConfig::new(kind, base_url);
        config.flavor = flavor;
        config.api_key = match &endpoint.api_key_name {
            Some(var) => {
                Some(ApiKey::from_env(var).ok_or_else(|| ConnectError::NoApiKey(var.clone()))?)
            }
            None if endpoint
                .base_url
                .as_deref()
                .is_none_or(|url| Some(url) == default_url) =>
            {
                default_key.and_then(ApiKey::from_env)
            }
            None => None,
        };
        Ok(Client::new(config)?)
    }
}

impl ModelConnector for DirectConnector {
    fn connect<'a>(
        &'a self,
        endpoint: &'a ModelEndpoint,
    ) -> Pin<Box<dyn Future<Output = Result<Client, ConnectError>> + Send + 'a>> {
        Box::pin(async move { Self::client(endpoint) })
    }
}
