//! What a model can take, resolved against the scripted server answering
//! as llama.cpp, Ollama and LM Studio do, and as a server that cannot
//! tell (llama-cpp-python's): the requests sent, the answer and where it
//! came from, the table when the server cannot say, overrides over all.

use std::collections::BTreeMap;

use sift_core::models::ModelOverride;
use sift_core::models::capabilities::{CapabilitySource, ModelCapabilities, resolve};
use sift_core::settings::form::ProviderForm;
use sift_core::settings::screen;
use sift_core::{ProviderKind, ProviderSettings, Workspace, WorkspaceOptions};
use sift_scripted_server::{LmStudioModel, Script, ScriptedServer, ServerIdentity};

use crate::TempDir;

use CapabilitySource::{Default, KnownFamily, Override, Server};

fn at(server: &ScriptedServer, kind: ProviderKind) -> ProviderSettings {
    ProviderSettings {
        provider: Some(kind),
        base_url: Some(server.openai_base_url()),
        extra_base_urls: Vec::new(),
        api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
        api_key_account: None,
        key_scope: sift_core::models::provider::KeyScope::UserAddress,
    }
}

fn routes(server: &ScriptedServer) -> Vec<String> {
    server
        .model_info_requests()
        .iter()
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

fn caps(
    images: (bool, CapabilitySource),
    tools: (bool, CapabilitySource),
    server_route: Option<&str>,
    family: Option<&str>,
) -> ModelCapabilities {
    ModelCapabilities {
        images: images.0,
        tools: tools.0,
        images_source: images.1,
        tools_source: tools.1,
        server_route: server_route.map(str::to_owned),
        family: family.map(str::to_owned),
    }
}

fn ollama() -> Script {
    let capabilities = BTreeMap::from([
        (
            "qwen2.5vl:7b".to_owned(),
            vec![
                "completion".to_owned(),
                "vision".to_owned(),
                "tools".to_owned(),
            ],
        ),
        (
            "llava:7b".to_owned(),
            vec!["completion".to_owned(), "vision".to_owned()],
        ),
    ]);
    Script::new().answering_as(ServerIdentity::Ollama { capabilities })
}

#[tokio::test]
async fn the_local_default_takes_no_images_from_props() {
    let server = ScriptedServer::start(Script::new().answering_as(ServerIdentity::LlamaCpp {
        vision: false,
        supports_tools: None,
        n_ctx: 8192,
        total_slots: 2,
    }))
    .await
    .unwrap();
    let local = at(&server, ProviderKind::Local);
    let resolved = resolve(&[], "local", &local, sift_core::LOCAL_DEFAULT_MODEL).await;
    // /props says no vision; it says nothing of tools, and the local
    // server's name (`local`, whichever model it serves) is no family of
    // the table: the rule for an unknown model on llama.cpp says tools.
    assert_eq!(
        resolved,
        caps((false, Server), (true, Default), Some("GET /props"), None)
    );
    assert_eq!(routes(&server), ["GET /props"]);
    let request = &server.model_info_requests()[0];
    assert_eq!(request.path, "/props");
    assert_eq!(request.header("authorization"), None);
    // Kept for the process: asked once.
    assert_eq!(
        resolve(&[], "local", &local, sift_core::LOCAL_DEFAULT_MODEL).await,
        resolved
    );
    assert_eq!(routes(&server), ["GET /props"]);
}

#[tokio::test]
async fn without_props_the_local_default_takes_no_images_from_the_table() {
    // llama-cpp-python's server, Sift's local default, has no /props: 404.
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let local = at(&server, ProviderKind::Local);
    assert_eq!(
        resolve(&[], "local", &local, "smollm2").await,
        caps(
            (false, KnownFamily),
            (true, KnownFamily),
            None,
            Some("smollm")
        )
    );
    assert_eq!(routes(&server), ["GET /props"]);
    // An unknown model there: no images, tools.
    assert_eq!(
        resolve(&[], "local", &local, "my-finetune-q4").await,
        caps((false, Default), (true, Default), None, None)
    );
}

#[tokio::test]
async fn a_generic_address_is_asked_as_ollama_and_as_lm_studio() {
    let ollama = ScriptedServer::start(ollama()).await.unwrap();
    let work = at(&ollama, ProviderKind::OpenAi);
    assert_eq!(
        resolve(&[], "work", &work, "llava:7b").await,
        caps(
            (true, Server),
            (false, Server),
            Some("POST /api/show"),
            Some("llava")
        )
    );
    assert_eq!(routes(&ollama), ["GET /props", "POST /api/show"]);
    assert_eq!(
        ollama.model_info_requests()[1].body,
        serde_json::json!({"model": "llava:7b"})
    );

    let lm_studio = ScriptedServer::start(Script::new().answering_as(ServerIdentity::LmStudio {
        models: vec![LmStudioModel {
            id: "qwen2-vl-7b-instruct".into(),
            kind: "vlm".into(),
            capabilities: None,
        }],
    }))
    .await
    .unwrap();
    let studio = at(&lm_studio, ProviderKind::OpenAi);
    assert_eq!(
        resolve(&[], "studio", &studio, "qwen2-vl-7b-instruct").await,
        // The type says images; the table says this family takes no tools.
        caps(
            (true, Server),
            (false, KnownFamily),
            Some("GET /api/v0/models"),
            Some("qwen2-vl")
        )
    );
    assert_eq!(
        routes(&lm_studio),
        ["GET /props", "POST /api/show", "GET /api/v0/models"]
    );
}

#[tokio::test]
async fn an_override_wins_over_the_server_and_the_table() {
    let server = ScriptedServer::start(ollama()).await.unwrap();
    let work = at(&server, ProviderKind::OpenAi);
    let overrides = [
        ModelOverride {
            provider: "work".into(),
            model: "qwen2.5vl:7b".into(),
            images: Some(false),
            tools: None,
        },
        ModelOverride {
            provider: "other".into(),
            model: "llava:7b".into(),
            images: Some(false),
            tools: Some(true),
        },
    ];
    assert_eq!(
        resolve(&overrides, "work", &work, "qwen2.5vl:7b").await,
        caps(
            (false, Override),
            (true, Server),
            Some("POST /api/show"),
            Some("qwen2.5vl")
        )
    );
    // Another provider's override does not count.
    assert_eq!(
        resolve(&overrides, "work", &work, "llava:7b").await,
        caps(
            (true, Server),
            (false, Server),
            Some("POST /api/show"),
            Some("llava")
        )
    );
    let both = [ModelOverride {
        provider: "local".into(),
        model: "smollm2".into(),
        images: Some(true),
        tools: Some(false),
    }];
    let plain = ScriptedServer::start(Script::new()).await.unwrap();
    assert_eq!(
        resolve(&both, "local", &at(&plain, ProviderKind::Local), "smollm2").await,
        caps((true, Override), (false, Override), None, Some("smollm"))
    );
}

#[tokio::test]
async fn first_party_clouds_are_not_asked_and_keep_images_for_unknown_names() {
    let cloud = |kind| ProviderSettings {
        provider: Some(kind),
        base_url: None,
        extra_base_urls: Vec::new(),
        api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
        api_key_account: None,
        key_scope: sift_core::models::provider::KeyScope::UserAddress,
    };
    assert_eq!(
        resolve(&[], "openai", &cloud(ProviderKind::OpenAi), "gpt-4o-mini").await,
        caps(
            (true, KnownFamily),
            (true, KnownFamily),
            None,
            Some("gpt-4o")
        )
    );
    assert_eq!(
        resolve(&[], "openai", &cloud(ProviderKind::OpenAi), "gpt-3.5-turbo").await,
        caps(
            (false, KnownFamily),
            (true, KnownFamily),
            None,
            Some("gpt-3.5")
        )
    );
    assert_eq!(
        resolve(&[], "openai", &cloud(ProviderKind::OpenAi), "future-model").await,
        caps((true, Default), (true, Default), None, None)
    );
    assert_eq!(
        resolve(
            &[],
            "anthropic",
            &cloud(ProviderKind::Anthropic),
            "claude-next"
        )
        .await,
        caps((true, Default), (true, Default), None, None)
    );
}

#[tokio::test]
async fn an_unreachable_server_is_asked_again_once_it_answers() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let local = ProviderSettings {
        provider: Some(ProviderKind::Local),
        base_url: Some(format!("http://{addr}/v1")),
        extra_base_urls: Vec::new(),
        api_key_env: None,
        api_key_account: None,
        key_scope: sift_core::models::provider::KeyScope::UserAddress,
    };
    assert_eq!(
        resolve(&[], "local", &local, "gemma3:4b").await,
        caps(
            (true, KnownFamily),
            (false, KnownFamily),
            None,
            Some("gemma3")
        )
    );
    let server = ScriptedServer::start_on(
        addr,
        Script::new().answering_as(ServerIdentity::LlamaCpp {
            vision: false,
            supports_tools: Some(true),
            n_ctx: 4096,
            total_slots: 1,
        }),
    )
    .await
    .unwrap();
    // The server says this build has no vision projector loaded.
    assert_eq!(
        resolve(&[], "local", &local, "gemma3:4b").await,
        caps(
            (false, Server),
            (true, Server),
            Some("GET /props"),
            Some("gemma3")
        )
    );
    assert_eq!(routes(&server), ["GET /props"]);
}

#[tokio::test]
async fn the_settings_screen_saves_overrides_and_looks_a_model_up_with_them() {
    let dir = TempDir::new("model-overrides");
    let config = dir.0.join("config.toml");
    std::fs::write(&config, "# kept\n[context]\nIMAGES_IN_CONTEXT = 2\n").unwrap();
    let ws = Workspace::open(WorkspaceOptions::app(Some(config.clone()), Some(dir.db()))).unwrap();
    let server = ScriptedServer::start(ollama()).await.unwrap();
    let form = ProviderForm {
        id: "ollama".into(),
        kind: ProviderKind::OpenAi,
        label: "Ollama".into(),
        base_url: Some(server.openai_base_url()),
        api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
    };
    let view = screen::save_model_overrides(
        &ws,
        &[ModelOverride {
            provider: " ollama ".into(),
            model: "llava:7b".into(),
            images: None,
            tools: Some(true),
        }],
    )
    .unwrap();
    let saved = ModelOverride {
        provider: "ollama".into(),
        model: "llava:7b".into(),
        images: None,
        tools: Some(true),
    };
    assert_eq!(view.model_overrides, std::slice::from_ref(&saved));
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "# kept\n[context]\nIMAGES_IN_CONTEXT = 2\n\n[[models]]\nprovider = \"ollama\"\nname = \"llava:7b\"\ntools = true\n"
    );
    assert_eq!(
        screen::model_capabilities(&ws, &form, " llava:7b ")
            .await
            .unwrap(),
        caps(
            (true, Server),
            (true, Override),
            Some("POST /api/show"),
            Some("llava")
        )
    );
    // Saving the settings keeps the overrides; a reopened workspace reads them.
    // (Not the local provider as the default: that would start its server.)
    let mut settings = screen::view(&ws).settings;
    settings.default_provider = "openai".into();
    settings.default_model = Some("gpt-4o-mini".into());
    screen::save(&ws, &settings).await.unwrap();
    let reopened = Workspace::open(WorkspaceOptions::app(Some(config), Some(dir.db()))).unwrap();
    assert_eq!(reopened.config().model_overrides, [saved]);
    assert_eq!(reopened.config().context.images_in_context, Some(2));
    let error = screen::model_capabilities(&ws, &form, " ")
        .await
        .unwrap_err();
    assert_eq!(error.to_string(), "name a model to look up");
    let error = screen::save_model_overrides(
        &ws,
        &[ModelOverride {
            provider: "ollama".into(),
            model: "m".into(),
            images: None,
            tools: None,
        }],
    )
    .unwrap_err();
    assert_eq!(error.code(), "usage");
}
