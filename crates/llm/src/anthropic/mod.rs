//! Anthropic Messages (`POST {base_url}/v1/messages`).

mod stream;

use base64::Engine as _;
use serde_json::{Map, Value, json};

pub(crate) use stream::AnthropicStream;

use crate::error::{ErrorCategory, LlmError};
use crate::json::str_field;
use crate::message::{
    ChatRequest, ChatResponse, Message, Part, Role, StopReason, ToolCall, ToolChoice, Usage,
};

/// Anthropic requires `max_tokens`; this is sent when the request has none.
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

pub(crate) fn request_body(req: &ChatRequest, stream: bool) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert(
        "max_tokens".into(),
        json!(req.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS)),
    );
    let system: Vec<String> = req
        .messages
        .iter()
        .filter(|m| m.role == Role::System)
        .map(Message::text_content)
        .collect();
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert(
        "messages".into(),
        Value::Array(encode_messages(&req.messages)),
    );
    if stream {
        body.insert("stream".into(), json!(true));
    }
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = &req.tool_choice {
        body.insert(
            "tool_choice".into(),
            match choice {
                ToolChoice::Auto => json!({"type": "auto"}),
                ToolChoice::None => json!({"type": "none"}),
                ToolChoice::Required => json!({"type": "any"}),
                ToolChoice::Tool(name) => json!({"type": "tool", "name": name}),
            },
        );
    }
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.top_p {
        body.insert("top_p".into(), json!(p));
    }
    Value::Object(body)
}

/// Tool results travel in user messages, and the API wants roles to
/// alternate, so consecutive messages of one wire role are merged.
fn encode_messages(messages: &[Message]) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for message in messages {
        let role = match message.role {
            Role::System => continue,
            Role::User | Role::Tool => "user",
            Role::Assistant => "assistant",
        };
        let blocks: Vec<Value> = message.parts.iter().map(encode_part).collect();
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((last_role, last_blocks)) if *last_role == role => last_blocks.extend(blocks),
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

fn encode_part(part: &Part) -> Value {
    match part {
        Part::Text { text } => json!({"type": "text", "text": text}),
        Part::Image(image) => json!({"type": "image", "source": {
            "type": "base64",
            "media_type": image.mime,
            "data": base64::engine::general_purpose::STANDARD.encode(&image.data),
        }}),
        Part::ToolCall(call) => json!({
            "type": "tool_use",
            "id": call.id,
            "name": call.name,
            // The API takes an object. Arguments that are not one (a model's
            // malformed output, replayed from history) go as `{}`.
            "input": call.parsed_arguments().ok().filter(Value::is_object).unwrap_or_else(|| json!({})),
        }),
        Part::ToolResult(result) => {
            let mut block = json!({
                "type": "tool_result",
                "tool_use_id": result.call_id,
                "content": result.content,
            });
            if result.is_error {
                block["is_error"] = json!(true);
            }
            block
        }
    }
}

pub(crate) fn stop_reason(reason: Option<&str>, stop_details: Option<&Value>) -> StopReason {
    match reason {
        Some("tool_use") => StopReason::ToolCalls,
        Some("max_tokens" | "model_context_window_exceeded") => StopReason::MaxTokens,
        Some("refusal") => StopReason::Refusal {
            category: stop_details
                .and_then(|d| d.get("category"))
                .and_then(Value::as_str)
                .unwrap_or("refusal")
                .to_owned(),
        },
        _ => StopReason::End,
    }
}

pub(crate) fn parse_usage(usage: &Value) -> Usage {
    Usage {
        input_tokens: usage
            .get("input_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        output_tokens: usage
            .get("output_tokens")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    }
}

pub(crate) fn parse_response(body: &str, requested_model: &str) -> Result<ChatResponse, LlmError> {
    let value: Value = serde_json::from_str(body).map_err(|e| {
        LlmError::new(
            ErrorCategory::Other,
            format!("the server's answer is not JSON: {e}"),
        )
    })?;
    if value.get("type").and_then(Value::as_str) == Some("error") {
        return Err(LlmError::from_status(200, body.to_owned()));
    }
    let mut parts = Vec::new();
    for block in value
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                let text = str_field(block, "text");
                if !text.is_empty() {
                    parts.push(Part::Text {
                        text: text.to_owned(),
                    });
                }
            }
            Some("tool_use") => parts.push(Part::ToolCall(ToolCall {
                id: str_field(block, "id").to_owned(),
                name: str_field(block, "name").to_owned(),
                arguments: block
                    .get("input")
                    .map_or_else(|| "{}".to_owned(), Value::to_string),
            })),
            _ => {} // thinking and server-tool blocks are not part of our model
        }
    }
    Ok(ChatResponse {
        stop: stop_reason(
            value.get("stop_reason").and_then(Value::as_str),
            value.get("stop_details"),
        ),
        message: Message {
            role: Role::Assistant,
            parts,
        },
        usage: value.get("usage").map(parse_usage).unwrap_or_default(),
        model: value
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(requested_model)
            .to_owned(),
    })
}
