//! The one error a model call ends with. Every final error has a category so
//! that callers (the engine, the CLI, the UI) can react without parsing text.

use std::fmt;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCategory {
    /// The server rejected the credentials (401, 403).
    Auth,
    /// The request itself is wrong for this model: bad request, unknown
    /// model, context too long (400, 404, 413, 422).
    Model,
    /// The provider refused to answer. Never retried: asking again repeats it.
    Refusal,
    /// A transient failure (connection, timeout, 5xx, 429, 529) that
    /// outlasted every retry.
    Network,
    Other,
}

impl ErrorCategory {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Auth => "auth",
            Self::Model => "model",
            Self::Refusal => "refusal",
            Self::Network => "network",
            Self::Other => "other",
        }
    }
}

impl fmt::Display for ErrorCategory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed model call, after any retries.
///
/// The message and body never contain an API key: the client scrubs the key
/// it sent from everything the server said before building this.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    pub category: ErrorCategory,
    pub message: String,
    /// The HTTP status, when the server answered.
    pub status: Option<u16>,
    /// The server's raw error body, when it sent one.
    pub body: Option<String>,
    /// How many requests were sent, retries included.
    pub attempts: u32,
    /// The tokens of an answer that came but is an error (a refusal): they
    /// were spent, and are counted as any answer's are.
    pub usage: crate::message::Usage,
}

impl LlmError {
    pub fn new(category: ErrorCategory, message: impl Into<String>) -> Self {
        Self {
            category,
            message: message.into(),
            status: None,
            body: None,
            attempts: 1,
            usage: crate::message::Usage::default(),
        }
    }

    /// The error for an HTTP failure status, with the server's own message
    /// pulled out of its JSON body when it has one.
    pub fn from_status(status: u16, body: String) -> Self {
        let category = category_for_status(status, &body);
        let detail = server_message(&body).unwrap_or_else(|| truncate(body.trim(), 300));
        let message = if detail.is_empty() {
            format!("HTTP {status}")
        } else {
            format!("HTTP {status}: {detail}")
        };
        Self {
            category,
            message,
            status: Some(status),
            body: Some(body),
            attempts: 1,
            usage: crate::message::Usage::default(),
        }
    }

    pub fn refusal(category: &str, body: Option<String>) -> Self {
        Self {
            category: ErrorCategory::Refusal,
            message: format!("the model refused to answer ({category})"),
            status: None,
            body,
            attempts: 1,
            usage: crate::message::Usage::default(),
        }
    }

    /// Whether sending the same request again may succeed.
    pub fn is_transient(&self) -> bool {
        self.category == ErrorCategory::Network
    }
}

/// Transient statuses are retried; 529 is Anthropic's "overloaded".
pub fn is_transient_status(status: u16) -> bool {
    matches!(status, 408 | 429 | 500..=599)
}

fn category_for_status(status: u16, body: &str) -> ErrorCategory {
    match status {
        401 | 403 => ErrorCategory::Auth,
        s if is_transient_status(s) => {
            // Some servers report a too-long prompt as a 500; that is the
            // request's fault and retrying cannot help.
            if mentions_context_length(body) {
                ErrorCategory::Model
            } else {
                ErrorCategory::Network
            }
        }
        400 | 404 | 413 | 422 => ErrorCategory::Model,
        _ if mentions_context_length(body) => ErrorCategory::Model,
        _ => ErrorCategory::Other,
    }
}

fn mentions_context_length(body: &str) -> bool {
    let lower = body.to_ascii_lowercase();
    lower.contains("context_length_exceeded")
        || lower.contains("context length")
        || lower.contains("context window")
        || lower.contains("prompt is too long")
        || lower.contains("maximum context")
        || lower.contains("exceed_context_size_error")
}

/// `{"error": {"message": ...}}` (OpenAI, Anthropic) or `{"error": "..."}`
/// or `{"message": ...}`.
fn server_message(body: &str) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(body).ok()?;
    if let Some(message) = too_long_for_context(&value) {
        return Some(message);
    }
    let text = value
        .pointer("/error/message")
        .or_else(|| value.get("error").filter(|e| e.is_string()))
        .or_else(|| value.get("message"))
        .or_else(|| value.get("detail"))?;
    Some(match text {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// llama.cpp's refusal of a prompt longer than a slot's context, in words
/// a user can act on (its own message says "try increasing it", which is
/// the server's setting, not the user's).
fn too_long_for_context(value: &serde_json::Value) -> Option<String> {
    let error = value.get("error")?;
    if error.get("type")?.as_str()? != "exceed_context_size_error" {
        return None;
    }
    let prompt = error.get("n_prompt_tokens")?.as_u64()?;
    let context = error.get("n_ctx")?.as_u64()?;
    Some(format!(
        "the request is too long for the model's context: {prompt} tokens, and the model takes {context}; send a shorter document or fewer pages"
    ))
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body llama.cpp's `llama-server` answers (seen on this build).
    #[test]
    fn a_prompt_longer_than_a_slot_is_said_plainly_and_not_retried() {
        let body = r#"{"error":{"code":400,"message":"request (9031 tokens) exceeds the available context size (8192 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9031,"n_ctx":8192}}"#;
        let error = LlmError::from_status(400, body.to_owned());
        assert_eq!(error.category, ErrorCategory::Model);
        assert!(!error.is_transient());
        assert_eq!(
            error.message,
            "HTTP 400: the request is too long for the model's context: 9031 tokens, and the model takes 8192; send a shorter document or fewer pages"
        );
    }
}
