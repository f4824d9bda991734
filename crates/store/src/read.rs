//! Reads. A read that runs more than one statement runs them in one
//! (deferred) transaction, so it sees one snapshot of the file.

use rusqlite::types::Type;
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::Store;
use crate::error::{Result, StoreError};
use crate::model::{
    JsonText, Message, PendingApproval, PendingToolCall, PendingTurn, Session, StructuredCall,
};

const SESSION_COLUMNS: &str = "id, title, system_prompt, model_choice, created_at, updated_at";

const MESSAGE_COLUMNS: &str = "id, session_id, seq, role, parts, metadata, hidden, created_at";

const CALL_COLUMNS: &str = "id, kind, status, request, response, output, input_tokens, \
     output_tokens, error, error_category, metadata, parent_id, session_id, first_seq, last_seq, \
     system_prompt, engine_type, transcript, created_at, finished_at";

fn session_from_row(row: &Row<'_>) -> rusqlite::Result<Session> {
    Ok(Session {
        id: row.get(0)?,
        title: row.get(1)?,
        system_prompt: row.get(2)?,
        model_choice: row.get(3)?,
        created_at: row.get(4)?,
        updated_at: row.get(5)?,
    })
}

fn message_from_row(row: &Row<'_>) -> rusqlite::Result<Message> {
    Ok(Message {
        id: row.get(0)?,
        session_id: row.get(1)?,
        seq: row.get(2)?,
        role: row.get(3)?,
        parts: row.get::<_, JsonText>(4)?.0,
        metadata: row.get::<_, JsonText>(5)?.0,
        hidden: row.get(6)?,
        created_at: row.get(7)?,
    })
}

fn unsigned(row: &Row<'_>, index: usize) -> rusqlite::Result<u64> {
    let value: i64 = row.get(index)?;
    u64::try_from(value)
        .map_err(|e| rusqlite::Error::FromSqlConversionFailure(index, Type::Integer, Box::new(e)))
}

fn call_from_row(row: &Row<'_>) -> rusqlite::Result<StructuredCall> {
    Ok(StructuredCall {
        id: row.get(0)?,
        kind: row.get(1)?,
        status: row.get(2)?,
        request: row.get::<_, JsonText>(3)?.0,
        response: row.get::<_, Option<JsonText>>(4)?.map(|j| j.0),
        output: row.get::<_, Option<JsonText>>(5)?.map(|j| j.0),
        input_tokens: unsigned(row, 6)?,
        output_tokens: unsigned(row, 7)?,
        error: row.get(8)?,
        error_category: row.get(9)?,
        metadata: row.get::<_, JsonText>(10)?.0,
        parent_id: row.get(11)?,
        session_id: row.get(12)?,
        first_seq: row.get(13)?,
        last_seq: row.get(14)?,
        system_prompt: row.get(15)?,
        engine_type: row.get(16)?,
        transcript: row.get::<_, Option<JsonText>>(17)?.map(|j| j.0),
        created_at: row.get(18)?,
        finished_at: row.get(19)?,
    })
}

pub(crate) fn read_session(conn: &Connection, id: &str) -> Result<Option<Session>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"
        ))?
        .query_row([id], session_from_row)
        .optional()?)
}

fn session_exists(conn: &Connection, id: &str) -> Result<()> {
    let found = conn
        .prepare_cached("SELECT 1 FROM sessions WHERE id = ?1")?
        .exists([id])?;
    if found {
        Ok(())
    } else {
        Err(StoreError::SessionNotFound(id.to_owned()))
    }
}

pub(crate) fn read_pending(conn: &Connection, session_id: &str) -> Result<Option<PendingTurn>> {
    let head = conn
        .prepare_cached(
            "SELECT id, transcript, state, created_at FROM pending_turns WHERE session_id = ?1",
        )?
        .query_row([session_id], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, JsonText>(1)?.0,
                row.get::<_, JsonText>(2)?.0,
                row.get::<_, i64>(3)?,
            ))
        })
        .optional()?;
    let Some((id, transcript, state, created_at)) = head else {
        return Ok(None);
    };
    let tool_calls = conn
        .prepare_cached(
            "SELECT call_id, name, arguments FROM pending_tool_calls \
             WHERE session_id = ?1 ORDER BY position",
        )?
        .query_map([session_id], |row| {
            Ok(PendingToolCall {
                id: row.get(0)?,
                name: row.get(1)?,
                arguments: row.get(2)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    let approvals = conn
        .prepare_cached(
            "SELECT call_id, name, arguments, created_at FROM pending_approvals \
             WHERE session_id = ?1 ORDER BY position",
        )?
        .query_map([session_id], |row| {
            Ok(PendingApproval {
                id: row.get(0)?,
                name: row.get(1)?,
                arguments: row.get(2)?,
                created_at: row.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(Some(PendingTurn {
        id,
        session_id: session_id.to_owned(),
        transcript,
        state,
        tool_calls,
        approvals,
        created_at,
    }))
}

fn query_calls(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> Result<Vec<StructuredCall>> {
    Ok(conn
        .prepare_cached(sql)?
        .query_map(params, call_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?)
}

/// `text` as a LIKE pattern that matches it anywhere, with `\` escaping.
fn contains_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

impl Store {
    pub fn get_session(&self, id: &str) -> Result<Option<Session>> {
        read_session(&self.lock(), id)
    }

    /// Every session, most recently updated first.
    pub fn list_sessions(&self) -> Result<Vec<Session>> {
        let conn = self.lock();
        Ok(conn
            .prepare_cached(&format!(
                "SELECT {SESSION_COLUMNS} FROM sessions ORDER BY updated_at DESC, id DESC"
            ))?
            .query_map([], session_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?)
    }

    /// Every message of a session, by `seq`, hidden ones included (the
    /// engine leaves those out of what it sends to the model).
    pub fn messages(&self, session_id: &str) -> Result<Vec<Message>> {
        self.messages_page(session_id, 0, u32::MAX)
    }

    /// Up to `limit` messages of a session with `seq > after_seq`, by
    /// `seq`. Page on with the last `seq` returned.
    pub fn messages_page(
        &self,
        session_id: &str,
        after_seq: i64,
        limit: u32,
    ) -> Result<Vec<Message>> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        session_exists(&tx, session_id)?;
        let messages = tx
            .prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND seq > ?2 \
                 ORDER BY seq LIMIT ?3"
            ))?
            .query_map(params![session_id, after_seq, limit], message_from_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        tx.finish()?;
        Ok(messages)
    }

    /// The highest `seq` of a session, 0 when it has no message.
    pub fn last_seq(&self, session_id: &str) -> Result<i64> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        session_exists(&tx, session_id)?;
        let last = tx
            .prepare_cached("SELECT COALESCE(MAX(seq), 0) FROM messages WHERE session_id = ?1")?
            .query_row([session_id], |row| row.get(0))?;
        tx.finish()?;
        Ok(last)
    }

    pub fn get_call(&self, id: &str) -> Result<Option<StructuredCall>> {
        let conn = self.lock();
        Ok(conn
            .prepare_cached(&format!(
                "SELECT {CALL_COLUMNS} FROM structured_calls WHERE id = ?1"
            ))?
            .query_row([id], call_from_row)
            .optional()?)
    }

    /// Every structured call, or those of one kind, most recently finished
    /// first.
    pub fn list_calls(&self, kind: Option<&str>) -> Result<Vec<StructuredCall>> {
        let conn = self.lock();
        match kind {
            Some(kind) => query_calls(
                &conn,
                &format!(
                    "SELECT {CALL_COLUMNS} FROM structured_calls WHERE kind = ?1 \
                     ORDER BY finished_at DESC, id DESC"
                ),
                [kind],
            ),
            None => query_calls(
                &conn,
                &format!(
                    "SELECT {CALL_COLUMNS} FROM structured_calls \
                     ORDER BY finished_at DESC, id DESC"
                ),
                [],
            ),
        }
    }

    /// A session's structured calls, in the order they were written.
    pub fn calls_in_session(&self, session_id: &str) -> Result<Vec<StructuredCall>> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        session_exists(&tx, session_id)?;
        let calls = query_calls(
            &tx,
            &format!(
                "SELECT {CALL_COLUMNS} FROM structured_calls WHERE session_id = ?1 \
                 ORDER BY finished_at, id"
            ),
            [session_id],
        )?;
        tx.finish()?;
        Ok(calls)
    }

    /// The calls whose parent is `id` (its revisions), oldest first.
    pub fn revisions(&self, id: &str) -> Result<Vec<StructuredCall>> {
        let conn = self.lock();
        query_calls(
            &conn,
            &format!(
                "SELECT {CALL_COLUMNS} FROM structured_calls WHERE parent_id = ?1 \
                 ORDER BY finished_at, id"
            ),
            [id],
        )
    }

    /// The session's suspended turn, if any.
    pub fn pending_turn(&self, session_id: &str) -> Result<Option<PendingTurn>> {
        let mut conn = self.lock();
        let tx = conn.transaction()?;
        let pending = read_pending(&tx, session_id)?;
        tx.finish()?;
        Ok(pending)
    }

    /// Up to `limit` messages, across sessions, with a text part that
    /// contains `query` (SQLite `LIKE`: case-insensitive for ASCII letters
    /// only; `%` and `_` match themselves). Newest first. An empty query
    /// matches nothing.
    pub fn search_messages(&self, query: &str, limit: u32) -> Result<Vec<Message>> {
        if query.is_empty() {
            return Ok(Vec::new());
        }
        let conn = self.lock();
        Ok(conn
            .prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages AS m WHERE EXISTS ( \
                   SELECT 1 FROM json_each(m.parts) AS p \
                   WHERE json_extract(p.value, '$.type') = 'text' \
                     AND json_extract(p.value, '$.text') LIKE ?1 ESCAPE '\\') \
                 ORDER BY created_at DESC, session_id DESC, seq DESC LIMIT ?2"
            ))?
            .query_map(params![contains_pattern(query), limit], |row| {
                message_from_row(row)
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?)
    }
}
