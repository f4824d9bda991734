//! Sessions and host-owned turns (seed 003): what `sift session` and
//! `sift turn` do. The turn's state lives in the store, so a suspended turn
//! survives a restart and can be resumed by another process.
//!
//! # What is written when
//! - A turn that **suspends** writes no message: the working transcript
//!   and the pending calls become the session's suspended turn (its state
//!   also keeps the advertised tools).
//! - A turn that **completes** appends all its messages (the session's
//!   system prompt first on a fresh session, the user message, tool calls,
//!   results, the reply) and clears the suspended turn.
//! - Supplied **tool results** are kept in the suspended turn before the
//!   model call they feed: if that call fails, the turn stays suspended
//!   with them, and a retry reuses them (results sent again replace the
//!   kept ones; an empty list sends the kept ones as they are).
//! - A failed model call writes nothing else.
//!
//! Each write is one [`Store::commit_turn`] guarded by the suspended turn
//! it started from (none for a new message, its id for a resume), so two
//! processes cannot resume one turn twice, nor start a turn beside a
//! suspended one.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sift_engine::{
    ContextSettings, HostTurn, HostTurnError, SignalExtractor, TurnInput, TurnOutcome,
    run_host_turn,
};
use sift_llm::{Message, ToolCall, ToolResult, ToolSpec};
use sift_store::{
    Message as StoredMessage, NewPendingTurn, NewSession, PendingChange, PendingGuard,
    PendingToolCall, PendingTurn, Session, Store, StoreError, TurnWrite,
};

use crate::calls::convert::{to_new_message, transcript_from_value, transcript_value};
use crate::error::CoreError;
use crate::models::ModelSelection;

/// The `kind` in a host turn's suspended state.
const HOST_TURN_KIND: &str = "host_turn";

/// The result of a tool call the host ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostToolResult {
    /// The id of the model's tool call.
    pub id: String,
    /// What the tool returned, as the model will read it.
    pub content: String,
    /// Whether the tool failed, so that `content` is an error message;
    /// `false` when left out.
    #[serde(default)]
    pub is_error: bool,
}

/// A tool call the turn waits on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingCall {
    /// The model's id for the call; the host's result names it back.
    pub id: String,
    /// The name of the tool to run, one of those the turn advertised.
    pub name: String,
    /// The arguments as JSON (`{}` when the model sent none); when the
    /// model's text is not valid JSON, that text as a JSON string.
    pub arguments: Value,
}

impl From<&ToolCall> for PendingCall {
    fn from(call: &ToolCall) -> Self {
        Self {
            id: call.id.clone(),
            name: call.name.clone(),
            arguments: call
                .parsed_arguments()
                .unwrap_or_else(|_| Value::String(call.arguments.clone())),
        }
    }
}

/// One invocation of a host-owned turn: a new `message`, or the
/// `tool_results` of the pending calls (`message: None`).
#[derive(Clone, Default)]
pub struct TurnRequest {
    /// The session the turn runs in.
    pub session_id: String,
    /// The user's new message; `None` to resume the suspended turn.
    pub message: Option<String>,
    /// When resuming, the results of the pending calls; those left out are
    /// taken from the results kept by an earlier try. Empty with a message.
    pub tool_results: Vec<HostToolResult>,
    /// Advertised to the model, never run. When resuming without tools, the
    /// tools the turn advertised before are advertised again.
    pub tools: Vec<ToolSpec>,
    /// The provider and the models to try, in order.
    pub selection: ModelSelection,
    /// The tool-result and image windows.
    pub context: ContextSettings,
    /// Runs on a completed turn's content; `None` gives no signals.
    pub extract_signals: Option<Arc<SignalExtractor>>,
}

impl std::fmt::Debug for TurnRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TurnRequest")
            .field("session_id", &self.session_id)
            .field("message", &self.message)
            .field("tool_results", &self.tool_results)
            .field("tools", &self.tools)
            .field("selection", &self.selection)
            .field("context", &self.context)
            .field("extract_signals", &self.extract_signals.is_some())
            .finish()
    }
}

/// What a turn gave: the content when it completed (and no pending calls),
/// or the pending calls when it suspended (and no content).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnResult {
    /// The model's reply when the turn completed; `None` when it suspended.
    pub content: Option<String>,
    /// The tool calls the host must run and answer; empty when it completed.
    pub pending: Vec<PendingCall>,
    /// What the request's signal extractor made of the reply; empty when the
    /// turn suspended or the request had no extractor.
    pub signals: Vec<Value>,
}

/// A new session with an optional system prompt, which its first host turn
/// sends (and stores) first.
pub fn new_session(store: &Store, system: Option<String>) -> Result<Session, CoreError> {
    Ok(store.create_session(NewSession {
        system_prompt: system,
        ..NewSession::default()
    })?)
}

/// The session's messages, in order, hidden ones included.
pub fn session_messages(store: &Store, session_id: &str) -> Result<Vec<StoredMessage>, CoreError> {
    if store.get_session(session_id)?.is_none() {
        return Err(not_found(session_id));
    }
    Ok(store.messages(session_id)?)
}

fn not_found(session_id: &str) -> CoreError {
    CoreError::NotFound(format!("session {session_id} not found"))
}

/// Runs one invocation of a host-owned turn on the session and commits
/// what it wrote (see the module docs).
pub async fn host_turn(store: &Store, request: TurnRequest) -> Result<TurnResult, CoreError> {
    let TurnRequest {
        session_id,
        message,
        tool_results,
        tools,
        selection,
        context,
        extract_signals,
    } = request;
    let input = match message {
        Some(_) if !tool_results.is_empty() => {
            return Err(CoreError::Usage(
                "give either a message or tool results, not both".into(),
            ));
        }
        Some(text) => TurnInput::Message(text),
        None => TurnInput::ToolResults(
            tool_results
                .into_iter()
                .map(|r| ToolResult {
                    call_id: r.id,
                    content: r.content,
                    is_error: r.is_error,
                })
                .collect(),
        ),
    };

    let session = store
        .get_session(&session_id)?
        .ok_or_else(|| not_found(&session_id))?;
    // Hidden copies left out, compacted messages replaced by their summary.
    let mut history = crate::calls::history::model_history(store, &session_id)?;
    // The session row holds the system prompt. A fresh session gets it as
    // its first stored message (below, in the engine); a session that began
    // with chat turns or structured calls, which read it from the row, has
    // none stored, so it goes first in the request only.
    if !history.is_empty()
        && !history.iter().any(|m| m.role == sift_llm::Role::System)
        && let Some(system) = session
            .system_prompt
            .as_deref()
            .filter(|s| !s.trim().is_empty())
    {
        history.insert(0, Message::system(system));
    }
    let pending = store.pending_turn(&session_id)?;
    let input = match (&pending, input) {
        (Some(p), TurnInput::ToolResults(supplied)) => {
            TurnInput::ToolResults(with_kept_results(p, supplied)?)
        }
        (_, input) => input,
    };
    let (mut guard, transcript, tools) = match (&pending, &input) {
        (None, _) => (PendingGuard::Absent, Vec::new(), tools),
        (Some(p), TurnInput::Message(_)) => {
            return Err(CoreError::ToolResultsRequired {
                ids: p.pending_ids(),
            });
        }
        (Some(p), TurnInput::ToolResults(_)) => {
            let (transcript, stored_tools) = host_state(p)?;
            let tools = if tools.is_empty() {
                stored_tools
            } else {
                tools
            };
            (PendingGuard::Id(p.id.clone()), transcript, tools)
        }
    };

    // Refuse bad input before a local model server is started for nothing.
    sift_engine::host_turn::next_transcript(
        &history,
        transcript.clone(),
        input.clone(),
        session.system_prompt.as_deref(),
    )
    .map_err(turn_error)?;
    if let (Some(p), TurnInput::ToolResults(results)) = (&pending, &input) {
        // Kept before the call, so that a failure of it loses none of them.
        guard = keep_results(store, p, results, &guard)?;
    }
    let engines = selection.engines(&context).await?;
    let outcome = run_host_turn(
        &engines.engines,
        HostTurn {
            history: &history,
            transcript,
            input,
            tools: &tools,
            system_prompt: session.system_prompt.as_deref(),
            extract_signals: extract_signals.as_deref(),
        },
    )
    .await;
    engines.release().await;
    let outcome = outcome.map_err(turn_error)?;

    let (write, result) = match outcome {
        TurnOutcome::Completed {
            content,
            signals,
            messages_to_commit,
            ..
        } => (
            TurnWrite {
                guard: guard.clone(),
                messages: messages_to_commit.iter().map(to_new_message).collect(),
                pending: PendingChange::Clear,
                ..TurnWrite::new(&session_id)
            },
            TurnResult {
                content: Some(content),
                pending: Vec::new(),
                signals,
            },
        ),
        TurnOutcome::Suspended {
            pending,
            transcript,
            ..
        } => (
            TurnWrite {
                guard: guard.clone(),
                pending: PendingChange::Set(NewPendingTurn {
                    transcript: transcript_value(&transcript),
                    state: json!({"kind": HOST_TURN_KIND, "tools": tools}),
                    tool_calls: pending
                        .iter()
                        .map(|c| PendingToolCall {
                            id: c.id.clone(),
                            name: c.name.clone(),
                            arguments: c.arguments.clone(),
                        })
                        .collect(),
                    approvals: Vec::new(),
                }),
                ..TurnWrite::new(&session_id)
            },
            TurnResult {
                content: None,
                pending: pending.iter().map(PendingCall::from).collect(),
                signals: Vec::new(),
            },
        ),
    };
    match store.commit_turn(write) {
        Ok(_) => Ok(result),
        // Another process suspended a turn on this session meanwhile.
        Err(StoreError::PendingMismatch { .. }) if guard == PendingGuard::Absent => {
            match store.pending_turn(&session_id)? {
                Some(p) => Err(CoreError::ToolResultsRequired {
                    ids: p.pending_ids(),
                }),
                None => Err(CoreError::Usage(format!(
                    "the session {session_id} changed during the turn; send it again"
                ))),
            }
        }
        Err(StoreError::PendingMismatch { .. }) => Err(CoreError::Usage(format!(
            "the suspended turn of session {session_id} was resumed by another process meanwhile; nothing was written"
        ))),
        Err(other) => Err(other.into()),
    }
}

/// The results the host supplied, completed with those kept from a try
/// whose model call failed: per pending call, the supplied one, else the
/// kept one.
fn with_kept_results(
    pending: &PendingTurn,
    supplied: Vec<ToolResult>,
) -> Result<Vec<ToolResult>, CoreError> {
    let kept: Vec<ToolResult> = match pending.state.get("results") {
        Some(results) => serde_json::from_value(results.clone()).map_err(|e| {
            CoreError::Usage(format!("the suspended turn's results cannot be read: {e}"))
        })?,
        None => Vec::new(),
    };
    if kept.is_empty() {
        return Ok(supplied);
    }
    let mut merged = supplied;
    for result in kept {
        if !merged.iter().any(|r| r.call_id == result.call_id) {
            merged.push(result);
        }
    }
    Ok(merged)
}

/// Replaces the suspended turn by the same one holding `results`, under
/// `guard`; returns the guard of the new one.
fn keep_results(
    store: &Store,
    pending: &PendingTurn,
    results: &[ToolResult],
    guard: &PendingGuard,
) -> Result<PendingGuard, CoreError> {
    let mut state = pending.state.clone();
    state["results"] = json!(results);
    let write = TurnWrite {
        guard: guard.clone(),
        pending: PendingChange::Set(NewPendingTurn {
            transcript: pending.transcript.clone(),
            state,
            tool_calls: pending.tool_calls.clone(),
            approvals: Vec::new(),
        }),
        ..TurnWrite::new(&pending.session_id)
    };
    let commit = store.commit_turn(write).map_err(|e| match e {
        StoreError::PendingMismatch { .. } => CoreError::Usage(format!(
            "the suspended turn of session {} was resumed by another process meanwhile; nothing was written",
            pending.session_id
        )),
        other => other.into(),
    })?;
    Ok(commit
        .pending
        .map_or_else(|| guard.clone(), |p| PendingGuard::Id(p.id)))
}

/// A suspended host turn's working transcript and advertised tools.
fn host_state(pending: &PendingTurn) -> Result<(Vec<Message>, Vec<ToolSpec>), CoreError> {
    if !pending.approvals.is_empty() || pending.state["kind"] != HOST_TURN_KIND {
        return Err(CoreError::Usage(format!(
            "the session's suspended turn waits for approvals, not tool results (pending: {})",
            pending.pending_ids().join(", ")
        )));
    }
    let transcript = transcript_from_value(&pending.transcript)?;
    let tools = match pending.state.get("tools") {
        None | Some(Value::Null) => Vec::new(),
        Some(tools) => serde_json::from_value(tools.clone()).map_err(|e| {
            CoreError::Usage(format!("the suspended turn's tools cannot be read: {e}"))
        })?,
    };
    Ok((transcript, tools))
}

fn turn_error(error: HostTurnError) -> CoreError {
    match error {
        HostTurnError::ToolResultsRequired { ids } => CoreError::ToolResultsRequired { ids },
        HostTurnError::Llm(e) => CoreError::Llm(e),
        other => CoreError::Usage(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_are_json_or_the_text_the_model_sent() {
        let call = |arguments: &str| ToolCall {
            id: "c".into(),
            name: "t".into(),
            arguments: arguments.into(),
        };
        assert_eq!(
            PendingCall::from(&call("{\"a\":1}")).arguments,
            json!({"a": 1})
        );
        assert_eq!(PendingCall::from(&call("")).arguments, json!({}));
        assert_eq!(
            PendingCall::from(&call("{\"a\":")).arguments,
            json!("{\"a\":")
        );
    }
}
