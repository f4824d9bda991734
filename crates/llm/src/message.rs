//! The provider-neutral message model. Every provider encodes requests from
//! these types and decodes responses into them, so the engine never sees a
//! wire format.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One piece of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Part {
    Text { text: String },
    Image(Image),
    ToolCall(ToolCall),
    ToolResult(ToolResult),
}

/// An image sent to the model. The bytes are already encoded (PNG, JPEG, ...).
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Image {
    pub mime: String,
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
}

impl std::fmt::Debug for Image {
    // Image bytes would flood logs and test failures; their size is what matters.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Image")
            .field("mime", &self.mime)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// A model's request to run a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments exactly as the model produced them: a JSON text that
    /// may be invalid, so that a caller can report the error back instead of
    /// losing the call.
    pub arguments: String,
}

impl ToolCall {
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: &serde_json::Value,
    ) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments: arguments.to_string(),
        }
    }

    /// The arguments parsed as JSON. An empty text counts as `{}`, which is
    /// what servers send for a tool without parameters.
    pub fn parsed_arguments(&self) -> Result<serde_json::Value, serde_json::Error> {
        if self.arguments.trim().is_empty() {
            return Ok(serde_json::Value::Object(serde_json::Map::new()));
        }
        serde_json::from_str(&self.arguments)
    }
}

/// The outcome of a tool call, sent back to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    pub call_id: String,
    pub content: String,
    #[serde(default)]
    pub is_error: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    pub role: Role,
    pub parts: Vec<Part>,
}

impl Message {
    pub fn system(text: impl Into<String>) -> Self {
        Self::text(Role::System, text)
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::text(Role::User, text)
    }

    pub fn assistant(text: impl Into<String>) -> Self {
        Self::text(Role::Assistant, text)
    }

    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self {
            role,
            parts: vec![Part::Text { text: text.into() }],
        }
    }

    pub fn tool_result(
        call_id: impl Into<String>,
        content: impl Into<String>,
        is_error: bool,
    ) -> Self {
        Self {
            role: Role::Tool,
            parts: vec![Part::ToolResult(ToolResult {
                call_id: call_id.into(),
                content: content.into(),
                is_error,
            })],
        }
    }

    /// All text parts joined, in order.
    pub fn text_content(&self) -> String {
        self.parts
            .iter()
            .filter_map(|p| match p {
                Part::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect()
    }

    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.parts.iter().filter_map(|p| match p {
            Part::ToolCall(c) => Some(c),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn total(&self) -> u64 {
        self.input_tokens + self.output_tokens
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, rhs: Self) {
        self.input_tokens += rhs.input_tokens;
        self.output_tokens += rhs.output_tokens;
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum StopReason {
    End,
    ToolCalls,
    MaxTokens,
    /// The provider refused; `category` is its own word for why
    /// (`content_filter` on OpenAI, Anthropic's refusal category or `refusal`).
    Refusal {
        category: String,
    },
}

/// A tool the model may call. `parameters` is a JSON Schema object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: serde_json::Value,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    Auto,
    None,
    /// Some tool must be called. Not every server honours this: see
    /// [`crate::Capabilities::force_tool`].
    Required,
    /// This tool must be called.
    Tool(String),
}

/// One model request, independent of the provider.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub tool_choice: Option<ToolChoice>,
    pub temperature: Option<f64>,
    pub max_tokens: Option<u32>,
    pub top_p: Option<f64>,
    /// The answer must be JSON matching this schema, enforced by the
    /// server (llama.cpp compiles it to a grammar). Sent only where
    /// [`crate::Capabilities::json_schema_response_format`] holds.
    pub response_format: Option<JsonAnswerFormat>,
}

/// `response_format: {"type": "json_schema", ...}`: a named schema the
/// whole reply must match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JsonAnswerFormat {
    pub name: String,
    pub schema: serde_json::Value,
}

impl JsonAnswerFormat {
    /// What the model is told of the answer. The grammar holds the reply
    /// to the schema, but the model sees neither it nor the descriptions of
    /// its fields, which a tool's definition would carry; so the request
    /// names the schema as written (its keys in their order).
    pub fn instruction(&self) -> String {
        format!(
            "Answer with one JSON object, and nothing else, that matches this JSON Schema:\n{}",
            self.schema
        )
    }
}

impl ChatRequest {
    pub fn new(model: impl Into<String>, messages: Vec<Message>) -> Self {
        Self {
            model: model.into(),
            messages,
            ..Self::default()
        }
    }
}

/// A complete model answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResponse {
    /// The assistant message: text parts and tool calls.
    pub message: Message,
    pub usage: Usage,
    pub stop: StopReason,
    /// The model name the server reported, or the requested one.
    pub model: String,
}

/// What a streamed answer emits as it arrives.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamDelta {
    Text(String),
    /// A tool call began; its arguments follow as [`StreamDelta::ToolArguments`].
    ToolCallStarted {
        index: usize,
        id: String,
        name: String,
    },
    ToolArguments {
        index: usize,
        fragment: String,
    },
    Usage(Usage),
}

mod base64_bytes {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text)
            .map_err(serde::de::Error::custom)
    }
}
