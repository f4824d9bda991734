//! The GGUF models the local server can serve: the files in the data
//! directory's `models/` folder, each described from its header
//! ([`sift_llm::gguf`]), a model the user brings imported there (copied,
//! or linked to where it is), and the one the local server starts with.
//!
//! The choice is kept in the data directory, beside the models, as
//! `local-model.toml` (`model = "FILE.gguf"`, and `projector =
//! "mmproj.gguf"` for a multimodal model), so that the app and every `sift`
//! command start the same model. `SIFT_LOCAL_MODEL` still wins over it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sift_llm::gguf::{GgufInfo, read_gguf_info};
use sift_llm::local_server::{CONTEXT_PER_SLOT, DEFAULT_MODEL_FILE};

use crate::error::CoreError;

/// The file that names the chosen model, in the data directory.
const CHOICE_FILE: &str = "local-model.toml";

/// One model file of `models/`, as Settings lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LocalModel {
    /// The file's name in `models/`: what a choice names.
    pub file: String,
    /// `general.name` from the header.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub name: Option<String>,
    /// `general.architecture` from the header, such as `llama` or `qwen2`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub architecture: Option<String>,
    /// The file's size in bytes (of the file linked to, for a link).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size_bytes: u64,
    /// The quantisation the header names, such as `Q4_K_M`.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub quantisation: Option<String>,
    /// The context the model was trained for, in tokens.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub context_length: Option<u64>,
    /// Whether the header carries a chat template (without one the server
    /// falls back to a generic one).
    pub has_chat_template: bool,
    /// A multimodal projector (`mmproj`), not a model of its own.
    pub projector: bool,
    /// A link to a file elsewhere, not a copy.
    pub linked: bool,
    /// Shipped with the installed package (in its bundle directory, not in
    /// `models/`): usable, and left alone by an uninstall of the user's
    /// files.
    pub bundled: bool,
    /// The model the local server starts with.
    pub in_use: bool,
    /// Why the file cannot be used (a damaged header, say); the other
    /// fields are then empty.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub problem: Option<String>,
}

/// How [`import`] brings a file into `models/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum ImportMode {
    /// A copy: the model stays usable if the original moves.
    Copy,
    /// A symbolic link: no second copy of a multi-gigabyte file.
    Link,
}

/// The model (and projector) the local server starts with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LocalChoice {
    /// The model's file name in `models/`; `None`: the model the set-up installs.
    pub model: Option<String>,
    /// The projector's file name in `models/`; `None`: the model takes no images.
    pub projector: Option<String>,
}

/// The folder of the user's model files: `models/` in the data directory `data_dir`.
pub fn models_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("models")
}

/// What `local-model.toml` names; nothing when it is missing.
pub fn chosen(data_dir: &Path) -> Result<LocalChoice, CoreError> {
    let path = data_dir.join(CHOICE_FILE);
    match std::fs::read_to_string(&path) {
        Ok(text) => toml::from_str(&text)
            .map_err(|e| CoreError::Config(format!("{}: {}", path.display(), e.message()))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LocalChoice::default()),
        Err(source) => Err(CoreError::Io {
            action: "read",
            path,
            source,
        }),
    }
}

/// The model file the local server starts with: `SIFT_LOCAL_MODEL`, else
/// the chosen one, else the one the set-up installs; and its projector.
pub fn chosen_paths(data_dir: &Path) -> Result<(PathBuf, Option<PathBuf>), CoreError> {
    if let Some(path) = std::env::var_os("SIFT_LOCAL_MODEL").filter(|p| !p.is_empty()) {
        return Ok((PathBuf::from(path), None));
    }
    let choice = chosen(data_dir)?;
    let model = model_path(
        data_dir,
        choice.model.as_deref().unwrap_or(DEFAULT_MODEL_FILE),
    );
    Ok((model, choice.projector.map(|p| model_path(data_dir, &p))))
}

/// The path of the model file `file`: in `models/`, else in an installed
/// package's bundle (which ships the default model), else where it would
/// be in `models/`.
fn model_path(data_dir: &Path, file: &str) -> PathBuf {
    let own = models_dir(data_dir).join(file);
    if own.exists() {
        return own;
    }
    crate::paths::bundled_file(&Path::new("models").join(file)).unwrap_or(own)
}

/// Each slot's context for `model`: [`CONTEXT_PER_SLOT`], or less when
/// the model was trained for less (its header says), since a longer one
/// would only hold text the model cannot attend to.
pub fn slot_context(model: &Path) -> u32 {
    read_gguf_info(model)
        .ok()
        .and_then(|info| info.context_length)
        .and_then(|n| u32::try_from(n).ok())
        .filter(|&n| n > 0)
        .map_or(CONTEXT_PER_SLOT, |n| n.min(CONTEXT_PER_SLOT))
}

/// Every `.gguf` file of `models/`, by name; a file whose header cannot
/// be read is listed with its problem.
pub fn list(data_dir: &Path) -> Result<Vec<LocalModel>, CoreError> {
    let (in_use, _) = chosen_paths(data_dir)?;
    let mut models: Vec<LocalModel> = gguf_files(&models_dir(data_dir))?
        .iter()
        .map(|path| describe(path, *path == in_use))
        .collect();
    // The package's models, unless `models/` has a file of the same name
    // (which is the one used).
    if let Some(bundle) = crate::paths::bundled_file(Path::new("models")) {
        for path in gguf_files(&bundle)? {
            let mut model = describe(&path, path == in_use);
            if models.iter().all(|m| m.file != model.file) {
                model.bundled = true;
                models.push(model);
            }
        }
    }
    models.sort_by(|a, b| a.file.cmp(&b.file));
    Ok(models)
}

/// The `.gguf` files of `dir` (none when it does not exist).
fn gguf_files(dir: &Path) -> Result<Vec<PathBuf>, CoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(CoreError::Io {
                action: "list",
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    Ok(entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("gguf"))
        })
        .collect())
}

fn describe(path: &Path, in_use: bool) -> LocalModel {
    let file = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let linked = path.is_symlink();
    match read_gguf_info(path) {
        Ok(info) => from_info(file, info, linked, in_use),
        Err(error) => LocalModel {
            file,
            name: None,
            architecture: None,
            size_bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
            quantisation: None,
            context_length: None,
            has_chat_template: false,
            projector: false,
            linked,
            bundled: false,
            in_use,
            problem: Some(error.to_string()),
        },
    }
}

fn from_info(file: String, info: GgufInfo, linked: bool, in_use: bool) -> LocalModel {
    LocalModel {
        file,
        name: info.name,
        architecture: info.architecture,
        size_bytes: info.file_size,
        quantisation: info.quantisation,
        context_length: info.context_length,
        has_chat_template: info.chat_template.is_some(),
        projector: info.is_projector,
        linked,
        bundled: false,
        in_use,
        problem: None,
    }
}

/// Brings `source` into `models/` under its own name, after reading its
/// header: a file that is not a GGUF model, or is damaged, is refused with
/// the reason and nothing is written. A copy is written under a temporary
/// name and renamed, so a crash never leaves half a model that looks whole.
pub fn import(data_dir: &Path, source: &Path, mode: ImportMode) -> Result<LocalModel, CoreError> {
    let info = read_gguf_info(source).map_err(|e| CoreError::Usage(e.to_string()))?;
    let Some(name) = source.file_name() else {
        return Err(CoreError::Usage(format!(
            "{} names no file",
            source.display()
        )));
    };
    let dir = models_dir(data_dir);
    std::fs::create_dir_all(&dir).map_err(|source| CoreError::Io {
        action: "create",
        path: dir.clone(),
        source,
    })?;
    let dest = dir.join(name);
    if dest.exists() || dest.is_symlink() {
        return Err(CoreError::Usage(format!(
            "{} is already in {}: remove it there first, or rename the file you add",
            name.to_string_lossy(),
            dir.display()
        )));
    }
    let io = |action: &'static str, path: &Path| {
        let path = path.to_path_buf();
        move |source| CoreError::Io {
            action,
            path,
            source,
        }
    };
    match mode {
        ImportMode::Copy => {
            let mut from = std::fs::File::open(source).map_err(io("read", source))?;
            sift_documents::write_atomically_with(&dest, |out| std::io::copy(&mut from, out))
                .map_err(io("copy", source))?;
        }
        ImportMode::Link => {
            let target = std::fs::canonicalize(source).map_err(io("read", source))?;
            link(&target, &dest).map_err(io("link", &dest))?;
        }
    }
    let (in_use, _) = chosen_paths(data_dir)?;
    Ok(from_info(
        name.to_string_lossy().into_owned(),
        info,
        mode == ImportMode::Link,
        dest == in_use,
    ))
}

#[cfg(unix)]
fn link(target: &Path, dest: &Path) -> std::io::Result<()> {
    std::os::unix::fs::symlink(target, dest)
}

#[cfg(not(unix))]
fn link(_target: &Path, _dest: &Path) -> std::io::Result<()> {
    Err(std::io::Error::other(
        "linking is supported on Linux and macOS only: copy the model instead",
    ))
}

/// Makes `model` (a file of `models/`) the one the local server starts
/// with, with `projector` when it takes images. Both must be in `models/`
/// and readable as what they are. The server in use keeps its model until
/// it is restarted ([`crate::LocalServerOwner::restart`]).
pub fn choose(
    data_dir: &Path,
    model: &str,
    projector: Option<&str>,
) -> Result<LocalChoice, CoreError> {
    let models = list(data_dir)?;
    let find = |file: &str| {
        models.iter().find(|m| m.file == file).ok_or_else(|| {
            CoreError::NotFound(format!(
                "no model {file} in {}",
                models_dir(data_dir).display()
            ))
        })
    };
    let chosen_model = find(model)?;
    if let Some(problem) = &chosen_model.problem {
        return Err(CoreError::Usage(problem.clone()));
    }
    if chosen_model.projector {
        return Err(CoreError::Usage(format!(
            "{model} is a multimodal projector, not a model: choose the model, with this as its projector"
        )));
    }
    if let Some(projector) = projector {
        let chosen_projector = find(projector)?;
        if !chosen_projector.projector {
            return Err(CoreError::Usage(format!(
                "{projector} is not a multimodal projector (an mmproj file)"
            )));
        }
    }
    let choice = LocalChoice {
        model: Some(model.to_owned()),
        projector: projector.map(str::to_owned),
    };
    let mut document = toml_edit::DocumentMut::new();
    document["model"] = toml_edit::value(model);
    if let Some(projector) = projector {
        document["projector"] = toml_edit::value(projector);
    }
    crate::atomic_file::write_atomically(
        &data_dir.join(CHOICE_FILE),
        document.to_string().as_bytes(),
    )?;
    Ok(choice)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF v3 header with an architecture and its context length only.
    fn header(context: u32) -> Vec<u8> {
        let mut out = b"GGUF".to_vec();
        out.extend(3u32.to_le_bytes());
        out.extend(0u64.to_le_bytes());
        out.extend(2u64.to_le_bytes());
        let string = |out: &mut Vec<u8>, text: &str| {
            out.extend((text.len() as u64).to_le_bytes());
            out.extend(text.as_bytes());
        };
        string(&mut out, "general.architecture");
        out.extend(8u32.to_le_bytes());
        string(&mut out, "llama");
        string(&mut out, "llama.context_length");
        out.extend(4u32.to_le_bytes());
        out.extend(context.to_le_bytes());
        out
    }

    #[test]
    fn a_slot_holds_no_more_than_the_model_was_trained_for() {
        let dir = std::env::temp_dir().join(format!("sift-slot-context-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let short = dir.join("short.gguf");
        std::fs::write(&short, header(2048)).unwrap();
        let long = dir.join("long.gguf");
        std::fs::write(&long, header(131_072)).unwrap();
        assert_eq!(slot_context(&short), 2048);
        assert_eq!(slot_context(&long), CONTEXT_PER_SLOT);
        assert_eq!(slot_context(&dir.join("missing.gguf")), CONTEXT_PER_SLOT);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
