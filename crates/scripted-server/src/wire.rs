//! A scripted reply in each API's wire format, whole or as SSE events.

use serde_json::{Value, json};

use crate::script::{Finish, Reply, ScriptedUsage};

/// A reply with its tool-call ids and usage settled.
#[derive(Debug)]
pub(crate) struct Answer<'a> {
    pub reply: &'a Reply,
    pub model: &'a str,
    pub call_ids: Vec<String>,
    pub usage: ScriptedUsage,
}

fn text_pieces(text: &str, size: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(size.max(1))
        .map(|c| c.iter().collect())
        .collect()
}

fn sse(data: &Value) -> String {
    format!("data: {data}\n\n")
}

fn sse_named(event: &str, data: &Value) -> String {
    format!("event: {event}\ndata: {data}\n\n")
}

pub(crate) mod openai {
    use super::*;

    fn finish_reason(finish: Finish) -> &'static str {
        match finish {
            Finish::Stop => "stop",
            Finish::ToolCalls => "tool_calls",
            Finish::Length => "length",
            Finish::Refusal => "content_filter",
        }
    }

    fn usage(u: ScriptedUsage) -> Value {
        json!({"prompt_tokens": u.input, "completion_tokens": u.output, "total_tokens": u.input + u.output})
    }

    pub(crate) fn body(a: &Answer<'_>) -> Value {
        let mut message = json!({"role": "assistant", "content": a.reply.text});
        if !a.reply.tool_calls.is_empty() {
            message["tool_calls"] = a
                .reply
                .tool_calls
                .iter()
                .zip(&a.call_ids)
                .map(|(c, id)| {
                    json!({"id": id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text()}})
                })
                .collect();
        }
        json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "created": 0,
            "model": a.model,
            "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(a.reply.finish_or_default())}],
            "usage": usage(a.usage),
        })
    }

    fn chunk(model: &str, delta: Value, finish: Option<&str>) -> Value {
        json!({
            "id": "chatcmpl-scripted",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    }

    pub(crate) fn events(a: &Answer<'_>, include_usage: bool) -> Vec<String> {
        let size = a.reply.chunk_chars.unwrap_or(4);
        let mut out = vec![sse(&chunk(
            a.model,
            json!({"role": "assistant", "content": ""}),
            None,
        ))];
        for piece in text_pieces(a.reply.text.as_deref().unwrap_or_default(), size) {
            out.push(sse(&chunk(a.model, json!({"content": piece}), None)));
        }
        for (index, (call, id)) in a.reply.tool_calls.iter().zip(&a.call_ids).enumerate() {
            out.push(sse(&chunk(
                a.model,
                json!({"tool_calls": [{"index": index, "id": id, "type": "function", "function": {"name": call.name, "arguments": ""}}]}),
                None,
            )));
            for piece in text_pieces(&call.arguments_text(), size) {
                out.push(sse(&chunk(
                    a.model,
                    json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}),
                    None,
                )));
            }
        }
        out.push(sse(&chunk(
            a.model,
            json!({}),
            Some(finish_reason(a.reply.finish_or_default())),
        )));
        if include_usage {
            out.push(sse(&json!({
                "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 0,
                "model": a.model, "choices": [], "usage": usage(a.usage),
            })));
        }
        out.push("data: [DONE]\n\n".to_owned());
        out
    }
}

pub(crate) mod anthropic {
    use super::*;

    fn stop_reason(finish: Finish) -> &'static str {
        match finish {
            Finish::Stop => "end_turn",
            Finish::ToolCalls => "tool_use",
            Finish::Length => "max_tokens",
            Finish::Refusal => "refusal",
        }
    }

    fn stop_details(a: &Answer<'_>) -> Value {
        match (a.reply.finish_or_default(), &a.reply.refusal_category) {
            (Finish::Refusal, Some(category)) => {
                json!({"type": "refusal", "category": category, "explanation": null})
            }
            _ => Value::Null,
        }
    }

    fn input(call: &crate::script::ScriptedToolCall) -> Value {
        match &call.arguments {
            Value::String(text) => serde_json::from_str(text).unwrap_or_else(|_| json!({})),
            other => other.clone(),
        }
    }

    pub(crate) fn body(a: &Answer<'_>) -> Value {
        let mut content = Vec::new();
        if let Some(text) = &a.reply.text {
            content.push(json!({"type": "text", "text": text}));
        }
        for (call, id) in a.reply.tool_calls.iter().zip(&a.call_ids) {
            content.push(
                json!({"type": "tool_use", "id": id, "name": call.name, "input": input(call)}),
            );
        }
        let mut body = json!({
            "id": "msg_scripted",
            "type": "message",
            "role": "assistant",
            "model": a.model,
            "content": content,
            "stop_reason": stop_reason(a.reply.finish_or_default()),
            "stop_sequence": null,
            "usage": {"input_tokens": a.usage.input, "output_tokens": a.usage.output},
        });
        let details = stop_details(a);
        if !details.is_null() {
            body["stop_details"] = details;
        }
        body
    }

    pub(crate) fn events(a: &Answer<'_>) -> Vec<String> {
        let size = a.reply.chunk_chars.unwrap_or(4);
        let mut out = vec![sse_named(
            "message_start",
            &json!({"type": "message_start", "message": {
                "id": "msg_scripted", "type": "message", "role": "assistant", "model": a.model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": a.usage.input, "output_tokens": 1},
            }}),
        )];
        out.push(sse_named("ping", &json!({"type": "ping"})));
        let mut index = 0;
        if let Some(text) = &a.reply.text {
            out.push(sse_named(
                "content_block_start",
                &json!({"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}}),
            ));
            for piece in text_pieces(text, size) {
                out.push(sse_named(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}}),
                ));
            }
            out.push(sse_named(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            ));
            index += 1;
        }
        for (call, id) in a.reply.tool_calls.iter().zip(&a.call_ids) {
            out.push(sse_named(
                "content_block_start",
                &json!({"type": "content_block_start", "index": index, "content_block": {"type": "tool_use", "id": id, "name": call.name, "input": {}}}),
            ));
            for piece in text_pieces(&input(call).to_string(), size) {
                out.push(sse_named(
                    "content_block_delta",
                    &json!({"type": "content_block_delta", "index": index, "delta": {"type": "input_json_delta", "partial_json": piece}}),
                ));
            }
            out.push(sse_named(
                "content_block_stop",
                &json!({"type": "content_block_stop", "index": index}),
            ));
            index += 1;
        }
        let mut delta =
            json!({"stop_reason": stop_reason(a.reply.finish_or_default()), "stop_sequence": null});
        let details = stop_details(a);
        if !details.is_null() {
            delta["stop_details"] = details;
        }
        out.push(sse_named(
            "message_delta",
            &json!({"type": "message_delta", "delta": delta, "usage": {"output_tokens": a.usage.output}}),
        ));
        out.push(sse_named("message_stop", &json!({"type": "message_stop"})));
        out
    }
}
