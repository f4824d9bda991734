//! OpenAI-compatible chat completions (`POST {base_url}/chat/completions`),
//! as served by OpenAI, llama.cpp, Ollama, LM Studio and vLLM.

mod stream;

use base64::Engine as _;
use serde_json::{Map, Value, json};

pub(crate) use stream::OpenAiStream;

use crate::capabilities::Capabilities;
use crate::error::LlmError;
use crate::json::str_field;
use crate::message::{
    ChatRequest, ChatResponse, Message, Part, Role, StopReason, ToolCall, ToolChoice, Usage,
};

/// llama.cpp's DRY strength for an answer held to a schema.
const DRY_MULTIPLIER: f64 = 0.8;

/// The request body. `stream` is omitted when false, and unset sampling
/// fields are omitted, so a server applies its own defaults.
pub(crate) fn request_body(req: &ChatRequest, stream: bool, capabilities: &Capabilities) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert(
        "messages".into(),
        Value::Array(encode_messages(
            &req.messages,
            capabilities.null_content_with_tool_calls,
        )),
    );
    if stream {
        body.insert("stream".into(), json!(true));
        if capabilities.stream_usage {
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
    }
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.parameters,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &req.tool_choice {
        body.insert("tool_choice".into(), encode_tool_choice(choice));
    }
    if let Some(format) = &req.response_format
        && capabilities.json_schema_response_format
    {
        body.insert(
            "response_format".into(),
            json!({"type": "json_schema", "json_schema": {
                "name": format.name, "schema": format.schema,
            }}),
        );
        if capabilities.dry_sampler {
            // A small model held to a schema by grammar can repeat one
            // array item until max_tokens: the grammar allows it, and each
            // repeat makes the next likelier. DRY penalises extending a
            // verbatim repeat (llama.cpp's suggested strength, 0.8); its
            // default sequence breakers (newline, quote, colon) keep JSON's
            // own repeated punctuation and keys free. docs/BENCHMARKS.md
            // has the runaway answers it saves on the corpus.
            body.insert("dry_multiplier".into(), json!(DRY_MULTIPLIER));
        }
    }
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(m) = req.max_tokens {
        body.insert("max_tokens".into(), json!(m));
    }
    if let Some(p) = req.top_p {
        body.insert("top_p".into(), json!(p));
    }
    Value::Object(body)
}

fn encode_tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Auto => json!("auto"),
        ToolChoice::None => json!("none"),
        ToolChoice::Required => json!("required"),
        ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    }
}

/// One neutral message may become several wire messages: each tool result
/// is its own `tool` message.
fn encode_messages(messages: &[Message], null_content_with_tool_calls: bool) -> Vec<Value> {
    let mut out = Vec::with_capacity(messages.len());
    for message in messages {
        let mut content: Vec<Value> = Vec::new();
        let mut has_image = false;
        let mut tool_calls = Vec::new();
        for part in &message.parts {
            match part {
                Part::Text { text } => content.push(json!({"type": "text", "text": text})),
                Part::Image(image) => {
                    has_image = true;
                    let data = base64::engine::general_purpose::STANDARD.encode(&image.data);
                    content.push(json!({"type": "image_url", "image_url": {
                        "url": format!("data:{};base64,{data}", image.mime),
                    }}));
                }
                Part::ToolCall(call) => tool_calls.push(json!({
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": call.arguments},
                })),
                Part::ToolResult(result) => out.push(json!({
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "content": result.content,
                })),
            }
        }
        let only_tool_results = !message.parts.is_empty()
            && message
                .parts
                .iter()
                .all(|p| matches!(p, Part::ToolResult(_)));
        if only_tool_results {
            continue; // already written, one `tool` message each
        }
        let mut wire = Map::new();
        wire.insert("role".into(), json!(role_name(message.role)));
        // Plain text goes as a string: every server accepts that, while
        // content arrays are only needed (and not always accepted) for images.
        let content_value = if has_image {
            Value::Array(content)
        } else if content.is_empty() && !tool_calls.is_empty() && null_content_with_tool_calls {
            Value::Null
        } else {
            json!(message.text_content())
        };
        wire.insert("content".into(), content_value);
        if !tool_calls.is_empty() {
            wire.insert("tool_calls".into(), Value::Array(tool_calls));
        }
        out.push(Value::Object(wire));
    }
    out
}

pub(crate) fn stop_reason(finish_reason: Option<&str>, has_tool_calls: bool) -> StopReason {
    match finish_reason {
        Some("length") => StopReason::MaxTokens,
        Some("content_filter") => StopReason::Refusal {
            category: "content_filter".into(),
        },
        Some("tool_calls" | "function_call") => StopReason::ToolCalls,
        // Some servers say "stop" even when they return tool calls.
        _ if has_tool_calls => StopReason::ToolCalls,
        _ => StopReason::End,
    }
}

pub(crate) fn parse_usage(usage: &Value) -> Usage {
    Usage {
        input_tokens: usage
            .get("prompt_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        output_tokens: usage
            .get("completion_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    }
}

/// Decodes a non-streamed response body.
pub(crate) fn parse_response(body: &str, requested_model: &str) -> Result<ChatResponse, LlmError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        LlmError::new(
            crate::ErrorCategory::Other,
            format!("the server's answer is not JSON: {e}"),
        )
    })?;
    if value.get("error").is_some_and(|e| !e.is_null()) {
        return Err(LlmError::from_status(200, body.to_owned()));
    }
    let choice = value.pointer("/choices/0").ok_or_else(|| {
        LlmError::new(
            crate::ErrorCategory::Other,
            "the server's answer has no choices",
        )
    })?;
    let message = choice.get("message").cloned().unwrap_or(Value::Null);
    let mut parts = Vec::new();
    if let Some(text) = message.get("content").and_then(Value::as_str)
        && !text.is_empty()
    {
        parts.push(Part::Text {
            text: text.to_owned(),
        });
    }
    if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
        for (index, call) in calls.iter().enumerate() {
            parts.push(Part::ToolCall(ToolCall {
                id: call
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("call_{index}"), str::to_owned),
                name: call
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                arguments: arguments_text(call.pointer("/function/arguments")),
            }));
        }
    } else if let Some(call) = message.get("function_call").filter(|c| c.is_object()) {
        // The legacy single-function form, still sent by some servers.
        parts.push(Part::ToolCall(ToolCall {
            id: "call_0".into(),
            name: str_field(call, "name").to_owned(),
            arguments: arguments_text(call.get("arguments")),
        }));
    }
    let has_tool_calls = parts.iter().any(|p| matches!(p, Part::ToolCall(_)));
    let finish_reason = choice.get("finish_reason").and_then(Value::as_str);
    Ok(ChatResponse {
        message: Message {
            role: Role::Assistant,
            parts,
        },
        usage: value.get("usage").map(parse_usage).unwrap_or_default(),
        stop: stop_reason(finish_reason, has_tool_calls),
        model: value
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(requested_model)
            .to_owned(),
    })
}

/// Arguments are a JSON text on the wire; a few servers send an object.
fn arguments_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}
