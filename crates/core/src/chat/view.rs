//! The chat as the window sees it: sessions with the approvals they wait
//! for, stored messages, the events of a streamed turn and how it ended,
//! and the files a message carries. (The TypeScript of `ui/src/bindings`
//! is generated from these with the `ts` feature.)

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sift_engine::ChatEvent;
use sift_store::{Message as StoredMessage, Session, Store};

use crate::chat::reply::{CutReplyView, cut_reply};
use crate::error::CoreError;

/// A tool call that waits for the user to approve or deny it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ApprovalView {
    /// The model's id for the call; the user's answer names it.
    pub call_id: String,
    /// The name of the tool the model wants to run.
    pub name: String,
    /// JSON text as the model produced it (it may be invalid).
    pub arguments: String,
    /// The file the call reads, as it will be read (`~` expanded, a
    /// relative path made absolute), for a tool that reads one.
    pub reads: Option<String>,
}

/// A chat session as the session list and the chat show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    /// The session's id (`ses_` and a time-sortable id).
    pub id: String,
    /// The session's title; empty until one is set.
    pub title: String,
    /// The session's own system prompt; `None` when it has none.
    pub system_prompt: Option<String>,
    /// `"auto"` or a model name; `None` uses the models the turn is sent with.
    pub model_choice: Option<String>,
    /// Milliseconds since the Unix epoch.
    pub created_at: i64,
    /// When the session last changed (a stored turn, a suspended turn, a
    /// rename), in milliseconds since the Unix epoch.
    pub updated_at: i64,
    /// Tool calls waiting for the user, oldest first.
    pub approvals: Vec<ApprovalView>,
    /// A reply a crash cut, with the message it answered.
    pub cut_reply: Option<CutReplyView>,
}

/// A stored message: its parts as `sift_llm` writes them
/// (`{"type":"text","text"}`, `tool_call`, `tool_result`, `image`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    /// The message's id (`msg_` and a time-sortable id).
    pub id: String,
    /// The message's place in its session, from 1, without gaps.
    pub seq: i64,
    /// `system`, `user`, `assistant` or `tool`.
    pub role: String,
    /// The message's content, a JSON array of parts.
    #[cfg_attr(feature = "ts", ts(type = "Array<Record<string, unknown>>"))]
    pub parts: Value,
    /// Kept for the chat view but never sent back to the model (such as the
    /// text copy of a structured call's answer).
    pub hidden: bool,
    /// When the message was stored, in milliseconds since the Unix epoch.
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum ChatTurnEvent {
    /// First: the key `stop_chat_turn` takes.
    Started {
        /// The running turn's key, for `stop_chat_turn`.
        key: String,
    },
    /// The next piece of the model's reply, in order.
    Text {
        /// The piece's text, to append to what came before.
        text: String,
    },
    /// The model began a tool call; its arguments are still arriving.
    ToolStarted {
        /// The model's id for the call.
        id: String,
        /// The name of the tool called.
        name: String,
    },
    /// A tool call ran (or was denied); its result goes to the model.
    #[serde(rename_all = "camelCase")]
    ToolFinished {
        /// The model's id for the call.
        id: String,
        /// The name of the tool called.
        name: String,
        /// The result as the model will read it.
        content: String,
        /// Whether the result is an error (a failed, unknown or denied call).
        is_error: bool,
    },
    /// The tokens of one model reply.
    #[serde(rename_all = "camelCase")]
    Usage {
        /// Tokens the request sent to the model.
        input_tokens: u64,
        /// Tokens the model generated.
        output_tokens: u64,
    },
    /// The turn waits for the user to approve or deny this call; sent
    /// once the suspended turn is stored.
    ApprovalRequired {
        /// The model's id for the call; the user's answer names it.
        id: String,
        /// The name of the tool the model wants to run.
        name: String,
        /// JSON text as the model produced it (it may be invalid).
        arguments: String,
        /// As [`ApprovalView::reads`].
        reads: Option<String>,
    },
    /// The turn completed and is stored; nothing follows.
    Done,
    /// The turn failed or reached its limit of model requests; nothing follows.
    Error {
        /// `auth`, `network`, `model`, `refusal` or `other`.
        code: String,
        /// What went wrong, for the user to read.
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
                reads: reads(&name, &arguments),
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
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ChatTurnView {
    /// `completed`, `awaitingApproval`, `turnLimited` or `stopped`.
    pub status: String,
    /// The text of the turn's last reply; empty unless completed.
    pub reply: String,
    /// The session as it is after the turn, with any approvals it waits on.
    pub session: SessionView,
    /// The messages this turn stored.
    pub messages: Vec<MessageView>,
}

/// The provider and model the user picked for a turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelChoice {
    /// A provider id of the settings; `null`: the default.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub provider_id: Option<String>,
    /// A model of that provider; `null` or blank: the settings' default model
    /// for the default provider, the local model for a local one.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub model: Option<String>,
}

/// A session's new title and model choice (`""` clears the model choice);
/// `null` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionChange {
    /// The new title.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub title: Option<String>,
    /// The new model choice, `"auto"` or a model name; blank clears it.
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    #[serde(default)]
    pub model_choice: Option<String>,
}

/// A file to go with a message, as the documents crate reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AttachmentView {
    /// The path the file is read from.
    pub path: String,
    /// The file name, without its directory.
    pub name: String,
    /// Characters of text the model will read.
    pub chars: u64,
    /// Images the model will see (photos, scanned pages).
    pub images: u64,
}

fn reads(tool: &str, arguments: &str) -> Option<String> {
    crate::chat::tools::file_to_read(tool, arguments).map(|p| p.display().to_string())
}

/// A stored session with the tool calls it waits on.
pub fn session_view(store: &Store, session: Session) -> Result<SessionView, CoreError> {
    let approvals = store
        .pending_turn(&session.id)?
        .map(|p| {
            p.approvals
                .into_iter()
                .map(|a| ApprovalView {
                    reads: reads(&a.name, &a.arguments),
                    call_id: a.id,
                    name: a.name,
                    arguments: a.arguments,
                })
                .collect()
        })
        .unwrap_or_default();
    let cut_reply = cut_reply(store, &session.id)?;
    Ok(SessionView {
        id: session.id,
        title: session.title,
        system_prompt: session.system_prompt,
        model_choice: session.model_choice,
        created_at: session.created_at,
        updated_at: session.updated_at,
        approvals,
        cut_reply,
    })
}

/// The session `id`, or [`CoreError::NotFound`].
pub fn session_of(store: &Store, id: &str) -> Result<Session, CoreError> {
    store
        .get_session(id)?
        .ok_or_else(|| CoreError::NotFound(format!("no session {id}")))
}
