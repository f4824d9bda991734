//! A session's history as the model sees it: its messages in order, less
//! the hidden ones (copies kept for chat views only), with the part that a
//! compaction summarised replaced by its summary. The stored messages stay
//! as they are. Making a compaction is in [`crate::calls::compaction`], which
//! runs a call; reading one is here, where every call's history is built.

use sift_llm::{Message, Role};
use sift_store::{CallStatus, Store};

use crate::calls::convert::from_stored;
use crate::error::CoreError;

/// The kind of the structured calls that summarise a session.
pub const COMPACTION_KIND: &str = "compaction";

/// The text that stands in for compacted messages.
pub fn summary_message(summary: &str) -> String {
    format!(
        "Summary of the earlier part of this conversation, which is no longer shown:\n{summary}"
    )
}

/// The newest completed compaction of a session: the summary, and the last
/// message `seq` it covers.
pub(crate) fn latest_compaction(
    store: &Store,
    session_id: &str,
) -> Result<Option<(String, i64)>, CoreError> {
    let calls = store.calls_in_session(session_id)?;
    Ok(calls
        .iter()
        .filter(|c| c.kind == COMPACTION_KIND && c.status == CallStatus::Completed)
        .filter_map(|c| {
            let summary = c.output.as_ref()?.get("summary")?.as_str()?.to_owned();
            let through = c.metadata.get("covers_through_seq")?.as_i64()?;
            Some((summary, through))
        })
        .max_by_key(|(_, through)| *through))
}

/// The session's messages for the next request (system messages included;
/// callers that build their own system prompt drop them).
pub fn model_history(store: &Store, session_id: &str) -> Result<Vec<Message>, CoreError> {
    let compaction = latest_compaction(store, session_id)?;
    let mut history = Vec::new();
    let mut summary_placed = false;
    for stored in store.messages(session_id)? {
        if stored.hidden {
            continue;
        }
        let message = from_stored(&stored)?;
        if let Some((summary, through)) = &compaction
            && stored.seq <= *through
            && message.role != Role::System
        {
            if !summary_placed {
                history.push(Message::user(summary_message(summary)));
                summary_placed = true;
            }
            continue;
        }
        history.push(message);
    }
    Ok(history)
}
