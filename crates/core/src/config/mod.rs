//! The configuration file: the model providers the user set up, the
//! default provider and model, and the data folder, as the file holds
//! them. They live in the
//! configuration file (`file.rs`, at `config_path()`) beside
//! `[context]` (`context.rs`):
//!
//! ```toml
//! [defaults]
//! provider = "work"            # the id of one of the providers below
//! model = "gpt-4o-mini"
//! data_dir = "/home/me/sift"   # where sift.db lives; unset: the data directory
//!
//! [[providers]]
//! id = "work"                  # also the keychain account of its API key
//! kind = "openai"              # openai (any OpenAI-compatible server), anthropic or local
//! label = "Work gateway"
//! base_url = "https://llm.example.com/v1"
//! api_key_env = "WORK_KEY"     # optional: the variable holding the key, instead of the keychain
//!
//! [[providers]]
//! id = "farm"
//! kind = "openai"
//! base_urls = ["http://a:11434/v1", "http://b:11434/v1"]  # instead of base_url: calls spread over them
//! ```
//!
//! Beside them, `[[models]]` says what a model can take, over what is
//! detected (`models/overrides.rs`, [`crate::models::ModelOverride`]).
//!
//! The workspace reads this file when it opens; the Settings screen
//! ([`crate::settings`]) edits it. Its sections have a file each:
//! `context.rs` `[context]`, `ocr.rs` `[ocr]`, `read.rs` `[read]`; only
//! `file.rs` reads and writes the file.

pub(crate) mod context;
pub(crate) mod file;
pub(crate) mod ocr;
pub(crate) mod read;

use std::path::PathBuf;

pub use file::{
    load_settings, parse_settings, render_settings, save_model_overrides, save_settings,
};

use crate::error::CoreError;
use crate::models::ModelSelection;
use crate::models::provider::{KeyScope, LOCAL_DEFAULT_MODEL, ProviderKind, ProviderSettings};

/// One model server the user can pick.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderEntry {
    /// Unique among the providers; the keychain account of its key.
    pub id: String,
    /// Which kind of server it is, and so which API it speaks.
    pub kind: ProviderKind,
    /// For people; the id when empty.
    pub label: String,
    /// `None`: the kind's default (OpenAI's, Anthropic's, or the local
    /// server's address).
    pub base_url: Option<String>,
    /// The endpoints after `base_url` when the file lists several
    /// (`base_urls`, whose first is `base_url`).
    pub extra_base_urls: Vec<String>,
    /// The environment variable holding the key, instead of the keychain.
    pub api_key_env: Option<String>,
}

impl ProviderEntry {
    /// What the engine needs to reach this provider. The key is looked up
    /// when a client is built, never stored here.
    pub fn provider_settings(&self) -> ProviderSettings {
        ProviderSettings {
            provider: Some(self.kind),
            base_url: self.base_url.clone(),
            extra_base_urls: self.extra_base_urls.clone(),
            api_key_env: self.api_key_env.clone(),
            api_key_account: (self.kind != ProviderKind::Local).then(|| self.id.clone()),
            key_scope: Default::default(),
        }
    }
}

/// The addresses the key under `account` may go to ([`KeyScope`]): the
/// saved provider of that id's base URLs, else (none saved under it) the
/// official URL of `kind`.
pub fn key_addresses(providers: &[ProviderEntry], account: &str, kind: ProviderKind) -> KeyScope {
    let settings = match providers.iter().find(|p| p.id == account) {
        Some(entry) => entry.provider_settings(),
        None => ProviderSettings {
            provider: Some(kind),
            ..ProviderSettings::default()
        },
    };
    let mut saved = vec![settings.effective_base_url()];
    saved.extend(settings.extra_base_urls);
    KeyScope::SavedAddresses(saved)
}

/// The app's settings as the configuration file holds them: the providers,
/// the default provider and model, and the data folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppSettings {
    /// The model servers the user set up, in the file's order.
    pub providers: Vec<ProviderEntry>,
    /// The id of the provider used unless another is picked.
    pub default_provider: String,
    /// The model used with the default provider when none is picked; `None`:
    /// none set, so a model must be picked (the local provider has its own).
    pub default_model: Option<String>,
    /// Where the database lives; `None`: the data directory.
    pub data_dir: Option<PathBuf>,
}

impl AppSettings {
    /// The settings of a configuration file without them: the three kinds
    /// of provider, the local one chosen unless `SIFT_PROVIDER`,
    /// `SIFT_BASE_URL` and `SIFT_MODEL` say otherwise (as they do for the
    /// CLI).
    pub fn defaults() -> Self {
        let mut providers = vec![
            ProviderEntry {
                id: "local".into(),
                kind: ProviderKind::Local,
                label: "Local model".into(),
                base_url: None,
                extra_base_urls: Vec::new(),
                api_key_env: None,
            },
            ProviderEntry {
                id: "openai".into(),
                kind: ProviderKind::OpenAi,
                label: "OpenAI".into(),
                base_url: None,
                extra_base_urls: Vec::new(),
                api_key_env: None,
            },
            ProviderEntry {
                id: "anthropic".into(),
                kind: ProviderKind::Anthropic,
                label: "Anthropic".into(),
                base_url: None,
                extra_base_urls: Vec::new(),
                api_key_env: None,
            },
        ];
        let mut default_provider = "local".to_owned();
        if let Ok(from_env) = ProviderSettings::default().with_env_defaults()
            && from_env.provider.is_some()
        {
            let kind = from_env.choice();
            default_provider = kind.as_str().to_owned();
            if let Some(entry) = providers.iter_mut().find(|p| p.kind == kind) {
                entry.base_url = from_env.base_url;
            }
        }
        Self {
            providers,
            default_provider,
            default_model: env_value("SIFT_MODEL"),
            data_dir: None,
        }
    }

    /// Whether the default provider is the local server at its usual
    /// address, so that it is worth starting at launch.
    pub fn default_is_local_server(&self) -> bool {
        self.provider(&self.default_provider)
            .is_some_and(|p| p.kind == ProviderKind::Local && p.base_url.is_none())
    }

    /// The settings screen does not show the extra base URLs: a provider
    /// it sends without any keeps those saved, as long as its first
    /// address is the saved one (a new address is a new set of hosts).
    pub fn keep_extra_base_urls(&mut self, saved: &AppSettings) {
        for entry in &mut self.providers {
            if let Some(before) = saved.provider(&entry.id)
                && entry.extra_base_urls.is_empty()
                && before.kind == entry.kind
                && before.base_url == entry.base_url
            {
                entry.extra_base_urls = before.extra_base_urls.clone();
            }
        }
    }

    /// The provider with this id, if the settings have one.
    pub fn provider(&self, id: &str) -> Option<&ProviderEntry> {
        self.providers.iter().find(|p| p.id == id)
    }

    /// The provider `id` (the default one when `None`).
    pub fn provider_or_default(&self, id: Option<&str>) -> Result<&ProviderEntry, CoreError> {
        let id = id
            .filter(|i| !i.trim().is_empty())
            .unwrap_or(&self.default_provider);
        self.provider(id)
            .ok_or_else(|| CoreError::NotFound(format!("no provider {id:?} in the settings")))
    }

    /// The provider and model to call: those given, else the defaults.
    /// The default model goes only with the default provider; the local
    /// provider falls back to its own model.
    pub fn selection(
        &self,
        provider_id: Option<&str>,
        model: Option<&str>,
    ) -> Result<ModelSelection, CoreError> {
        let entry = self.provider_or_default(provider_id)?;
        let model = model
            .map(str::trim)
            .filter(|m| !m.is_empty())
            .map(str::to_owned)
            .or_else(|| {
                (entry.id == self.default_provider)
                    .then(|| self.default_model.clone())
                    .flatten()
            });
        let models = match (model, entry.kind) {
            (Some(model), _) => vec![model],
            (None, ProviderKind::Local) => vec![LOCAL_DEFAULT_MODEL.to_owned()],
            (None, _) => {
                return Err(CoreError::Usage(format!(
                    "no model chosen for {}: pick one, or set a default model in Settings",
                    entry.label_or_id()
                )));
            }
        };
        Ok(ModelSelection {
            provider: entry.provider_settings(),
            models,
            provider_id: Some(entry.id.clone()),
            ..ModelSelection::default()
        })
    }

    /// Checks what a save would write: unique, non-empty ids; a default
    /// provider that exists; base URLs over http(s).
    pub fn validate(&self) -> Result<(), CoreError> {
        if self.providers.is_empty() {
            return Err(CoreError::Usage("at least one provider is needed".into()));
        }
        for (i, p) in self.providers.iter().enumerate() {
            if p.id.trim().is_empty() || p.id.trim() != p.id {
                return Err(CoreError::Usage(format!(
                    "provider {} needs an id without surrounding spaces",
                    i + 1
                )));
            }
            if self.providers[..i].iter().any(|q| q.id == p.id) {
                return Err(CoreError::Usage(format!(
                    "two providers have the id {:?}",
                    p.id
                )));
            }
            if p.base_url.is_none() && !p.extra_base_urls.is_empty() {
                return Err(CoreError::Usage(format!(
                    "{:?} has extra base URLs but no first one",
                    p.id
                )));
            }
            for url in p.base_url.iter().chain(&p.extra_base_urls) {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(CoreError::Usage(format!(
                        "the base URL of {:?} must start with http:// or https://",
                        p.id
                    )));
                }
            }
        }
        if self.provider(&self.default_provider).is_none() {
            return Err(CoreError::Usage(format!(
                "the default provider {:?} is not among the providers",
                self.default_provider
            )));
        }
        Ok(())
    }
}

impl ProviderEntry {
    fn label_or_id(&self) -> &str {
        if self.label.trim().is_empty() {
            &self.id
        } else {
            &self.label
        }
    }
}

fn env_value(var: &str) -> Option<String> {
    std::env::var(var)
        .ok()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::file::parse_config;
    use super::*;

    const FILE: &str = "# my settings\n[context]\nIMAGES_IN_CONTEXT = 3 # fewer images\n\n[defaults]\nprovider = \"work\"\nmodel = \"m1\"\n\n[[providers]]\nid = \"work\"\nkind = \"openai\"\nlabel = \"Work\"\nbase_url = \"http://127.0.0.1:9/v1\"\napi_key_env = \"WORK_KEY\"\n\n[[providers]]\nid = \"local\"\nkind = \"local\"\n";

    fn work() -> ProviderEntry {
        ProviderEntry {
            id: "work".into(),
            kind: ProviderKind::OpenAi,
            label: "Work".into(),
            base_url: Some("http://127.0.0.1:9/v1".into()),
            extra_base_urls: Vec::new(),
            api_key_env: Some("WORK_KEY".into()),
        }
    }

    #[test]
    fn the_file_gives_providers_and_defaults() {
        let settings = parse_settings(FILE).unwrap();
        assert_eq!(settings.providers.len(), 2);
        assert_eq!(settings.providers[0], work());
        assert_eq!(settings.providers[1].kind, ProviderKind::Local);
        assert_eq!(settings.default_provider, "work");
        assert_eq!(settings.default_model.as_deref(), Some("m1"));
        assert_eq!(settings.data_dir, None);
        settings.validate().unwrap();
    }

    #[test]
    fn the_cli_still_reads_a_file_with_settings() {
        let config = parse_config(FILE).unwrap();
        assert_eq!(config.context.images_in_context, Some(3));
    }

    #[test]
    fn saving_keeps_the_rest_of_the_file_and_reads_back_equal() {
        let mut settings = parse_settings(FILE).unwrap();
        settings.default_model = Some("m2".into());
        settings.data_dir = Some(PathBuf::from("/data/sift"));
        settings.providers.pop();
        settings.providers[0].api_key_env = None;
        let text = render_settings(FILE, &settings).unwrap();
        assert!(
            text.starts_with("# my settings\n[context]\nIMAGES_IN_CONTEXT = 3 # fewer images\n"),
            "{text}"
        );
        assert_eq!(parse_settings(&text).unwrap(), settings);
        assert_eq!(
            parse_config(&text).unwrap().context.images_in_context,
            Some(3)
        );
        // No key, ever: only the variable's name can be there.
        assert!(!text.contains("api_key ="), "{text}");
    }

    #[test]
    fn save_and_load_through_a_file() {
        let path = std::env::temp_dir().join(format!(
            "sift-settings-{}-{}/config.toml",
            std::process::id(),
            sift_store::now_ms()
        ));
        let mut settings = AppSettings::defaults();
        settings.providers.push(work());
        settings.default_provider = "work".into();
        save_settings(Some(&path), &settings).unwrap();
        assert_eq!(load_settings(Some(&path)).unwrap(), settings);
        assert!(!path.with_extension("toml.partial").exists());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn mistakes_are_refused_before_writing() {
        let mut settings = parse_settings(FILE).unwrap();
        settings.providers.push(work());
        assert_eq!(
            settings.validate().unwrap_err().to_string(),
            "two providers have the id \"work\""
        );
        let mut settings = parse_settings(FILE).unwrap();
        settings.default_provider = "gone".into();
        assert_eq!(
            settings.validate().unwrap_err().to_string(),
            "the default provider \"gone\" is not among the providers"
        );
        let mut settings = parse_settings(FILE).unwrap();
        settings.providers[0].base_url = Some("ftp://x".into());
        assert!(settings.validate().is_err());
        let error = parse_settings("[[providers]]\nid = \"x\"\nkind = \"gpt\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown provider \"gpt\""), "{error}");
        let error = parse_settings("[defaults]\nmodle = \"x\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown field `modle`"), "{error}");
    }

    #[test]
    fn the_selection_uses_the_defaults_only_for_the_default_provider() {
        let settings = parse_settings(FILE).unwrap();
        let chosen = settings.selection(None, None).unwrap();
        assert_eq!(chosen.models, ["m1"]);
        assert_eq!(chosen.provider.provider, Some(ProviderKind::OpenAi));
        assert_eq!(
            chosen.provider.base_url.as_deref(),
            Some("http://127.0.0.1:9/v1")
        );
        assert_eq!(chosen.provider.api_key_env.as_deref(), Some("WORK_KEY"));
        assert_eq!(chosen.provider.api_key_account.as_deref(), Some("work"));
        let local = settings.selection(Some("local"), None).unwrap();
        assert_eq!(local.models, [LOCAL_DEFAULT_MODEL]);
        assert_eq!(local.provider.api_key_account, None);
        assert_eq!(
            settings
                .selection(Some("work"), Some(" m3 "))
                .unwrap()
                .models,
            ["m3"]
        );
        let mut no_default = settings.clone();
        no_default.default_model = None;
        assert_eq!(
            no_default.selection(None, None).unwrap_err().to_string(),
            "no model chosen for Work: pick one, or set a default model in Settings"
        );
        assert_eq!(
            settings.selection(Some("nope"), None).unwrap_err().code(),
            "not_found"
        );
    }
}
