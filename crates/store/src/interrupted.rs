//! Work a crash cut short: the owners of running work, the one transition
//! of an owner's work to interrupted, and chat replies as they stream.
//!
//! Which owners are gone is not the store's to decide (it knows no
//! processes): `sift-core` asks [`Store::running_owners`], checks each,
//! and calls [`Store::interrupt_owner`] for those that are gone.

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use crate::{Result, Store, now_ms};

/// What [`Store::interrupt_owner`] marked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interrupted {
    pub jobs: Vec<String>,
    pub runs: Vec<String>,
    /// The sessions whose reply was cut.
    pub replies: Vec<String>,
}

impl Interrupted {
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty() && self.runs.is_empty() && self.replies.is_empty()
    }
}

/// A chat reply as it streams: the user's message it answers and the
/// text so far. Neither is in the session's messages until the turn
/// commits, which deletes this row; one left by a process that is gone
/// is a reply the crash cut (`interrupted_at`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatReply {
    pub session_id: String,
    /// The user's message as the model got it (attached files' text
    /// included).
    pub prompt: String,
    pub reply: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub interrupted_at: Option<i64>,
}

fn ids(tx: &Transaction<'_>, sql: &str, owner: Option<&str>, now: i64) -> Result<Vec<String>> {
    let mut stmt = tx.prepare(sql)?;
    let rows = stmt
        .query_map(params![owner, now], |row| row.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(rows)
}

impl Store {
    /// The owners of work still running (not yet marked interrupted):
    /// jobs, workflow runs and chat replies. `None` is work written
    /// without an owner (by a build before owners were kept).
    pub fn running_owners(&self) -> Result<Vec<Option<String>>> {
        let conn = self.lock();
        let mut stmt = conn.prepare(
            "SELECT owner FROM extraction_jobs WHERE status = 'running' AND interrupted_at IS NULL \
             UNION SELECT owner FROM workflow_runs WHERE status = 'running' AND interrupted_at IS NULL \
             UNION SELECT owner FROM chat_replies WHERE interrupted_at IS NULL",
        )?;
        let owners = stmt
            .query_map([], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(owners)
    }

    /// Marks the running work of `owner` interrupted, in one transaction:
    /// its jobs (resumable), its runs with their running steps, and its
    /// chat replies. Work another process has since taken over (a resume
    /// writes its own owner) is left alone, and marking twice marks
    /// nothing the second time.
    pub fn interrupt_owner(&self, owner: Option<&str>) -> Result<Interrupted> {
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let now = now_ms();
        let jobs = ids(
            &tx,
            "UPDATE extraction_jobs SET interrupted_at = ?2 \
             WHERE status = 'running' AND interrupted_at IS NULL AND owner IS ?1 RETURNING id",
            owner,
            now,
        )?;
        let runs = ids(
            &tx,
            "UPDATE workflow_runs SET interrupted_at = ?2 \
             WHERE status = 'running' AND interrupted_at IS NULL AND owner IS ?1 RETURNING id",
            owner,
            now,
        )?;
        for run in &runs {
            tx.execute(
                "UPDATE workflow_steps SET interrupted_at = ?2 \
                 WHERE run_id = ?1 AND status = 'running' AND interrupted_at IS NULL",
                params![run, now],
            )?;
        }
        let replies = ids(
            &tx,
            "UPDATE chat_replies SET interrupted_at = ?2 \
             WHERE interrupted_at IS NULL AND owner IS ?1 RETURNING session_id",
            owner,
            now,
        )?;
        tx.commit()?;
        let mut marked = Interrupted {
            jobs,
            runs,
            replies,
        };
        marked.jobs.sort();
        marked.runs.sort();
        marked.replies.sort();
        Ok(marked)
    }

    /// Starts the reply to `prompt` in a session, replacing a reply a
    /// crash cut there (a new turn, or a regenerated one, supersedes it).
    pub fn begin_chat_reply(&self, session_id: &str, prompt: &str) -> Result<()> {
        let now = now_ms();
        self.lock().execute(
            "INSERT OR REPLACE INTO chat_replies \
             (session_id, prompt, reply, owner, created_at, updated_at, interrupted_at) \
             VALUES (?1, ?2, '', ?3, ?4, ?4, NULL)",
            params![session_id, prompt, self.owner(), now],
        )?;
        Ok(())
    }

    /// The reply's text so far. Changes nothing once the reply has ended
    /// or was marked interrupted, or when another handle started it.
    pub fn update_chat_reply(&self, session_id: &str, reply: &str) -> Result<()> {
        self.lock().execute(
            "UPDATE chat_replies SET reply = ?2, updated_at = ?3 \
             WHERE session_id = ?1 AND owner IS ?4 AND interrupted_at IS NULL",
            params![session_id, reply, now_ms(), self.owner()],
        )?;
        Ok(())
    }

    /// Ends a reply that this handle started and that stored nothing (a
    /// failed or stopped turn); a committed turn deletes its reply itself.
    pub fn end_chat_reply(&self, session_id: &str) -> Result<()> {
        self.lock().execute(
            "DELETE FROM chat_replies \
             WHERE session_id = ?1 AND owner IS ?2 AND interrupted_at IS NULL",
            params![session_id, self.owner()],
        )?;
        Ok(())
    }

    /// Forgets a session's cut reply (the user dismissed it).
    pub fn discard_chat_reply(&self, session_id: &str) -> Result<bool> {
        let n = self.lock().execute(
            "DELETE FROM chat_replies WHERE session_id = ?1 AND interrupted_at IS NOT NULL",
            [session_id],
        )?;
        Ok(n > 0)
    }

    /// The session's reply in flight or cut, if any.
    pub fn chat_reply(&self, session_id: &str) -> Result<Option<ChatReply>> {
        let conn = self.lock();
        let reply = conn
            .query_row(
                "SELECT session_id, prompt, reply, created_at, updated_at, interrupted_at \
                 FROM chat_replies WHERE session_id = ?1",
                [session_id],
                |row| {
                    Ok(ChatReply {
                        session_id: row.get(0)?,
                        prompt: row.get(1)?,
                        reply: row.get(2)?,
                        created_at: row.get(3)?,
                        updated_at: row.get(4)?,
                        interrupted_at: row.get(5)?,
                    })
                },
            )
            .optional()?;
        Ok(reply)
    }
}
