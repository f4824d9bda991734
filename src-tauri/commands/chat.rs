//! Chat from the window: sessions (list, search, new, branch, delete), a
//! turn streamed over a Channel with a stop, and tool calls that wait for
//! the user's approval. The behaviour is `sift_core::chat::sessions` and
//! `sift_core::chat::stream`.

use std::path::{Path, PathBuf};

use sift_core::Workspace;
use sift_core::chat::sessions;
use sift_core::chat::stream::{self, ApprovalAnswer, ChatMessage};
use sift_core::chat::view::{
    AttachmentView, ChatTurnEvent, ChatTurnView, MessageView, ModelChoice, SessionChange,
    SessionView,
};
use tauri::State;
use tauri::ipc::Channel;

use crate::error::IpcResult;

#[tauri::command]
pub fn list_sessions(query: String, ws: State<'_, Workspace>) -> IpcResult<Vec<SessionView>> {
    Ok(sessions::list_sessions(&ws, &query)?)
}

#[tauri::command]
pub fn new_session(
    title: String,
    system_prompt: Option<String>,
    ws: State<'_, Workspace>,
) -> IpcResult<SessionView> {
    Ok(sessions::create_session(&ws, title, system_prompt)?)
}

#[tauri::command]
pub fn delete_session(session_id: String, ws: State<'_, Workspace>) -> IpcResult<bool> {
    Ok(sessions::delete_session(&ws, &session_id)?)
}

#[tauri::command]
pub fn discard_cut_reply(session_id: String, ws: State<'_, Workspace>) -> IpcResult<bool> {
    Ok(sessions::discard_cut_reply(&ws, &session_id)?)
}

#[tauri::command]
pub fn session_messages(
    session_id: String,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<MessageView>> {
    Ok(sessions::session_messages(&ws, &session_id)?)
}

#[tauri::command]
pub fn branch_session(
    session_id: String,
    before_seq: i64,
    ws: State<'_, Workspace>,
) -> IpcResult<SessionView> {
    Ok(sessions::branch_session(&ws, &session_id, before_seq)?)
}

#[tauri::command]
pub fn update_session(
    session_id: String,
    change: SessionChange,
    ws: State<'_, Workspace>,
) -> IpcResult<SessionView> {
    Ok(sessions::update_session(&ws, &session_id, change)?)
}

/// What each file holds; a path no dialog or drop granted is refused.
#[tauri::command]
pub async fn describe_attachments(
    paths: Vec<String>,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<AttachmentView>> {
    Ok(sessions::describe_attachments(&ws, paths).await?)
}

/// Writes an exported conversation to the path the save dialog gave.
#[tauri::command]
pub fn write_export(path: String, content: String, ws: State<'_, Workspace>) -> IpcResult<()> {
    sessions::write_export(&ws, Path::new(&path), &content)?;
    Ok(())
}

/// Runs one user message as a chat turn; events go to `on_event` as they
/// come, the first with the key `stop_chat_turn` takes.
#[tauri::command]
pub async fn send_chat_message(
    session_id: String,
    text: String,
    files: Option<Vec<String>>,
    choice: ModelChoice,
    on_event: Channel<ChatTurnEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<ChatTurnView> {
    let message = ChatMessage {
        session_id,
        text,
        files: files
            .unwrap_or_default()
            .into_iter()
            .map(PathBuf::from)
            .collect(),
        choice,
    };
    let (_key, turn) = stream::send_chat_message(&ws, message, move |e| {
        let _ = on_event.send(e);
    })?;
    Ok(turn.await?)
}

/// Approves or denies a call that waits, and runs the rest of the turn.
#[tauri::command]
pub async fn answer_approval(
    session_id: String,
    call_id: String,
    approved: bool,
    choice: ModelChoice,
    on_event: Channel<ChatTurnEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<ChatTurnView> {
    let answer = ApprovalAnswer {
        session_id,
        call_id,
        approved,
        choice,
    };
    let (_key, turn) = stream::answer_approval(&ws, answer, move |e| {
        let _ = on_event.send(e);
    })?;
    Ok(turn.await?)
}

#[tauri::command]
pub fn stop_chat_turn(key: String, ws: State<'_, Workspace>) -> bool {
    stream::stop_chat_turn(&ws, &key)
}
