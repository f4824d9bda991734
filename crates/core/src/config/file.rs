//! The configuration file, the one place it is read and written: TOML at
//! `SIFT_CONFIG`, else `~/.config/sift/config.toml`. A missing file means
//! the defaults. It holds the app's settings (`[defaults]`,
//! `[[providers]]`, see [`crate::settings`]), the context windows
//! (`[context]`, see [`crate::config::context`]) and the per-model
//! overrides (`[[models]]`, see [`crate::models::overrides`]) and
//! the OCR languages (`[ocr]`, see [`crate::config::ocr`]).
//!
//! Saving rewrites only the settings' tables (or only `[[models]]`), so
//! the user's comments and the `[context]` table stay as they were. API keys are never written here.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml_edit::{Array, ArrayOfTables, DocumentMut, Item, Table, value};

use super::context::{Config, ContextTable};
use super::ocr::OcrTable;
use super::read::ReadTable;
use crate::config::{AppSettings, ProviderEntry};
use crate::error::CoreError;
use crate::models::overrides::{ModelOverride, ModelTable, checked};

/// Why a configuration file's text was refused: what TOML or a table
/// said, for the user to fix.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(String);

impl ParseError {
    pub(super) fn of(error: impl std::fmt::Display) -> Self {
        Self(error.to_string().trim_end().to_owned())
    }
}

/// Where the configuration file is: `SIFT_CONFIG` when set, else the user's config folder.
pub fn config_path() -> PathBuf {
    if let Some(path) = std::env::var_os("SIFT_CONFIG").filter(|p| !p.is_empty()) {
        return PathBuf::from(path);
    }
    dirs::config_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join("sift")
        .join("config.toml")
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    #[serde(default)]
    context: ContextTable,
    defaults: Option<DefaultsTable>,
    providers: Option<Vec<ProviderTable>>,
    #[serde(default)]
    models: Vec<ModelTable>,
    #[serde(default)]
    ocr: OcrTable,
    #[serde(default)]
    read: ReadTable,
    // The remembered workflow folder, read and written by `workflow_files.rs`.
    #[serde(default, rename = "workflows")]
    _workflows: Option<toml::Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefaultsTable {
    provider: Option<String>,
    model: Option<String>,
    data_dir: Option<PathBuf>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProviderTable {
    id: String,
    kind: String,
    #[serde(default)]
    label: String,
    base_url: Option<String>,
    /// Several endpoints instead of `base_url`, in order.
    base_urls: Option<Vec<String>>,
    api_key_env: Option<String>,
}

impl ProviderTable {
    /// `base_url`, or `base_urls` as the first and the rest; blank
    /// `base_url` is unset, as everywhere in the file.
    fn addresses(&self) -> Result<(Option<String>, Vec<String>), ParseError> {
        let base_url = self.base_url.clone().filter(|u| !u.trim().is_empty());
        let Some(list) = &self.base_urls else {
            return Ok((base_url, Vec::new()));
        };
        let id = &self.id;
        if base_url.is_some() {
            return Err(ParseError(format!(
                "provider {id:?} sets both base_url and base_urls: keep one"
            )));
        }
        if list.iter().any(|u| u.trim().is_empty()) {
            return Err(ParseError(format!(
                "provider {id:?} has a blank address in base_urls"
            )));
        }
        let mut list = list.iter().map(|u| u.trim().to_owned());
        match list.next() {
            Some(first) => Ok((Some(first), list.collect())),
            None => Err(ParseError(format!(
                "provider {id:?} has an empty base_urls: list at least one address, or leave it out for the default"
            ))),
        }
    }
}

/// The settings and the rest of a configuration file's text.
pub fn parse(text: &str) -> Result<(AppSettings, Config), ParseError> {
    let file: ConfigFile = toml::from_str(text).map_err(ParseError::of)?;
    let mut settings = AppSettings::defaults();
    if let Some(tables) = file.providers {
        settings.providers = tables
            .into_iter()
            .map(|t| {
                let (base_url, extra_base_urls) = t.addresses()?;
                Ok(ProviderEntry {
                    kind: t.kind.parse().map_err(|e: CoreError| ParseError::of(e))?,
                    id: t.id,
                    label: t.label,
                    base_url,
                    extra_base_urls,
                    api_key_env: t.api_key_env.filter(|v| !v.trim().is_empty()),
                })
            })
            .collect::<Result<_, ParseError>>()?;
    }
    if let Some(defaults) = file.defaults {
        if let Some(provider) = defaults.provider {
            settings.default_provider = provider;
        }
        if defaults.model.is_some() {
            settings.default_model = defaults.model.filter(|m| !m.trim().is_empty());
        }
        settings.data_dir = defaults.data_dir.filter(|d| !d.as_os_str().is_empty());
    }
    let mut config = file.context.config();
    config.model_overrides = file.models.into_iter().map(ModelOverride::from).collect();
    config.ocr_mode = file.ocr.mode().map_err(ParseError::of)?;
    config.ocr_languages = file.ocr.languages().map_err(ParseError::of)?;
    config.text_order = file.read.order().map_err(ParseError::of)?;
    Ok((settings, config))
}

/// The settings in a configuration file's text, the defaults for what it leaves out; fails
/// when the text is not valid TOML or a table is wrong (an unknown field or provider kind).
pub fn parse_settings(text: &str) -> Result<AppSettings, ParseError> {
    parse(text).map(|(settings, _)| settings)
}

/// The rest of a file's text (context, OCR, model overrides): the tests' view of what
/// [`read`] returns beside the settings.
#[cfg(test)]
pub(crate) fn parse_config(text: &str) -> Result<Config, ParseError> {
    parse(text).map(|(_, config)| config)
}

/// The file's text; empty when there is no file.
fn read_text(path: &Path) -> Result<String, CoreError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(e) => Err(CoreError::Config(format!(
            "cannot read {}: {e}",
            path.display()
        ))),
    }
}

fn in_file(path: &Path) -> impl Fn(ParseError) -> CoreError + '_ {
    move |e| CoreError::Config(format!("{}: {e}", path.display()))
}

/// The file at `path`: its settings and the rest, the defaults for
/// whatever it does not set.
pub fn read(path: &Path) -> Result<(AppSettings, Config), CoreError> {
    parse(&read_text(path)?).map_err(in_file(path))
}

/// The settings in the file at `path` (default: `config_path()`).
pub fn load_settings(path: Option<&Path>) -> Result<AppSettings, CoreError> {
    let path = path.map_or_else(config_path, Path::to_path_buf);
    read(&path).map(|(settings, _)| settings)
}

/// Writes `settings` into the file at `path` (default: `config_path()`),
/// replacing its `[defaults]` and `[[providers]]` and keeping the rest.
pub fn save_settings(path: Option<&Path>, settings: &AppSettings) -> Result<(), CoreError> {
    settings.validate()?;
    let path = path.map_or_else(config_path, Path::to_path_buf);
    let text = read_text(&path)?;
    let updated = render_settings(&text, settings).map_err(in_file(&path))?;
    write_file(&path, &updated)
}

/// Writes `text` as the file at `path`, creating its folder.
fn write_file(path: &Path, updated: &str) -> Result<(), CoreError> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| CoreError::Config(format!("cannot create {}: {e}", parent.display())))?;
    }
    sift_documents::write_atomically(path, updated.as_bytes())
        .map_err(|e| CoreError::Config(format!("cannot write {}: {e}", path.display())))
}

/// `[workflows] folder` in the file at `path`: the workflow folder last
/// opened in the folder dialog (`None` when unset).
pub fn read_workflow_folder(path: &Path) -> Result<Option<PathBuf>, CoreError> {
    #[derive(Deserialize)]
    struct WorkflowsOnly {
        workflows: Option<WorkflowsTable>,
    }
    #[derive(Deserialize)]
    struct WorkflowsTable {
        folder: Option<PathBuf>,
    }
    let file: WorkflowsOnly =
        toml::from_str(&read_text(path)?).map_err(|e| in_file(path)(ParseError::of(e)))?;
    Ok(file
        .workflows
        .and_then(|t| t.folder)
        .filter(|f| !f.as_os_str().is_empty()))
}

/// Writes `[workflows] folder` into the file at `path`, keeping the rest
/// of it and its comments.
pub fn save_workflow_folder(path: &Path, folder: &Path) -> Result<(), CoreError> {
    let mut document: DocumentMut = read_text(path)?
        .parse()
        .map_err(|e| in_file(path)(ParseError::of(e)))?;
    let mut table = Table::new();
    table["folder"] = value(folder.display().to_string());
    document["workflows"] = Item::Table(table);
    write_file(path, &document.to_string())
}

/// Writes the per-model overrides into the file at `path` (default:
/// `config_path()`), replacing its `[[models]]` and keeping the rest;
/// returns them as saved (trimmed).
pub fn save_model_overrides(
    path: Option<&Path>,
    overrides: &[ModelOverride],
) -> Result<Vec<ModelOverride>, CoreError> {
    let overrides = checked(overrides)?;
    let path = path.map_or_else(config_path, Path::to_path_buf);
    let text = read_text(&path)?;
    let updated = render_model_overrides(&text, &overrides).map_err(in_file(&path))?;
    write_file(&path, &updated)?;
    Ok(overrides)
}

/// `text` (a configuration file) with its `[[models]]` tables replaced by
/// `overrides` (none: removed).
pub fn render_model_overrides(
    text: &str,
    overrides: &[ModelOverride],
) -> Result<String, ParseError> {
    let mut document: DocumentMut = text.parse().map_err(ParseError::of)?;
    if overrides.is_empty() {
        document.remove("models");
        return Ok(document.to_string());
    }
    let mut tables = ArrayOfTables::new();
    for o in overrides {
        let mut table = Table::new();
        table["provider"] = value(o.provider.as_str());
        table["name"] = value(o.model.as_str());
        if let Some(images) = o.images {
            table["images"] = value(images);
        }
        if let Some(tools) = o.tools {
            table["tools"] = value(tools);
        }
        tables.push(table);
    }
    document["models"] = Item::ArrayOfTables(tables);
    Ok(document.to_string())
}

/// `text` (a configuration file) with the settings' tables replaced.
pub fn render_settings(text: &str, settings: &AppSettings) -> Result<String, ParseError> {
    let mut document: DocumentMut = text.parse().map_err(ParseError::of)?;
    let mut defaults = Table::new();
    defaults["provider"] = value(settings.default_provider.as_str());
    if let Some(model) = &settings.default_model {
        defaults["model"] = value(model.as_str());
    }
    if let Some(dir) = &settings.data_dir {
        defaults["data_dir"] = value(dir.display().to_string());
    }
    document["defaults"] = Item::Table(defaults);
    let mut providers = ArrayOfTables::new();
    for p in &settings.providers {
        let mut table = Table::new();
        table["id"] = value(p.id.as_str());
        table["kind"] = value(p.kind.as_str());
        table["label"] = value(p.label.as_str());
        if !p.extra_base_urls.is_empty() {
            let mut urls = Array::new();
            for url in p.base_url.iter().chain(&p.extra_base_urls) {
                urls.push(url.as_str());
            }
            table["base_urls"] = value(urls);
        } else if let Some(url) = &p.base_url {
            table["base_url"] = value(url.as_str());
        }
        if let Some(var) = &p.api_key_env {
            table["api_key_env"] = value(var.as_str());
        }
        providers.push(table);
    }
    document["providers"] = Item::ArrayOfTables(providers);
    Ok(document.to_string())
}

#[cfg(test)]
mod tests {
    //! The `[context]` and `[[models]]` tables as the file gives them.
    use super::*;
    use sift_engine::ContextSettings;

    const MODELS_FILE: &str = "# mine\n[defaults]\nprovider = \"local\"\n\n[[models]]\nprovider = \"local\"\nname = \"smollm2\"\nimages = false # text only\ntools = true\n\n[[models]]\nprovider = \"work\"\nname = \"llava:7b\"\nimages = true\n";

    fn smollm2() -> ModelOverride {
        ModelOverride {
            provider: "local".into(),
            model: "smollm2".into(),
            images: Some(false),
            tools: Some(true),
        }
    }

    #[test]
    fn the_file_gives_each_override() {
        let config = parse_config(MODELS_FILE).unwrap();
        assert_eq!(
            config.model_overrides,
            [
                smollm2(),
                ModelOverride {
                    provider: "work".into(),
                    model: "llava:7b".into(),
                    images: Some(true),
                    tools: None,
                }
            ]
        );
        let error = parse_config("[[models]]\nprovider = \"local\"\nname = \"m\"\nvision = true\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("unknown field `vision`"), "{error}");
    }

    #[test]
    fn saving_overrides_keeps_the_rest_and_saving_settings_keeps_the_overrides() {
        let text = render_model_overrides(MODELS_FILE, &[smollm2()]).unwrap();
        assert_eq!(
            text,
            "# mine\n[defaults]\nprovider = \"local\"\n\n[[models]]\nprovider = \"local\"\nname = \"smollm2\"\nimages = false\ntools = true\n"
        );
        let settings = parse_settings(&text).unwrap();
        let text = render_settings(&text, &settings).unwrap();
        assert_eq!(parse_config(&text).unwrap().model_overrides, [smollm2()]);
        let none = render_model_overrides(&text, &[]).unwrap();
        assert!(!none.contains("[[models]]"), "{none}");
        assert!(parse_config(&none).unwrap().model_overrides.is_empty());
    }

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
        let error = parse_config("[context]\nTOOL_RESULTS_IN_CONTEXT = \"all\"\n")
            .unwrap_err()
            .to_string();
        assert!(error.contains("TOOL_RESULTS_IN_CONTEXT"), "{error}");
        let error = parse_config("[context]\nTOOL_RESULT_TOKENS = 5\n")
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("unknown field `TOOL_RESULT_TOKENS`"),
            "{error}"
        );
    }

    #[test]
    fn the_read_table_gives_the_order_and_refuses_mistakes() {
        assert_eq!(parse_config("").unwrap().text_order, None);
        let pdfium = parse_config("[read]\norder = \"pdfium\"\n").unwrap();
        assert_eq!(pdfium.text_order, Some(sift_documents::TextOrder::Pdfium));
        assert_eq!(
            parse_config("[read]\norder = \"visual\"\n")
                .unwrap_err()
                .to_string(),
            "\"visual\" is not a text order (layout or pdfium)"
        );
    }

    #[test]
    fn the_ocr_table_gives_the_languages_and_refuses_mistakes() {
        let config = parse_config("[ocr]\nlanguages = [\"eng\", \" deu \"]\n").unwrap();
        assert_eq!(
            config.ocr_languages,
            Some(vec!["eng".to_owned(), "deu".to_owned()])
        );
        assert_eq!(parse_config("").unwrap().ocr_languages, None);
        assert_eq!(parse_config("").unwrap().ocr_mode, None);
        let always = parse_config("[ocr]\nmode = \"always\"\n").unwrap();
        assert_eq!(always.ocr_mode, Some(sift_documents::OcrMode::Always));
        assert_eq!(
            parse_config("[ocr]\nmode = \"sometimes\"\n")
                .unwrap_err()
                .to_string(),
            "\"sometimes\" is not an OCR mode (auto, always or off)"
        );
        let unknown = parse_config("[ocr]\nlanguage = [\"eng\"]\n")
            .unwrap_err()
            .to_string();
        assert!(unknown.contains("unknown field `language`"), "{unknown}");
        assert_eq!(
            parse_config("[ocr]\nlanguages = []\n")
                .unwrap_err()
                .to_string(),
            "[ocr] languages names no language (write e.g. [\"eng\"], or leave it out for the default)"
        );
    }
}
