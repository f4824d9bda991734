//! Between the engine's messages and the store's rows.

use serde_json::Value;
use sift_llm::{Message, Part, Role};
use sift_store::{Message as StoredMessage, NewMessage, Role as StoredRole};

use crate::error::CoreError;

pub fn stored_role(role: Role) -> StoredRole {
    match role {
        Role::System => StoredRole::System,
        Role::User => StoredRole::User,
        Role::Assistant => StoredRole::Assistant,
        Role::Tool => StoredRole::Tool,
    }
}

pub fn engine_role(role: StoredRole) -> Role {
    match role {
        StoredRole::System => Role::System,
        StoredRole::User => Role::User,
        StoredRole::Assistant => Role::Assistant,
        StoredRole::Tool => Role::Tool,
    }
}

/// A message to store. Image bytes are not kept: a placeholder stands in.
pub fn to_new_message(message: &Message) -> NewMessage {
    let stored = sift_engine::transcript_for_storage(std::slice::from_ref(message));
    let parts = serde_json::to_value(&stored[0].parts).unwrap_or(Value::Array(Vec::new()));
    NewMessage::new(stored_role(message.role), parts)
}

pub fn from_stored(message: &StoredMessage) -> Result<Message, CoreError> {
    let parts: Vec<Part> = serde_json::from_value(message.parts.clone()).map_err(|e| {
        CoreError::Usage(format!(
            "message {} has parts Sift cannot read: {e}",
            message.id
        ))
    })?;
    Ok(Message {
        role: engine_role(message.role),
        parts,
    })
}

/// A transcript as stored on a call row.
pub fn transcript_value(transcript: &[Message]) -> Value {
    serde_json::to_value(sift_engine::transcript_for_storage(transcript)).unwrap_or(Value::Null)
}

pub fn transcript_from_value(value: &Value) -> Result<Vec<Message>, CoreError> {
    serde_json::from_value(value.clone())
        .map_err(|e| CoreError::Usage(format!("the stored transcript cannot be read: {e}")))
}
