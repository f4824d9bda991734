//! Candidates: what reads a set in an evaluation. A candidate is a
//! provider and model, a prompt, a version of the set's schema and its
//! options (OCR on or off). Its fingerprint is everything its results
//! depend on, the documents' bytes included, so a later run with the same
//! fingerprint reuses its stored results instead of calling again.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use sift_documents::{ReadOptions, read_fingerprint};
use sift_llm::server_host;
use sift_locate::LOCATOR_VERSION;

use crate::error::CoreError;
use crate::extract::{AnswerMode, DEFAULT_PROMPT};
use crate::models::ModelSelection;
use crate::models::provider::{ProviderKind, ProviderSettings};
use crate::workspace::Workspace;

/// A candidate as the app (or a `--candidates` file) asks for it; what is
/// left out is the settings' default.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Candidate {
    /// How it is shown; `null`: its model's name.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub label: Option<String>,
    /// A provider id of the settings; `null`: the default provider.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default, alias = "provider")]
    pub provider_id: Option<String>,
    /// The model to call; `null`: the settings' default model when the provider is
    /// the default one, else a local provider's own model; with neither, the
    /// candidate is refused.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub model: Option<String>,
    /// The extraction prompt; `null` or blank: the built-in default prompt.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub prompt: Option<String>,
    /// A version of the set's schema; `null`: the set's own.
    #[cfg_attr(feature = "ts", ts(optional = nullable, type = "number"))]
    #[serde(default)]
    pub schema_version: Option<i64>,
    /// OCR for scans and photos; `null`: on.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub ocr: Option<bool>,
    /// How the answers are made; `null`: the default for the provider's
    /// kind of model.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub answers: Option<AnswerMode>,
}

/// A candidate with everything resolved: how it is stored with its run
/// and shown. Where the model ran is kept as the server's host, never
/// its URL (which can hold a key) nor the key.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ResolvedCandidate {
    /// How it is shown: the label asked for, else one from the model and answer mode
    /// (`MODEL`, `MODEL grounded`, `located`); made unique within a run
    /// ([`distinct_labels`]).
    pub label: String,
    /// The settings' provider id, when it came from the settings.
    pub provider_id: Option<String>,
    /// The kind of provider the model ran on.
    pub provider: ProviderKind,
    /// The host and port of the server the model ran on; empty when its base URL
    /// does not parse.
    pub host: String,
    /// The model's name as it was called.
    pub model: String,
    /// The prompt it extracts with (the default prompt when none was given).
    pub prompt: String,
    /// The version of the set's schema it reads with.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub schema_version: i64,
    /// Whether scans and photos are read with OCR.
    pub ocr: bool,
    /// Stored candidates from before answers had a mode were free.
    #[serde(default = "free_answers")]
    pub answers: AnswerMode,
}

fn free_answers() -> AnswerMode {
    AnswerMode::Free
}

/// A resolved candidate with the selection its calls go through.
#[derive(Debug, Clone)]
pub struct CandidateSpec {
    /// The candidate as it is stored with its run and shown.
    pub resolved: ResolvedCandidate,
    /// The provider settings and the one model its calls go to.
    pub selection: ModelSelection,
}

impl CandidateSpec {
    /// A candidate over `selection` (its first model), as the CLI gives
    /// it from its flags.
    pub fn from_selection(
        selection: ModelSelection,
        provider_id: Option<String>,
        label: Option<String>,
        prompt: Option<String>,
        schema_version: i64,
        ocr: bool,
        answers: Option<AnswerMode>,
    ) -> Result<Self, CoreError> {
        let provider = selection.provider.clone().with_env_defaults()?;
        let model = selection
            .resolved_models()?
            .into_iter()
            .next()
            .unwrap_or_default();
        let answers = answers.unwrap_or_else(|| AnswerMode::default_for(provider.choice()));
        // The mode is in the label unless it is the model's own answers.
        let named = match answers {
            AnswerMode::Free => model.clone(),
            AnswerMode::Grounded => format!("{model} grounded"),
            AnswerMode::Hybrid => format!("{model} hybrid"),
            AnswerMode::Located => "located".to_owned(),
        };
        let resolved = ResolvedCandidate {
            label: label.filter(|l| !l.trim().is_empty()).unwrap_or(named),
            provider_id,
            provider: provider.choice(),
            host: server_host(&provider.effective_base_url()),
            model: model.clone(),
            prompt: prompt
                .filter(|p| !p.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_PROMPT.to_owned()),
            schema_version,
            ocr,
            answers,
        };
        Ok(Self {
            resolved,
            selection: ModelSelection {
                provider,
                models: vec![model],
                ..ModelSelection::default()
            },
        })
    }

    /// A candidate of the app: its provider from the settings.
    pub fn from_settings(
        ws: &Workspace,
        candidate: &Candidate,
        set_schema_version: i64,
    ) -> Result<Self, CoreError> {
        let settings = ws.settings();
        let entry = settings.provider_or_default(candidate.provider_id.as_deref())?;
        let selection = settings.selection(Some(&entry.id), candidate.model.as_deref())?;
        Self::from_selection(
            selection,
            Some(entry.id.clone()),
            candidate.label.clone(),
            candidate.prompt.clone(),
            candidate.schema_version.unwrap_or(set_schema_version),
            candidate.ocr.unwrap_or(true),
            candidate.answers,
        )
    }

    /// A stored candidate again (a resume): its settings provider when
    /// the settings still have it, else its kind and base URL.
    pub fn from_stored(ws: &Workspace, resolved: ResolvedCandidate) -> Result<Self, CoreError> {
        let settings = ws.settings();
        let provider = match resolved
            .provider_id
            .as_deref()
            .and_then(|id| settings.provider(id))
        {
            Some(entry) => entry.provider_settings(),
            None if resolved.provider == ProviderKind::Local => ProviderSettings {
                provider: Some(ProviderKind::Local),
                ..ProviderSettings::default()
            },
            None => {
                return Err(CoreError::NotFound(format!(
                    "the provider {} of candidate {} is no longer in the settings",
                    resolved
                        .provider_id
                        .as_deref()
                        .unwrap_or(resolved.host.as_str()),
                    resolved.label
                )));
            }
        };
        Ok(Self {
            selection: ModelSelection {
                provider,
                models: vec![resolved.model.clone()],
                ..ModelSelection::default()
            },
            resolved,
        })
    }
}

/// Gives each candidate a label no other has: a repeated one gains
/// `(OCR off)` or `(answers located)` when that is what differs, else
/// `#2`, `#3`.
pub fn distinct_labels(specs: &mut [CandidateSpec]) {
    let mut seen: Vec<(String, AnswerMode)> = Vec::new();
    for spec in specs.iter_mut() {
        let answers = spec.resolved.answers;
        let label = &mut spec.resolved.label;
        let taken =
            |seen: &[(String, AnswerMode)], label: &str| seen.iter().any(|(l, _)| l == label);
        if taken(&seen, label) && seen.iter().any(|(l, a)| l == label && *a != answers) {
            label.push_str(&format!(" (answers {answers})"));
        }
        if taken(&seen, label) && !spec.resolved.ocr {
            label.push_str(" (OCR off)");
        }
        let base = label.clone();
        let mut n = 2;
        while taken(&seen, label) {
            *label = format!("{base} #{n}");
            n += 1;
        }
        seen.push((label.clone(), answers));
    }
}

/// The fingerprint of a candidate's results on `paths`: SHA-256 over the
/// provider, the server's base URL, the model, prompt, schema and OCR
/// choice, and each document's read fingerprint (its bytes and OCR
/// settings). A file that cannot be read is an error naming it.
pub fn fingerprint(
    spec: &CandidateSpec,
    schema: &Value,
    paths: &[String],
    read_options: &ReadOptions,
) -> Result<String, CoreError> {
    let mut documents = Vec::with_capacity(paths.len());
    for path in paths {
        let bytes = std::fs::read(path)
            .map_err(|e| CoreError::Usage(format!("cannot read the set's document {path}: {e}")))?;
        documents.push(read_fingerprint(&bytes, read_options));
    }
    let resolved = &spec.resolved;
    let mut subject = json!({
        "provider": resolved.provider,
        "base_url": spec.selection.provider.effective_base_url(),
        "model": resolved.model,
        "prompt": resolved.prompt,
        "schema": schema,
        "ocr": resolved.ocr,
        "documents": documents,
    });
    // A free candidate's subject is as it was before answers had modes,
    // so its earlier runs are still reused; the others change with the
    // locator's rules.
    if resolved.answers != AnswerMode::Free {
        subject["answers"] = json!(resolved.answers);
        subject["locator"] = json!(LOCATOR_VERSION);
    }
    let digest = Sha256::digest(sift_llm::canonical_json(&subject).as_bytes());
    Ok(digest.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(label: &str, ocr: bool) -> CandidateSpec {
        CandidateSpec {
            resolved: ResolvedCandidate {
                label: label.into(),
                provider_id: None,
                provider: ProviderKind::Local,
                host: "127.0.0.1:1".into(),
                model: label.into(),
                prompt: DEFAULT_PROMPT.into(),
                schema_version: 1,
                ocr,
                answers: AnswerMode::Free,
            },
            selection: ModelSelection {
                provider: ProviderSettings::default(),
                models: vec![label.into()],
                ..ModelSelection::default()
            },
        }
    }

    #[test]
    fn repeated_labels_say_what_differs() {
        let mut specs = vec![
            spec("m", true),
            spec("m", false),
            spec("m", true),
            spec("n", true),
        ];
        distinct_labels(&mut specs);
        let labels: Vec<&str> = specs.iter().map(|s| s.resolved.label.as_str()).collect();
        assert_eq!(labels, ["m", "m (OCR off)", "m #2", "n"]);
    }

    #[test]
    fn the_fingerprint_follows_the_candidate_and_the_documents_bytes() {
        let dir = std::env::temp_dir().join(format!("sift-fp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.txt");
        std::fs::write(&file, "one").unwrap();
        let paths = vec![file.display().to_string()];
        let read = ReadOptions::default();
        let schema = json!({"type": "object"});
        let a = spec("m", true);
        let first = fingerprint(&a, &schema, &paths, &read).unwrap();
        assert_eq!(first, fingerprint(&a, &schema, &paths, &read).unwrap());
        let mut relabelled = a.clone();
        relabelled.resolved.label = "other name".into();
        assert_eq!(
            first,
            fingerprint(&relabelled, &schema, &paths, &read).unwrap()
        );
        let mut prompt = a.clone();
        prompt.resolved.prompt = "Read it.".into();
        assert_ne!(first, fingerprint(&prompt, &schema, &paths, &read).unwrap());
        let mut elsewhere = a.clone();
        elsewhere.selection.provider.base_url = Some("http://127.0.0.1:2/v1".into());
        assert_ne!(
            first,
            fingerprint(&elsewhere, &schema, &paths, &read).unwrap()
        );
        assert_ne!(
            first,
            fingerprint(&spec("m", false), &schema, &paths, &read).unwrap()
        );
        std::fs::write(&file, "two").unwrap();
        assert_ne!(first, fingerprint(&a, &schema, &paths, &read).unwrap());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
