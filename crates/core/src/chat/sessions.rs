//! Chat sessions: listing and search across their messages, new and
//! delete, a session's messages, branching to edit from, renaming and the
//! model choice, the files a message carries, and exporting a
//! conversation. The turns themselves are in [`crate::chat::stream`].
//!
//! "Edit a message and regenerate" branches: a new session with the
//! messages before the edited one, then the edited text as a new turn.
//! The original conversation stays as it was.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use sift_documents::{ReadOptions, read_documents};
use sift_store::{Message as StoredMessage, NewMessage, NewSession, SessionUpdate, TurnWrite};

use crate::chat::view::{
    AttachmentView, MessageView, SessionChange, SessionView, session_of, session_view,
};
use crate::error::CoreError;
use crate::workspace::Workspace;

/// How many matching messages a search looks at.
const SEARCH_LIMIT: u32 = 10_000;

/// The sessions, the most recently used first; with a query, only those
/// with a message that contains it or a title that does (case-insensitive).
pub fn list_sessions(ws: &Workspace, query: &str) -> Result<Vec<SessionView>, CoreError> {
    let store = ws.store()?;
    let mut sessions = store.list_sessions()?;
    let query = query.trim();
    if !query.is_empty() {
        let hits: HashSet<String> = store
            .search_messages(query, SEARCH_LIMIT)?
            .into_iter()
            .map(|m| m.session_id)
            .collect();
        let lowered = query.to_lowercase();
        sessions.retain(|s| hits.contains(&s.id) || s.title.to_lowercase().contains(&lowered));
    }
    sessions.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id)));
    sessions
        .into_iter()
        .map(|s| session_view(&store, s))
        .collect()
}

/// Creates an empty session in the workspace's store with this title and
/// system prompt (and no model choice), and returns it as the window sees it.
pub fn create_session(
    ws: &Workspace,
    title: String,
    system_prompt: Option<String>,
) -> Result<SessionView, CoreError> {
    let store = ws.store()?;
    let session = store.create_session(NewSession {
        title,
        system_prompt,
        model_choice: None,
    })?;
    session_view(&store, session)
}

/// False when there was no such session.
pub fn delete_session(ws: &Workspace, session_id: &str) -> Result<bool, CoreError> {
    Ok(ws.store()?.delete_session(session_id)?)
}

/// Drops the reply a crash cut in the session, and the message it
/// answered with it (neither is among the stored messages): the user chose
/// Discard over Regenerate. False when the session has no cut reply; a
/// reply still being written is not cut and stays.
pub fn discard_cut_reply(ws: &Workspace, session_id: &str) -> Result<bool, CoreError> {
    let store = ws.store()?;
    session_of(&store, session_id)?;
    Ok(store.discard_chat_reply(session_id)?)
}

/// Every stored message of the session, in order.
pub fn session_messages(ws: &Workspace, session_id: &str) -> Result<Vec<MessageView>, CoreError> {
    let store = ws.store()?;
    session_of(&store, session_id)?;
    Ok(store
        .messages(session_id)?
        .into_iter()
        .map(MessageView::from)
        .collect())
}

/// A new session holding the messages of `session_id` before `before_seq`
/// (a branch to edit from). Its title says where it came from.
pub fn branch_session(
    ws: &Workspace,
    session_id: &str,
    before_seq: i64,
) -> Result<SessionView, CoreError> {
    let store = ws.store()?;
    let source = session_of(&store, session_id)?;
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
    let session = session_of(&store, &session.id)?;
    session_view(&store, session)
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

/// Renames the session and sets its model choice (`""` clears it).
pub fn update_session(
    ws: &Workspace,
    session_id: &str,
    change: SessionChange,
) -> Result<SessionView, CoreError> {
    let store = ws.store()?;
    let update = SessionUpdate {
        title: change.title,
        system_prompt: None,
        model_choice: change
            .model_choice
            .map(|m| Some(m).filter(|m| !m.trim().is_empty())),
    };
    let session = store.update_session(session_id, update)?;
    session_view(&store, session)
}

/// Reads the files as a message would carry them: what each holds, or the
/// first refusal (a path the workspace does not let be read, a kind Sift
/// does not read, a missing file, a limit). Reading runs on a blocking
/// thread: a large PDF takes a while.
pub async fn describe_attachments(
    ws: &Workspace,
    paths: Vec<String>,
) -> Result<Vec<AttachmentView>, CoreError> {
    for path in &paths {
        ws.grants().check_read(Path::new(path))?;
    }
    tokio::task::spawn_blocking(move || describe(&paths))
        .await
        .map_err(|e| CoreError::Internal(format!("reading the files stopped unexpectedly: {e}")))?
}

fn describe(paths: &[String]) -> Result<Vec<AttachmentView>, CoreError> {
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let documents = read_documents(&paths, &ReadOptions::default())?;
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

/// Writes an exported conversation (Markdown, JSON or text) to `path`,
/// which the workspace's path policy must allow (in the app: the path a
/// save dialog gave). Only those kinds of file: this writes nothing else.
pub fn write_export(ws: &Workspace, path: &Path, content: &str) -> Result<PathBuf, CoreError> {
    let allowed = matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("md" | "json" | "txt")
    );
    if !allowed {
        return Err(CoreError::Usage(format!(
            "{}: a conversation is exported as .md, .json or .txt",
            path.display()
        )));
    }
    ws.write_file(path, content.as_bytes())
}
