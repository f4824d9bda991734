//! What the client needs from a provider's stream assembler.

use crate::error::LlmError;
use crate::message::{ChatResponse, StreamDelta};
use crate::sse::SseEvent;

/// The most tool calls (OpenAI) or content blocks (Anthropic) one streamed
/// reply may index. Replies have a handful; the index comes from the
/// server, and a slot is kept for every index below it, so an index of
/// 2^64 - 1 must be refused rather than allocated.
pub(crate) const MAX_STREAM_INDEX: u64 = 1024;

/// The error for an index at or above [`MAX_STREAM_INDEX`].
pub(crate) fn index_too_large(what: &str, index: u64) -> LlmError {
    LlmError::new(
        crate::error::ErrorCategory::Other,
        format!(
            "the server streamed {what} {index}; at most {MAX_STREAM_INDEX} are read in one reply"
        ),
    )
}

pub(crate) trait StreamDecoder {
    /// Takes one SSE event, emitting deltas as they become known.
    fn on_event(
        &mut self,
        event: &SseEvent,
        emit: &mut dyn FnMut(StreamDelta),
    ) -> Result<(), LlmError>;
    /// The server sent its final marker; nothing after it is read.
    fn is_finished(&self) -> bool;
    /// The body ended here and the answer is still whole: servers that omit
    /// the final marker have at least sent a stop reason. A body that ends
    /// before that was cut.
    fn is_whole(&self) -> bool;
    fn into_response(self) -> ChatResponse;
}
