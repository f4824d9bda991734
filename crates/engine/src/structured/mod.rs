//! Structured calls: a request, a tool loop, and an answer validated
//! against a JSON Schema (through the `submit_output` tool) or parsed from
//! text, corrected when it is unusable. This file holds the call's spec,
//! outcome and correction messages; `run.rs` the loop.

use std::sync::Arc;

use serde_json::{Map, Value};
use sift_llm::{
    Client, ErrorCategory, JsonAnswerFormat, Message, Part, Role, ToolCall, ToolSpec, Usage,
};

use crate::context::{ContextSettings, EngineContext};
use crate::schema::OutputSchema;
use crate::tool::{PreSeedCall, Toolkit};

mod run;
pub use run::run_structured_call;

/// The tool through which a model gives a schema-shaped answer.
pub const ANSWER_TOOL: &str = "submit_output";

/// A model on a server, with what the context builder needs to know of it.
#[derive(Debug, Clone)]
pub struct Engine {
    pub client: Client,
    pub model: String,
    /// Stored on call rows so that a revision replays on the same kind of
    /// engine: `openai` or `anthropic`.
    pub engine_type: String,
    pub context: EngineContext,
    pub settings: ContextSettings,
    pub answer: AnswerChannel,
}

/// How a schema-shaped answer comes back from this model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AnswerChannel {
    /// A call of [`ANSWER_TOOL`], forced the way the server honours.
    #[default]
    Tool,
    /// The reply itself, held to the schema by the server's
    /// `response_format` (a grammar, on llama.cpp). For a model whose chat
    /// template has no tool calls: llama.cpp then ignores a forced
    /// `tool_choice` and the model answers in prose. The answer is still
    /// recorded as the [`ANSWER_TOOL`] call and its result, so transcripts,
    /// corrections and revisions keep one shape.
    ///
    /// `max_tokens` bounds each answer turn: a weak model held to a
    /// grammar can write one string value until its context is full (seen
    /// with SmolLM2: 7,798 tokens of digits in a `total`, four minutes).
    /// Answer turns are also sent with `temperature: 0`: llama-server
    /// samples at 0.8 unless told, so the same document came back with a
    /// different answer, or none within `max_tokens`, from run to run.
    JsonFormat { max_tokens: u32 },
}

impl AnswerChannel {
    /// The reply held to the schema, each answer turn bounded by
    /// [`held_answer_max_tokens`] of `context_window`.
    pub fn held(context_window: usize) -> Self {
        Self::JsonFormat {
            max_tokens: held_answer_max_tokens(context_window),
        }
    }
}

/// The bound of an answer turn held to the schema: an eighth of the
/// context (1,024 tokens on the local server, far above a four-field
/// invoice's 60 and room for 20 line items). A weak model held to a
/// grammar can write one string until its context is full.
pub fn held_answer_max_tokens(context_window: usize) -> u32 {
    u32::try_from(context_window / 8).unwrap_or(u32::MAX)
}

type TextOutput = dyn Fn(&str) -> Value + Send + Sync;
type OutputParser = dyn Fn(&str) -> Result<Value, TextParseError> + Send + Sync;

/// Why a final text answer could not be read as the output; its message
/// goes back to the model in the correction.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TextParseError(pub String);

pub struct StructuredCallSpec {
    pub kind: String,
    pub system_prompt: String,
    /// With a schema the answer comes through [`ANSWER_TOOL`]; without one,
    /// the final text is parsed by `output_parser`.
    pub response_schema: Option<Arc<OutputSchema>>,
    pub toolkits: Vec<Toolkit>,
    pub pre_seeds: Vec<PreSeedCall>,
    pub max_turns: u32,
    /// Maps a plain-text answer to the answer tool's arguments, so that a
    /// text reply is accepted without a second model call.
    pub text_output: Option<Arc<TextOutput>>,
    /// Parses the final text when there is no schema; JSON by default.
    pub output_parser: Option<Arc<OutputParser>>,
}

impl std::fmt::Debug for StructuredCallSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StructuredCallSpec")
            .field("kind", &self.kind)
            .field("max_turns", &self.max_turns)
            .finish_non_exhaustive()
    }
}

impl StructuredCallSpec {
    pub fn new(kind: impl Into<String>, system_prompt: impl Into<String>) -> Self {
        Self {
            kind: kind.into(),
            system_prompt: system_prompt.into(),
            response_schema: None,
            toolkits: Vec::new(),
            pre_seeds: Vec::new(),
            max_turns: 10,
            text_output: None,
            output_parser: None,
        }
    }

    fn tool_specs(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self
            .toolkits
            .iter()
            .flat_map(|kit| kit.tools().iter().map(|t| t.spec()))
            .collect();
        if let Some(schema) = &self.response_schema {
            specs.push(ToolSpec {
                name: ANSWER_TOOL.to_owned(),
                description:
                    "Submit your final answer. Call this exactly once, when you have the answer."
                        .to_owned(),
                parameters: schema.schema().clone(),
            });
        }
        specs
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    Completed,
    /// An API error, a refusal, or a max_tokens stop.
    Failed,
    /// No valid output within `max_turns`.
    TurnLimited,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub status: CallStatus,
    pub output: Option<Value>,
    pub error: Option<String>,
    pub error_category: Option<ErrorCategory>,
    pub usage: Usage,
    /// Every message of the call, in engine-native form, attachments
    /// included: see [`transcript_for_storage`] before keeping it.
    pub transcript: Vec<Message>,
    /// `text_answer: true` when a plain-text answer was taken as the output.
    pub metadata: Map<String, Value>,
    /// Model requests sent.
    pub turns: u32,
}

/// The transcript a new call starts from: the system prompt, the user's
/// message, and the pre-seeded calls with their results.
pub async fn initial_transcript(spec: &StructuredCallSpec, user: Message) -> Vec<Message> {
    let mut transcript = Vec::with_capacity(2 + 2 * spec.pre_seeds.len());
    if !spec.system_prompt.is_empty() {
        transcript.push(Message::system(spec.system_prompt.clone()));
    }
    transcript.push(user);
    for (index, seed) in spec.pre_seeds.iter().enumerate() {
        let id = format!("preseed_{}", index + 1);
        transcript.push(Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall::new(
                id.clone(),
                seed.name.clone(),
                &seed.arguments,
            ))],
        });
        let (content, is_error) = match (seed.loader)(&seed.arguments).await {
            Ok(output) => (output.content, false),
            Err(e) => (e.0, true),
        };
        transcript.push(Message::tool_result(id, content, is_error));
    }
    transcript
}

/// Attachments are sent to the model but not stored: each image becomes a
/// placeholder naming its type and size.
pub fn transcript_for_storage(transcript: &[Message]) -> Vec<Message> {
    transcript
        .iter()
        .map(|m| Message {
            role: m.role,
            parts: m
                .parts
                .iter()
                .map(|p| match p {
                    Part::Image(image) => Part::Text {
                        text: format!("[attachment: {}, {} bytes]", image.mime, image.data.len()),
                    },
                    other => other.clone(),
                })
                .collect(),
        })
        .collect()
}

/// The correction for a plain-text answer where the answer tool was wanted.
pub fn plain_text_correction(text: &str) -> String {
    let quoted: Vec<String> = text.trim().lines().map(|l| format!("> {l}")).collect();
    format!(
        "You answered in plain text instead of calling the {ANSWER_TOOL} tool:\n\n{}\n\nCall {ANSWER_TOOL} with your answer.",
        quoted.join("\n")
    )
}

/// The correction for an empty reply.
pub fn empty_reply_correction(schema: bool) -> String {
    if schema {
        format!(
            "Your reply was empty. Carry on with the task, and call {ANSWER_TOOL} with your answer when you have it."
        )
    } else {
        "Your reply was empty. Carry on with the task.".to_owned()
    }
}

/// The error result for answer-tool input that breaks the schema.
pub fn invalid_output_message(errors: &[String]) -> String {
    let listed: Vec<String> = errors.iter().map(|e| format!("- {e}")).collect();
    format!(
        "The output does not match the schema:\n{}\nCall {ANSWER_TOOL} again with a corrected answer.",
        listed.join("\n")
    )
}

/// The correction for a final text the output parser rejected.
pub fn parse_failure_correction(error: &str) -> String {
    format!("Your answer could not be parsed: {error}\nAnswer again with the output alone.")
}

/// The instruction naming the answer's JSON Schema.
pub fn schema_instruction(schema: &Value) -> String {
    JsonAnswerFormat {
        name: ANSWER_TOOL.to_owned(),
        schema: schema.clone(),
    }
    .instruction()
}

/// The default output parser: the text as JSON, also inside a ```json fence.
pub fn parse_json_text(text: &str) -> Result<Value, TextParseError> {
    let trimmed = text.trim();
    let body = trimmed
        .strip_prefix("```json")
        .or_else(|| trimmed.strip_prefix("```"))
        .and_then(|rest| rest.trim_end().strip_suffix("```"))
        .unwrap_or(trimmed);
    serde_json::from_str(body.trim()).map_err(|e| TextParseError(format!("not JSON ({e})")))
}
