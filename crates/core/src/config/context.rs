//! The `[context]` table of the configuration file: how much of a long
//! conversation stays in the model's context window.
//!
//! ```toml
//! [context]
//! TOOL_RESULTS_IN_CONTEXT = 6          # or "none": every tool result whole
//! TOOL_RESULTS_TOKENS = 4000           # the budget for older whole results
//! TOOL_RESULTS_CHARS_IN_CONTEXT = 0    # the budget in characters, when no tokens are set
//! IMAGES_IN_CONTEXT = 20               # or "none": every image
//! ```
//!
//! The names are those of the structured-calls spec, so that settings
//! carry over unchanged.

use serde::Deserialize;
use sift_engine::ContextSettings;

use crate::models::overrides::ModelOverride;

/// What the configuration file says besides the app's settings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    pub context: ContextSettings,
    /// The `[[models]]` tables: what the user says models can take.
    pub model_overrides: Vec<ModelOverride>,
    /// The `[ocr]` table's languages; `None`: the default
    /// ([`sift_documents::default_ocr_languages`]).
    pub ocr_languages: Option<Vec<String>>,
    /// The `[ocr]` table's mode for chat and workflows; `None`: `auto`.
    pub ocr_mode: Option<sift_documents::OcrMode>,
    /// The `[read]` table's order of a page's text; `None`: the
    /// documents' default.
    pub text_order: Option<sift_documents::TextOrder>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)] // the spec's names, as users write them
pub(super) struct ContextTable {
    TOOL_RESULTS_IN_CONTEXT: Option<CountOrNone>,
    TOOL_RESULTS_TOKENS: Option<usize>,
    TOOL_RESULTS_CHARS_IN_CONTEXT: Option<usize>,
    IMAGES_IN_CONTEXT: Option<CountOrNone>,
}

/// A count, or `"none"` for no limit (TOML has no null).
#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(untagged)]
enum CountOrNone {
    Count(usize),
    Word(NoneWord),
}

#[derive(Debug, Clone, Copy, Deserialize)]
enum NoneWord {
    #[serde(rename = "none", alias = "None", alias = "NONE")]
    None,
}

impl CountOrNone {
    fn limit(self) -> Option<usize> {
        match self {
            Self::Count(n) => Some(n),
            Self::Word(NoneWord::None) => None,
        }
    }
}

impl ContextTable {
    /// The table's values over the defaults.
    pub(super) fn config(self) -> Config {
        let defaults = ContextSettings::default();
        Config {
            context: ContextSettings {
                tool_results_in_context: self
                    .TOOL_RESULTS_IN_CONTEXT
                    .map_or(defaults.tool_results_in_context, CountOrNone::limit),
                tool_results_tokens: self.TOOL_RESULTS_TOKENS.or(defaults.tool_results_tokens),
                tool_results_chars_in_context: self
                    .TOOL_RESULTS_CHARS_IN_CONTEXT
                    .or(defaults.tool_results_chars_in_context),
                images_in_context: self
                    .IMAGES_IN_CONTEXT
                    .map_or(defaults.images_in_context, CountOrNone::limit),
            },
            model_overrides: Vec::new(),
            ocr_languages: None,
            ocr_mode: None,
            text_order: None,
        }
    }
}
