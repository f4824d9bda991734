//! Host-owned turns (seed 003): one model call per invocation, for a host
//! that owns its tools. The turn either completes with the model's text or
//! suspends on the tool calls the model asked for; the host runs them (we
//! never do) and resumes the turn with their results.
//!
//! # What is committed when
//! A turn's messages stay in its *working transcript* until it completes;
//! only then do they all go to the session, at once:
//!
//! - **Suspended:** nothing is added to the session. The caller stores the
//!   working transcript (the turn's user message, the assistant's tool
//!   calls, any results of earlier rounds) and the pending calls as the
//!   session's suspended turn.
//! - **Completed:** the whole turn (system prompt on a fresh session, user
//!   message, tool calls and their results, the final reply) is returned as
//!   `messages_to_commit` of [`TurnOutcome::Completed`], to be appended to the
//!   session while the suspended turn is cleared, in one transaction.
//!
//! So the session only ever holds finished turns, every tool call paired
//! with its result, and any other kind of turn can build on it; a failed
//! model call writes nothing, and retrying it never duplicates history.
//!
//! # Rules
//! - The system prompt is added once, to a fresh transcript: only when the
//!   session has no messages yet (it is then the session's first message,
//!   so later turns send it as history).
//! - A new user message while calls are pending is refused with
//!   [`HostTurnError::ToolResultsRequired`] and the pending ids.
//! - Resuming needs a result for exactly the pending calls: a missing, an
//!   unknown or a repeated id is refused before any model call. Results go
//!   to the model in the order of the calls, in one tool message.
//! - Tools are advertised as given, never run.
//! - The signal extractor runs on the final content of a completed turn; a
//!   suspended turn, or a turn without an extractor, has no signals.
//! - Every request goes through [`build_context`] (the tool-result and
//!   image windows).

use std::collections::HashSet;

use serde_json::Value;
use sift_llm::{
    ChatRequest, ErrorCategory, LlmError, Message, ModelRoute, Part, Role, StopReason, ToolCall,
    ToolResult, ToolSpec, Usage, complete_first,
};

use crate::context::build_context;
use crate::structured::Engine;

/// Maps a completed turn's final content to signals for the host.
pub type SignalExtractor = dyn Fn(Option<&str>) -> Vec<Value> + Send + Sync;

/// What the host brings to a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnInput {
    /// A new user message: starts a turn.
    Message(String),
    /// The results of the pending tool calls: resumes the suspended turn.
    ToolResults(Vec<ToolResult>),
}

/// One invocation of a host-owned turn.
pub struct HostTurn<'a> {
    /// The session's messages so far (finished turns), in order, without
    /// the hidden ones.
    pub history: &'a [Message],
    /// The suspended turn's working transcript; empty when none is pending.
    pub transcript: Vec<Message>,
    pub input: TurnInput,
    /// Advertised to the model; never run here.
    pub tools: &'a [ToolSpec],
    /// Added once, to a fresh transcript (see the module docs).
    pub system_prompt: Option<&'a str>,
    pub extract_signals: Option<&'a SignalExtractor>,
}

impl std::fmt::Debug for HostTurn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostTurn")
            .field("history", &self.history.len())
            .field("transcript", &self.transcript.len())
            .field("input", &self.input)
            .field("tools", &self.tools.len())
            .field("system_prompt", &self.system_prompt)
            .field("extract_signals", &self.extract_signals.is_some())
            .finish()
    }
}

/// How an invocation ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    /// The model answered: append `messages_to_commit` to the session and
    /// clear the suspended turn.
    Completed {
        content: String,
        signals: Vec<Value>,
        /// The whole turn, from its first message to the reply.
        messages_to_commit: Vec<Message>,
        usage: Usage,
    },
    /// The model asked for tools: keep `transcript` and `pending` as the
    /// session's suspended turn until the host brings their results.
    Suspended {
        /// The calls of the last reply, in the model's order.
        pending: Vec<ToolCall>,
        /// The working transcript, ending with the reply that made the calls.
        transcript: Vec<Message>,
        usage: Usage,
    },
}

/// Why a turn was refused or failed. Nothing was sent when the input was
/// refused, and nothing is to be written for any of these.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum HostTurnError {
    /// A new user message while tool calls are pending.
    #[error("tool results are required first for: {}", ids.join(", "))]
    ToolResultsRequired { ids: Vec<String> },
    /// Tool results, but no turn is suspended.
    #[error("no tool calls are pending, so there is nothing to take tool results for")]
    NothingPending,
    #[error("tool results are missing for: {}", ids.join(", "))]
    MissingResults { ids: Vec<String> },
    #[error("tool results for calls that are not pending: {} (pending: {})", ids.join(", "), pending.join(", "))]
    UnknownResults {
        ids: Vec<String>,
        pending: Vec<String>,
    },
    #[error("more than one tool result for: {}", ids.join(", "))]
    DuplicateResults { ids: Vec<String> },
    #[error("no engine to call")]
    NoEngine,
    /// The model call failed (after retries and fallback), or the model
    /// refused (category `refusal`).
    #[error(transparent)]
    Llm(#[from] LlmError),
}

/// The tool calls a working transcript waits on: those of its last
/// message, when that is an assistant reply with calls.
pub fn pending_calls(transcript: &[Message]) -> Vec<ToolCall> {
    match transcript.last() {
        Some(last) if last.role == Role::Assistant => last.tool_calls().cloned().collect(),
        _ => Vec::new(),
    }
}

/// Checks the input against the suspended turn and returns the working
/// transcript to send (after `history`), the input added.
pub fn next_transcript(
    history: &[Message],
    mut transcript: Vec<Message>,
    input: TurnInput,
    system_prompt: Option<&str>,
) -> Result<Vec<Message>, HostTurnError> {
    let pending = pending_calls(&transcript);
    match input {
        TurnInput::Message(text) => {
            if !pending.is_empty() {
                return Err(HostTurnError::ToolResultsRequired {
                    ids: pending.into_iter().map(|c| c.id).collect(),
                });
            }
            if history.is_empty()
                && transcript.is_empty()
                && let Some(system) = system_prompt.filter(|s| !s.is_empty())
            {
                transcript.push(Message::system(system));
            }
            transcript.push(Message::user(text));
        }
        TurnInput::ToolResults(results) => {
            let ordered = match_results(&pending, results)?;
            transcript.push(Message {
                role: Role::Tool,
                parts: ordered.into_iter().map(Part::ToolResult).collect(),
            });
        }
    }
    Ok(transcript)
}

/// The results in the order of the pending calls, when there is exactly
/// one for each.
fn match_results(
    pending: &[ToolCall],
    results: Vec<ToolResult>,
) -> Result<Vec<ToolResult>, HostTurnError> {
    if pending.is_empty() {
        return Err(HostTurnError::NothingPending);
    }
    let pending_ids: Vec<String> = pending.iter().map(|c| c.id.clone()).collect();
    let mut seen = HashSet::new();
    let mut duplicates = Vec::new();
    let mut unknown = Vec::new();
    for result in &results {
        if !pending_ids.contains(&result.call_id) {
            unknown.push(result.call_id.clone());
        } else if !seen.insert(result.call_id.clone()) && !duplicates.contains(&result.call_id) {
            duplicates.push(result.call_id.clone());
        }
    }
    if !unknown.is_empty() {
        return Err(HostTurnError::UnknownResults {
            ids: unknown,
            pending: pending_ids,
        });
    }
    if !duplicates.is_empty() {
        return Err(HostTurnError::DuplicateResults { ids: duplicates });
    }
    let missing: Vec<String> = pending_ids
        .iter()
        .filter(|id| !seen.contains(*id))
        .cloned()
        .collect();
    if !missing.is_empty() {
        return Err(HostTurnError::MissingResults { ids: missing });
    }
    let mut results = results;
    let mut ordered = Vec::with_capacity(results.len());
    for id in &pending_ids {
        if let Some(index) = results.iter().position(|r| &r.call_id == id) {
            ordered.push(results.swap_remove(index));
        }
    }
    Ok(ordered)
}

/// Runs one invocation: checks the input, sends one request (to each
/// engine in turn until one answers: they are fallbacks), and says whether
/// the turn completed or suspended. Nothing is written here; see the module
/// docs for what the caller commits.
pub async fn run_host_turn(
    engines: &[Engine],
    turn: HostTurn<'_>,
) -> Result<TurnOutcome, HostTurnError> {
    let HostTurn {
        history,
        transcript,
        input,
        tools,
        system_prompt,
        extract_signals,
    } = turn;
    let mut transcript = next_transcript(history, transcript, input, system_prompt)?;
    let first = engines.first().ok_or(HostTurnError::NoEngine)?;

    let mut conversation = Vec::with_capacity(history.len() + transcript.len());
    conversation.extend_from_slice(history);
    conversation.extend_from_slice(&transcript);
    let request = ChatRequest {
        model: first.model.clone(),
        messages: build_context(&conversation, &first.settings, &first.context),
        tools: tools.to_vec(),
        ..ChatRequest::default()
    };
    let routes: Vec<ModelRoute<'_>> = engines
        .iter()
        .map(|engine| ModelRoute {
            client: &engine.client,
            model: &engine.model,
        })
        .collect();
    let (_, response) = complete_first(&routes, &request, |_, _| {}).await?;
    if let StopReason::Refusal { category } = &response.stop {
        return Err(HostTurnError::Llm(LlmError::new(
            ErrorCategory::Refusal,
            format!("the model refused to answer ({category})"),
        )));
    }
    let usage = response.usage;
    let reply = response.message;
    let pending: Vec<ToolCall> = reply.tool_calls().cloned().collect();
    transcript.push(reply);
    if !pending.is_empty() {
        return Ok(TurnOutcome::Suspended {
            pending,
            transcript,
            usage,
        });
    }
    let content = transcript
        .last()
        .map(Message::text_content)
        .unwrap_or_default();
    let signals = extract_signals.map_or_else(Vec::new, |extract| extract(Some(&content)));
    Ok(TurnOutcome::Completed {
        content,
        signals,
        messages_to_commit: transcript,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "t".into(),
            arguments: "{}".into(),
        }
    }

    fn result(id: &str) -> ToolResult {
        ToolResult {
            call_id: id.into(),
            content: format!("r{id}"),
            is_error: false,
        }
    }

    #[test]
    fn results_are_matched_to_the_calls_in_their_order() {
        let pending = [call("a"), call("b")];
        let ordered = match_results(&pending, vec![result("b"), result("a")]);
        assert_eq!(ordered, Ok(vec![result("a"), result("b")]));
    }

    #[test]
    fn missing_unknown_and_repeated_results_are_refused() {
        let pending = [call("a"), call("b")];
        assert_eq!(
            match_results(&pending, vec![result("a")]),
            Err(HostTurnError::MissingResults {
                ids: vec!["b".into()]
            })
        );
        assert_eq!(
            match_results(&pending, vec![result("a"), result("b"), result("x")]),
            Err(HostTurnError::UnknownResults {
                ids: vec!["x".into()],
                pending: vec!["a".into(), "b".into()],
            })
        );
        assert_eq!(
            match_results(&pending, vec![result("a"), result("a"), result("b")]),
            Err(HostTurnError::DuplicateResults {
                ids: vec!["a".into()]
            })
        );
        assert_eq!(
            match_results(&[], vec![result("a")]),
            Err(HostTurnError::NothingPending)
        );
    }
}
