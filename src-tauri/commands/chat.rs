//! Chat from the window: sessions (list, search, new, branch, delete),
//! a turn streamed over a Channel with a stop, tool calls that wait for
//! the user's approval (resumed from the store, so also after a restart).
//!
//! "Edit a message and regenerate" branches: a new session with the
//! messages before the edited one, then the edited text as a new turn.
//! The original conversation stays as it was.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_core::CoreError;
use sift_core::chat::{ApprovalRequest, ChatRequest, ChatResult, chat_turn, resolve_approval};
use sift_core::chat_tools::chat_toolkit;
use sift_core::config::load_config;
use sift_core::engine::ChatEvent;
use sift_core::store::{
    Message as StoredMessage, NewMessage, NewSession, Session, SessionUpdate, Store, TurnWrite,
};
use tauri::State;
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use crate::error::{IpcError, IpcResult};
use crate::state::AppState;

/// The stop token of each running turn, by its key.
#[derive(Debug, Default)]
pub struct ChatState {
    turns: Mutex<HashMap<String, CancellationToken>>,
    next_key: AtomicU64,
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalView {
    pub call_id: String,
    pub name: String,
    /// JSON text as the model produced it (it may be invalid).
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub id: String,
    pub title: String,
    pub system_prompt: Option<String>,
    pub model_choice: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    pub updated_at: i64,
    /// Tool calls waiting for the user, oldest first.
    pub approvals: Vec<ApprovalView>,
}

/// A stored message: its parts as `sift_llm` writes them
/// (`{"type":"text","text"}`, `tool_call`, `tool_result`, `image`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub id: String,
    pub seq: i64,
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    #[ts(type = "Array<Record<string, unknown>>")]
    pub parts: Value,
    pub hidden: bool,
    pub created_at: i64,
}

impl From<StoredMessage> for MessageView {
    fn from(m: StoredMessage) -> Self {
        Self {
            role: serde_json::to_value(m.role)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            id: m.id,
            seq: m.seq,
            parts: m.parts,
            hidden: m.hidden,
            created_at: m.created_at,
        }
    }
}

/// What a turn reports as it goes.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ChatTurnEvent {
    /// First: the key `stop_chat_turn` takes.
    Started {
        key: String,
    },
    Text {
        text: String,
    },
    ToolStarted {
        id: String,
        name: String,
    },
    #[serde(rename_all = "camelCase")]
    ToolFinished {
        id: String,
        name: String,
        content: String,
        is_error: bool,
    },
    #[serde(rename_all = "camelCase")]
    Usage {
        input_tokens: u64,
        output_tokens: u64,
    },
    ApprovalRequired {
        id: String,
        name: String,
        arguments: String,
    },
    Done,
    Error {
        code: String,
        message: String,
    },
}

impl From<ChatEvent> for ChatTurnEvent {
    fn from(event: ChatEvent) -> Self {
        match event {
            ChatEvent::TextDelta(text) => Self::Text { text },
            ChatEvent::ToolCallStarted { id, name } => Self::ToolStarted { id, name },
            ChatEvent::ToolCallFinished {
                id,
                name,
                content,
                is_error,
            } => Self::ToolFinished {
                id,
                name,
                content,
                is_error,
            },
            ChatEvent::Usage(u) => Self::Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
            },
            ChatEvent::ApprovalRequired {
                id,
                name,
                arguments,
            } => Self::ApprovalRequired {
                id,
                name,
                arguments,
            },
            ChatEvent::Done { .. } => Self::Done,
            ChatEvent::Error { category, message } => Self::Error {
                code: category.as_str().to_owned(),
                message,
            },
        }
    }
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatTurnView {
    /// `completed`, `awaitingApproval`, `turnLimited` or `stopped`.
    pub status: String,
    pub reply: String,
    pub session: SessionView,
    /// The messages this turn stored.
    pub messages: Vec<MessageView>,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    /// A provider id of the settings; `null`: the default.
    #[ts(optional = nullable)]
    #[serde(default)]
    pub provider_id: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub model: Option<String>,
}

pub fn session_view(store: &Store, session: Session) -> IpcResult<SessionView> {
    let approvals = store
        .pending_turn(&session.id)?
        .map(|p| {
            p.approvals
                .into_iter()
                .map(|a| ApprovalView {
                    call_id: a.id,
                    name: a.name,
                    arguments: a.arguments,
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(SessionView {
        id: session.id,
        title: session.title,
        system_prompt: session.system_prompt,
        model_choice: session.model_choice,
        created_at: session.created_at,
        updated_at: session.updated_at,
        approvals,
    })
}

fn session_of(store: &Store, id: &str) -> IpcResult<Session> {
    store
        .get_session(id)?
        .ok_or_else(|| IpcError::not_found(format!("no session {id}")))
}

/// The sessions, the most recently used first; with a query, only those
/// with a message that contains it (case-insensitive).
pub fn sessions_matching(store: &Store, query: &str) -> IpcResult<Vec<SessionView>> {
    let mut sessions = store.list_sessions()?;
    let query = query.trim();
    if !query.is_empty() {
        let hits: std::collections::HashSet<String> = store
            .search_messages(query, 10_000)?
            .into_iter()
            .map(|m| m.session_id)
            .collect();
        sessions.retain(|s| {
            hits.contains(&s.id) || s.title.to_lowercase().contains(&query.to_lowercase())
        });
    }
    sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
    sessions
        .into_iter()
        .map(|s| session_view(store, s))
        .collect()
}

#[tauri::command]
pub fn list_sessions(query: String, app: State<'_, AppState>) -> IpcResult<Vec<SessionView>> {
    sessions_matching(&app.store()?, &query)
}

#[tauri::command]
pub fn new_session(
    title: String,
    system_prompt: Option<String>,
    app: State<'_, AppState>,
) -> IpcResult<SessionView> {
    let store = app.store()?;
    let session = store.create_session(NewSession {
        title,
        system_prompt,
        model_choice: None,
    })?;
    session_view(&store, session)
}

#[tauri::command]
pub fn delete_session(session_id: String, app: State<'_, AppState>) -> IpcResult<bool> {
    Ok(app.store()?.delete_session(&session_id)?)
}

#[tauri::command]
pub fn session_messages(
    session_id: String,
    app: State<'_, AppState>,
) -> IpcResult<Vec<MessageView>> {
    let store = app.store()?;
    session_of(&store, &session_id)?;
    Ok(store
        .messages(&session_id)?
        .into_iter()
        .map(MessageView::from)
        .collect())
}

/// A new session holding the messages of `session_id` before `before_seq`
/// (a branch to edit from). Its title says where it came from.
pub fn branch(store: &Store, session_id: &str, before_seq: i64) -> IpcResult<SessionView> {
    let source = session_of(store, session_id)?;
    let kept: Vec<StoredMessage> = store
        .messages(session_id)?
        .into_iter()
        .filter(|m| m.seq < before_seq)
        .collect();
    let title = if source.title.is_empty() {
        "Branch".to_owned()
    } else {
        format!("{} (branch)", source.title)
    };
    let session = store.create_session(NewSession {
        title,
        system_prompt: source.system_prompt.clone(),
        model_choice: source.model_choice.clone(),
    })?;
    if !kept.is_empty() {
        store.commit_turn(TurnWrite {
            messages: kept.iter().map(copy_of).collect(),
            ..TurnWrite::new(&session.id)
        })?;
    }
    let session = session_of(store, &session.id)?;
    session_view(store, session)
}

/// A stored message as a new one: the same role, parts, metadata and
/// visibility, and its time of writing.
fn copy_of(message: &StoredMessage) -> NewMessage {
    NewMessage {
        role: message.role,
        parts: message.parts.clone(),
        metadata: message.metadata.clone(),
        hidden: message.hidden,
        created_at: Some(message.created_at),
    }
}

#[tauri::command]
pub fn branch_session(
    session_id: String,
    before_seq: i64,
    app: State<'_, AppState>,
) -> IpcResult<SessionView> {
    branch(&app.store()?, &session_id, before_seq)
}

/// A session's new title and model choice (`""` clears the model choice);
/// `null` leaves a field as it is.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionChange {
    #[ts(optional = nullable)]
    #[serde(default)]
    pub title: Option<String>,
    #[ts(optional = nullable)]
    #[serde(default)]
    pub model_choice: Option<String>,
}

pub fn change_session(
    store: &Store,
    session_id: &str,
    change: SessionChange,
) -> IpcResult<SessionView> {
    let update = SessionUpdate {
        title: change.title,
        system_prompt: None,
        model_choice: change
            .model_choice
            .map(|m| Some(m).filter(|m| !m.trim().is_empty())),
    };
    let session = store.update_session(session_id, update)?;
    session_view(store, session)
}

#[tauri::command]
pub fn update_session(
    session_id: String,
    change: SessionChange,
    app: State<'_, AppState>,
) -> IpcResult<SessionView> {
    change_session(&app.store()?, &session_id, change)
}

/// A file to go with a message, as the documents crate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentView {
    pub path: String,
    pub name: String,
    /// Characters of text the model will read.
    pub chars: u64,
    /// Images the model will see (photos, scanned pages).
    pub images: u64,
}

/// Reads the files as a message would carry them: what each holds, or the
/// first refusal (a kind Sift does not read, a missing file, a limit).
pub fn describe(paths: &[String]) -> IpcResult<Vec<AttachmentView>> {
    let paths: Vec<std::path::PathBuf> = paths.iter().map(std::path::PathBuf::from).collect();
    let documents =
        sift_core::documents::read_documents(&paths, &sift_core::documents::ReadOptions::default())
            .map_err(CoreError::from)?;
    Ok(documents
        .files
        .iter()
        .map(|d| AttachmentView {
            path: d.path.display().to_string(),
            name: d.name.clone(),
            chars: d.content.chars() as u64,
            images: d.content.images().len() as u64,
        })
        .collect())
}

#[tauri::command]
pub async fn describe_attachments(paths: Vec<String>) -> IpcResult<Vec<AttachmentView>> {
    tauri::async_runtime::spawn_blocking(move || describe(&paths))
        .await
        .map_err(|e| {
            IpcError::new(
                "other",
                format!("reading the files stopped unexpectedly: {e}"),
            )
        })?
}

/// Writes an exported conversation (Markdown or JSON) to the path the save
/// dialog gave. Only those kinds of file: this command writes nothing else.
#[tauri::command]
pub fn write_export(path: String, content: String) -> IpcResult<()> {
    let file = std::path::PathBuf::from(&path);
    let allowed = matches!(
        file.extension().and_then(|e| e.to_str()),
        Some("md" | "json" | "txt")
    );
    if !allowed {
        return Err(IpcError::usage(format!(
            "{path}: a conversation is exported as .md, .json or .txt"
        )));
    }
    std::fs::write(&file, content).map_err(|e| IpcError::io("write", &file, &e))
}

/// Runs one user message as a chat turn with the app's tools; events go
/// to `on_event` as they come. `stop_chat_turn` with the key of the first
/// event ends it (nothing of a stopped turn is stored).
#[tauri::command]
pub async fn send_chat_message(
    session_id: String,
    text: String,
    files: Option<Vec<String>>,
    choice: ModelChoice,
    on_event: Channel<ChatTurnEvent>,
    app: State<'_, AppState>,
    chat: State<'_, ChatState>,
) -> IpcResult<ChatTurnView> {
    let (selection, context) = turn_settings(&app, &choice)?;
    let mut request = ChatRequest::new(session_id, text, selection);
    request.files = files
        .unwrap_or_default()
        .into_iter()
        .map(std::path::PathBuf::from)
        .collect();
    request.toolkits = vec![chat_toolkit()];
    request.context = context;
    run_command(&app, &chat, TurnInput::Message(request), on_event).await
}

/// Approves or denies a call that waits, and runs the rest of the turn.
#[tauri::command]
pub async fn answer_approval(
    session_id: String,
    call_id: String,
    approved: bool,
    choice: ModelChoice,
    on_event: Channel<ChatTurnEvent>,
    app: State<'_, AppState>,
    chat: State<'_, ChatState>,
) -> IpcResult<ChatTurnView> {
    let (selection, context) = turn_settings(&app, &choice)?;
    let mut request = ApprovalRequest::new(session_id, call_id, approved, selection);
    request.toolkits = vec![chat_toolkit()];
    request.context = context;
    run_command(&app, &chat, TurnInput::Approval(request), on_event).await
}

/// The models the user picked (else the settings' defaults) and the
/// context windows of the configuration file.
fn turn_settings(
    app: &AppState,
    choice: &ModelChoice,
) -> IpcResult<(
    sift_core::ModelSelection,
    sift_core::engine::ContextSettings,
)> {
    let selection = app
        .settings()?
        .selection(choice.provider_id.as_deref(), choice.model.as_deref())?;
    Ok((selection, load_config(app.config_path())?.context))
}

/// Registers the turn's stop key, tells it first, and runs the turn.
async fn run_command(
    app: &AppState,
    chat: &ChatState,
    input: TurnInput,
    on_event: Channel<ChatTurnEvent>,
) -> IpcResult<ChatTurnView> {
    let store = app.store()?;
    let (key, stop) = chat.start();
    let _ = on_event.send(ChatTurnEvent::Started { key: key.clone() });
    let outcome = on_own_thread(store, input, stop, on_event).await;
    chat.finish(&key);
    outcome
}

#[tauri::command]
pub fn stop_chat_turn(key: String, chat: State<'_, ChatState>) -> bool {
    match lock(&chat.turns).get(&key) {
        Some(token) => {
            token.cancel();
            true
        }
        None => false,
    }
}

impl ChatState {
    fn start(&self) -> (String, CancellationToken) {
        let key = format!("chat-{}", self.next_key.fetch_add(1, Ordering::Relaxed));
        let token = CancellationToken::new();
        lock(&self.turns).insert(key.clone(), token.clone());
        (key, token)
    }

    fn finish(&self, key: &str) {
        lock(&self.turns).remove(key);
    }
}

/// A new message or an answer to an approval.
#[derive(Debug)]
pub enum TurnInput {
    Message(ChatRequest),
    Approval(ApprovalRequest),
}

/// Runs [`turn`] on a blocking thread of the runtime: the engine's event
/// callback is borrowed across awaits, so its future is not `Send`, which
/// a command's future must be.
async fn on_own_thread(
    store: Store,
    input: TurnInput,
    stop: CancellationToken,
    on_event: Channel<ChatTurnEvent>,
) -> IpcResult<ChatTurnView> {
    tauri::async_runtime::spawn_blocking(move || {
        tauri::async_runtime::block_on(turn(&store, input, stop, &on_event))
    })
    .await
    .map_err(|e| IpcError::new("other", format!("the chat turn stopped unexpectedly: {e}")))?
}

/// Runs the turn until it ends or `stop` is cancelled.
pub async fn turn(
    store: &Store,
    input: TurnInput,
    stop: CancellationToken,
    on_event: &Channel<ChatTurnEvent>,
) -> IpcResult<ChatTurnView> {
    let session_id = match &input {
        TurnInput::Message(r) => r.session_id.clone(),
        TurnInput::Approval(r) => r.session_id.clone(),
    };
    let mut relay = |event: ChatEvent| {
        let _ = on_event.send(event.into());
    };
    let run = async {
        match &input {
            TurnInput::Message(request) => chat_turn(store, request, &mut relay).await,
            TurnInput::Approval(request) => resolve_approval(store, request, &mut relay).await,
        }
    };
    let result: Option<Result<ChatResult, CoreError>> = tokio::select! {
        r = run => Some(r),
        () = stop.cancelled() => None,
    };
    let session = session_view(store, session_of(store, &session_id)?)?;
    match result {
        None => Ok(ChatTurnView {
            status: "stopped".to_owned(),
            reply: String::new(),
            session,
            messages: Vec::new(),
        }),
        Some(Err(e)) => Err(e.into()),
        Some(Ok(result)) => Ok(ChatTurnView {
            status: match result.status {
                sift_core::chat::ChatStatus::Completed => "completed",
                sift_core::chat::ChatStatus::AwaitingApproval => "awaitingApproval",
                sift_core::chat::ChatStatus::TurnLimited => "turnLimited",
            }
            .to_owned(),
            reply: result.reply,
            session,
            messages: result.messages.into_iter().map(MessageView::from).collect(),
        }),
    }
}
