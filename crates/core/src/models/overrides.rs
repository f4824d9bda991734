//! The `[[models]]` tables of the configuration file: what the user says a
//! model can take, over what its server or the table of known families
//! says ([`crate::models::capabilities`]).
//!
//! ```toml
//! [[models]]
//! provider = "local"     # the id of a provider (the CLI's kinds: local, openai, anthropic)
//! name = "smollm2"       # the model, as the server names it
//! images = false         # optional: unset means "as detected"
//! tools = true           # optional
//! ```
//!
//! Saving rewrites only these tables (`file::save_model_overrides`); the
//! settings' own tables are rewritten on their own, so neither save drops
//! the other's.

use crate::error::CoreError;
use serde::{Deserialize, Serialize};

/// What the user says one model of one provider can take; `None`: as
/// detected.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelOverride {
    /// The id of the provider.
    pub provider: String,
    /// The model, as the provider's server names it.
    pub model: String,
    /// Whether the model takes images; `None`: as detected.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub images: Option<bool>,
    /// Whether the model takes tools; `None`: as detected.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub tools: Option<bool>,
}

/// One `[[models]]` table as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ModelTable {
    pub(super) provider: String,
    pub(super) name: String,
    pub(super) images: Option<bool>,
    pub(super) tools: Option<bool>,
}

impl From<ModelTable> for ModelOverride {
    fn from(table: ModelTable) -> Self {
        Self {
            provider: table.provider,
            model: table.name,
            images: table.images,
            tools: table.tools,
        }
    }
}

impl ModelOverride {
    /// Whether this is the override of `model` at the provider `provider_id`.
    pub fn is_for(&self, provider_id: &str, model: &str) -> bool {
        self.provider == provider_id && self.model == model
    }

    fn trimmed(&self) -> Self {
        Self {
            provider: self.provider.trim().to_owned(),
            model: self.model.trim().to_owned(),
            ..self.clone()
        }
    }
}

/// The overrides as they will be saved: trimmed, checked (a provider and a
/// model each, one override per model, each saying something).
pub fn checked(overrides: &[ModelOverride]) -> Result<Vec<ModelOverride>, CoreError> {
    let overrides: Vec<ModelOverride> = overrides.iter().map(ModelOverride::trimmed).collect();
    for (i, o) in overrides.iter().enumerate() {
        if o.provider.is_empty() || o.model.is_empty() {
            return Err(CoreError::Usage(format!(
                "model override {} needs a provider and a model",
                i + 1
            )));
        }
        if o.images.is_none() && o.tools.is_none() {
            return Err(CoreError::Usage(format!(
                "the override of {:?} ({}) sets neither images nor tools",
                o.model, o.provider
            )));
        }
        if overrides[..i]
            .iter()
            .any(|p| p.is_for(&o.provider, &o.model))
        {
            return Err(CoreError::Usage(format!(
                "{:?} ({}) has two overrides",
                o.model, o.provider
            )));
        }
    }
    Ok(overrides)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smollm2() -> ModelOverride {
        ModelOverride {
            provider: "local".into(),
            model: "smollm2".into(),
            images: Some(false),
            tools: Some(true),
        }
    }

    #[test]
    fn overrides_are_trimmed_and_checked() {
        let mut padded = smollm2();
        padded.model = " smollm2 ".into();
        assert_eq!(checked(&[padded]).unwrap(), [smollm2()]);
        assert_eq!(
            checked(&[smollm2(), smollm2()]).unwrap_err().to_string(),
            "\"smollm2\" (local) has two overrides"
        );
        let mut silent = smollm2();
        silent.images = None;
        silent.tools = None;
        assert_eq!(
            checked(&[silent]).unwrap_err().to_string(),
            "the override of \"smollm2\" (local) sets neither images nor tools"
        );
        let mut nameless = smollm2();
        nameless.model = " ".into();
        assert_eq!(
            checked(&[nameless]).unwrap_err().to_string(),
            "model override 1 needs a provider and a model"
        );
    }
}
