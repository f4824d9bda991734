//! Can this model take images, and does it take tools? Each answer comes
//! from the first of these that says:
//!
//! 1. the user's override in the configuration file (`[[models]]`, see
//!    `overrides.rs`, [`super::ModelOverride`]);
//! 2. the model's server, where it can tell ([`sift_llm::model_probe`]:
//!    llama.cpp's `/props`, Ollama's `/api/show`, LM Studio's
//!    `/api/v0/models`);
//! 3. the table of known model families ([`sift_llm::MODEL_FAMILIES`]);
//! 4. the default for a model no row names: images and tools on OpenAI's
//!    and Anthropic's own APIs, tools but no images anywhere else
//!    ([`ModelFeatures::unknown_model`]).
//!
//! So Sift's local default, Qwen2.5-Coder-1.5B on llama.cpp's
//! `llama-server`, takes no images, as its `/props` says; on llama.cpp
//! every model answers structured calls held to their schema
//! (`sift_engine::AnswerChannel`, chosen in [`crate::models`]).
//!
//! What the server and the table say is kept for the process, per base
//! URL and model, so a job asks a server once; an unreachable server is
//! not kept, so it is asked again once it is up. Overrides are applied
//! over that at every call, so an edit in Settings counts at once.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex, PoisonError};

use serde::Serialize;
use sift_llm::model_probe::{ProbeOutcome, ask_server};
use sift_llm::{ModelFeatures, ServerFlavor};

use crate::models::provider::{ProviderKind, ProviderSettings};
// From the file below `settings`, not its facade: `settings/mod.rs` uses
// `models`, which uses this module.
use crate::models::overrides::ModelOverride;

/// Where one answer came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum CapabilitySource {
    /// The user's `[[models]]` override.
    Override,
    /// The model's server said.
    Server,
    /// The table of known model families.
    KnownFamily,
    /// No one said: the rule for an unknown model.
    Default,
}

/// What one model can take, and who said so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelCapabilities {
    /// Whether the model can be sent images (page renders, photos).
    pub images: bool,
    /// Whether the model can be offered tools to call.
    pub tools: bool,
    /// Who said whether it takes images.
    pub images_source: CapabilitySource,
    /// Who said whether it takes tools.
    pub tools_source: CapabilitySource,
    /// The server's route that answered (`GET /props`), when it did.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub server_route: Option<String>,
    /// The row of the known families that names the model (`smollm`).
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub family: Option<String>,
}

/// What the server and the table said, before overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Detected {
    images: (bool, CapabilitySource),
    tools: (bool, CapabilitySource),
    server_route: Option<String>,
    family: Option<String>,
}

type CacheKey = (String, String);

static DETECTED: LazyLock<Mutex<HashMap<CacheKey, Detected>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

fn cached(key: &CacheKey) -> Option<Detected> {
    DETECTED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(key)
        .cloned()
}

/// What `model` of the provider `provider_id` (reached through
/// `provider`) can take. `overrides` are the configuration file's
/// (`Workspace::config().model_overrides`). Never fails: a server that
/// cannot be reached leaves the answer to the table.
pub async fn resolve(
    overrides: &[ModelOverride],
    provider_id: &str,
    provider: &ProviderSettings,
    model: &str,
) -> ModelCapabilities {
    let detected = detect(provider, model).await;
    let chosen = overrides.iter().find(|o| o.is_for(provider_id, model));
    let pick = |over: Option<bool>, (value, source): (bool, CapabilitySource)| match over {
        Some(value) => (value, CapabilitySource::Override),
        None => (value, source),
    };
    let (images, images_source) = pick(chosen.and_then(|o| o.images), detected.images);
    let (tools, tools_source) = pick(chosen.and_then(|o| o.tools), detected.tools);
    ModelCapabilities {
        images,
        tools,
        images_source,
        tools_source,
        server_route: detected.server_route,
        family: detected.family,
    }
}

/// Whether every one of `models` takes images (`false` for none). A
/// document's message is built once for a fallback list, and a model
/// tried after the first gets the same one: one text-only model makes the
/// documents text. The one rule for every reader of documents (a job, an
/// evaluation, a chat's attachments).
pub async fn all_take_images(
    overrides: &[ModelOverride],
    provider_id: &str,
    provider: &ProviderSettings,
    models: &[String],
) -> bool {
    if models.is_empty() {
        return false;
    }
    for model in models {
        if !resolve(overrides, provider_id, provider, model)
            .await
            .images
        {
            return false;
        }
    }
    true
}

/// The server's answer, else the table's, else the default; kept unless
/// the server could not be reached.
async fn detect(provider: &ProviderSettings, model: &str) -> Detected {
    let base_url = provider.effective_base_url();
    let key = (base_url.clone(), model.to_owned());
    if let Some(detected) = cached(&key) {
        return detected;
    }
    let flavor = provider.server_flavor();
    let outcome = ask_server(&base_url, flavor, probe_key(provider).await.as_ref(), model).await;
    let family = ModelFeatures::known_family(model);
    let fallback = family.map_or_else(
        || {
            (
                ModelFeatures::unknown_model(flavor),
                CapabilitySource::Default,
            )
        },
        |f| (f.features, CapabilitySource::KnownFamily),
    );
    let from_table = |value: fn(&ModelFeatures) -> bool| (value(&fallback.0), fallback.1);
    let (told, keep) = match &outcome {
        ProbeOutcome::Told(report) => (Some(report), true),
        ProbeOutcome::CannotTell => (None, true),
        ProbeOutcome::Unreachable(_) => (None, false),
    };
    let from_server = |said: Option<bool>, value: fn(&ModelFeatures) -> bool| match said {
        Some(said) => (said, CapabilitySource::Server),
        None => from_table(value),
    };
    let images = from_server(told.and_then(|r| r.images), |f| f.images);
    let tools = from_server(told.and_then(|r| r.tools), |f| f.tools);
    let detected = Detected {
        images,
        tools,
        server_route: told.map(|r| r.route.to_owned()),
        family: family.map(|f| f.pattern.to_owned()),
    };
    if keep {
        DETECTED
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, detected.clone());
    }
    detected
}

/// The key the probe sends: the local server's own (it asks every route
/// but `/health` for it; read from its record, no keychain), or a generic
/// OpenAI-compatible server's (a gateway may guard every route), looked up
/// off the runtime: the keychain is a D-Bus round trip. The first-party
/// clouds are not asked.
async fn probe_key(provider: &ProviderSettings) -> Option<sift_llm::ApiKey> {
    if provider.choice() == ProviderKind::Local {
        return provider.api_key();
    }
    if provider.choice() != ProviderKind::OpenAi
        || provider.server_flavor() != ServerFlavor::Generic
    {
        return None;
    }
    let provider = provider.clone();
    tokio::task::spawn_blocking(move || provider.api_key())
        .await
        .ok()
        .flatten()
}
