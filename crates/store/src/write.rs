//! Writes. Each public method is one `BEGIN IMMEDIATE` transaction: it
//! takes the write lock first (waiting up to the busy timeout for another
//! process), checks, writes, and commits; any error rolls it all back.
//! Inputs are checked and encoded before the transaction begins.

use std::collections::HashSet;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};
use serde_json::Value;

use crate::Store;
use crate::error::{Result, StoreError};
use crate::ids::{CALL_PREFIX, MESSAGE_PREFIX, PENDING_PREFIX, SESSION_PREFIX, new_id, now_ms};
use crate::model::{
    Message, NewMessage, NewPendingTurn, NewSession, NewStructuredCall, PendingApproval,
    PendingChange, PendingGuard, PendingToolCall, PendingTurn, Session, SessionUpdate,
    StructuredCall, TurnCommit, TurnWrite,
};
use crate::read::{read_pending, read_session};

fn json_text(value: &Value, what: &'static str) -> Result<String> {
    serde_json::to_string(value).map_err(|source| StoreError::Json { what, source })
}

fn optional_json_text(value: Option<&Value>, what: &'static str) -> Result<Option<String>> {
    value.map(|v| json_text(v, what)).transpose()
}

fn tokens(n: u64, what: &str) -> Result<i64> {
    i64::try_from(n).map_err(|_| StoreError::Invalid(format!("{what} {n} is too large")))
}

/// A message checked and encoded for SQL.
struct EncodedMessage {
    parts: String,
    metadata: String,
}

fn encode_message(index: usize, message: &NewMessage) -> Result<EncodedMessage> {
    if !message.parts.is_array() {
        return Err(StoreError::Invalid(format!(
            "message {index}: parts must be a JSON array"
        )));
    }
    Ok(EncodedMessage {
        parts: json_text(&message.parts, "message parts")?,
        metadata: json_text(&message.metadata, "message metadata")?,
    })
}

/// A structured call checked and encoded for SQL.
struct EncodedCall {
    id: String,
    request: String,
    response: Option<String>,
    output: Option<String>,
    input_tokens: i64,
    output_tokens: i64,
    metadata: String,
    transcript: Option<String>,
}

fn encode_call(call: &NewStructuredCall) -> Result<EncodedCall> {
    if call.kind.is_empty() {
        return Err(StoreError::Invalid("a structured call needs a kind".into()));
    }
    let id = match &call.id {
        Some(id) if id.is_empty() => {
            return Err(StoreError::Invalid("a structured call id is empty".into()));
        }
        Some(id) => id.clone(),
        None => new_id(CALL_PREFIX),
    };
    Ok(EncodedCall {
        id,
        request: json_text(&call.request, "call request")?,
        response: optional_json_text(call.response.as_ref(), "call response")?,
        output: optional_json_text(call.output.as_ref(), "call output")?,
        input_tokens: tokens(call.input_tokens, "input_tokens")?,
        output_tokens: tokens(call.output_tokens, "output_tokens")?,
        metadata: json_text(&call.metadata, "call metadata")?,
        transcript: optional_json_text(call.transcript.as_ref(), "call transcript")?,
    })
}

struct EncodedPending {
    transcript: String,
    state: String,
}

fn encode_pending(pending: &NewPendingTurn) -> Result<EncodedPending> {
    if pending.tool_calls.is_empty() && pending.approvals.is_empty() {
        return Err(StoreError::Invalid(
            "a suspended turn must wait on at least one tool call or approval".into(),
        ));
    }
    for (list, what) in [
        (&pending.tool_calls, "pending tool call"),
        (&pending.approvals, "pending approval"),
    ] {
        let mut seen = HashSet::new();
        for call in list {
            if call.id.is_empty() {
                return Err(StoreError::Invalid(format!("a {what} has an empty id")));
            }
            if !seen.insert(call.id.as_str()) {
                return Err(StoreError::Invalid(format!(
                    "{what} id {:?} appears twice",
                    call.id
                )));
            }
        }
    }
    Ok(EncodedPending {
        transcript: json_text(&pending.transcript, "pending transcript")?,
        state: json_text(&pending.state, "pending state")?,
    })
}

enum PendingWrite {
    Keep,
    // Boxed: the rest of the enum carries nothing.
    Set(Box<(NewPendingTurn, EncodedPending)>),
    Clear,
}

/// Inserts a call row and returns it as stored.
fn insert_call(
    tx: &Transaction<'_>,
    call: NewStructuredCall,
    encoded: EncodedCall,
    session_id: Option<&str>,
    span: Option<(i64, i64)>,
    now: i64,
) -> Result<StructuredCall> {
    let created_at = call.created_at.unwrap_or(now);
    tx.prepare_cached(
        "INSERT INTO structured_calls (id, kind, status, request, response, output, \
         input_tokens, output_tokens, error, error_category, metadata, parent_id, session_id, \
         first_seq, last_seq, system_prompt, engine_type, transcript, created_at, finished_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, \
         ?18, ?19, ?20)",
    )?
    .execute(params![
        encoded.id,
        call.kind,
        call.status,
        encoded.request,
        encoded.response,
        encoded.output,
        encoded.input_tokens,
        encoded.output_tokens,
        call.error,
        call.error_category,
        encoded.metadata,
        call.parent_id,
        session_id,
        span.map(|s| s.0),
        span.map(|s| s.1),
        call.system_prompt,
        call.engine_type,
        encoded.transcript,
        created_at,
        now,
    ])?;
    Ok(StructuredCall {
        id: encoded.id,
        kind: call.kind,
        status: call.status,
        request: call.request,
        response: call.response,
        output: call.output,
        input_tokens: call.input_tokens,
        output_tokens: call.output_tokens,
        error: call.error,
        error_category: call.error_category,
        metadata: call.metadata,
        parent_id: call.parent_id,
        session_id: session_id.map(str::to_owned),
        first_seq: span.map(|s| s.0),
        last_seq: span.map(|s| s.1),
        system_prompt: call.system_prompt,
        engine_type: call.engine_type,
        transcript: call.transcript,
        created_at,
        finished_at: now,
    })
}

/// Replaces the session's pending turn and returns it as stored.
fn set_pending(
    tx: &Transaction<'_>,
    session_id: &str,
    pending: NewPendingTurn,
    encoded: EncodedPending,
    now: i64,
) -> Result<PendingTurn> {
    tx.prepare_cached("DELETE FROM pending_turns WHERE session_id = ?1")?
        .execute([session_id])?;
    let id = new_id(PENDING_PREFIX);
    tx.prepare_cached(
        "INSERT INTO pending_turns (session_id, id, transcript, state, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        session_id,
        id,
        encoded.transcript,
        encoded.state,
        now
    ])?;
    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO pending_tool_calls (session_id, position, call_id, name, arguments) \
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for (position, call) in pending.tool_calls.iter().enumerate() {
            insert.execute(params![
                session_id,
                position as i64,
                call.id,
                call.name,
                call.arguments
            ])?;
        }
    }
    {
        let mut insert = tx.prepare_cached(
            "INSERT INTO pending_approvals \
             (session_id, position, call_id, name, arguments, created_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for (position, call) in pending.approvals.iter().enumerate() {
            insert.execute(params![
                session_id,
                position as i64,
                call.id,
                call.name,
                call.arguments,
                now
            ])?;
        }
    }
    Ok(PendingTurn {
        id,
        session_id: session_id.to_owned(),
        transcript: pending.transcript,
        state: pending.state,
        tool_calls: pending.tool_calls,
        approvals: pending
            .approvals
            .into_iter()
            .map(
                |PendingToolCall {
                     id,
                     name,
                     arguments,
                 }| PendingApproval {
                    id,
                    name,
                    arguments,
                    created_at: now,
                },
            )
            .collect(),
        created_at: now,
    })
}

impl Store {
    /// Creates a session.
    pub fn create_session(&self, new: NewSession) -> Result<Session> {
        let now = now_ms();
        let session = Session {
            id: new_id(SESSION_PREFIX),
            title: new.title,
            system_prompt: new.system_prompt,
            model_choice: new.model_choice,
            created_at: now,
            updated_at: now,
        };
        let conn = self.lock();
        conn.prepare_cached(
            "INSERT INTO sessions (id, title, system_prompt, model_choice, created_at, updated_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            session.id,
            session.title,
            session.system_prompt,
            session.model_choice,
            session.created_at,
            session.updated_at
        ])?;
        Ok(session)
    }

    /// Changes a session's title, system prompt or model choice, and bumps
    /// its `updated_at`.
    pub fn update_session(&self, id: &str, update: SessionUpdate) -> Result<Session> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut session =
            read_session(&tx, id)?.ok_or_else(|| StoreError::SessionNotFound(id.to_owned()))?;
        if let Some(title) = update.title {
            session.title = title;
        }
        if let Some(system_prompt) = update.system_prompt {
            session.system_prompt = system_prompt;
        }
        if let Some(model_choice) = update.model_choice {
            session.model_choice = model_choice;
        }
        session.updated_at = now_ms();
        tx.prepare_cached(
            "UPDATE sessions SET title = ?2, system_prompt = ?3, model_choice = ?4, \
             updated_at = ?5 WHERE id = ?1",
        )?
        .execute(params![
            session.id,
            session.title,
            session.system_prompt,
            session.model_choice,
            session.updated_at
        ])?;
        tx.commit()?;
        Ok(session)
    }

    /// Deletes a session with its messages, calls and pending turn; a call
    /// elsewhere that revised one of its calls keeps its row, with no
    /// parent. Returns whether the session existed.
    pub fn delete_session(&self, id: &str) -> Result<bool> {
        let conn = self.lock();
        let deleted = conn
            .prepare_cached("DELETE FROM sessions WHERE id = ?1")?
            .execute([id])?;
        Ok(deleted > 0)
    }

    /// Commits everything one turn of a session wrote, as one transaction:
    ///
    /// 1. checks [`TurnWrite::guard`] against the session's pending turn;
    /// 2. appends `messages` with the session's next sequence numbers;
    /// 3. records `call` (if any) in the session, with the span of those
    ///    messages (`first_seq..=last_seq`; none when there are none);
    /// 4. applies `pending` (set, clear or keep the suspended turn);
    /// 5. bumps the session's `updated_at`.
    ///
    /// On any error (unknown session, guard, a bad parent id, a duplicate
    /// call id, ...) nothing is written.
    pub fn commit_turn(&self, turn: TurnWrite) -> Result<TurnCommit> {
        let TurnWrite {
            session_id,
            guard,
            messages,
            call,
            pending,
        } = turn;
        let encoded_messages = messages
            .iter()
            .enumerate()
            .map(|(i, m)| encode_message(i, m))
            .collect::<Result<Vec<_>>>()?;
        let call = call
            .map(|c| encode_call(&c).map(|encoded| (c, encoded)))
            .transpose()?;
        let pending = match pending {
            PendingChange::Keep => PendingWrite::Keep,
            PendingChange::Set(p) => {
                let encoded = encode_pending(&p)?;
                PendingWrite::Set(Box::new((p, encoded)))
            }
            PendingChange::Clear => PendingWrite::Clear,
        };

        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let now = now_ms();
        let mut session = read_session(&tx, &session_id)?
            .ok_or_else(|| StoreError::SessionNotFound(session_id.clone()))?;

        let found: Option<String> = tx
            .prepare_cached("SELECT id FROM pending_turns WHERE session_id = ?1")?
            .query_row([&session_id], |row| row.get(0))
            .optional()?;
        let expected = match guard {
            PendingGuard::Any => None,
            PendingGuard::Absent => Some(None),
            PendingGuard::Id(id) => Some(Some(id)),
        };
        if let Some(expected) = expected
            && expected != found
        {
            return Err(StoreError::PendingMismatch {
                session_id,
                expected,
                found,
            });
        }

        let last_seq: i64 = tx
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1")?
            .query_row([&session_id], |row| row.get(0))?;
        let mut stored = Vec::with_capacity(messages.len());
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO messages (id, session_id, seq, role, parts, metadata, hidden, \
                 created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for (offset, (message, encoded)) in
                messages.into_iter().zip(encoded_messages).enumerate()
            {
                let row = Message {
                    id: new_id(MESSAGE_PREFIX),
                    session_id: session_id.clone(),
                    seq: last_seq + 1 + offset as i64,
                    role: message.role,
                    parts: message.parts,
                    metadata: message.metadata,
                    hidden: message.hidden,
                    created_at: message.created_at.unwrap_or(now),
                };
                insert.execute(params![
                    row.id,
                    row.session_id,
                    row.seq,
                    row.role,
                    encoded.parts,
                    encoded.metadata,
                    row.hidden,
                    row.created_at
                ])?;
                stored.push(row);
            }
        }
        let span = match (stored.first(), stored.last()) {
            (Some(first), Some(last)) => Some((first.seq, last.seq)),
            _ => None,
        };

        let call = match call {
            Some((call, encoded)) => Some(insert_call(
                &tx,
                call,
                encoded,
                Some(&session_id),
                span,
                now,
            )?),
            None => None,
        };

        let pending = match pending {
            PendingWrite::Keep => read_pending(&tx, &session_id)?,
            PendingWrite::Set(set) => {
                let (p, encoded) = *set;
                Some(set_pending(&tx, &session_id, p, encoded, now)?)
            }
            PendingWrite::Clear => {
                tx.prepare_cached("DELETE FROM pending_turns WHERE session_id = ?1")?
                    .execute([&session_id])?;
                None
            }
        };

        // The turn's messages now hold its reply: the row that kept it as
        // it streamed (`begin_chat_reply`) goes in the same transaction,
        // so a crash leaves one or the other, never both.
        tx.prepare_cached("DELETE FROM chat_replies WHERE session_id = ?1")?
            .execute([&session_id])?;
        tx.prepare_cached("UPDATE sessions SET updated_at = ?2 WHERE id = ?1")?
            .execute(params![session_id, now])?;
        session.updated_at = now;
        tx.commit()?;
        Ok(TurnCommit {
            session,
            messages: stored,
            call,
            pending,
        })
    }

    /// Records a call that belongs to no session, in one transaction. Its
    /// tool loop goes in `transcript`.
    pub fn insert_standalone_call(&self, call: NewStructuredCall) -> Result<StructuredCall> {
        let encoded = encode_call(&call)?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let row = insert_call(&tx, call, encoded, None, None, now_ms())?;
        tx.commit()?;
        Ok(row)
    }
}
