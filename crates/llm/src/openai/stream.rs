//! Assembles a streamed OpenAI-compatible answer from its SSE chunks.

use serde_json::Value;

use super::{parse_usage, stop_reason};
use crate::error::{ErrorCategory, LlmError};
use crate::message::{ChatResponse, Message, Part, Role, StreamDelta, ToolCall, Usage};
use crate::sse::SseEvent;
use crate::stream::{MAX_STREAM_INDEX, StreamDecoder, index_too_large};

#[derive(Debug, Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    started: bool,
}

#[derive(Debug)]
pub(crate) struct OpenAiStream {
    model: String,
    text: String,
    /// Tool calls by their `index`: servers send a call's id and name in
    /// its first fragment and only the index in the rest.
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl OpenAiStream {
    pub(crate) fn new(requested_model: &str) -> Self {
        Self {
            model: requested_model.to_owned(),
            text: String::new(),
            calls: Vec::new(),
            finish_reason: None,
            usage: None,
            done: false,
        }
    }

    fn call_at(&mut self, index: usize) -> &mut PartialCall {
        if self.calls.len() <= index {
            self.calls.resize_with(index + 1, PartialCall::default);
        }
        &mut self.calls[index]
    }

    fn on_call_fragment(
        &mut self,
        index: usize,
        id: Option<&str>,
        name: Option<&str>,
        arguments: Option<&str>,
        emit: &mut dyn FnMut(StreamDelta),
    ) {
        let call = self.call_at(index);
        if let Some(id) = id.filter(|s| !s.is_empty()) {
            call.id = id.to_owned();
        }
        if let Some(name) = name.filter(|s| !s.is_empty()) {
            call.name.push_str(name);
        }
        if !call.started && !call.name.is_empty() {
            call.started = true;
            if call.id.is_empty() {
                call.id = format!("call_{index}");
            }
            emit(StreamDelta::ToolCallStarted {
                index,
                id: call.id.clone(),
                name: call.name.clone(),
            });
        }
        if let Some(fragment) = arguments.filter(|s| !s.is_empty()) {
            call.arguments.push_str(fragment);
            emit(StreamDelta::ToolArguments {
                index,
                fragment: fragment.to_owned(),
            });
        }
    }
}

impl StreamDecoder for OpenAiStream {
    fn on_event(
        &mut self,
        event: &SseEvent,
        emit: &mut dyn FnMut(StreamDelta),
    ) -> Result<(), LlmError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        if data.is_empty() {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(data).map_err(|e| {
            LlmError::new(
                ErrorCategory::Other,
                format!("the server sent a stream chunk that is not JSON: {e}"),
            )
        })?;
        if let Some(error) = chunk.get("error").filter(|e| !e.is_null()) {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map_or_else(|| error.to_string(), str::to_owned);
            let mut err = LlmError::new(
                ErrorCategory::Other,
                format!("the server failed mid-stream: {message}"),
            );
            err.body = Some(data.to_owned());
            return Err(err);
        }
        if let Some(model) = chunk.get("model").and_then(Value::as_str) {
            self.model = model.to_owned();
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let usage = parse_usage(usage);
            self.usage = Some(usage);
            emit(StreamDelta::Usage(usage));
        }
        let Some(choice) = chunk.pointer("/choices/0") else {
            return Ok(()); // the usage-only chunk has no choices
        };
        let delta = choice.get("delta").unwrap_or(&Value::Null);
        if let Some(text) = delta.get("content").and_then(Value::as_str)
            && !text.is_empty()
        {
            self.text.push_str(text);
            emit(StreamDelta::Text(text.to_owned()));
        }
        if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
            for (position, call) in calls.iter().enumerate() {
                let index = call
                    .get("index")
                    .and_then(Value::as_u64)
                    .unwrap_or(position as u64);
                if index >= MAX_STREAM_INDEX {
                    return Err(index_too_large("tool call index", index));
                }
                let index = index as usize;
                self.on_call_fragment(
                    index,
                    call.get("id").and_then(Value::as_str),
                    call.pointer("/function/name").and_then(Value::as_str),
                    call.pointer("/function/arguments").and_then(Value::as_str),
                    emit,
                );
            }
        } else if let Some(call) = delta.get("function_call").filter(|c| c.is_object()) {
            // Legacy form. Servers that send both (llama.cpp's Python server
            // does) are handled by the branch above, so nothing is doubled.
            self.on_call_fragment(
                0,
                None,
                call.get("name").and_then(Value::as_str),
                call.get("arguments").and_then(Value::as_str),
                emit,
            );
        }
        if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(())
    }

    fn is_finished(&self) -> bool {
        self.done
    }

    fn is_whole(&self) -> bool {
        // Not every server sends `[DONE]`; the usage chunk, when asked for,
        // comes after the finish reason, so reading goes on to the end.
        // An empty answer ended by `[DONE]` without a finish reason was
        // interrupted (llama.cpp's Python server does this when another
        // request arrives), not answered.
        self.finish_reason.is_some()
            || (self.done && (!self.text.is_empty() || !self.calls.is_empty()))
    }

    fn into_response(self) -> ChatResponse {
        let mut parts = Vec::new();
        if !self.text.is_empty() {
            parts.push(Part::Text { text: self.text });
        }
        for (index, call) in self.calls.into_iter().enumerate() {
            if call.name.is_empty() && call.arguments.is_empty() {
                continue;
            }
            parts.push(Part::ToolCall(ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{index}")
                } else {
                    call.id
                },
                name: call.name,
                arguments: call.arguments,
            }));
        }
        let has_calls = parts.iter().any(|p| matches!(p, Part::ToolCall(_)));
        ChatResponse {
            stop: stop_reason(self.finish_reason.as_deref(), has_calls),
            message: Message {
                role: Role::Assistant,
                parts,
            },
            usage: self.usage.unwrap_or_default(),
            model: self.model,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hostile or broken server's tool call index must not become an
    /// allocation of that many slots (found by reading the code for the
    /// SSE fuzz target; it aborted the process).
    #[test]
    fn a_huge_tool_call_index_is_refused_not_allocated() {
        let mut stream = OpenAiStream::new("m");
        let event = SseEvent {
            event: None,
            data: r#"{"choices":[{"delta":{"tool_calls":[{"index":18446744073709551615,"function":{"name":"x"}}]}}]}"#.into(),
        };
        let error = stream.on_event(&event, &mut |_| {}).unwrap_err();
        assert_eq!(
            error.message,
            "the server streamed tool call index 18446744073709551615; at most 1024 are read in one reply"
        );
        let last = SseEvent {
            event: None,
            data: r#"{"choices":[{"delta":{"tool_calls":[{"index":1023,"id":"c","function":{"name":"x"}}]}}]}"#.into(),
        };
        assert!(stream.on_event(&last, &mut |_| {}).is_ok());
    }
}
