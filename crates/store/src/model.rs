//! The rows of the store and what a writer hands in to make them. See the
//! crate docs for the conventions (times, ids, JSON) and the rule that no
//! row holds credentials or engine configuration.

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message. The same names as `sift_llm::message::Role`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "system" => Role::System,
            "user" => Role::User,
            "assistant" => Role::Assistant,
            "tool" => Role::Tool,
            _ => return None,
        })
    }
}

/// How a structured call ended. Rows are written only once a call has
/// ended, so there is no running state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallStatus {
    /// A valid output was accepted.
    Completed,
    /// An API error, a refusal or a `max_tokens` stop; see `error` and
    /// `error_category`.
    Failed,
    /// No valid output within the spec's `max_turns`.
    TurnLimited,
}

impl CallStatus {
    pub const fn as_str(self) -> &'static str {
        match self {
            CallStatus::Completed => "completed",
            CallStatus::Failed => "failed",
            CallStatus::TurnLimited => "turn_limited",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "completed" => CallStatus::Completed,
            "failed" => CallStatus::Failed,
            "turn_limited" => CallStatus::TurnLimited,
            _ => return None,
        })
    }
}

/// A conversation. Rows never hold credentials or engine configuration
/// (see [the crate docs](crate#no-credentials-or-engine-configuration)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// `ses_` + a time-sortable id.
    pub id: String,
    /// Empty until set.
    pub title: String,
    /// The session's own system prompt.
    pub system_prompt: Option<String>,
    /// The model choice, e.g. `"auto"`, or a model name; `None` for the
    /// default. A name, never a credential or an endpoint.
    pub model_choice: Option<String>,
    pub created_at: i64,
    /// Bumped by every write to the session (a committed turn, a change of
    /// the pending turn, [`crate::Store::update_session`]).
    pub updated_at: i64,
}

/// What [`crate::Store::create_session`] needs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewSession {
    pub title: String,
    pub system_prompt: Option<String>,
    pub model_choice: Option<String>,
}

/// A change to a session; `None` fields are left as they are. For the
/// nullable ones, `Some(None)` clears the value.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionUpdate {
    pub title: Option<String>,
    pub system_prompt: Option<Option<String>>,
    pub model_choice: Option<Option<String>>,
}

/// One message of a session. Rows never hold credentials or engine
/// configuration
/// (see [the crate docs](crate#no-credentials-or-engine-configuration)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// `msg_` + a time-sortable id.
    pub id: String,
    pub session_id: String,
    /// 1-based, per session, without gaps.
    pub seq: i64,
    pub role: Role,
    /// The message's parts, a JSON array: the engine stores the serde form
    /// of `Vec<sift_llm::message::Part>` (`[{"type":"text","text":...}]`).
    pub parts: Value,
    /// Free JSON for the engine (e.g. `{"text_answer": true}`).
    pub metadata: Value,
    /// Kept for chat views and history tools but never sent back to the
    /// model, like the plain-text copy of a structured call's accepted
    /// output.
    pub hidden: bool,
    pub created_at: i64,
}

/// A message to append; the store gives it its id and `seq`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewMessage {
    pub role: Role,
    /// A JSON array of parts; anything else is refused.
    pub parts: Value,
    pub metadata: Value,
    pub hidden: bool,
    /// When the message was made; `None` means at commit time.
    pub created_at: Option<i64>,
}

impl NewMessage {
    /// A visible message with empty metadata (`{}`).
    pub fn new(role: Role, parts: Value) -> Self {
        Self {
            role,
            parts,
            metadata: Value::Object(serde_json::Map::new()),
            hidden: false,
            created_at: None,
        }
    }

    /// A message of one text part, in `sift_llm`'s serde form.
    pub fn text(role: Role, text: impl Into<String>) -> Self {
        Self::new(
            role,
            serde_json::json!([{"type": "text", "text": text.into()}]),
        )
    }

    pub fn with_metadata(mut self, metadata: Value) -> Self {
        self.metadata = metadata;
        self
    }

    /// Marks the message as never to be sent to the model.
    pub fn hidden(mut self) -> Self {
        self.hidden = true;
        self
    }
}

/// A structured call: a request that ended with a validated output, a
/// failure or a turn limit. Rows never hold credentials or engine
/// configuration
/// (see [the crate docs](crate#no-credentials-or-engine-configuration)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StructuredCall {
    /// `call_` + a time-sortable id.
    pub id: String,
    /// What the call is for, e.g. `"planner"`, `"compaction"`.
    pub kind: String,
    pub status: CallStatus,
    /// What was asked (the engine's form, e.g. `{"prompt": ...}`).
    pub request: Value,
    /// The final model response, if any.
    pub response: Option<Value>,
    /// The accepted, parsed output; `None` unless completed.
    pub output: Option<Value>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub error: Option<String>,
    /// `auth`, `network`, `model`, `refusal` or `other` (the engine's
    /// names; the store does not restrict them).
    pub error_category: Option<String>,
    /// Free JSON, e.g. `{"text_answer": true}`.
    pub metadata: Value,
    /// The call this one revises.
    pub parent_id: Option<String>,
    /// The session the call was a turn of; `None` for a standalone call.
    pub session_id: Option<String>,
    /// The span of the session messages the call wrote (both ends
    /// included); `None` when it wrote none or is standalone.
    pub first_seq: Option<i64>,
    pub last_seq: Option<i64>,
    /// The spec's system prompt.
    pub system_prompt: Option<String>,
    /// The type of engine that ran the call (e.g. `"openai"`,
    /// `"anthropic"`), so that a revision replays on the same type. Never
    /// its configuration.
    pub engine_type: Option<String>,
    /// A standalone call's tool loop (engine-native messages), with
    /// attachment bytes replaced by placeholders.
    pub transcript: Option<Value>,
    /// When the call started.
    pub created_at: i64,
    /// When it ended (and was written).
    pub finished_at: i64,
}

/// A structured call to record. The session, the span and `finished_at`
/// come from how it is written: [`crate::Store::commit_turn`] for a call in
/// a session, [`crate::Store::insert_standalone_call`] otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewStructuredCall {
    /// `None` makes a new `call_` id; an engine that named the call
    /// earlier ([`crate::new_call_id`]) passes it here.
    pub id: Option<String>,
    pub kind: String,
    pub status: CallStatus,
    pub request: Value,
    pub response: Option<Value>,
    pub output: Option<Value>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub error: Option<String>,
    pub error_category: Option<String>,
    pub metadata: Value,
    pub parent_id: Option<String>,
    pub system_prompt: Option<String>,
    pub engine_type: Option<String>,
    pub transcript: Option<Value>,
    /// When the call started; `None` means at commit time.
    pub created_at: Option<i64>,
}

impl NewStructuredCall {
    /// A call with everything else empty (metadata `{}`).
    pub fn new(kind: impl Into<String>, status: CallStatus, request: Value) -> Self {
        Self {
            id: None,
            kind: kind.into(),
            status,
            request,
            response: None,
            output: None,
            input_tokens: 0,
            output_tokens: 0,
            error: None,
            error_category: None,
            metadata: Value::Object(serde_json::Map::new()),
            parent_id: None,
            system_prompt: None,
            engine_type: None,
            transcript: None,
            created_at: None,
        }
    }
}

/// A tool call that a suspended turn waits on: for its result (a
/// host-owned turn) or for the user's approval (a chat turn).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingToolCall {
    /// The model's tool call id.
    pub id: String,
    pub name: String,
    /// The arguments exactly as the model produced them: JSON text that
    /// may be invalid, as in `sift_llm::message::ToolCall::arguments`.
    pub arguments: String,
}

/// A tool call waiting for the user's approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingApproval {
    pub id: String,
    pub name: String,
    /// As in [`PendingToolCall::arguments`].
    pub arguments: String,
    pub created_at: i64,
}

/// A session's suspended turn: what the engine needs to resume it after a
/// restart. A session has at most one. Rows never hold credentials or
/// engine configuration
/// (see [the crate docs](crate#no-credentials-or-engine-configuration)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PendingTurn {
    /// `pnd_` + a time-sortable id, new each time the pending state is
    /// set; [`crate::PendingGuard::Id`] checks it.
    pub id: String,
    pub session_id: String,
    /// The turn's working transcript (engine-native messages not yet
    /// committed to the session).
    pub transcript: Value,
    /// Free JSON for anything else the engine needs to resume (e.g. the
    /// tools that were advertised).
    pub state: Value,
    /// Tool calls whose results the host must supply (seed 003), in the
    /// model's order.
    pub tool_calls: Vec<PendingToolCall>,
    /// Tool calls waiting for the user's approval, in the model's order.
    pub approvals: Vec<PendingApproval>,
    pub created_at: i64,
}

impl PendingTurn {
    /// The ids of every call the turn waits on, tool calls then approvals:
    /// what a refused new message reports (`tool_results_required`).
    pub fn pending_ids(&self) -> Vec<String> {
        self.tool_calls
            .iter()
            .map(|c| c.id.clone())
            .chain(self.approvals.iter().map(|a| a.id.clone()))
            .collect()
    }
}

/// A suspended turn to store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NewPendingTurn {
    pub transcript: Value,
    pub state: Value,
    pub tool_calls: Vec<PendingToolCall>,
    /// Calls waiting for approval; `created_at` is the commit time.
    pub approvals: Vec<PendingToolCall>,
}

/// What a commit does to the session's suspended turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub enum PendingChange {
    /// Leave it as it is.
    #[default]
    Keep,
    /// Replace it (or create it) with a new one, under a new id.
    Set(NewPendingTurn),
    /// Remove it, if any.
    Clear,
}

/// A condition on the session's suspended turn, checked inside the
/// transaction of a commit; if it fails, nothing is written and the commit
/// returns [`crate::StoreError::PendingMismatch`]. This keeps two
/// processes (the desktop app and the CLI) from resuming one turn twice.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PendingGuard {
    /// No check.
    #[default]
    Any,
    /// No turn may be pending (a turn that began with a new user message).
    Absent,
    /// The pending turn must be this one (a turn resumed from it).
    Id(String),
}

/// Everything one chat turn, structured call in a session, or suspension
/// writes, committed as one transaction by [`crate::Store::commit_turn`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnWrite {
    pub session_id: String,
    pub guard: PendingGuard,
    /// Appended in order with the session's next `seq`s.
    pub messages: Vec<NewMessage>,
    /// The structured call this turn was; its span is `messages`.
    pub call: Option<NewStructuredCall>,
    pub pending: PendingChange,
}

impl TurnWrite {
    /// A write to `session_id` that does nothing yet.
    pub fn new(session_id: impl Into<String>) -> Self {
        Self {
            session_id: session_id.into(),
            guard: PendingGuard::Any,
            messages: Vec::new(),
            call: None,
            pending: PendingChange::Keep,
        }
    }
}

/// The rows a [`crate::Store::commit_turn`] wrote, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TurnCommit {
    /// The session after the commit.
    pub session: Session,
    pub messages: Vec<Message>,
    pub call: Option<StructuredCall>,
    /// The suspended turn after the commit.
    pub pending: Option<PendingTurn>,
}

// SQL conversions for the enums, so that an unknown stored value is an
// error rather than a panic or a silent default.

impl ToSql for Role {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for Role {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        Role::parse(text).ok_or_else(|| unknown("role", text))
    }
}

impl ToSql for CallStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for CallStatus {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        CallStatus::parse(text).ok_or_else(|| unknown("call status", text))
    }
}

fn unknown(what: &str, text: &str) -> FromSqlError {
    FromSqlError::Other(format!("unknown {what} {text:?}").into())
}

/// A JSON column read as a [`Value`].
pub(crate) struct JsonText(pub Value);

impl FromSql for JsonText {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        serde_json::from_str(text)
            .map(JsonText)
            .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}
