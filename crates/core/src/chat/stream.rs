//! A chat turn from the window: one user message (or the answer to an
//! approval) run with the app's tools and the models the user picked,
//! streamed as [`ChatTurnEvent`]s, stoppable through the workspace's
//! registry of running work. Tool calls that wait for the user's approval
//! are resumed from the store, so also after a restart. Nothing of a
//! stopped turn is stored.

use std::future::Future;
use std::path::PathBuf;

use sift_engine::{ChatEvent, ContextSettings};
use sift_store::Store;

use crate::chat::tools::chat_toolkit;
use crate::chat::view::{
    ChatTurnEvent, ChatTurnView, MessageView, ModelChoice, session_of, session_view,
};
use crate::chat::{ApprovalRequest, ChatRequest, ChatStatus, chat_turn, resolve_approval};
use crate::error::CoreError;
use crate::models::ModelSelection;
use crate::running::{RunningGuard, WorkKind};
use crate::workspace::Workspace;

/// A new user message for a session.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatMessage {
    /// The session the message is sent in; it must have no turn waiting.
    pub session_id: String,
    /// The user's message text.
    pub text: String,
    /// Files whose text (or images) go with the message.
    pub files: Vec<PathBuf>,
    /// The provider and model picked for the turn; unset parts come from
    /// the settings.
    pub choice: ModelChoice,
}

/// The user's decision on a tool call that waits.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApprovalAnswer {
    /// The session whose suspended turn waits on the call.
    pub session_id: String,
    /// The model's id for the waiting call, as the session's approvals list it.
    pub call_id: String,
    /// `true` runs the tool; `false` tells the model the user denied it.
    pub approved: bool,
    /// The provider and model for the rest of the turn; unset parts come
    /// from the settings.
    pub choice: ModelChoice,
}

/// A turn that has started: the key [`stop_chat_turn`] takes, and the
/// rest of the turn to await (or spawn).
pub type StartedTurn = (
    String,
    std::pin::Pin<Box<dyn Future<Output = Result<ChatTurnView, CoreError>> + Send + 'static>>,
);

#[derive(Debug)]
enum TurnInput {
    // Boxed: the two differ much in size (a message carries its read options).
    Message(Box<ChatRequest>),
    Approval(Box<ApprovalRequest>),
}

impl TurnInput {
    fn session_id(&self) -> &str {
        match self {
            Self::Message(r) => &r.session_id,
            Self::Approval(r) => &r.session_id,
        }
    }
}

/// Starts a turn for a new message: registers it, tells `on_event` its
/// key first, and returns the rest of the turn.
pub fn send_chat_message(
    ws: &Workspace,
    message: ChatMessage,
    on_event: impl Fn(ChatTurnEvent) + Send + Sync + 'static,
) -> Result<StartedTurn, CoreError> {
    // The attachments are the page's paths: each must be granted.
    for file in &message.files {
        ws.grants().check_read(file)?;
    }
    let (selection, context) = turn_settings(ws, &message.choice)?;
    let mut request = ChatRequest::new(message.session_id, message.text, selection);
    request.files = message.files;
    request.toolkits = vec![chat_toolkit(ws.read_options())];
    request.context = context;
    request.read_options = ws.read_options();
    request.provider_id = Some(
        ws.settings()
            .provider_or_default(message.choice.provider_id.as_deref())?
            .id
            .clone(),
    );
    request.model_overrides = ws.config().model_overrides;
    start(ws, TurnInput::Message(Box::new(request)), on_event)
}

/// Starts the rest of a turn that waits, with the user's answer on one
/// of its calls.
pub fn answer_approval(
    ws: &Workspace,
    answer: ApprovalAnswer,
    on_event: impl Fn(ChatTurnEvent) + Send + Sync + 'static,
) -> Result<StartedTurn, CoreError> {
    let (selection, context) = turn_settings(ws, &answer.choice)?;
    let mut request = ApprovalRequest::new(
        answer.session_id,
        answer.call_id,
        answer.approved,
        selection,
    );
    request.toolkits = vec![chat_toolkit(ws.read_options())];
    request.context = context;
    start(ws, TurnInput::Approval(Box::new(request)), on_event)
}

/// Asks a running turn to stop; false when no turn has that key.
pub fn stop_chat_turn(ws: &Workspace, key: &str) -> bool {
    ws.running().cancel(WorkKind::ChatTurn, key)
}

/// The models the user picked (else the settings' defaults) and the
/// context windows of the configuration file.
fn turn_settings(
    ws: &Workspace,
    choice: &ModelChoice,
) -> Result<(ModelSelection, ContextSettings), CoreError> {
    let selection = ws
        .settings()
        .selection(choice.provider_id.as_deref(), choice.model.as_deref())?;
    Ok((selection, ws.config().context))
}

fn start(
    ws: &Workspace,
    input: TurnInput,
    on_event: impl Fn(ChatTurnEvent) + Send + Sync + 'static,
) -> Result<StartedTurn, CoreError> {
    let store = ws.store()?;
    let guard = ws.running().register_new(WorkKind::ChatTurn);
    let key = guard.key().to_owned();
    on_event(ChatTurnEvent::Started { key: key.clone() });
    Ok((key, Box::pin(on_own_thread(store, input, guard, on_event))))
}

/// Runs [`turn`] on a blocking thread of the runtime: the engine's event
/// callback is borrowed across awaits, so its future is not `Send`,
/// which the shell's (and a spawned task's) must be.
async fn on_own_thread(
    store: Store,
    input: TurnInput,
    guard: RunningGuard,
    on_event: impl Fn(ChatTurnEvent) + Send + Sync + 'static,
) -> Result<ChatTurnView, CoreError> {
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || runtime.block_on(turn(&store, input, &guard, &on_event)))
        .await
        .map_err(|e| CoreError::Internal(format!("the chat turn stopped unexpectedly: {e}")))?
}

/// Runs the turn until it ends or its registration is cancelled.
async fn turn(
    store: &Store,
    input: TurnInput,
    guard: &RunningGuard,
    on_event: &(impl Fn(ChatTurnEvent) + Send + Sync),
) -> Result<ChatTurnView, CoreError> {
    let mut relay = |event: ChatEvent| on_event(event.into());
    let run = async {
        match &input {
            TurnInput::Message(request) => chat_turn(store, request, &mut relay).await,
            TurnInput::Approval(request) => resolve_approval(store, request, &mut relay).await,
        }
    };
    let result = tokio::select! {
        r = run => Some(r),
        () = guard.token().cancelled() => None,
    };
    let session = session_view(store, session_of(store, input.session_id())?)?;
    match result {
        None => Ok(ChatTurnView {
            status: "stopped".to_owned(),
            reply: String::new(),
            session,
            messages: Vec::new(),
        }),
        Some(Err(e)) => Err(e),
        Some(Ok(result)) => Ok(ChatTurnView {
            status: match result.status {
                ChatStatus::Completed => "completed",
                ChatStatus::AwaitingApproval => "awaitingApproval",
                ChatStatus::TurnLimited => "turnLimited",
            }
            .to_owned(),
            reply: result.reply,
            session,
            messages: result.messages.into_iter().map(MessageView::from).collect(),
        }),
    }
}
