//! Settings: the providers, the default provider and model, the data
//! folder; API keys in the OS keychain (never returned); the model list
//! and a connection test.

use serde::{Deserialize, Serialize};
use sift_core::ProviderChoice;
use sift_core::keychain;
use sift_core::llm::ApiKey;
use sift_core::provider::{ANTHROPIC_BASE_URL, OPENAI_BASE_URL, local_base_url};
use sift_core::server_models;
use sift_core::settings::{AppSettings, ProviderEntry};
use tauri::State;
use ts_rs::TS;

use crate::LocalModel;
use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Sift's own llama.cpp server on loopback.
    Local,
    /// Any OpenAI-compatible server.
    Openai,
    Anthropic,
}

impl From<ProviderChoice> for ProviderKind {
    fn from(choice: ProviderChoice) -> Self {
        match choice {
            ProviderChoice::Local => Self::Local,
            ProviderChoice::OpenAi => Self::Openai,
            ProviderChoice::Anthropic => Self::Anthropic,
        }
    }
}

impl From<ProviderKind> for ProviderChoice {
    fn from(kind: ProviderKind) -> Self {
        match kind {
            ProviderKind::Local => Self::Local,
            ProviderKind::Openai => Self::OpenAi,
            ProviderKind::Anthropic => Self::Anthropic,
        }
    }
}

/// One model server the user can pick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProviderConfig {
    /// Unique; also the keychain account of its API key.
    pub id: String,
    pub kind: ProviderKind,
    pub label: String,
    /// `null`: the kind's default (see `SettingsView.defaultBaseUrls`).
    #[ts(optional = nullable)]
    #[serde(default)]
    pub base_url: Option<String>,
    /// The environment variable holding the key, instead of the keychain.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub api_key_env: Option<String>,
}

impl From<&ProviderEntry> for ProviderConfig {
    fn from(entry: &ProviderEntry) -> Self {
        Self {
            id: entry.id.clone(),
            kind: entry.kind.into(),
            label: entry.label.clone(),
            base_url: entry.base_url.clone(),
            api_key_env: entry.api_key_env.clone(),
        }
    }
}

impl From<&ProviderConfig> for ProviderEntry {
    fn from(config: &ProviderConfig) -> Self {
        let blank_is_none = |s: &Option<String>| {
            s.as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
        };
        Self {
            id: config.id.trim().to_owned(),
            kind: config.kind.into(),
            label: config.label.trim().to_owned(),
            base_url: blank_is_none(&config.base_url),
            api_key_env: blank_is_none(&config.api_key_env),
        }
    }
}

/// What the user edits on the settings screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub providers: Vec<ProviderConfig>,
    /// The id of the provider used unless another is picked.
    pub default_provider: String,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub default_model: Option<String>,
    /// Where the database lives; `null`: the data directory.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub data_dir: Option<String>,
}

impl From<&AppSettings> for Settings {
    fn from(settings: &AppSettings) -> Self {
        Self {
            providers: settings
                .providers
                .iter()
                .map(ProviderConfig::from)
                .collect(),
            default_provider: settings.default_provider.clone(),
            default_model: settings.default_model.clone(),
            data_dir: settings.data_dir.as_ref().map(|d| d.display().to_string()),
        }
    }
}

impl From<&Settings> for AppSettings {
    fn from(settings: &Settings) -> Self {
        Self {
            providers: settings.providers.iter().map(ProviderEntry::from).collect(),
            default_provider: settings.default_provider.trim().to_owned(),
            default_model: settings
                .default_model
                .as_deref()
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .map(str::to_owned),
            data_dir: settings
                .data_dir
                .as_deref()
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(Into::into),
        }
    }
}

/// The base URL each kind uses when a provider sets none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct DefaultBaseUrls {
    pub local: String,
    pub openai: String,
    pub anthropic: String,
}

/// The settings and what follows from them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SettingsView {
    pub settings: Settings,
    /// The configuration file they are saved in.
    pub config_path: String,
    /// The database in use.
    pub db_path: String,
    pub default_base_urls: DefaultBaseUrls,
}

/// Where a provider's API key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum KeySource {
    Keychain,
    Env,
    /// No key found.
    None,
    /// The local server takes none.
    NotNeeded,
}

/// Whether a key is there; never the key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct KeyStatus {
    pub source: KeySource,
    /// The variable the key was found in (source `env`), or the one the
    /// provider names.
    pub env_var: Option<String>,
}

/// The outcome of a connection test; a failure is an outcome too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionReport {
    pub ok: bool,
    /// The `/models` URL asked.
    pub url: String,
    pub message: String,
    /// The error's code when it failed (`auth`, `network`, ...).
    pub code: Option<String>,
    pub models: Vec<String>,
    #[ts(type = "number")]
    pub elapsed_ms: u64,
}

pub(crate) fn view(state: &AppState, settings: &AppSettings) -> IpcResult<SettingsView> {
    Ok(SettingsView {
        settings: settings.into(),
        config_path: state
            .config_path()
            .map_or_else(sift_core::config::config_path, Into::into)
            .display()
            .to_string(),
        db_path: state.db_path(settings)?.display().to_string(),
        default_base_urls: DefaultBaseUrls {
            local: local_base_url(),
            openai: OPENAI_BASE_URL.to_owned(),
            anthropic: ANTHROPIC_BASE_URL.to_owned(),
        },
    })
}

#[tauri::command]
pub fn get_settings(state: State<'_, AppState>) -> IpcResult<SettingsView> {
    view(&state, &state.settings()?)
}

/// Saves the settings, and starts the local server when it became the
/// default provider.
#[tauri::command]
pub async fn save_settings(
    settings: Settings,
    state: State<'_, AppState>,
    local: State<'_, LocalModel>,
) -> IpcResult<SettingsView> {
    let settings = AppSettings::from(&settings);
    state.workspace().save_settings(settings.clone())?;
    if LocalModel::is_default(&settings) {
        let local = local.inner().clone();
        tauri::async_runtime::spawn(async move {
            // A failure is kept in the status for the UI to show.
            let _ = local.ensure_running().await;
        });
    }
    // Opens the database at its new place now, so that a bad folder is
    // reported here rather than at the next command.
    state.store()?;
    view(&state, &settings)
}

/// The status of `provider`'s key: where it would be found.
pub(crate) fn key_status(provider: &ProviderEntry) -> KeyStatus {
    if provider.kind == ProviderChoice::Local && provider.api_key_env.is_none() {
        return KeyStatus {
            source: KeySource::NotNeeded,
            env_var: None,
        };
    }
    let settings = provider.provider_settings();
    if provider.api_key_env.is_none() && keychain::load_key(&provider.id).is_some() {
        return KeyStatus {
            source: KeySource::Keychain,
            env_var: None,
        };
    }
    let vars = settings.api_key_vars();
    match vars.iter().find(|v| ApiKey::from_env(v).is_some()) {
        Some(var) => KeyStatus {
            source: KeySource::Env,
            env_var: Some(var.clone()),
        },
        None => KeyStatus {
            source: KeySource::None,
            env_var: provider.api_key_env.clone(),
        },
    }
}

fn saved_provider(state: &AppState, provider_id: &str) -> IpcResult<ProviderEntry> {
    state
        .settings()?
        .provider(provider_id)
        .cloned()
        .ok_or_else(|| IpcError::not_found(format!("no provider {provider_id:?} in the settings")))
}

/// Runs a keychain call off the main thread: the Secret Service is a
/// D-Bus round trip, and may wait for the user to unlock the keyring.
async fn off_main<T: Send + 'static>(
    call: impl FnOnce() -> IpcResult<T> + Send + 'static,
) -> IpcResult<T> {
    tauri::async_runtime::spawn_blocking(call)
        .await
        .map_err(|e| IpcError::new("keychain", format!("the keychain call stopped: {e}")))?
}

#[tauri::command]
pub async fn api_key_status(
    provider_id: String,
    state: State<'_, AppState>,
) -> IpcResult<KeyStatus> {
    let provider = saved_provider(&state, &provider_id)?;
    off_main(move || Ok(key_status(&provider))).await
}

/// Stores the key in the OS keychain under the provider's id. The key
/// is not echoed back.
#[tauri::command]
pub async fn set_api_key(
    provider_id: String,
    key: String,
    state: State<'_, AppState>,
) -> IpcResult<KeyStatus> {
    let provider = saved_provider(&state, &provider_id)?;
    let key = ApiKey::new(key.trim());
    if key.expose().is_empty() {
        return Err(IpcError::usage("the API key is empty"));
    }
    off_main(move || {
        keychain::store_key(&provider.id, &key)?;
        Ok(key_status(&provider))
    })
    .await
}

#[tauri::command]
pub async fn delete_api_key(
    provider_id: String,
    state: State<'_, AppState>,
) -> IpcResult<KeyStatus> {
    let provider = saved_provider(&state, &provider_id)?;
    off_main(move || {
        keychain::delete_key(&provider.id)?;
        Ok(key_status(&provider))
    })
    .await
}

/// The models the provider's server lists at `/models` (the provider
/// need not be saved yet).
#[tauri::command]
pub async fn list_models(provider: ProviderConfig) -> IpcResult<Vec<String>> {
    let entry = ProviderEntry::from(&provider);
    Ok(server_models::list_models(&entry.provider_settings()).await?)
}

#[tauri::command]
pub async fn test_connection(
    provider: ProviderConfig,
    local: State<'_, LocalModel>,
) -> IpcResult<ConnectionReport> {
    let entry = ProviderEntry::from(&provider);
    if entry.kind == ProviderChoice::Local && entry.base_url.is_none() {
        // Testing the local provider means having its server up.
        local.ensure_running().await?;
    }
    let report = server_models::test_connection(&entry.provider_settings()).await;
    Ok(ConnectionReport {
        ok: report.ok,
        url: report.url,
        message: report.message,
        code: report.code,
        models: report.models,
        elapsed_ms: report.elapsed_ms,
    })
}
