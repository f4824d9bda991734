//! Chat turns: a user message (or an approval decision), a streamed model
//! reply, the tools it calls run here in a loop, and events for the caller
//! as it goes. Nothing is written here; the caller commits the outcome.
//!
//! # A turn
//! Each request is the session's `history` (system prompt and finished
//! turns) followed by the turn's *working transcript* (its user message,
//! the replies and tool results so far), through [`build_context`]. A reply
//! without tool calls ends the turn ([`ChatOutcome::Completed`], whose
//! `new_messages` are the whole working transcript). A reply with calls has
//! them run, in the model's order, and their results go back in one tool
//! message; unknown tools, arguments that are not JSON and tool failures go
//! back as error results. At most `max_iterations` model requests are sent
//! per turn (approvals included); a turn that still wants more ends
//! [`ChatOutcome::TurnLimited`], every call paired with its result.
//!
//! # Approval
//! A call to a tool that [needs approval](crate::Tool::needs_approval)
//! suspends the turn once the reply's other calls have run:
//! [`ChatOutcome::AwaitingApproval`] holds a [`SuspendedChat`] for the
//! caller to keep (in the store, so it survives a restart), and one
//! [`ChatEvent::ApprovalRequired`] is emitted per waiting call. The turn
//! resumes with [`ChatInput::Approval`], one decision at a time: approved,
//! the tool runs; denied, the model gets the error result
//! [`DENIED_TOOL_CALL`]. Once no approval is left the loop carries on.
//!
//! A tool runs once. Before the request that follows the last decision,
//! the results go to [`ChatTurn::on_results`], for the caller to store: if
//! that request fails, the turn is still suspended, its decided calls
//! listed, and deciding one again reuses its stored result instead of
//! running the tool a second time.
//!
//! # The tier and refusals
//! A turn runs on a *tier*: an ordered list of engines (models). The first
//! answers. When the session's model choice is "auto" (`auto: true`) and a
//! model refuses, the same request (the same messages, the next model's
//! name) is offered to the next engine of the tier, and the turn stays on
//! the engine that answered. Other errors end the turn: the client has
//! already retried the transient ones. Without `auto`, or on the tier's
//! last engine, a refusal ends the turn with category `refusal`.
//!
//! A refusal is only known when its stream ends (the provider's stop
//! reason), after any text it streamed. So that a refused attempt shows
//! nothing, an attempt that may still be handed on (auto, and an engine
//! left after it) has its text and tool-call events *held* until its reply
//! is known to stand, then emitted in order; a refused one's are dropped.
//! The last engine, and every engine of a turn that is not auto, streams
//! live. The cost: in an auto session, replies from all but the tier's last
//! model arrive whole rather than token by token (as with `sift ask`, whose
//! fallback is never streamed).
//!
//! # Events
//! In order: for each reply, its [`ChatEvent::TextDelta`]s and
//! [`ChatEvent::ToolCallStarted`]s as they stream, then
//! [`ChatEvent::Usage`]; then [`ChatEvent::ToolCallFinished`] per call that
//! ran (or [`ChatEvent::ApprovalRequired`] per call that waits); and last
//! [`ChatEvent::Done`] with the usage of this invocation, or
//! [`ChatEvent::Error`] (a failure, or the turn limit).

use serde::{Deserialize, Serialize};
use sift_llm::{
    ChatRequest, ChatResponse, ErrorCategory, LlmError, Message, Part, Role, StopReason,
    StreamDelta, ToolCall, ToolResult, ToolSpec, Usage,
};

use crate::context::build_context;
use crate::structured::Engine;
use crate::tool::Toolkit;

/// Model requests per turn when the caller does not say.
pub const DEFAULT_MAX_ITERATIONS: u32 = 10;

/// The error result a denied call sends back to the model.
pub const DENIED_TOOL_CALL: &str = "the user denied this tool call";

/// What a chat turn tells its caller as it goes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChatEvent {
    TextDelta(String),
    /// The model began a tool call (its arguments are still streaming).
    ToolCallStarted {
        id: String,
        name: String,
    },
    /// A call's result, as the model will see it.
    ToolCallFinished {
        id: String,
        name: String,
        content: String,
        is_error: bool,
    },
    /// The usage of one model reply.
    Usage(Usage),
    /// The turn waits for the user to approve or deny this call.
    ApprovalRequired {
        id: String,
        name: String,
        /// As the model produced it: JSON text that may be invalid.
        arguments: String,
    },
    /// The turn ended; `usage` totals this invocation's replies.
    Done {
        usage: Usage,
    },
    Error {
        category: ErrorCategory,
        message: String,
    },
}

/// A turn suspended on approvals: everything needed to resume it, in a
/// form that can be stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuspendedChat {
    /// The working transcript, ending with the reply whose calls wait.
    pub transcript: Vec<Message>,
    /// The results of that reply's calls that have run or been denied.
    pub results: Vec<ToolResult>,
    /// The calls waiting for the user, in the model's order.
    pub approvals: Vec<ToolCall>,
    /// The model that made the calls: the resumed turn carries on with it.
    pub model: String,
    /// Model requests sent so far in this turn.
    pub requests: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ChatInput {
    /// A new user message: starts a turn.
    Message(Message),
    /// The user's decision on one waiting call: resumes a suspended turn.
    Approval {
        suspended: SuspendedChat,
        call_id: String,
        approved: bool,
    },
}

/// One invocation of a chat turn.
pub struct ChatTurn<'a> {
    /// The tier, in order; see the module docs.
    pub tier: &'a [Engine],
    /// The session's model choice is "auto": a refusal goes to the next
    /// engine of the tier.
    pub auto: bool,
    pub toolkits: &'a [Toolkit],
    /// The system prompt and the session's finished turns, without hidden
    /// messages.
    pub history: &'a [Message],
    pub input: ChatInput,
    pub max_iterations: u32,
    /// Called with the suspended turn, every call decided and its result
    /// in `results` (the decided calls still listed in `approvals`), after
    /// the last approval's tool ran and before the next model request. An
    /// error ends the turn failed, before that request.
    pub on_results: Option<ResultsSink<'a>>,
}

/// Where a resumed turn's results are kept before its next request.
pub type ResultsSink<'a> = &'a mut (dyn FnMut(&SuspendedChat) -> Result<(), String> + Send);

impl std::fmt::Debug for ChatTurn<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChatTurn")
            .field("tier", &self.tier)
            .field("auto", &self.auto)
            .field("input", &self.input)
            .field("max_iterations", &self.max_iterations)
            .field("on_results", &self.on_results.is_some())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum ChatOutcome {
    /// The model answered: append `new_messages` (the whole turn, from its
    /// user message to the reply) to the session.
    Completed {
        new_messages: Vec<Message>,
        usage: Usage,
        /// The model that gave the last reply.
        model: String,
    },
    /// Keep `suspended` until the user decides; nothing goes to the
    /// session yet.
    AwaitingApproval {
        suspended: SuspendedChat,
        usage: Usage,
    },
    /// `max_iterations` requests were sent and the model still called
    /// tools. `new_messages` end with the last results; they are worth
    /// keeping, since those tools have run.
    TurnLimited {
        new_messages: Vec<Message>,
        usage: Usage,
        message: String,
    },
    /// Nothing is to be written: retrying starts the turn again.
    Failed { error: LlmError, usage: Usage },
}

/// Runs a turn until it completes, suspends, fails or hits its limit.
pub async fn run_chat_turn(
    turn: ChatTurn<'_>,
    on_event: &mut (dyn FnMut(ChatEvent) + Send),
) -> ChatOutcome {
    let ChatTurn {
        tier,
        auto,
        toolkits,
        history,
        input,
        max_iterations,
        on_results,
    } = turn;
    let mut run = Run {
        tier,
        auto,
        toolkits,
        history,
        tools: toolkits
            .iter()
            .flat_map(|kit| kit.tools().iter().map(|t| t.spec()))
            .collect::<Vec<ToolSpec>>(),
        // A turn sends at least its first request.
        max_iterations: max_iterations.max(1),
        current: 0,
        transcript: Vec::new(),
        requests: 0,
        usage: Usage::default(),
        on_event,
    };
    if tier.is_empty() {
        return run.failed(LlmError::new(ErrorCategory::Other, "no model to chat with"));
    }
    match input {
        ChatInput::Message(message) => {
            run.transcript.push(message);
            run.go().await
        }
        ChatInput::Approval {
            suspended,
            call_id,
            approved,
        } => run.resume(suspended, &call_id, approved, on_results).await,
    }
}

struct Run<'a, 'e> {
    tier: &'a [Engine],
    auto: bool,
    toolkits: &'a [Toolkit],
    history: &'a [Message],
    tools: Vec<ToolSpec>,
    max_iterations: u32,
    /// The tier engine the turn is on.
    current: usize,
    transcript: Vec<Message>,
    requests: u32,
    usage: Usage,
    on_event: &'e mut (dyn FnMut(ChatEvent) + Send),
}

/// What running a reply's calls led to.
enum Calls {
    /// Every call has its result, now in the transcript.
    Answered,
    Suspended(SuspendedChat),
}

impl Run<'_, '_> {
    fn emit(&mut self, event: ChatEvent) {
        (self.on_event)(event);
    }

    async fn go(mut self) -> ChatOutcome {
        loop {
            if self.requests >= self.max_iterations {
                return self.turn_limited();
            }
            self.requests += 1;
            let reply = match self.ask_tier().await {
                Ok(reply) => reply,
                Err(error) => return self.failed(error),
            };
            self.usage += reply.usage;
            self.emit(ChatEvent::Usage(reply.usage));
            let calls: Vec<ToolCall> = reply.message.tool_calls().cloned().collect();
            self.transcript.push(reply.message);
            if calls.is_empty() {
                return self.completed();
            }
            if let Calls::Suspended(suspended) = self.run_calls(&calls, Vec::new()).await {
                return self.suspended(suspended);
            }
        }
    }

    async fn resume(
        mut self,
        suspended: SuspendedChat,
        call_id: &str,
        approved: bool,
        on_results: Option<ResultsSink<'_>>,
    ) -> ChatOutcome {
        let SuspendedChat {
            transcript,
            mut results,
            mut approvals,
            model,
            requests,
        } = suspended;
        self.transcript = transcript;
        self.requests = requests;
        // Carry on with the model that made the calls, if it is still in
        // the tier (after a restart it may not be).
        self.current = self.tier.iter().position(|e| e.model == model).unwrap_or(0);
        let Some(position) = approvals.iter().position(|c| c.id == call_id) else {
            let waiting: Vec<&str> = approvals.iter().map(|c| c.id.as_str()).collect();
            return self.failed(LlmError::new(
                ErrorCategory::Other,
                format!(
                    "no approval is pending for call {call_id} (pending: {})",
                    waiting.join(", ")
                ),
            ));
        };
        let call = approvals.remove(position);
        if let Some(kept) = results.iter().find(|r| r.call_id == call.id) {
            // Decided before, and its result stored, when the request after
            // it failed: the tool does not run again.
            let (content, is_error) = (kept.content.clone(), kept.is_error);
            self.finished(&call, &content, is_error);
        } else {
            let (content, is_error) = if approved {
                self.run_tool(&call, true).await
            } else {
                (DENIED_TOOL_CALL.to_owned(), true)
            };
            self.finished(&call, &content, is_error);
            results.push(tool_result(&call.id, content, is_error));
        }
        let undecided: Vec<&ToolCall> = approvals
            .iter()
            .filter(|c| !results.iter().any(|r| r.call_id == c.id))
            .collect();
        if undecided.is_empty()
            && let Some(store) = on_results
        {
            // Every call is decided: keep the results before asking the
            // model, listing the decided calls so that a retry finds them.
            let mut decided = approvals.clone();
            decided.push(call.clone());
            let kept = SuspendedChat {
                transcript: self.transcript.clone(),
                results: results.clone(),
                approvals: decided,
                model: model.clone(),
                requests: self.requests,
            };
            if let Err(message) = store(&kept) {
                return self.failed(LlmError::new(ErrorCategory::Other, message));
            }
        }
        if !undecided.is_empty() {
            let suspended = SuspendedChat {
                transcript: std::mem::take(&mut self.transcript),
                results,
                approvals,
                model,
                requests: self.requests,
            };
            return ChatOutcome::AwaitingApproval {
                suspended,
                usage: self.usage,
            };
        }
        let calls = self.last_calls();
        self.push_results(&calls, results);
        self.go().await
    }

    /// Sends the request to the tier's current engine and, when it refuses
    /// and the turn may move on, to the next ones.
    async fn ask_tier(&mut self) -> Result<ChatResponse, LlmError> {
        let tier = self.tier;
        let mut conversation = Vec::with_capacity(self.history.len() + self.transcript.len());
        conversation.extend_from_slice(self.history);
        conversation.extend_from_slice(&self.transcript);
        let mut tried = 0usize;
        loop {
            let engine = &tier[self.current];
            let request = ChatRequest {
                model: engine.model.clone(),
                messages: build_context(&conversation, &engine.settings, &engine.context),
                tools: self.tools.clone(),
                ..ChatRequest::default()
            };
            let hold = self.auto && self.current + 1 < tier.len();
            let mut held = Vec::new();
            let result = {
                let on_event = &mut *self.on_event;
                let mut on_delta = |delta: StreamDelta| {
                    let event = match delta {
                        StreamDelta::Text(text) => ChatEvent::TextDelta(text),
                        StreamDelta::ToolCallStarted { id, name, .. } => {
                            ChatEvent::ToolCallStarted { id, name }
                        }
                        StreamDelta::ToolArguments { .. } | StreamDelta::Usage(_) => return,
                    };
                    if hold {
                        held.push(event);
                    } else {
                        on_event(event);
                    }
                };
                engine.client.stream(&request, &mut on_delta).await
            };
            tried += 1;
            match result.and_then(refusal_as_error) {
                Err(error) if error.category == ErrorCategory::Refusal && hold => {
                    self.current += 1;
                }
                Err(mut error) => {
                    if tried > 1 {
                        error.message = format!("all {tried} models exhausted: {}", error.message);
                    }
                    return Err(error);
                }
                Ok(reply) => {
                    for event in held {
                        self.emit(event);
                    }
                    return Ok(reply);
                }
            }
        }
    }

    /// Runs the calls that need no approval, in order; suspends when some
    /// do. `results` holds those already answered.
    async fn run_calls(&mut self, calls: &[ToolCall], mut results: Vec<ToolResult>) -> Calls {
        let mut approvals = Vec::new();
        for call in calls {
            if results.iter().any(|r| r.call_id == call.id) {
                continue;
            }
            if self.needs_approval(call) {
                approvals.push(call.clone());
                continue;
            }
            let (content, is_error) = self.run_tool(call, false).await;
            self.finished(call, &content, is_error);
            results.push(tool_result(&call.id, content, is_error));
        }
        if approvals.is_empty() {
            self.push_results(calls, results);
            return Calls::Answered;
        }
        for call in &approvals {
            self.emit(ChatEvent::ApprovalRequired {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        Calls::Suspended(SuspendedChat {
            transcript: std::mem::take(&mut self.transcript),
            results,
            approvals,
            model: self.tier[self.current].model.clone(),
            requests: self.requests,
        })
    }

    /// Whether the call waits for the user. Calls that cannot run anyway
    /// (an unknown tool, arguments that are not JSON) are answered with
    /// their error at once rather than put to the user.
    fn needs_approval(&self, call: &ToolCall) -> bool {
        self.toolkits
            .iter()
            .find_map(|kit| kit.find(&call.name))
            .is_some_and(|tool| tool.needs_approval() && call.parsed_arguments().is_ok())
    }

    async fn run_tool(&self, call: &ToolCall, approved: bool) -> (String, bool) {
        let Some(tool) = self.toolkits.iter().find_map(|kit| kit.find(&call.name)) else {
            return (format!("unknown tool \"{}\"", call.name), true);
        };
        let arguments = match call.parsed_arguments() {
            Ok(arguments) => arguments,
            Err(e) => return (format!("the arguments are not valid JSON: {e}"), true),
        };
        if tool.needs_approval() && !approved {
            // run_calls never gets here with valid arguments; kept so that
            // no path runs such a tool unapproved.
            return (
                format!("tool \"{}\" needs the user's approval", call.name),
                true,
            );
        }
        match tool.call(arguments).await {
            Ok(output) => (output.content, false),
            Err(error) => (error.0, true),
        }
    }

    fn finished(&mut self, call: &ToolCall, content: &str, is_error: bool) {
        self.emit(ChatEvent::ToolCallFinished {
            id: call.id.clone(),
            name: call.name.clone(),
            content: content.to_owned(),
            is_error,
        });
    }

    /// The calls of the working transcript's last reply.
    fn last_calls(&self) -> Vec<ToolCall> {
        self.transcript
            .iter()
            .rev()
            .find(|m| m.role == Role::Assistant)
            .map(|m| m.tool_calls().cloned().collect())
            .unwrap_or_default()
    }

    /// One tool message with the results in the order of the calls.
    fn push_results(&mut self, calls: &[ToolCall], mut results: Vec<ToolResult>) {
        let mut ordered = Vec::with_capacity(results.len());
        for call in calls {
            if let Some(index) = results.iter().position(|r| r.call_id == call.id) {
                ordered.push(Part::ToolResult(results.swap_remove(index)));
            }
        }
        self.transcript.push(Message {
            role: Role::Tool,
            parts: ordered,
        });
    }

    fn completed(mut self) -> ChatOutcome {
        let usage = self.usage;
        self.emit(ChatEvent::Done { usage });
        ChatOutcome::Completed {
            new_messages: std::mem::take(&mut self.transcript),
            usage,
            model: self.tier[self.current].model.clone(),
        }
    }

    fn suspended(self, suspended: SuspendedChat) -> ChatOutcome {
        ChatOutcome::AwaitingApproval {
            suspended,
            usage: self.usage,
        }
    }

    fn turn_limited(mut self) -> ChatOutcome {
        let n = self.max_iterations;
        let message = format!(
            "the turn reached its limit of {n} model {}",
            if n == 1 { "request" } else { "requests" }
        );
        self.emit(ChatEvent::Error {
            category: ErrorCategory::Other,
            message: message.clone(),
        });
        ChatOutcome::TurnLimited {
            new_messages: std::mem::take(&mut self.transcript),
            usage: self.usage,
            message,
        }
    }

    fn failed(mut self, error: LlmError) -> ChatOutcome {
        self.emit(ChatEvent::Error {
            category: error.category,
            message: error.message.clone(),
        });
        ChatOutcome::Failed {
            error,
            usage: self.usage,
        }
    }
}

/// The client reports refusals as errors already; this keeps a refusal
/// stop that reached here from passing as an answer.
fn refusal_as_error(reply: ChatResponse) -> Result<ChatResponse, LlmError> {
    match &reply.stop {
        StopReason::Refusal { category } => Err(LlmError::refusal(category, None)),
        _ => Ok(reply),
    }
}

fn tool_result(call_id: &str, content: String, is_error: bool) -> ToolResult {
    ToolResult {
        call_id: call_id.to_owned(),
        content,
        is_error,
    }
}
