//! The settings screen's model list and connection test send a key only
//! to the saved provider's own address: the webview's form cannot have
//! Sift read a variable and send it elsewhere.

use sift_core::settings::form::ProviderForm;
use sift_core::settings::screen;
use sift_core::{ProviderKind, Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::TempDir;

/// `PATH` stands for a secret: every test process has it, and it must not
/// leave for an address the user did not save with it.
fn secret() -> String {
    std::env::var("PATH").unwrap()
}

async fn server_requiring_secret() -> ScriptedServer {
    ScriptedServer::start(
        Script::new()
            .requiring_key(&secret())
            .with("m", [Reply::text("hi")]),
    )
    .await
    .unwrap()
}

fn form(base_url: &str, key_env: &str) -> ProviderForm {
    ProviderForm {
        id: "work".into(),
        kind: ProviderKind::OpenAi,
        label: "Work".into(),
        base_url: Some(base_url.into()),
        api_key_env: Some(key_env.into()),
    }
}

#[tokio::test]
async fn a_forms_key_variable_is_read_only_for_its_saved_address() {
    let saved = server_requiring_secret().await;
    let dir = TempDir::new("form-keys");
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[[providers]]\nid = \"work\"\nkind = \"openai\"\nbase_url = \"{}\"\napi_key_env = \"PATH\"\n",
            saved.openai_base_url()
        ),
    )
    .unwrap();
    let ws = Workspace::open(WorkspaceOptions::app(Some(config), Some(dir.db()))).unwrap();

    // As saved: the variable is read and sent to the saved address.
    let as_saved = form(&saved.openai_base_url(), "PATH");
    assert_eq!(screen::list_models(&ws, &as_saved).await.unwrap(), ["m"]);
    let report = screen::test_connection(&ws, &as_saved).await.unwrap();
    assert!(report.ok, "{report:?}");

    // Another address, or another variable: refused before anything is read.
    let elsewhere = server_requiring_secret().await;
    let refusals = [
        (
            form(&elsewhere.openai_base_url(), "PATH"),
            elsewhere.openai_base_url(),
        ),
        (
            form(&saved.openai_base_url(), "HOME"),
            saved.openai_base_url(),
        ),
    ];
    for (form, url) in refusals {
        let expected = format!(
            "no key for {url}: a stored key goes only to its provider's address; \
             save the provider with this address and key variable first"
        );
        let error = screen::list_models(&ws, &form).await.unwrap_err();
        assert_eq!(error.to_string(), expected);
        assert_eq!(error.code(), "usage");
        let error = screen::test_connection(&ws, &form).await.unwrap_err();
        assert_eq!(error.to_string(), expected);
        assert!(!expected.contains(&secret()));
    }

    // Another address with no variable named: tested without a key, which
    // the server refuses.
    let mut keyless = form(&elsewhere.openai_base_url(), "");
    keyless.api_key_env = None;
    let report = screen::test_connection(&ws, &keyless).await.unwrap();
    assert!(!report.ok, "{report:?}");
    assert_eq!(report.code.as_deref(), Some("auth"), "{report:?}");
}
