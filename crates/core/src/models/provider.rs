//! Which model server to talk to, resolved from flags, the environment and
//! defaults into a ready [`Client`].

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
// The llm crate's `ProviderKind` is the wire API a client speaks, which
// the local server shares with OpenAI.
use sift_llm::{ApiKey, Client, ClientConfig, ProviderKind as WireApi, ServerFlavor};

use crate::error::CoreError;

/// OpenAI's API address, used when an `openai` provider sets no base URL.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";
/// Anthropic's API address, used when an `anthropic` provider sets no base URL.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// The local server's model name, used when no model is named.
pub const LOCAL_DEFAULT_MODEL: &str = sift_llm::local_server::DEFAULT_MODEL_ALIAS;

/// The kind of model server a provider is: what the settings file's
/// `kind`, the CLI's `--provider`, `SIFT_PROVIDER` and the app's IPC
/// (`"local" | "openai" | "anthropic"`) name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Sift's own llama.cpp server on loopback: the default, so that
    /// nothing leaves the machine unless the user picks a cloud provider.
    Local,
    /// Any OpenAI-compatible server.
    OpenAi,
    /// Anthropic's Messages API.
    Anthropic,
}

impl ProviderKind {
    /// Every kind's name, in the order the CLI's help lists them.
    pub const NAMES: [&'static str; 3] = ["openai", "anthropic", "local"];

    /// The kind's name as the settings file, the CLI and the IPC spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            Self::Local => "local",
        }
    }
}

impl fmt::Display for ProviderKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProviderKind {
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

/// Where a provider's API key is found; never the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyOrigin {
    /// In this environment variable.
    Env(String),
    /// In the OS keychain, under this account.
    Keychain(String),
    /// Nowhere it was looked for.
    Missing,
    /// The user needs none: the local server's key is Sift's own, made at
    /// each start and read from its record.
    NotNeeded,
    /// A stored key was found, but not for this address ([`KeyScope`]):
    /// it is not sent.
    Withheld,
}

/// Which addresses a stored key may go to: the one rule that keeps a key
/// with its provider (issue 40).
///
/// A key the settings do not name (one found in the keychain under the
/// provider's account or the kind's own, `anthropic`, or in the kind's
/// variables, `ANTHROPIC_API_KEY` and `SIFT_API_KEY`) belongs to the
/// provider saved under that account, and is sent only to that
/// provider's saved base URLs, or the kind's official URL when none is
/// saved. Where the address comes from something someone else may have
/// written (a workflow step's `llm:`, the settings screen's unsaved form),
/// a request to any other address gets no such key: it needs a key named
/// in the same place (`api_key_env`, a step's `api_key_name`), since
/// whoever named both chose where that key goes. A key withheld this way
/// is an error ([`ProviderSettings::checked_api_key`]) rather than a
/// request without it, so the user learns why instead of seeing a 401.
/// An address the user gave themselves (`--base-url`, `SIFT_BASE_URL`,
/// the saved settings) binds nothing: they chose where their key goes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum KeyScope {
    /// The address is the user's own: any key the lookup finds goes there.
    #[default]
    UserAddress,
    /// The address may be someone else's: an unnamed key goes only to
    /// these addresses (its provider's saved ones).
    SavedAddresses(Vec<String>),
}

impl KeyScope {
    /// Whether an unnamed key may go to `url`.
    fn allows(&self, url: &str) -> bool {
        match self {
            Self::UserAddress => true,
            Self::SavedAddresses(saved) => saved.iter().any(|s| same_address(s, url)),
        }
    }
}

/// Whether two base URLs name the same endpoint: equal but for a
/// trailing `/` (the settings keep what was typed).
pub fn same_address(a: &str, b: &str) -> bool {
    a.trim().trim_end_matches('/') == b.trim().trim_end_matches('/')
}

/// The error of a request whose stored key was withheld ([`KeyScope`]);
/// `fix` says how to name a key where the address came from.
pub fn withheld_key_error(url: &str, fix: &str) -> CoreError {
    CoreError::Usage(format!(
        "no key for {url}: a stored key goes only to its provider's address; {fix}"
    ))
}

/// Settings as the user gave them; `None` means "use the default".
#[derive(Debug, Clone, Default)]
pub struct ProviderSettings {
    /// The kind of server; `None`: the local one (see [`Self::choice`]).
    pub provider: Option<ProviderKind>,
    /// The provider's first endpoint; `None`: the kind's usual address.
    pub base_url: Option<String>,
    /// The provider's other endpoints after `base_url` (the file's
    /// `base_urls` past the first): hosts serving the same models, which
    /// the client spreads its calls over.
    pub extra_base_urls: Vec<String>,
    /// The environment variable holding the API key.
    pub api_key_env: Option<String>,
    /// The keychain account holding the API key; by default the
    /// provider's name (`openai`, `anthropic`).
    pub api_key_account: Option<String>,
    /// Where a key the settings do not name may go ([`KeyScope`]).
    pub key_scope: KeyScope,
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

    /// The kind of provider to use: the one given, else the local server.
    pub fn choice(&self) -> ProviderKind {
        self.provider.unwrap_or(ProviderKind::Local)
    }

    /// The base URL to use: the one given, else the provider's default.
    pub fn effective_base_url(&self) -> String {
        match (&self.base_url, self.choice()) {
            (Some(url), _) => url.clone(),
            (None, ProviderKind::OpenAi) => OPENAI_BASE_URL.to_owned(),
            (None, ProviderKind::Anthropic) => ANTHROPIC_BASE_URL.to_owned(),
            (None, ProviderKind::Local) => local_base_url(),
        }
    }

    /// The key: from the variable the settings name when they name one;
    /// else from the keychain (the account the settings name, by default
    /// the provider's name: what `sift key set` writes); else from the
    /// provider's default variables. The local server takes none.
    pub fn api_key(&self) -> Option<ApiKey> {
        self.find_key().1
    }

    /// Where [`Self::api_key`] finds the key, without the key: what the
    /// settings screen shows.
    pub fn key_origin(&self) -> KeyOrigin {
        self.find_key().0
    }

    /// [`Self::api_key`], or the error of a stored key withheld from this
    /// address ([`KeyScope`]); `fix` says how to name one instead.
    pub fn checked_api_key(&self, fix: &str) -> Result<Option<ApiKey>, CoreError> {
        match self.find_key() {
            (KeyOrigin::Withheld, _) => Err(withheld_key_error(&self.effective_base_url(), fix)),
            (_, key) => Ok(key),
        }
    }

    /// The one lookup order of a key, and where it was found, kept to the
    /// addresses the key may go to ([`KeyScope`]).
    fn find_key(&self) -> (KeyOrigin, Option<ApiKey>) {
        let (origin, key) = self.find_any_key();
        let named = self.api_key_env.is_some();
        if named
            || key.is_none()
            || origin == KeyOrigin::NotNeeded
            || self.key_scope.allows(&self.effective_base_url())
        {
            return (origin, key);
        }
        (KeyOrigin::Withheld, None)
    }

    /// The lookup order of a key, wherever it may go.
    fn find_any_key(&self) -> (KeyOrigin, Option<ApiKey>) {
        if let Some(var) = &self.api_key_env {
            return match ApiKey::from_env(var) {
                Some(key) => (KeyOrigin::Env(var.clone()), Some(key)),
                None => (KeyOrigin::Missing, None),
            };
        }
        if self.choice() == ProviderKind::Local {
            return (KeyOrigin::NotNeeded, self.local_server_key());
        }
        let account = self
            .api_key_account
            .as_deref()
            .unwrap_or(self.choice().as_str());
        if let Some(key) = crate::models::keychain::load_key(account) {
            return (KeyOrigin::Keychain(account.to_owned()), Some(key));
        }
        for var in self.api_key_vars() {
            if let Some(key) = ApiKey::from_env(&var) {
                return (KeyOrigin::Env(var), Some(key));
            }
        }
        (KeyOrigin::Missing, None)
    }

    /// The running local server's key, from its record, when this provider
    /// talks to it: never to another address (a `--base-url` of the local
    /// kind), which must not receive it.
    fn local_server_key(&self) -> Option<ApiKey> {
        let record = local_server_record()?;
        let ours = self.effective_base_url().trim_end_matches('/') == record.base_url();
        ours.then_some(record.key)
    }

    /// The variables the key is looked up in, in order.
    pub fn api_key_vars(&self) -> Vec<String> {
        if let Some(var) = &self.api_key_env {
            return vec![var.clone()];
        }
        match self.choice() {
            ProviderKind::OpenAi => vec!["OPENAI_API_KEY".into(), "SIFT_API_KEY".into()],
            ProviderKind::Anthropic => vec!["ANTHROPIC_API_KEY".into(), "SIFT_API_KEY".into()],
            ProviderKind::Local => Vec::new(),
        }
    }

    /// Which server implementation the provider's address is, as far as
    /// the settings tell.
    pub fn server_flavor(&self) -> ServerFlavor {
        match self.choice() {
            ProviderKind::Local => ServerFlavor::LlamaCpp,
            ProviderKind::Anthropic => ServerFlavor::Anthropic,
            ProviderKind::OpenAi if self.effective_base_url().starts_with(OPENAI_BASE_URL) => {
                ServerFlavor::OpenAi
            }
            ProviderKind::OpenAi => ServerFlavor::Generic,
        }
    }

    /// How a client reaches this provider: the wire API, its addresses, the server's flavor
    /// and the key, if one is found.
    pub fn client_config(&self) -> ClientConfig {
        let base_url = self.effective_base_url();
        let kind = match self.choice() {
            ProviderKind::Anthropic => WireApi::Anthropic,
            ProviderKind::OpenAi | ProviderKind::Local => WireApi::OpenAi,
        };
        let mut config = ClientConfig::new(kind, base_url);
        config.extra_base_urls = self.extra_base_urls.clone();
        config.flavor = self.server_flavor();
        config.api_key = self.api_key();
        config
    }

    /// A client ready to call this provider, from [`Self::client_config`]; fails only when
    /// the HTTP client cannot be set up.
    pub fn client(&self) -> Result<Client, CoreError> {
        Ok(Client::new(self.client_config())?)
    }
}

/// The port the local server is started on when one is fixed:
/// `SIFT_LOCAL_PORT` when it holds a number (for tests and benchmarks).
/// Otherwise each start picks a free port (see `sift_llm::local_server`),
/// so that there is no well-known port for another program to take.
pub fn pinned_local_port() -> Option<u16> {
    env_value("SIFT_LOCAL_PORT").and_then(|p| p.parse().ok())
}

/// The record of the local server running for this data directory, if any
/// (`sift_llm::local_server::record`). Only read for its address and key
/// once `ensure_local_server` has checked or replaced it.
fn local_server_record() -> Option<sift_llm::local_server::record::ServerRecord> {
    let path = sift_llm::local_server::record::record_path(&crate::paths::data_dir());
    sift_llm::local_server::record::read(&path)
}

/// The address of Sift's local server on loopback, with the `/v1` path:
/// the running one's from its record; else at the fixed port
/// ([`pinned_local_port`]); else port 0, which nothing answers: the port
/// is only known once a server has started.
pub fn local_base_url() -> String {
    match local_server_record() {
        Some(record) => record.base_url(),
        None => format!("http://127.0.0.1:{}/v1", pinned_local_port().unwrap_or(0)),
    }
}

fn env_value(var: &str) -> Option<String> {
    std::env::var(var)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}
