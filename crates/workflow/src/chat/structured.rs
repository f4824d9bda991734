//! `output_schema`: the `respond` tool, how an answer is found in a reply,
//! and how it is judged. The texts are dagu's, so that the same file
//! behaves the same on both engines.

use serde_json::{Map, Value};
use sift_llm::{ChatResponse, Message, Part, Role, ToolSpec};

pub(crate) const RESPOND: &str = "respond";

pub(crate) const RESPOND_DESCRIPTION: &str =
    "Return the answer as arguments that match the parameter schema exactly.";

pub(crate) const INSTRUCTION: &str = "When you have the answer, call the respond tool with arguments that match its parameter schema. That call ends the conversation.";

/// The `respond` tool: its parameters are the schema without `$schema` and `$id`.
pub(crate) fn respond_tool(schema: &Value) -> ToolSpec {
    let mut parameters = schema.clone();
    if let Value::Object(map) = &mut parameters {
        map.remove("$schema");
        map.remove("$id");
    }
    ToolSpec {
        name: RESPOND.to_owned(),
        description: RESPOND_DESCRIPTION.to_owned(),
        parameters,
    }
}

/// The messages of one request: the instruction added to the first system
/// message, or put first as a system message when there is none. The saved
/// conversation never holds it. `instruction` is [`INSTRUCTION`], or the
/// schema's when the reply is held to it.
pub(crate) fn with_instruction(conversation: &[Message], instruction: &str) -> Vec<Message> {
    let mut messages = conversation.to_vec();
    match messages.iter_mut().find(|m| m.role == Role::System) {
        Some(system) => {
            let text = system.text_content();
            system.parts.retain(|p| !matches!(p, Part::Text { .. }));
            system.parts.insert(
                0,
                Part::Text {
                    text: format!("{text}\n\n{instruction}"),
                },
            );
        }
        None => messages.insert(0, Message::system(instruction)),
    }
    messages
}

/// What a reply offers as its answer.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    /// The parsed answer, when the reply holds JSON.
    pub value: Option<Value>,
    /// The answer as the model gave it, for stderr and the correction:
    /// the `respond` arguments, else the text, else `(no answer)`.
    pub shown: String,
}

/// The answer in a reply: a `respond` call with valid JSON arguments, else
/// the text as JSON (optionally in a `json` code fence).
pub(crate) fn candidate(response: &ChatResponse) -> Candidate {
    let calls: Vec<_> = response
        .message
        .tool_calls()
        .filter(|c| c.name == RESPOND)
        .collect();
    if let Some(value) = calls.iter().find_map(|c| c.parsed_arguments().ok()) {
        let shown = calls
            .iter()
            .find(|c| c.parsed_arguments().is_ok())
            .map(|c| c.arguments.clone())
            .unwrap_or_default();
        return Candidate {
            value: Some(value),
            shown,
        };
    }
    let text = response.message.text_content();
    let shown = match (calls.first(), text.trim().is_empty()) {
        (_, false) => text.clone(),
        (Some(call), true) => call.arguments.clone(),
        (None, true) => "(no answer)".to_owned(),
    };
    Candidate {
        value: parse_text_answer(&text),
        shown,
    }
}

fn parse_text_answer(text: &str) -> Option<Value> {
    let mut body = text.trim();
    if let Some(rest) = body.strip_prefix("```json") {
        body = rest;
    } else if let Some(rest) = body.strip_prefix("```") {
        body = rest;
    }
    if let Some(rest) = body.strip_suffix("```") {
        body = rest;
    }
    serde_json::from_str(body.trim()).ok()
}

/// Judges an answer: the accepted object (unlisted properties dropped),
/// or the reason it was rejected.
pub(crate) fn accept(
    value: Option<Value>,
    schema: &Value,
    validator: &jsonschema::Validator,
) -> Result<Map<String, Value>, String> {
    let Some(value) = value else {
        return Err("the reply holds no JSON answer".to_owned());
    };
    let Value::Object(mut object) = value else {
        return Err("the answer must be a JSON object".to_owned());
    };
    let listed = schema.get("properties").and_then(Value::as_object);
    object.retain(|k, _| listed.is_some_and(|p| p.contains_key(k)));
    let candidate = Value::Object(object);
    let mut errors: Vec<String> = validator
        .iter_errors(&candidate)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            format!("{path}: {}: {e}", e.kind().keyword())
        })
        .collect();
    if !errors.is_empty() {
        errors.sort();
        return Err(errors.join("; "));
    }
    match candidate {
        Value::Object(object) => Ok(object),
        _ => Err("the answer must be a JSON object".to_owned()),
    }
}

/// The user message after a rejected answer.
pub(crate) fn correction(reason: &str) -> String {
    format!(
        "Your answer could not be used: {reason}. Call the respond tool again with arguments that match its parameter schema."
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use sift_llm::{StopReason, ToolCall, Usage};

    use super::*;

    fn reply(message: Message) -> ChatResponse {
        ChatResponse {
            message,
            usage: Usage::default(),
            stop: StopReason::End,
            model: "m".into(),
        }
    }

    fn schema() -> Value {
        json!({"type": "object", "properties": {"category": {"type": "string", "enum": ["refund", "question"]}, "amount": {"type": "number"}}, "required": ["category"]})
    }

    #[test]
    fn answers_come_from_respond_or_from_json_text() {
        let call = Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall::new(
                "c1",
                "respond",
                &json!({"category": "refund"}),
            ))],
        };
        assert_eq!(
            candidate(&reply(call)).value,
            Some(json!({"category": "refund"}))
        );
        let fenced = Message::assistant("```json\n{\"category\":\"question\",\"amount\":0}\n```");
        assert_eq!(
            candidate(&reply(fenced)).value,
            Some(json!({"category": "question", "amount": 0}))
        );
        let prose = candidate(&reply(Message::assistant("no idea")));
        assert_eq!((prose.value, prose.shown.as_str()), (None, "no idea"));
        assert_eq!(
            candidate(&reply(Message::assistant(""))).shown,
            "(no answer)"
        );
    }

    #[test]
    fn judging_drops_unlisted_properties_then_validates() {
        let validator = jsonschema::validator_for(&schema()).unwrap();
        let accepted = accept(
            Some(json!({"category": "refund", "amount": 12.5, "note": "x"})),
            &schema(),
            &validator,
        )
        .unwrap();
        assert_eq!(
            Value::Object(accepted),
            json!({"category": "refund", "amount": 12.5})
        );
        assert_eq!(
            accept(Some(json!({"category": "praise"})), &schema(), &validator).unwrap_err(),
            r#"/category: enum: "praise" is not one of "refund" or "question""#
        );
        assert_eq!(
            accept(Some(json!([1])), &schema(), &validator).unwrap_err(),
            "the answer must be a JSON object"
        );
        assert_eq!(
            accept(None, &schema(), &validator).unwrap_err(),
            "the reply holds no JSON answer"
        );
    }

    #[test]
    fn the_instruction_joins_the_first_system_message() {
        let with = with_instruction(
            &[Message::system("Be brief"), Message::user("hi")],
            INSTRUCTION,
        );
        assert_eq!(with[0].text_content(), format!("Be brief\n\n{INSTRUCTION}"));
        let without = with_instruction(&[Message::user("hi")], INSTRUCTION);
        assert_eq!(without[0], Message::system(INSTRUCTION));
        assert_eq!(without.len(), 2);
    }
}
