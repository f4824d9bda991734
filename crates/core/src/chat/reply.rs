//! A chat reply kept as it streams, so that a crash loses no work: the
//! user's message and the text so far are written as they come (the
//! store's `chat_replies`), and go when the turn commits its messages
//! (in the same transaction) or ends storing nothing (failed, stopped).
//! After a crash the row is marked interrupted (`interrupted.rs`)
//! and the chat shows the reply as cut, with Regenerate.

use serde::Serialize;
use sift_store::Store;

use crate::error::CoreError;

/// A new turn's reply being written.
pub(crate) struct ReplyRecord {
    store: Store,
    session_id: String,
    text: String,
}

impl ReplyRecord {
    /// Writes the user's message (as the model gets it) before the first
    /// request, replacing a reply cut earlier in the session.
    pub(crate) fn begin(store: &Store, session_id: &str, prompt: &str) -> Result<Self, CoreError> {
        store.begin_chat_reply(session_id, prompt)?;
        Ok(Self {
            store: store.clone(),
            session_id: session_id.to_owned(),
            text: String::new(),
        })
    }

    /// Adds a piece of the reply's text and writes the text so far.
    pub(crate) fn text(&mut self, piece: &str) {
        self.text.push_str(piece);
        // Best effort: a reply that cannot be kept still streams, and the
        // turn's commit reports a store that fails.
        let _ = self.store.update_chat_reply(&self.session_id, &self.text);
    }
}

impl Drop for ReplyRecord {
    /// However the turn ended: after a commit the row is already gone,
    /// and a failed or stopped turn stores nothing, its reply included.
    fn drop(&mut self) {
        let _ = self.store.end_chat_reply(&self.session_id);
    }
}

/// A reply a crash cut, as the chat shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CutReplyView {
    /// The user's message it answered (not among the session's messages:
    /// Regenerate sends it again).
    pub prompt: String,
    /// The reply's text when it was cut.
    pub reply: String,
    /// Milliseconds since the Unix epoch.
    pub cut_at: i64,
}

/// The session's cut reply, if a crash left one.
pub fn cut_reply(store: &Store, session_id: &str) -> Result<Option<CutReplyView>, CoreError> {
    Ok(store.chat_reply(session_id)?.and_then(|r| {
        r.interrupted_at.map(|cut_at| CutReplyView {
            prompt: r.prompt,
            reply: r.reply,
            cut_at,
        })
    }))
}
