//! What each kind of server supports, in one place. Higher layers ask here
//! how to force a tool call instead of assuming every server honours the
//! OpenAI spelling.
//!
//! This is the server's wire behaviour, the same for every model it
//! serves. Whether a model takes images or tools is per model:
//! [`crate::ModelFeatures`].

use serde::{Deserialize, Serialize};

use crate::message::ToolChoice;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// `POST {base_url}/chat/completions`.
    OpenAi,
    /// `POST {base_url}/v1/messages`.
    Anthropic,
}

/// Which server implementation sits behind an OpenAI-compatible URL, when
/// the configuration knows. `Generic` assumes only what every server does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ServerFlavor {
    OpenAi,
    Anthropic,
    /// llama.cpp's `llama-server` (Sift's local default).
    LlamaCpp,
    Ollama,
    LmStudio,
    Vllm,
    Generic,
}

/// How to make a server call one particular tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ForcedTool {
    /// `tool_choice: "required"` (Anthropic: `any`) with only that tool offered.
    Required,
    /// The tool named in `tool_choice`, the form most OpenAI-compatible
    /// servers honour when the model's template has tools.
    Named,
}

impl ForcedTool {
    /// Whether a tool named in `tool_choice` is honoured: after a reply in
    /// prose, naming the answer tool is then the correction's lever.
    pub fn honours_a_named_tool(self) -> bool {
        self == Self::Named
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capabilities {
    pub forced_tool: ForcedTool,
    /// Streams report usage when asked with `stream_options.include_usage`.
    pub stream_usage: bool,
    /// Accepts `response_format: {"type": "json_schema"}` and holds the
    /// reply to it.
    pub json_schema_response_format: bool,
    /// Accepts an assistant message whose `content` is `null` beside its
    /// `tool_calls`, as the OpenAI API defines it. llama-cpp-python answers
    /// such a message with HTTP 500; it takes `""`.
    pub null_content_with_tool_calls: bool,
    /// Takes llama.cpp's DRY sampler (`dry_multiplier`), which penalises
    /// a token that would extend a verbatim repeat of earlier output.
    pub dry_sampler: bool,
    /// Holds a forced tool call's arguments, and a `json_schema` reply, to
    /// the schema by grammar. A small model so held writes only the keys
    /// the grammar makes it write: given a schema whose fields are
    /// optional it closes the object after the required ones. So the
    /// answer's schema is sent with every key required, the optional ones
    /// nullable (as OpenAI's strict mode has it), and the nulls are taken
    /// out of the answer again (`sift_engine::OutputSchema`).
    pub grammar_held_answers: bool,
}

impl Capabilities {
    pub fn for_server(kind: ProviderKind, flavor: ServerFlavor) -> Self {
        let openai_like = Self {
            forced_tool: ForcedTool::Named,
            stream_usage: true,
            json_schema_response_format: true,
            null_content_with_tool_calls: true,
            dry_sampler: false,
            grammar_held_answers: false,
        };
        match (kind, flavor) {
            (ProviderKind::Anthropic, _) | (_, ServerFlavor::Anthropic) => Self {
                forced_tool: ForcedTool::Named,
                stream_usage: true,
                json_schema_response_format: false,
                null_content_with_tool_calls: true,
                dry_sampler: false,
                grammar_held_answers: false,
            },
            (_, ServerFlavor::OpenAi) => Self {
                forced_tool: ForcedTool::Required,
                ..openai_like
            },
            // llama.cpp's `llama-server` takes the OpenAI forms, and holds a
            // `json_schema` reply to its schema by grammar; whether a forced
            // tool works depends on the model's chat template, which
            // `/props` tells (see `sift_engine::AnswerChannel`). Its
            // `tool_choice` takes only the strings `auto`, `none` and
            // `required`: an object naming a function is dropped with a
            // warning and the model may answer in prose (seen with
            // Qwen2.5-Coder, whose template has tool calls), so the answer
            // tool, offered alone, is forced with `required`.
            // `content: ""` beside tool calls, which it takes as well as
            // `null`, keeps llama-cpp-python's Python server working too
            // (it answers `null` with HTTP 500); that server also answers
            // `json_schema` with HTTP 500, but has no `/props`, so its
            // models keep the answer tool.
            (_, ServerFlavor::LlamaCpp) => Self {
                forced_tool: ForcedTool::Required,
                null_content_with_tool_calls: false,
                dry_sampler: true,
                grammar_held_answers: true,
                ..openai_like
            },
            // A named function is the one form that all of these honour.
            (
                _,
                ServerFlavor::Ollama
                | ServerFlavor::LmStudio
                | ServerFlavor::Vllm
                | ServerFlavor::Generic,
            ) => openai_like,
        }
    }

    /// The tool choice that makes this server call `name`.
    pub fn force_tool(&self, name: &str) -> ToolChoice {
        match self.forced_tool {
            ForcedTool::Required => ToolChoice::Required,
            ForcedTool::Named => ToolChoice::Tool(name.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama_cpp_and_openai_are_forced_by_required_the_others_by_name() {
        let llama = Capabilities::for_server(ProviderKind::OpenAi, ServerFlavor::LlamaCpp);
        assert_eq!(llama.force_tool("respond"), ToolChoice::Required);
        assert!(!llama.forced_tool.honours_a_named_tool());
        assert!(llama.grammar_held_answers);
        assert!(llama.json_schema_response_format);
        assert!(!llama.null_content_with_tool_calls);
        assert!(llama.stream_usage);
        assert!(llama.dry_sampler);
        let openai = Capabilities::for_server(ProviderKind::OpenAi, ServerFlavor::OpenAi);
        assert_eq!(openai.force_tool("respond"), ToolChoice::Required);
        assert!(!openai.dry_sampler);
        let generic = Capabilities::for_server(ProviderKind::OpenAi, ServerFlavor::Generic);
        assert!(!generic.dry_sampler);
        assert!(!generic.grammar_held_answers);
        assert_eq!(
            generic.force_tool("respond"),
            ToolChoice::Tool("respond".into())
        );
        let anthropic = Capabilities::for_server(ProviderKind::Anthropic, ServerFlavor::Anthropic);
        assert_eq!(
            anthropic.force_tool("respond"),
            ToolChoice::Tool("respond".into())
        );
    }
}
