//! Chat: the Chat screen and `sift chat`. Here, a turn on a session;
//! [`stream`] the turn from the window, `tools.rs` what a chat may call,
//! [`reply`] the reply kept as it streams, [`sessions`] listing, search,
//! branches and exports, [`view`] the types the window sees, `files` a
//! message's attachments read for its models.
//!
//! Chat turns as the API surface runs them: on a session of the store, on
//! the chosen models, with the caller's toolkits, streaming
//! [`ChatEvent`]s. See [`sift_engine::chat`] for the turn itself.
//!
//! # The context
//! As for a structured call in a session: the session's system prompt
//! (from its row), then its messages as `calls::history::model_history` gives them
//! (without the hidden ones, a compacted part replaced by its summary, and
//! without stored system messages, which the row's prompt stands for),
//! then the turn. Every request goes through the context builder.
//!
//! # What is written when
//! Each invocation ends in at most one [`Store::commit_turn`]:
//! - **Completed** (or stopped at the turn limit): the whole turn (the
//!   user message, tool calls, results, the reply) is appended, and the
//!   suspended turn, if this resumed one, is cleared.
//! - **Awaiting approval:** no message is written. The working transcript
//!   becomes the session's suspended turn, its waiting calls the
//!   approvals, and the rest of [`SuspendedChat`] its state. The session
//!   thus only ever holds finished turns, every tool call paired with its
//!   result, as with host-owned turns.
//! - **Before the request after the last approval:** the suspended turn is
//!   replaced by one holding the decided calls' results (the calls still
//!   listed), so that a tool runs once: if that request fails, deciding
//!   the call again reuses its result.
//! - **Failed:** nothing else is written. The same message can be sent
//!   again without duplicating history; after a failed resume the
//!   approvals still wait, their results kept.
//!
//! A new turn is guarded by the absence of a suspended turn, a resumed
//! one by its id, so two processes cannot resume one turn twice.
//!
//! # Models: the tier and "auto"
//! The tier is the selection's models, in order (`--model` repeated on the
//! CLI, else `SIFT_MODEL`). When the session's model choice is
//! [`AUTO_MODEL_CHOICE`], a refused turn is offered to the next model of
//! the tier. When it names a model and the selection names none, that
//! model is used. Without "auto" only the first model of the tier is
//! asked.
//!
//! # Events
//! The engine's events are passed on as they come, except the last ones
//! ([`ChatEvent::Done`], [`ChatEvent::ApprovalRequired`] and
//! [`ChatEvent::Error`]), which are held until the commit has succeeded,
//! so that a caller never acts on a turn that was not stored. Any error
//! this returns has been told as one [`ChatEvent::Error`].

pub(crate) mod files;
pub mod reply;
pub mod sessions;
pub mod stream;
pub(crate) mod tools;
pub mod view;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sift_documents::ReadOptions;
use sift_engine::{
    ChatEvent, ChatInput, ChatOutcome, ChatTurn, ContextSettings, DEFAULT_MAX_ITERATIONS,
    SuspendedChat, Toolkit, run_chat_turn,
};
use sift_llm::{Message, Role, ToolCall, ToolResult, Usage};
use sift_store::{
    Message as StoredMessage, NewPendingTurn, PendingChange, PendingGuard, PendingToolCall,
    PendingTurn, Session, Store, StoreError, TurnWrite,
};

use crate::calls::convert::{to_new_message, transcript_from_value, transcript_value};
use crate::calls::history::model_history;
use crate::chat::files::{Readers, with_files};
use crate::chat::reply::ReplyRecord;
use crate::error::CoreError;
use crate::models::ModelOverride;
use crate::models::ModelSelection;

/// The session model choice that lets a refused turn go to the next model.
pub const AUTO_MODEL_CHOICE: &str = "auto";

/// The `kind` in a suspended chat turn's stored state.
const CHAT_KIND: &str = "chat";

/// A new user message for a session.
#[derive(Debug, Clone)]
pub struct ChatRequest {
    /// The session the message is sent in; it must have no suspended turn.
    pub session_id: String,
    /// The user's message text.
    pub message: String,
    /// Files that go with the message, read by the documents crate (their
    /// text ahead of the message, their images with it), before any request.
    pub files: Vec<std::path::PathBuf>,
    /// The provider and the tier of models; with no models, the session's
    /// model choice, if it names one (see the module docs).
    pub selection: ModelSelection,
    /// The tools the model may call; run here.
    pub toolkits: Vec<Toolkit>,
    /// The tool-result and image windows.
    pub context: ContextSettings,
    /// Model requests per turn.
    pub max_iterations: u32,
    /// How `files` are read (`Workspace::read_options`: OCR `auto`, so a
    /// model that cannot take images gets their text instead).
    pub read_options: ReadOptions,
    /// The settings' id of the provider, as `model_overrides` name it;
    /// the provider's kind (`local`) when `None`.
    pub provider_id: Option<String>,
    /// The `[[models]]` overrides of what a model takes.
    pub model_overrides: Vec<ModelOverride>,
}

impl ChatRequest {
    /// A message for the session on `selection`, with no files or tools, the
    /// default windows and request limit, and no provider id or overrides.
    pub fn new(
        session_id: impl Into<String>,
        message: impl Into<String>,
        selection: ModelSelection,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            message: message.into(),
            files: Vec::new(),
            selection,
            toolkits: Vec::new(),
            context: ContextSettings::default(),
            max_iterations: DEFAULT_MAX_ITERATIONS,
            read_options: ReadOptions::default(),
            provider_id: None,
            model_overrides: Vec::new(),
        }
    }
}

/// The user's decision on a call that waits for approval.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    /// The session whose suspended turn waits on the call.
    pub session_id: String,
    /// The id of the waiting tool call the decision is for.
    pub call_id: String,
    /// `true` runs the tool; `false` sends the model an error result saying
    /// the user denied it.
    pub approved: bool,
    /// The provider and the tier of models for the rest of the turn.
    pub selection: ModelSelection,
    /// Must hold the tools of the suspended turn: tools are code, not
    /// stored.
    pub toolkits: Vec<Toolkit>,
    /// The tool-result and image windows.
    pub context: ContextSettings,
    /// Model requests per turn, counting those sent before it suspended.
    pub max_iterations: u32,
}

impl ApprovalRequest {
    /// A decision on `call_id` in the session, with no tools, the default
    /// windows and request limit; set `toolkits` to the turn's tools.
    pub fn new(
        session_id: impl Into<String>,
        call_id: impl Into<String>,
        approved: bool,
        selection: ModelSelection,
    ) -> Self {
        Self {
            session_id: session_id.into(),
            call_id: call_id.into(),
            approved,
            selection,
            toolkits: Vec::new(),
            context: ContextSettings::default(),
            max_iterations: DEFAULT_MAX_ITERATIONS,
        }
    }
}

/// How an invocation of a chat turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatStatus {
    /// The model gave its reply; the whole turn is stored.
    Completed,
    /// Calls wait for the user: see [`ChatResult::pending`].
    AwaitingApproval,
    /// The turn reached its limit of model requests; what it did is stored.
    TurnLimited,
}

/// What an invocation of a chat turn did, once it was stored.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatResult {
    /// How the invocation ended.
    pub status: ChatStatus,
    /// The text of the turn's last reply; empty unless completed.
    pub reply: String,
    /// The messages this invocation appended, as stored.
    pub messages: Vec<StoredMessage>,
    /// The session's suspended turn after this invocation.
    pub pending: Option<PendingTurn>,
    /// The usage of this invocation's model replies.
    pub usage: Usage,
}

/// Runs a chat turn for a new user message and stores it (see the module
/// docs).
pub async fn chat_turn(
    store: &Store,
    request: &ChatRequest,
    on_event: &mut (dyn FnMut(ChatEvent) + Send),
) -> Result<ChatResult, CoreError> {
    let mut relay = Relay::new(on_event);
    let result = new_turn(store, request, &mut relay).await;
    relay.finish(&result);
    result
}

/// Resumes a suspended chat turn with the user's decision on one call,
/// from the state in the store (so also after a restart), and stores what
/// follows.
pub async fn resolve_approval(
    store: &Store,
    request: &ApprovalRequest,
    on_event: &mut (dyn FnMut(ChatEvent) + Send),
) -> Result<ChatResult, CoreError> {
    let mut relay = Relay::new(on_event);
    let result = resume_turn(store, request, &mut relay).await;
    relay.finish(&result);
    result
}

async fn new_turn(
    store: &Store,
    request: &ChatRequest,
    relay: &mut Relay<'_>,
) -> Result<ChatResult, CoreError> {
    let session = session(store, &request.session_id)?;
    if let Some(pending) = store.pending_turn(&session.id)? {
        return Err(pending_error(&pending));
    }
    let setup = Setup {
        store,
        session,
        selection: &request.selection,
        context: &request.context,
        toolkits: &request.toolkits,
        max_iterations: request.max_iterations,
        guard: PendingGuard::Absent,
    };
    let (selection, auto) = tier_selection(&setup.session, setup.selection);
    let provider_id = request
        .provider_id
        .clone()
        .unwrap_or_else(|| selection.provider.choice().as_str().to_owned());
    let readers = Readers {
        selection: &selection,
        auto,
        provider_id: &provider_id,
        overrides: &request.model_overrides,
    };
    let message = with_files(
        Message::user(request.message.clone()),
        &request.files,
        &request.read_options,
        &readers,
    )
    .await?;
    relay.record = Some(ReplyRecord::begin(
        store,
        &setup.session.id,
        &message.text_content(),
    )?);
    let input = ChatInput::Message(message);
    setup.run(input, relay).await
}

async fn resume_turn(
    store: &Store,
    request: &ApprovalRequest,
    relay: &mut Relay<'_>,
) -> Result<ChatResult, CoreError> {
    let session = session(store, &request.session_id)?;
    let pending = store
        .pending_turn(&session.id)?
        .filter(|p| p.approvals.iter().any(|a| a.id == request.call_id))
        .ok_or_else(|| {
            CoreError::NotFound(format!(
                "no approval is pending for call {} in session {}",
                request.call_id, session.id
            ))
        })?;
    let suspended = suspended_from(&pending)?;
    let setup = Setup {
        store,
        session,
        selection: &request.selection,
        context: &request.context,
        toolkits: &request.toolkits,
        max_iterations: request.max_iterations,
        guard: PendingGuard::Id(pending.id.clone()),
    };
    let input = ChatInput::Approval {
        suspended,
        call_id: request.call_id.clone(),
        approved: request.approved,
    };
    setup.run(input, relay).await
}

fn session(store: &Store, id: &str) -> Result<Session, CoreError> {
    store
        .get_session(id)?
        .ok_or_else(|| CoreError::NotFound(format!("session {id} not found")))
}

fn pending_error(pending: &PendingTurn) -> CoreError {
    if pending.tool_calls.is_empty() {
        CoreError::ApprovalRequired {
            ids: pending.pending_ids(),
        }
    } else {
        CoreError::ToolResultsRequired {
            ids: pending.pending_ids(),
        }
    }
}

/// What one invocation runs on.
struct Setup<'a> {
    store: &'a Store,
    session: Session,
    selection: &'a ModelSelection,
    context: &'a ContextSettings,
    toolkits: &'a [Toolkit],
    max_iterations: u32,
    guard: PendingGuard,
}

impl Setup<'_> {
    async fn run(self, input: ChatInput, relay: &mut Relay<'_>) -> Result<ChatResult, CoreError> {
        let history = self.history()?;
        let (selection, auto) = tier_selection(&self.session, self.selection);
        let engines = selection.engines(self.context).await?;
        let mut guard = self.guard.clone();
        let outcome = {
            let mut forward = |event| relay.event(event);
            let mut keep_results = |kept: &SuspendedChat| self.keep_results(kept, &mut guard);
            run_chat_turn(
                ChatTurn {
                    tier: &engines.engines,
                    auto,
                    toolkits: self.toolkits,
                    history: &history,
                    input,
                    max_iterations: self.max_iterations,
                    on_results: Some(&mut keep_results),
                },
                &mut forward,
            )
            .await
        };
        // Where the turn's tokens were spent, kept with its last message
        // for the Usage view (the first of the tier answers unless it fails).
        let served = json!({
            "provider": selection.provider.choice(),
            "host": sift_llm::server_host(&selection.provider.effective_base_url()),
            "model": engines.engines.first().map(|e| e.model.clone()),
        });
        engines.release().await;
        Setup { guard, ..self }.commit(outcome, served)
    }

    /// Stores a resumed turn's results before its next model request (see
    /// [`sift_engine::chat`]): the suspended turn is replaced by one that
    /// holds them, under the guard of the one it replaces, and the guard
    /// moves to the new one for the turn's last commit.
    fn keep_results(&self, kept: &SuspendedChat, guard: &mut PendingGuard) -> Result<(), String> {
        let mut write = TurnWrite::new(&self.session.id);
        write.guard = guard.clone();
        write.pending = PendingChange::Set(pending_from(kept));
        let commit = self
            .store
            .commit_turn(write)
            .map_err(|e| self.commit_error(e).to_string())?;
        if let Some(pending) = commit.pending {
            *guard = PendingGuard::Id(pending.id);
        }
        Ok(())
    }

    /// The system prompt from the session's row, then its finished turns
    /// as the model sees them (hidden copies left out, a compacted part
    /// replaced by its summary).
    fn history(&self) -> Result<Vec<Message>, CoreError> {
        let mut history = Vec::new();
        if let Some(system) = self
            .session
            .system_prompt
            .as_deref()
            .filter(|s| !s.trim().is_empty())
        {
            history.push(Message::system(system));
        }
        // Stored system messages are the row's prompt, already added.
        history.extend(
            model_history(self.store, &self.session.id)?
                .into_iter()
                .filter(|m| m.role != Role::System),
        );
        Ok(history)
    }

    fn commit(self, outcome: ChatOutcome, served: Value) -> Result<ChatResult, CoreError> {
        let mut write = TurnWrite::new(&self.session.id);
        write.guard = self.guard.clone();
        let (status, reply, usage) = match outcome {
            ChatOutcome::Failed { error, .. } => return Err(CoreError::Llm(error)),
            ChatOutcome::Completed {
                new_messages,
                usage,
                ..
            } => {
                let reply = new_messages
                    .last()
                    .filter(|m| m.role == Role::Assistant)
                    .map(Message::text_content)
                    .unwrap_or_default();
                write.messages = new_messages.iter().map(to_new_message).collect();
                write.pending = PendingChange::Clear;
                (ChatStatus::Completed, reply, usage)
            }
            ChatOutcome::TurnLimited {
                new_messages,
                usage,
                ..
            } => {
                write.messages = new_messages.iter().map(to_new_message).collect();
                write.pending = PendingChange::Clear;
                (ChatStatus::TurnLimited, String::new(), usage)
            }
            ChatOutcome::AwaitingApproval { suspended, usage } => {
                write.pending = PendingChange::Set(pending_from(&suspended));
                (ChatStatus::AwaitingApproval, String::new(), usage)
            }
        };
        if let Some(last) = write.messages.last_mut() {
            let mut metadata = served;
            metadata["usage"] = json!({
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
            });
            last.metadata = metadata;
        }
        let commit = self
            .store
            .commit_turn(write)
            .map_err(|e| self.commit_error(e))?;
        Ok(ChatResult {
            status,
            reply,
            messages: commit.messages,
            pending: commit.pending,
            usage,
        })
    }

    fn commit_error(&self, error: StoreError) -> CoreError {
        let StoreError::PendingMismatch { .. } = error else {
            return error.into();
        };
        if self.guard == PendingGuard::Absent {
            // Another process suspended a turn on this session meanwhile.
            if let Ok(Some(pending)) = self.store.pending_turn(&self.session.id) {
                return pending_error(&pending);
            }
            return CoreError::Usage(format!(
                "the session {} changed during the turn; nothing was written, send it again",
                self.session.id
            ));
        }
        CoreError::Usage(format!(
            "the suspended turn of session {} was resumed by another process meanwhile; nothing was written",
            self.session.id
        ))
    }
}

/// The models to run on, and whether a refusal goes to the next one.
fn tier_selection(session: &Session, selection: &ModelSelection) -> (ModelSelection, bool) {
    let choice = session
        .model_choice
        .as_deref()
        .map(str::trim)
        .filter(|c| !c.is_empty());
    let auto = choice.is_some_and(|c| c.eq_ignore_ascii_case(AUTO_MODEL_CHOICE));
    let mut selection = selection.clone();
    if let Some(model) = choice.filter(|_| !auto)
        && selection.models.is_empty()
    {
        selection.models = vec![model.to_owned()];
    }
    (selection, auto)
}

/// The store's form of a suspended chat turn: the transcript in its
/// column, the waiting calls as approvals, the rest as state.
fn pending_from(suspended: &SuspendedChat) -> NewPendingTurn {
    NewPendingTurn {
        transcript: transcript_value(&suspended.transcript),
        state: json!({
            "kind": CHAT_KIND,
            "results": suspended.results,
            "model": suspended.model,
            "requests": suspended.requests,
        }),
        tool_calls: Vec::new(),
        approvals: suspended
            .approvals
            .iter()
            .map(|c| PendingToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            })
            .collect(),
    }
}

fn suspended_from(pending: &PendingTurn) -> Result<SuspendedChat, CoreError> {
    if pending.state["kind"] != CHAT_KIND {
        return Err(CoreError::Usage(format!(
            "the session's suspended turn is not a chat turn (pending: {})",
            pending.pending_ids().join(", ")
        )));
    }
    let unreadable =
        |e: serde_json::Error| CoreError::Usage(format!("the suspended turn cannot be read: {e}"));
    let results: Vec<ToolResult> =
        serde_json::from_value(pending.state["results"].clone()).map_err(unreadable)?;
    Ok(SuspendedChat {
        transcript: transcript_from_value(&pending.transcript)?,
        results,
        approvals: pending
            .approvals
            .iter()
            .map(|a| ToolCall {
                id: a.id.clone(),
                name: a.name.clone(),
                arguments: a.arguments.clone(),
            })
            .collect(),
        model: pending.state["model"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        requests: pending.state["requests"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
    })
}

/// Passes events on, holding the last ones until the turn is stored;
/// a new turn's reply text is also kept as it streams.
struct Relay<'e> {
    on_event: &'e mut (dyn FnMut(ChatEvent) + Send),
    held: Vec<ChatEvent>,
    record: Option<ReplyRecord>,
}

impl<'e> Relay<'e> {
    fn new(on_event: &'e mut (dyn FnMut(ChatEvent) + Send)) -> Self {
        Self {
            on_event,
            held: Vec::new(),
            record: None,
        }
    }

    fn event(&mut self, event: ChatEvent) {
        match event {
            ChatEvent::Done { .. }
            | ChatEvent::ApprovalRequired { .. }
            | ChatEvent::Error { .. } => {
                self.held.push(event);
            }
            ChatEvent::TextDelta(text) => {
                if let Some(record) = &mut self.record {
                    record.text(&text);
                }
                (self.on_event)(ChatEvent::TextDelta(text));
            }
            other => (self.on_event)(other),
        }
    }

    fn finish(self, result: &Result<ChatResult, CoreError>) {
        match result {
            Ok(_) => self.held.into_iter().for_each(self.on_event),
            // A failed model call is this same error; a failed commit
            // replaces whatever the engine said last.
            Err(error) => (self.on_event)(ChatEvent::Error {
                category: error.category(),
                message: error.to_string(),
            }),
        }
    }
}
