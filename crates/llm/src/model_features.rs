//! What one model can take: images, tools. This is per model, unlike
//! [`crate::Capabilities`], which is what a server's wire API does (how to
//! force a tool, whether streams report usage) whatever model it serves.
//!
//! When the server cannot say (see [`crate::model_probe`]), a table of
//! known model families decides, by a case-insensitive substring of the
//! model's name. The first matching row wins, so narrower names come
//! before the wider ones they contain (`o3-mini` before `o3`).
//!
//! A name no row matches gets [`ModelFeatures::unknown_model`]: a
//! first-party cloud API (OpenAI's own, Anthropic's) keeps what those APIs
//! take today, images and tools; any other server (the local one, a
//! generic OpenAI-compatible address) is assumed to serve a text-only
//! model, the common case for GGUF models, which then gets a document's
//! text instead of its images.

use serde::{Deserialize, Serialize};

use crate::capabilities::ServerFlavor;

/// What one model can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelFeatures {
    /// Images in user messages.
    pub images: bool,
    /// Tool definitions and tool calls.
    pub tools: bool,
}

/// One row of the table: a substring of model names and what they take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelFamily {
    pub pattern: &'static str,
    pub features: ModelFeatures,
}

const fn row(pattern: &'static str, images: bool, tools: bool) -> ModelFamily {
    ModelFamily {
        pattern,
        features: ModelFeatures { images, tools },
    }
}

/// Known families, narrower names first. Tools follow what the families'
/// own servers report (Ollama's `capabilities` list no `tools` for the
/// LLaVA line, Moondream or Gemma 3).
pub const MODEL_FAMILIES: &[ModelFamily] = &[
    // OpenAI.
    row("gpt-4o", true, true),
    row("gpt-4.1", true, true),
    row("gpt-4.5", true, true),
    row("gpt-4-turbo", true, true),
    row("gpt-4-vision", true, false),
    row("gpt-5", true, true),
    row("gpt-3.5", false, true),
    row("o1-mini", false, false),
    row("o3-mini", false, true),
    row("o4-mini", true, true),
    // Anthropic: every Claude 3 and 4 model takes images.
    row("claude-3", true, true),
    row("claude-sonnet-4", true, true),
    row("claude-opus-4", true, true),
    row("claude-haiku-4", true, true),
    // Google.
    row("gemini", true, true),
    row("gemma3", true, false),
    row("gemma-3", true, false),
    // Open vision models, as llama.cpp, Ollama, LM Studio and vLLM name them.
    row("llama3.2-vision", true, false),
    row("llama-3.2-11b-vision", true, false),
    row("llama-3.2-90b-vision", true, false),
    row("llama4", true, true),
    row("llama-4", true, true),
    row("bakllava", true, false),
    row("llava", true, false),
    row("qwen2-vl", true, false),
    row("qwen2.5-vl", true, true),
    row("qwen2.5vl", true, true),
    row("qwen3-vl", true, true),
    row("qwen-vl", true, false),
    row("pixtral", true, true),
    row("mistral-small3.1", true, true),
    row("mistral-small-3.1", true, true),
    row("minicpm-v", true, false),
    row("moondream", true, false),
    row("granite3.2-vision", true, false),
    row("internvl", true, false),
    row("smolvlm", true, false),
    row("phi-3-vision", true, false),
    row("phi-3.5-vision", true, false),
    row("phi-4-multimodal", true, false),
    row("idefics", true, false),
    // Sift's local default: text only; llama.cpp's grammar makes its
    // forced, named tool calls valid.
    row("smollm", false, true),
];

impl ModelFeatures {
    /// The row of [`MODEL_FAMILIES`] that names `model`, if one does.
    pub fn known_family(model: &str) -> Option<&'static ModelFamily> {
        let name = model.to_ascii_lowercase();
        MODEL_FAMILIES.iter().find(|f| name.contains(f.pattern))
    }

    /// What a model no row names is assumed to take on this kind of
    /// server (see the module's documentation).
    pub fn unknown_model(flavor: ServerFlavor) -> Self {
        match flavor {
            ServerFlavor::OpenAi | ServerFlavor::Anthropic => Self {
                images: true,
                tools: true,
            },
            ServerFlavor::LlamaCpp
            | ServerFlavor::Ollama
            | ServerFlavor::LmStudio
            | ServerFlavor::Vllm
            | ServerFlavor::Generic => Self {
                images: false,
                tools: true,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn family(model: &str) -> Option<(&'static str, bool, bool)> {
        ModelFeatures::known_family(model).map(|f| (f.pattern, f.features.images, f.features.tools))
    }

    #[test]
    fn names_are_matched_by_their_family() {
        assert_eq!(family("smollm2"), Some(("smollm", false, true)));
        assert_eq!(
            family("SmolLM2-135M-Instruct.Q4_1.gguf"),
            Some(("smollm", false, true))
        );
        assert_eq!(family("gpt-4o-mini"), Some(("gpt-4o", true, true)));
        assert_eq!(
            family("claude-3-5-sonnet-latest"),
            Some(("claude-3", true, true))
        );
        assert_eq!(
            family("claude-sonnet-4-20250514"),
            Some(("claude-sonnet-4", true, true))
        );
        assert_eq!(
            family("llama3.2-vision:11b"),
            Some(("llama3.2-vision", true, false))
        );
        assert_eq!(
            family("Qwen2-VL-7B-Instruct-Q4_K_M"),
            Some(("qwen2-vl", true, false))
        );
        assert_eq!(family("qwen2.5vl:7b"), Some(("qwen2.5vl", true, true)));
        assert_eq!(family("gemma3:4b"), Some(("gemma3", true, false)));
        assert_eq!(family("bakllava:7b"), Some(("bakllava", true, false)));
        assert_eq!(family("o3-mini"), Some(("o3-mini", false, true)));
        assert_eq!(family("llama3.1:8b"), None);
        assert_eq!(family("mistral-7b-instruct"), None);
    }

    #[test]
    fn no_row_is_hidden_behind_an_earlier_wider_one() {
        for (i, later) in MODEL_FAMILIES.iter().enumerate() {
            for earlier in &MODEL_FAMILIES[..i] {
                assert!(
                    !later.pattern.contains(earlier.pattern),
                    "{:?} can never match: {:?} comes first",
                    later.pattern,
                    earlier.pattern
                );
            }
        }
    }

    #[test]
    fn an_unknown_model_takes_images_only_on_a_first_party_cloud_api() {
        let text_only = ModelFeatures {
            images: false,
            tools: true,
        };
        assert_eq!(
            ModelFeatures::unknown_model(ServerFlavor::LlamaCpp),
            text_only
        );
        assert_eq!(
            ModelFeatures::unknown_model(ServerFlavor::Generic),
            text_only
        );
        assert_eq!(
            ModelFeatures::unknown_model(ServerFlavor::Ollama),
            text_only
        );
        let cloud = ModelFeatures {
            images: true,
            tools: true,
        };
        assert_eq!(ModelFeatures::unknown_model(ServerFlavor::OpenAi), cloud);
        assert_eq!(ModelFeatures::unknown_model(ServerFlavor::Anthropic), cloud);
    }
}
