//! Assembles a streamed Anthropic answer from its typed SSE events.

use serde_json::Value;

use super::{parse_usage, stop_reason};
use crate::error::{ErrorCategory, LlmError};
use crate::json::str_field;
use crate::message::{ChatResponse, Message, Part, Role, StopReason, StreamDelta, ToolCall, Usage};
use crate::sse::SseEvent;
use crate::stream::{MAX_STREAM_INDEX, StreamDecoder, index_too_large};

#[derive(Debug)]
enum Block {
    Text(String),
    Tool {
        id: String,
        name: String,
        json: String,
    },
    Other,
}

#[derive(Debug)]
pub(crate) struct AnthropicStream {
    model: String,
    blocks: Vec<Block>,
    usage: Usage,
    stop: Option<StopReason>,
    done: bool,
}

impl AnthropicStream {
    pub(crate) fn new(requested_model: &str) -> Self {
        Self {
            model: requested_model.to_owned(),
            blocks: Vec::new(),
            usage: Usage::default(),
            stop: None,
            done: false,
        }
    }

    /// The position among tool calls of the tool block at `block_index`,
    /// which is the index streamed deltas use.
    fn tool_index(&self, block_index: usize) -> usize {
        self.blocks[..block_index]
            .iter()
            .filter(|b| matches!(b, Block::Tool { .. }))
            .count()
    }
}

impl StreamDecoder for AnthropicStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        emit: &mut dyn FnMut(StreamDelta),
    ) -> Result<(), LlmError> {
        let value: Value = serde_json::from_str(&event.data).map_err(|e| {
            LlmError::new(
                ErrorCategory::Other,
                format!("the server sent a stream event that is not JSON: {e}"),
            )
        })?;
        let kind = value
            .get("type")
            .and_then(Value::as_str)
            .or(event.event.as_deref())
            .unwrap_or_default();
        match kind {
            "message_start" => {
                let message = value.get("message").unwrap_or(&Value::Null);
                if let Some(model) = message.get("model").and_then(Value::as_str) {
                    self.model = model.to_owned();
                }
                if let Some(usage) = message.get("usage") {
                    self.usage = parse_usage(usage);
                }
            }
            "content_block_start" => {
                let index = value.get("index").and_then(Value::as_u64).unwrap_or(0);
                if index >= MAX_STREAM_INDEX {
                    return Err(index_too_large("content block index", index));
                }
                let index = index as usize;
                let block = value.get("content_block").unwrap_or(&Value::Null);
                let block = match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = str_field(block, "text");
                        if !text.is_empty() {
                            emit(StreamDelta::Text(text.to_owned()));
                        }
                        Block::Text(text.to_owned())
                    }
                    Some("tool_use") => Block::Tool {
                        id: str_field(block, "id").to_owned(),
                        name: str_field(block, "name").to_owned(),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                if self.blocks.len() <= index {
                    self.blocks.resize_with(index + 1, || Block::Other);
                }
                self.blocks[index] = block;
                if let Block::Tool { id, name, .. } = &self.blocks[index] {
                    let (id, name) = (id.clone(), name.clone());
                    emit(StreamDelta::ToolCallStarted {
                        index: self.tool_index(index),
                        id,
                        name,
                    });
                }
            }
            "content_block_delta" => {
                let index = value.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let delta = value.get("delta").unwrap_or(&Value::Null);
                let tool_index = self.tool_index(index.min(self.blocks.len()));
                match (
                    self.blocks.get_mut(index),
                    delta.get("type").and_then(Value::as_str),
                ) {
                    (Some(Block::Text(text)), Some("text_delta")) => {
                        let piece = str_field(delta, "text");
                        text.push_str(piece);
                        emit(StreamDelta::Text(piece.to_owned()));
                    }
                    (Some(Block::Tool { json, .. }), Some("input_json_delta")) => {
                        let piece = str_field(delta, "partial_json");
                        json.push_str(piece);
                        emit(StreamDelta::ToolArguments {
                            index: tool_index,
                            fragment: piece.to_owned(),
                        });
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                let delta = value.get("delta").unwrap_or(&Value::Null);
                if let Some(reason) = delta.get("stop_reason").and_then(Value::as_str) {
                    let details = delta
                        .get("stop_details")
                        .or_else(|| value.get("stop_details"));
                    self.stop = Some(stop_reason(Some(reason), details));
                }
                if let Some(usage) = value.get("usage") {
                    // message_delta carries cumulative output tokens; some
                    // servers repeat input tokens there too.
                    let later = parse_usage(usage);
                    self.usage.output_tokens = later.output_tokens;
                    if later.input_tokens > 0 {
                        self.usage.input_tokens = later.input_tokens;
                    }
                    emit(StreamDelta::Usage(self.usage));
                }
            }
            "message_stop" => self.done = true,
            "error" => {
                let error = value.get("error").unwrap_or(&Value::Null);
                let error_type = str_field(error, "type");
                let message = error
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or(error_type);
                // An overload mid-stream is transient: retried if nothing was shown yet.
                let category = if matches!(
                    error_type,
                    "overloaded_error" | "api_error" | "rate_limit_error"
                ) {
                    ErrorCategory::Network
                } else {
                    ErrorCategory::Other
                };
                let mut err =
                    LlmError::new(category, format!("the server failed mid-stream: {message}"));
                err.body = Some(event.data.clone());
                return Err(err);
            }
            _ => {} // ping, content_block_stop
        }
        Ok(())
    }

    fn is_finished(&self) -> bool {
        self.done
    }

    fn is_whole(&self) -> bool {
        self.done || self.stop.is_some()
    }

    fn into_response(self) -> ChatResponse {
        let mut parts = Vec::new();
        for block in self.blocks {
            match block {
                Block::Text(text) if !text.is_empty() => parts.push(Part::Text { text }),
                Block::Tool { id, name, json } => parts.push(Part::ToolCall(ToolCall {
                    id,
                    name,
                    // A tool without parameters streams no input at all.
                    arguments: if json.is_empty() {
                        "{}".to_owned()
                    } else {
                        json
                    },
                })),
                _ => {}
            }
        }
        ChatResponse {
            message: Message {
                role: Role::Assistant,
                parts,
            },
            usage: self.usage,
            stop: self.stop.unwrap_or(StopReason::End),
            model: self.model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// As for OpenAI's tool call index: a content block index from the
    /// server is bounded before a slot is kept for every index below it.
    #[test]
    fn a_huge_content_block_index_is_refused_not_allocated() {
        let mut stream = AnthropicStream::new("m");
        let event = SseEvent {
            event: Some("content_block_start".into()),
            data: r#"{"type":"content_block_start","index":9007199254740993,"content_block":{"type":"text","text":""}}"#.into(),
        };
        let error = stream.on_event(&event, &mut |_| {}).unwrap_err();
        assert_eq!(
            error.message,
            "the server streamed content block index 9007199254740993; at most 1024 are read in one reply"
        );
    }
}
