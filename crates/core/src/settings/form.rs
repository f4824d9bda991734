//! The settings as the settings screen edits and shows them: text as
//! typed (blank fields mean unset), and what follows from the settings
//! (where they are saved, the database, each kind's default address).
//! These are the app's IPC types (`ui/src/bindings`).

use serde::{Deserialize, Serialize};

use crate::config::{AppSettings, ProviderEntry};
use crate::extract::AnswerMode;
use crate::models::overrides::ModelOverride;
use crate::models::provider::{KeyOrigin, ProviderKind};

/// One model server the user can pick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "ProviderConfig"))]
#[serde(rename_all = "camelCase")]
pub struct ProviderForm {
    /// Unique; also the keychain account of its API key.
    pub id: String,
    /// Which kind of server it is, and so which API it speaks.
    pub kind: ProviderKind,
    /// The name shown for it; blank: its id.
    pub label: String,
    /// `null`: the kind's default (see `SettingsView.defaultBaseUrls`).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub base_url: Option<String>,
    /// The environment variable holding the key, instead of the keychain.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub api_key_env: Option<String>,
}

fn blank_is_none(text: Option<&str>) -> Option<String> {
    text.map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

impl From<&ProviderEntry> for ProviderForm {
    fn from(entry: &ProviderEntry) -> Self {
        Self {
            id: entry.id.clone(),
            kind: entry.kind,
            label: entry.label.clone(),
            base_url: entry.base_url.clone(),
            api_key_env: entry.api_key_env.clone(),
        }
    }
}

impl From<&ProviderForm> for ProviderEntry {
    fn from(form: &ProviderForm) -> Self {
        Self {
            id: form.id.trim().to_owned(),
            kind: form.kind,
            label: form.label.trim().to_owned(),
            base_url: blank_is_none(form.base_url.as_deref()),
            // Not on the screen; `AppSettings::keep_extra_base_urls` keeps
            // the saved ones.
            extra_base_urls: Vec::new(),
            api_key_env: blank_is_none(form.api_key_env.as_deref()),
        }
    }
}

/// What the user edits on the settings screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "Settings"))]
#[serde(rename_all = "camelCase")]
pub struct SettingsForm {
    /// The model servers the user set up, in the order they are saved.
    pub providers: Vec<ProviderForm>,
    /// The id of the provider used unless another is picked.
    pub default_provider: String,
    /// The model used with the default provider when none is picked; `null` or blank: none.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub default_model: Option<String>,
    /// Where the database lives; `null`: the data directory.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub data_dir: Option<String>,
}

impl From<&AppSettings> for SettingsForm {
    fn from(settings: &AppSettings) -> Self {
        Self {
            providers: settings.providers.iter().map(ProviderForm::from).collect(),
            default_provider: settings.default_provider.clone(),
            default_model: settings.default_model.clone(),
            data_dir: settings.data_dir.as_ref().map(|d| d.display().to_string()),
        }
    }
}

impl From<&SettingsForm> for AppSettings {
    fn from(form: &SettingsForm) -> Self {
        Self {
            providers: form.providers.iter().map(ProviderEntry::from).collect(),
            default_provider: form.default_provider.trim().to_owned(),
            default_model: blank_is_none(form.default_model.as_deref()),
            data_dir: blank_is_none(form.data_dir.as_deref()).map(Into::into),
        }
    }
}

/// The base URL each kind uses when a provider sets none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DefaultBaseUrls {
    /// The local server on loopback, at its port (`SIFT_LOCAL_PORT` counts).
    pub local: String,
    /// OpenAI's API.
    pub openai: String,
    /// Anthropic's API.
    pub anthropic: String,
}

/// How a run's answers are made when it names no mode, by the kind of
/// provider ([`AnswerMode::default_for`], the one place the rule lives).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DefaultAnswers {
    /// For the local server.
    pub local: AnswerMode,
    /// For an OpenAI-compatible server.
    pub openai: AnswerMode,
    /// For Anthropic.
    pub anthropic: AnswerMode,
}

/// The settings and what follows from them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    /// The saved settings, as the screen edits them.
    pub settings: SettingsForm,
    /// The configuration file they are saved in.
    pub config_path: String,
    /// The database in use.
    pub db_path: String,
    /// The address each kind of provider uses when it sets none.
    pub default_base_urls: DefaultBaseUrls,
    /// The answer mode each kind of provider gets when a run names none.
    pub default_answers: DefaultAnswers,
    /// What the user says models can take (`[[models]]`), saved apart
    /// from the settings.
    pub model_overrides: Vec<ModelOverride>,
}

/// Where a provider's API key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum KeySource {
    /// In the OS keychain, under the provider's id.
    Keychain,
    /// In an environment variable (named in `envVar`).
    Env,
    /// No key found.
    None,
    /// The local server takes none.
    NotNeeded,
}

/// Whether a key is there; never the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct KeyStatus {
    /// Where the key was found, or that none was.
    pub source: KeySource,
    /// The variable the key was found in (source `env`), or the one the
    /// provider names.
    pub env_var: Option<String>,
}

/// Where `provider`'s key would be found, looked up in the order a
/// client's key is ([`crate::ProviderSettings::api_key`]).
pub fn key_status(provider: &ProviderEntry) -> KeyStatus {
    let (source, env_var) = match provider.provider_settings().key_origin() {
        KeyOrigin::NotNeeded => (KeySource::NotNeeded, None),
        KeyOrigin::Keychain(_) => (KeySource::Keychain, None),
        KeyOrigin::Env(var) => (KeySource::Env, Some(var)),
        // A saved provider's own address binds nothing, so its key is
        // never withheld; were it, there would be none to show.
        KeyOrigin::Missing | KeyOrigin::Withheld => (KeySource::None, provider.api_key_env.clone()),
    };
    KeyStatus { source, env_var }
}
