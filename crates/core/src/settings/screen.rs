//! What the settings screen does: show and save the settings, keep API
//! keys in the OS keychain (never returned), list a server's models, test
//! a connection, and show and override what a model can take.

use sift_llm::ApiKey;

use super::form::{
    DefaultAnswers, DefaultBaseUrls, KeyStatus, ProviderForm, SettingsForm, SettingsView,
    key_status,
};
use crate::config::key_addresses;
use crate::config::{AppSettings, ProviderEntry};
use crate::error::CoreError;
use crate::extract::AnswerMode;
use crate::models::capabilities::{self, ModelCapabilities};
use crate::models::keychain;
use crate::models::overrides::ModelOverride;
use crate::models::provider::{
    ANTHROPIC_BASE_URL, OPENAI_BASE_URL, ProviderKind, ProviderSettings, local_base_url,
    same_address, withheld_key_error,
};
use crate::models::server::{self, ConnectionReport};
use crate::workspace::Workspace;

/// The workspace's settings and what follows from them.
pub fn view(ws: &Workspace) -> SettingsView {
    SettingsView {
        settings: SettingsForm::from(&ws.settings()),
        config_path: ws.config_path().display().to_string(),
        db_path: ws.db_path().display().to_string(),
        default_base_urls: DefaultBaseUrls {
            local: local_base_url(),
            openai: OPENAI_BASE_URL.to_owned(),
            anthropic: ANTHROPIC_BASE_URL.to_owned(),
        },
        default_answers: DefaultAnswers {
            local: AnswerMode::default_for(ProviderKind::Local),
            openai: AnswerMode::default_for(ProviderKind::OpenAi),
            anthropic: AnswerMode::default_for(ProviderKind::Anthropic),
        },
        model_overrides: ws.config().model_overrides,
    }
}

/// Checks and saves the settings, starts the local server in the
/// background when it became the default provider, and opens the
/// database at its (maybe new) place, so that a bad folder is reported
/// here rather than at the next command.
pub async fn save(ws: &Workspace, form: &SettingsForm) -> Result<SettingsView, CoreError> {
    let mut settings = AppSettings::from(form);
    // A database is made in the data folder: only one the user chose.
    if let Some(data_dir) = &settings.data_dir {
        ws.grants()
            .check_data_folder(data_dir, ws.settings().data_dir.as_deref())?;
    }
    settings.keep_extra_base_urls(&ws.settings());
    ws.save_settings(settings.clone())?;
    if settings.default_is_local_server() {
        let local = ws.local_server().clone();
        tokio::spawn(async move {
            // A failure is kept in the status for the UI to show.
            let _ = local.ensure_running().await;
        });
    }
    ws.store()?;
    Ok(view(ws))
}

fn saved_provider(ws: &Workspace, provider_id: &str) -> Result<ProviderEntry, CoreError> {
    ws.settings()
        .provider(provider_id)
        .cloned()
        .ok_or_else(|| CoreError::NotFound(format!("no provider {provider_id:?} in the settings")))
}

/// Runs a keychain call on a blocking thread: the Secret Service is a
/// D-Bus round trip, and may wait for the user to unlock the keyring.
async fn off_the_runtime<T: Send + 'static>(
    call: impl FnOnce() -> Result<T, CoreError> + Send + 'static,
) -> Result<T, CoreError> {
    tokio::task::spawn_blocking(call)
        .await
        .map_err(|e| CoreError::Internal(format!("the keychain call stopped: {e}")))?
}

/// Where the saved provider's key would be found.
pub async fn api_key_status(ws: &Workspace, provider_id: &str) -> Result<KeyStatus, CoreError> {
    let provider = saved_provider(ws, provider_id)?;
    off_the_runtime(move || Ok(key_status(&provider))).await
}

/// Stores `key` (trimmed) in the OS keychain under the saved provider's
/// id. The key is not echoed back.
pub async fn set_api_key(
    ws: &Workspace,
    provider_id: &str,
    key: &str,
) -> Result<KeyStatus, CoreError> {
    let provider = saved_provider(ws, provider_id)?;
    let key = ApiKey::new(key.trim());
    if key.expose().is_empty() {
        return Err(CoreError::Usage("the API key is empty".into()));
    }
    off_the_runtime(move || {
        keychain::store_key(&provider.id, &key)?;
        Ok(key_status(&provider))
    })
    .await
}

/// Removes the saved provider's key from the OS keychain (done already when there is
/// none) and says where a key would now be found.
pub async fn delete_api_key(ws: &Workspace, provider_id: &str) -> Result<KeyStatus, CoreError> {
    let provider = saved_provider(ws, provider_id)?;
    off_the_runtime(move || {
        keychain::delete_key(&provider.id)?;
        Ok(key_status(&provider))
    })
    .await
}

/// What a connection test from the settings screen may use of `form`,
/// which the webview sent and so may ask for anything. The form's own
/// address gets the saved provider's key only while the form still is that
/// provider: the same id, kind, address and key variable as saved; any
/// other address gets no stored key ([`crate::models::provider::KeyScope`]).
/// A form that names a key variable the saved provider does not name, or
/// names it for another address, is refused before anything is read: else
/// a page could have Sift read `AWS_SECRET_ACCESS_KEY` and send it to its
/// own server. To test a new variable or address with a key, save first.
fn form_settings(ws: &Workspace, form: &ProviderForm) -> Result<ProviderSettings, CoreError> {
    let entry = ProviderEntry::from(form);
    let mut settings = entry.provider_settings();
    let saved = ws.settings().provider(&entry.id).cloned();
    let is_saved = saved.as_ref().is_some_and(|saved| {
        saved.kind == entry.kind
            && saved.api_key_env == entry.api_key_env
            && same_address(
                &saved.provider_settings().effective_base_url(),
                &settings.effective_base_url(),
            )
    });
    if is_saved {
        return Ok(settings);
    }
    if entry.api_key_env.is_some() {
        return Err(withheld_key_error(
            &settings.effective_base_url(),
            "save the provider with this address and key variable first",
        ));
    }
    settings.key_scope = key_addresses(&ws.settings().providers, &entry.id, entry.kind);
    Ok(settings)
}

/// The models the provider's server lists at `/models` (the provider
/// need not be saved yet). Its key is the saved provider's only while
/// the form still matches it (`form_settings`, the rule of
/// [`crate::models::provider::KeyScope`]).
pub async fn list_models(
    ws: &Workspace,
    provider: &ProviderForm,
) -> Result<Vec<String>, CoreError> {
    let settings = form_settings(ws, provider)?;
    refuse_withheld_key(&settings).await?;
    server::list_models(&settings).await
}

/// Asks the provider's `/models`; testing the local provider at its own
/// address means starting the workspace's local server first. The key is
/// as for [`list_models`].
pub async fn test_connection(
    ws: &Workspace,
    provider: &ProviderForm,
) -> Result<ConnectionReport, CoreError> {
    let settings = form_settings(ws, provider)?;
    refuse_withheld_key(&settings).await?;
    if provider.kind == ProviderKind::Local && settings.base_url.is_none() {
        ws.local_server().ensure_running().await?;
    }
    Ok(server::test_connection(&settings).await)
}

/// Fails when a stored key would have gone to this address but may not,
/// so the screen says why rather than showing the server's 401.
async fn refuse_withheld_key(settings: &ProviderSettings) -> Result<(), CoreError> {
    let settings = settings.clone();
    off_the_runtime(move || {
        settings
            .checked_api_key("save the provider with this address first")
            .map(drop)
    })
    .await
}

/// Checks and saves what the user says models can take (`[[models]]`),
/// keeping the rest of the file.
pub fn save_model_overrides(
    ws: &Workspace,
    overrides: &[ModelOverride],
) -> Result<SettingsView, CoreError> {
    ws.save_model_overrides(overrides)?;
    Ok(view(ws))
}

/// What `model` of the provider (which need not be saved yet) can take,
/// the saved overrides applied; asking the local provider at its own
/// address means starting the workspace's local server first, as a
/// connection test does.
pub async fn model_capabilities(
    ws: &Workspace,
    provider: &ProviderForm,
    model: &str,
) -> Result<ModelCapabilities, CoreError> {
    let entry = ProviderEntry::from(provider);
    let model = model.trim();
    if model.is_empty() {
        return Err(CoreError::Usage("name a model to look up".into()));
    }
    if entry.kind == ProviderKind::Local && entry.base_url.is_none() {
        ws.local_server().ensure_running().await?;
    }
    let overrides = ws.config().model_overrides;
    Ok(capabilities::resolve(&overrides, &entry.id, &entry.provider_settings(), model).await)
}
