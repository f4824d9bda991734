//! The settings screen's types and key lookups, and where a workspace
//! finds its database.

use std::path::PathBuf;

use serde_json::json;
use sift_core::config::AppSettings;
use sift_core::settings::form::{KeySource, ProviderForm, SettingsForm, key_status};
use sift_core::settings::screen;
use sift_core::{KeyOrigin, ProviderKind, ProviderSettings, Workspace, WorkspaceOptions};

use crate::TempDir;

#[test]
fn settings_map_blank_fields_to_unset_and_back() {
    let settings = SettingsForm {
        providers: vec![ProviderForm {
            id: " work ".into(),
            kind: ProviderKind::OpenAi,
            label: "Work".into(),
            base_url: Some("  ".into()),
            api_key_env: Some("WORK_KEY".into()),
        }],
        default_provider: "work".into(),
        default_model: Some(String::new()),
        data_dir: Some("/tmp/sift-data".into()),
    };
    let core = AppSettings::from(&settings);
    assert_eq!(core.providers[0].id, "work");
    assert_eq!(core.providers[0].base_url, None);
    assert_eq!(core.default_model, None);
    assert_eq!(core.data_dir, Some(PathBuf::from("/tmp/sift-data")));
    let back = SettingsForm::from(&core);
    assert_eq!(back.providers[0].api_key_env.as_deref(), Some("WORK_KEY"));
    assert_eq!(
        serde_json::to_value(&back.providers[0]).unwrap(),
        json!({"id": "work", "kind": "openai", "label": "Work", "baseUrl": null, "apiKeyEnv": "WORK_KEY"})
    );
}

#[test]
fn a_key_status_never_holds_the_key() {
    let local = AppSettings::defaults().providers[0].clone();
    assert_eq!(key_status(&local).source, KeySource::NotNeeded);
    // A provider whose key lives in a variable that is set: `PATH` stands
    // in for it (tests cannot set variables); its value must not show.
    let mut work = local.clone();
    work.kind = ProviderKind::OpenAi;
    work.id = "work".into();
    work.api_key_env = Some("PATH".into());
    let status = key_status(&work);
    assert_eq!(status.source, KeySource::Env);
    assert_eq!(status.env_var.as_deref(), Some("PATH"));
    let json = serde_json::to_string(&status).unwrap();
    assert_eq!(json, r#"{"source":"env","envVar":"PATH"}"#);
    work.api_key_env = Some("SIFT_APP_TESTS_NO_SUCH_VAR".into());
    assert_eq!(key_status(&work).source, KeySource::None);
}

/// Needs a keychain (`scripts/test.sh` runs it in a private GNOME Keyring).
#[test]
#[ignore = "needs the OS keychain"]
fn a_stored_key_shows_as_in_the_keychain_and_is_gone_once_deleted() {
    let mut provider = AppSettings::defaults().providers[2].clone();
    provider.id = format!("sift-app-test-{}", std::process::id());
    let key = sift_llm::ApiKey::new("sk-test-not-shown-1234");
    sift_core::models::keychain::store_key(&provider.id, &key).unwrap();
    let status = key_status(&provider);
    assert_eq!(status.source, KeySource::Keychain);
    assert!(!serde_json::to_string(&status).unwrap().contains("sk-test"));
    sift_core::models::keychain::delete_key(&provider.id).unwrap();
    assert_ne!(key_status(&provider).source, KeySource::Keychain);
}

fn provider(kind: ProviderKind, api_key_env: Option<&str>) -> ProviderSettings {
    ProviderSettings {
        provider: Some(kind),
        base_url: None,
        extra_base_urls: Vec::new(),
        api_key_env: api_key_env.map(str::to_owned),
        api_key_account: None,
        key_scope: Default::default(),
    }
}

#[test]
fn the_key_is_looked_up_where_the_client_looks_and_found_there() {
    // The variable the settings name wins, for every kind, local too.
    for kind in [
        ProviderKind::OpenAi,
        ProviderKind::Anthropic,
        ProviderKind::Local,
    ] {
        let named = provider(kind, Some("PATH"));
        assert_eq!(named.key_origin(), KeyOrigin::Env("PATH".into()));
        assert!(named.api_key().is_some(), "{kind}");
        assert!(
            named.client_config().api_key.is_some(),
            "the client gets the key from the same place"
        );
        // A named variable that is unset is not replaced by another.
        let unset = provider(kind, Some("SIFT_CORE_TESTS_NO_SUCH_VAR"));
        assert_eq!(unset.key_origin(), KeyOrigin::Missing);
        assert!(unset.api_key().is_none());
    }
    // The local server takes none of the user's unless a variable is
    // named. (A server Sift started gets its own key from its record, and
    // the real-server tests of this binary start one in the real data
    // folder while this runs: so this provider is at an address no record
    // names.)
    let mut local = provider(ProviderKind::Local, None);
    local.base_url = Some("http://127.0.0.1:9/v1".into());
    assert_eq!(local.key_origin(), KeyOrigin::NotNeeded);
    assert!(local.client_config().api_key.is_none());
}

/// Needs a keychain (`scripts/test.sh` runs it in a private GNOME Keyring).
#[test]
#[ignore = "needs the OS keychain"]
fn the_keychain_comes_before_the_default_variables_and_after_a_named_one() {
    let account = format!("sift-core-test-order-{}", std::process::id());
    let key = sift_llm::ApiKey::new("sk-test-order-5678");
    sift_core::models::keychain::store_key(&account, &key).unwrap();
    let mut settings = provider(ProviderKind::OpenAi, None);
    settings.api_key_account = Some(account.clone());
    assert_eq!(settings.key_origin(), KeyOrigin::Keychain(account.clone()));
    assert_eq!(
        settings.api_key().map(|k| k.expose().to_owned()).as_deref(),
        Some("sk-test-order-5678")
    );
    settings.api_key_env = Some("PATH".into());
    assert_eq!(settings.key_origin(), KeyOrigin::Env("PATH".into()));
    sift_core::models::keychain::delete_key(&account).unwrap();
}

fn config_with_data_dir(dir: &TempDir) -> PathBuf {
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[defaults]\ndata_dir = \"{}\"\n",
            dir.0.join("data").display()
        ),
    )
    .unwrap();
    config
}

#[test]
fn the_apps_workspace_uses_sift_db_in_the_settings_data_folder() {
    assert!(
        std::env::var_os("SIFT_DB").is_none(),
        "SIFT_DB overrides the data folder on purpose: run the tests without it"
    );
    let dir = TempDir::new("ws-data-dir");
    let config = config_with_data_dir(&dir);
    let ws = Workspace::open(WorkspaceOptions::app(Some(config.clone()), None)).unwrap();
    let expected = dir.0.join("data").join("sift.db");
    assert_eq!(ws.db_path(), expected);
    std::fs::create_dir_all(dir.0.join("data")).unwrap();
    ws.store().unwrap();
    assert!(expected.is_file(), "the database is created there");
    let view = screen::view(&ws);
    assert_eq!(view.db_path, expected.display().to_string());
    assert_eq!(view.config_path, config.display().to_string());
    assert_eq!(
        view.settings.data_dir.as_deref(),
        Some(dir.0.join("data").display().to_string().as_str())
    );
    // What a run answers by default, as the screens state it: the rule
    // comes from core, not from the web UI.
    assert_eq!(
        serde_json::to_value(&view.default_answers).unwrap(),
        json!({"local": "hybrid", "openai": "free", "anthropic": "free"})
    );
}

#[tokio::test]
async fn saving_trims_the_form_keeps_the_given_database_and_writes_no_key() {
    let dir = TempDir::new("ws-save");
    let config = config_with_data_dir(&dir);
    let ws = Workspace::open(WorkspaceOptions::app(
        Some(config.clone()),
        Some(dir.0.join("given.db")),
    ))
    .unwrap();
    let mut form = screen::view(&ws).settings;
    form.providers[1].api_key_env = Some(" WORK_KEY ".into());
    form.default_provider = " openai ".into();
    form.default_model = Some(" gpt-x ".into());
    let saved = screen::save(&ws, &form).await.unwrap();
    assert_eq!(saved.settings.default_provider, "openai");
    assert_eq!(saved.settings.default_model.as_deref(), Some("gpt-x"));
    assert_eq!(
        saved.settings.providers[1].api_key_env.as_deref(),
        Some("WORK_KEY")
    );
    // The database given to the workspace stays the one in use.
    assert_eq!(saved.db_path, dir.0.join("given.db").display().to_string());
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.contains("api_key_env = \"WORK_KEY\""), "{text}");
    // Read back by a new workspace on the same file.
    let again = Workspace::open(WorkspaceOptions::app(Some(config), None)).unwrap();
    assert_eq!(again.settings(), ws.settings());
    // A mistake is refused and nothing changes.
    form.default_provider = "gone".into();
    let error = screen::save(&ws, &form).await.unwrap_err();
    assert_eq!(error.code(), "usage");
    assert_eq!(ws.settings().default_provider, "openai");
}

#[tokio::test]
async fn keys_of_providers_not_in_the_settings_are_not_found() {
    let dir = TempDir::new("ws-keys");
    let ws = Workspace::open(WorkspaceOptions::app(
        Some(dir.0.join("config.toml")),
        Some(dir.db()),
    ))
    .unwrap();
    let error = screen::api_key_status(&ws, "nope").await.unwrap_err();
    assert_eq!(error.code(), "not_found");
    assert_eq!(error.to_string(), "no provider \"nope\" in the settings");
    let error = screen::set_api_key(&ws, "openai", "  ").await.unwrap_err();
    assert_eq!(error.code(), "usage");
    assert_eq!(error.to_string(), "the API key is empty");
    let status = screen::api_key_status(&ws, "local").await.unwrap();
    assert_eq!(status.source, KeySource::NotNeeded);
}
