//! A session's history as the model sees it: its messages in order, less
//! the hidden ones (copies kept for chat views only), with the part that a
//! compaction summarised replaced by its summary. The stored messages stay
//! as they are.

use serde_json::{Value, json};
use sift_llm::{Message, Role};
use sift_store::{CallStatus, NewStructuredCall, Store, TurnWrite};

use crate::calls::CallRequest;
use crate::convert::from_stored;
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
fn latest_compaction(store: &Store, session_id: &str) -> Result<Option<(String, i64)>, CoreError> {
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

/// Summarises all but the newest `keep_last` messages of a session with a
/// structured call of kind `compaction`, recorded in the session. From then
/// on the summary stands in for those messages in every request.
pub async fn compact_session(
    store: &Store,
    session_id: &str,
    keep_last: usize,
    request: &CallRequest,
) -> Result<sift_store::StructuredCall, CoreError> {
    let messages: Vec<_> = store
        .messages(session_id)?
        .into_iter()
        .filter(|m| !m.hidden)
        .collect();
    if messages.len() <= keep_last {
        return Err(CoreError::Usage(format!(
            "session {session_id} has {} messages: nothing to compact while keeping {keep_last}",
            messages.len()
        )));
    }
    let older = &messages[..messages.len() - keep_last];
    let through = older.last().map_or(0, |m| m.seq);
    let mut text = String::new();
    if let Some((summary, _)) = latest_compaction(store, session_id)? {
        text.push_str(&summary_message(&summary));
        text.push_str("\n\n");
    }
    for stored in older {
        let message = from_stored(stored)?;
        text.push_str(&render(&message));
        text.push('\n');
    }
    let schema = json!({
        "type": "object",
        "properties": {"summary": {"type": "string", "description": "The summary."}},
        "required": ["summary"],
    });
    let spec_request = CallRequest {
        kind: COMPACTION_KIND.to_owned(),
        system: Some(
            "Summarise the conversation below for whoever continues it: the facts, decisions and open questions, \
             briefly."
                .to_owned(),
        ),
        schema: Some(schema),
        prompt: text,
        session: None,
        ..request.clone()
    };
    // Run standalone (it must not add turns to the session), then record
    // the row in the session, with no messages of its own.
    let call = crate::calls::run_call_unrecorded(&spec_request).await?;
    let mut row: NewStructuredCall = call;
    let mut metadata = row.metadata.as_object().cloned().unwrap_or_default();
    metadata.insert("covers_through_seq".into(), Value::from(through));
    row.metadata = Value::Object(metadata);
    let mut write = TurnWrite::new(session_id);
    write.call = Some(row);
    let commit = store.commit_turn(write)?;
    commit
        .call
        .ok_or_else(|| CoreError::Usage("the compaction was not recorded".to_owned()))
}

fn render(message: &Message) -> String {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = format!("[{role}]");
    for part in &message.parts {
        match part {
            sift_llm::Part::Text { text } => out.push_str(&format!(" {text}")),
            sift_llm::Part::Image(image) => out.push_str(&format!(" [image {}]", image.mime)),
            sift_llm::Part::ToolCall(call) => {
                out.push_str(&format!(" calls {}({})", call.name, call.arguments));
            }
            sift_llm::Part::ToolResult(result) => {
                let content: String = result.content.chars().take(2000).collect();
                out.push_str(&format!(" result: {content}"));
            }
        }
    }
    out
}
