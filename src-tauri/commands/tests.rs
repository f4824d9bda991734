//! The settings' mapping and key status. (The schema library and the
//! extraction's tests moved with their logic to `sift-core`.)
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::PathBuf;

use serde_json::json;
use sift_core::ProviderChoice;

use super::settings::{KeySource, ProviderConfig, ProviderKind, Settings, key_status};

#[test]
fn settings_map_blank_fields_to_unset_and_back() {
    let settings = Settings {
        providers: vec![ProviderConfig {
            id: " work ".into(),
            kind: ProviderKind::Openai,
            label: "Work".into(),
            base_url: Some("  ".into()),
            api_key_env: Some("WORK_KEY".into()),
        }],
        default_provider: "work".into(),
        default_model: Some(String::new()),
        data_dir: Some("/tmp/sift-data".into()),
    };
    let core = sift_core::settings::AppSettings::from(&settings);
    assert_eq!(core.providers[0].id, "work");
    assert_eq!(core.providers[0].base_url, None);
    assert_eq!(core.default_model, None);
    assert_eq!(core.data_dir, Some(PathBuf::from("/tmp/sift-data")));
    let back = Settings::from(&core);
    assert_eq!(back.providers[0].api_key_env.as_deref(), Some("WORK_KEY"));
    assert_eq!(
        serde_json::to_value(&back.providers[0]).unwrap(),
        json!({"id": "work", "kind": "openai", "label": "Work", "baseUrl": null, "apiKeyEnv": "WORK_KEY"})
    );
}

#[test]
fn a_key_status_never_holds_the_key() {
    let local = sift_core::settings::AppSettings::defaults().providers[0].clone();
    assert_eq!(key_status(&local).source, KeySource::NotNeeded);
    // A provider whose key lives in a variable that is set: `PATH` stands
    // in for it (tests cannot set variables); its value must not show.
    let mut work = local.clone();
    work.kind = ProviderChoice::OpenAi;
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
    let mut provider = sift_core::settings::AppSettings::defaults().providers[2].clone();
    provider.id = format!("sift-app-test-{}", std::process::id());
    let key = sift_core::llm::ApiKey::new("sk-test-not-shown-1234");
    sift_core::keychain::store_key(&provider.id, &key).unwrap();
    let status = key_status(&provider);
    assert_eq!(status.source, KeySource::Keychain);
    assert!(!serde_json::to_string(&status).unwrap().contains("sk-test"));
    sift_core::keychain::delete_key(&provider.id).unwrap();
    assert_ne!(key_status(&provider).source, KeySource::Keychain);
}
