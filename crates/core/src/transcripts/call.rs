//! The record of the structured call behind a row's values, as the row
//! detail shows it.

use serde::Serialize;
use serde_json::Value;

use crate::error::CoreError;
use crate::workspace::Workspace;

/// The record of the structured call behind a row's values.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallTranscript {
    /// The call's id (`call_` and a time-sortable id).
    pub id: String,
    /// What the call is for, e.g. `call` or `compaction`.
    pub kind: String,
    /// `completed`, `failed` or `turn_limited`.
    pub status: String,
    /// What was asked.
    pub request: Value,
    /// The final model response.
    pub response: Option<Value>,
    /// The accepted output.
    pub output: Option<Value>,
    /// The tool loop as the engine sent it (attachments as placeholders).
    pub transcript: Option<Value>,
    /// Why the call did not complete; `None` when it did.
    pub error: Option<String>,
    /// The error's category: `auth`, `network`, `model`, `refusal` or `other`.
    pub error_code: Option<String>,
    /// Tokens sent to the model, over all the call's requests.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub input_tokens: u64,
    /// Tokens the model generated, over all the call's requests.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub output_tokens: u64,
    /// When the call started, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_at: i64,
    /// When it ended and was recorded, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub finished_at: i64,
    /// The CLI command that prints the same record.
    pub cli: String,
}

/// The recorded call `call_id`.
pub fn call_transcript(ws: &Workspace, call_id: &str) -> Result<CallTranscript, CoreError> {
    let call = ws
        .store()?
        .get_call(call_id)?
        .ok_or_else(|| CoreError::NotFound(format!("no call {call_id}")))?;
    Ok(CallTranscript {
        cli: format!("sift calls show {}", call.id),
        status: serde_json::to_value(call.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        id: call.id,
        kind: call.kind,
        request: call.request,
        response: call.response,
        output: call.output,
        transcript: call.transcript,
        error: call.error,
        error_code: call.error_category,
        input_tokens: call.input_tokens,
        output_tokens: call.output_tokens,
        created_at: call.created_at,
        finished_at: call.finished_at,
    })
}
