//! Compacting a session: a structured call summarises its older messages,
//! and from then on `history::model_history` puts the summary in
//! their place.

use serde_json::{Value, json};
use sift_llm::{Message, Role};
use sift_store::{NewStructuredCall, Store, TurnWrite};

use crate::calls::convert::from_stored;
use crate::calls::history::{COMPACTION_KIND, latest_compaction, summary_message};
use crate::calls::{CallRequest, run_call_unrecorded};
use crate::error::CoreError;

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
    let call = run_call_unrecorded(&spec_request).await?;
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
