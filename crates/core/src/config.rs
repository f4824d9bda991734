//! Sift's configuration file: TOML at `SIFT_CONFIG`, else
//! `~/.config/sift/config.toml`. A missing file means the defaults.
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

use std::path::{Path, PathBuf};

use serde::Deserialize;
use sift_engine::ContextSettings;

use crate::error::CoreError;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    pub context: ContextSettings,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    context: ContextTable,
    // The app's settings, read and checked by `settings.rs`.
    #[serde(default, rename = "defaults")]
    _defaults: Option<toml::Value>,
    #[serde(default, rename = "providers")]
    _providers: Option<toml::Value>,
    // The remembered workflow folder, read by `workflow_files.rs`.
    #[serde(default, rename = "workflows")]
    _workflows: Option<toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)] // the spec's names, as users write them
struct ContextTable {
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

pub fn config_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SIFT_CONFIG").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    dirs::config_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("sift")
        .join("config.toml")
}

/// Reads the configuration at `path`, or at [`config_path`].
pub fn load_config(path: Option<&Path>) -> Result<Config, CoreError> {
    let path = path.map_or_else(config_path, Path::to_path_buf);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
        Err(e) => {
            return Err(CoreError::Config(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    parse_config(&text).map_err(|e| CoreError::Config(format!("{}: {e}", path.display())))
}

pub fn parse_config(text: &str) -> Result<Config, String> {
    let file: ConfigFile = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_owned())?;
    let defaults = ContextSettings::default();
    let table = file.context;
    Ok(Config {
        context: ContextSettings {
            tool_results_in_context: table
                .TOOL_RESULTS_IN_CONTEXT
                .map_or(defaults.tool_results_in_context, CountOrNone::limit),
            tool_results_tokens: table.TOOL_RESULTS_TOKENS.or(defaults.tool_results_tokens),
            tool_results_chars_in_context: table
                .TOOL_RESULTS_CHARS_IN_CONTEXT
                .or(defaults.tool_results_chars_in_context),
            images_in_context: table
                .IMAGES_IN_CONTEXT
                .map_or(defaults.images_in_context, CountOrNone::limit),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_file_gives_the_defaults() {
        assert_eq!(parse_config("").unwrap(), Config::default());
        assert_eq!(Config::default().context.tool_results_in_context, Some(6));
    }

    #[test]
    fn every_setting_under_its_spec_name() {
        let config = parse_config(
            "[context]\nTOOL_RESULTS_IN_CONTEXT = \"none\"\nTOOL_RESULTS_TOKENS = 4000\nTOOL_RESULTS_CHARS_IN_CONTEXT = 0\nIMAGES_IN_CONTEXT = 3\n",
        )
        .unwrap();
        assert_eq!(
            config.context,
            ContextSettings {
                tool_results_in_context: None,
                tool_results_tokens: Some(4000),
                tool_results_chars_in_context: Some(0),
                images_in_context: Some(3),
            }
        );
    }

    #[test]
    fn mistakes_are_named() {
        let error = parse_config("[context]\nTOOL_RESULTS_IN_CONTEXT = \"all\"\n").unwrap_err();
        assert!(error.contains("TOOL_RESULTS_IN_CONTEXT"), "{error}");
        let error = parse_config("[context]\nTOOL_RESULT_TOKENS = 5\n").unwrap_err();
        assert!(
            error.contains("unknown field `TOOL_RESULT_TOKENS`"),
            "{error}"
        );
    }
}
