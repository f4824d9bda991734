//! Settings: the providers, the default provider and model, the data
//! folder; API keys in the OS keychain (never returned); the model list
//! and a connection test; what a model can take, and the user's
//! overrides of it. Each calls `sift_core::settings::screen`.

use sift_core::Workspace;
use sift_core::models::ModelOverride;
use sift_core::models::capabilities::ModelCapabilities;
use sift_core::models::server::ConnectionReport;
use sift_core::settings::form::{KeyStatus, ProviderForm, SettingsForm, SettingsView};
use sift_core::settings::screen;
use tauri::State;

use crate::error::IpcResult;

#[tauri::command]
pub fn get_settings(ws: State<'_, Workspace>) -> SettingsView {
    screen::view(&ws)
}

/// Saves the settings, and starts the local server when it became the
/// default provider.
#[tauri::command]
pub async fn save_settings(
    settings: SettingsForm,
    ws: State<'_, Workspace>,
) -> IpcResult<SettingsView> {
    Ok(screen::save(&ws, &settings).await?)
}

#[tauri::command]
pub async fn api_key_status(provider_id: String, ws: State<'_, Workspace>) -> IpcResult<KeyStatus> {
    Ok(screen::api_key_status(&ws, &provider_id).await?)
}

/// Stores the key in the OS keychain under the provider's id. The key
/// is not echoed back.
#[tauri::command]
pub async fn set_api_key(
    provider_id: String,
    key: String,
    ws: State<'_, Workspace>,
) -> IpcResult<KeyStatus> {
    Ok(screen::set_api_key(&ws, &provider_id, &key).await?)
}

#[tauri::command]
pub async fn delete_api_key(provider_id: String, ws: State<'_, Workspace>) -> IpcResult<KeyStatus> {
    Ok(screen::delete_api_key(&ws, &provider_id).await?)
}

/// The models the provider's server lists at `/models` (the provider
/// need not be saved yet).
#[tauri::command]
pub async fn list_models(
    provider: ProviderForm,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<String>> {
    Ok(screen::list_models(&ws, &provider).await?)
}

#[tauri::command]
pub async fn test_connection(
    provider: ProviderForm,
    ws: State<'_, Workspace>,
) -> IpcResult<ConnectionReport> {
    Ok(screen::test_connection(&ws, &provider).await?)
}

/// Saves what the user says models can take (`[[models]]`).
#[tauri::command]
pub fn save_model_overrides(
    overrides: Vec<ModelOverride>,
    ws: State<'_, Workspace>,
) -> IpcResult<SettingsView> {
    Ok(screen::save_model_overrides(&ws, &overrides)?)
}

/// Whether the provider's model takes images and tools, and who says so
/// (the provider need not be saved yet).
#[tauri::command]
pub async fn model_capabilities(
    provider: ProviderForm,
    model: String,
    ws: State<'_, Workspace>,
) -> IpcResult<ModelCapabilities> {
    Ok(screen::model_capabilities(&ws, &provider, &model).await?)
}
