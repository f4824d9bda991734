//! What the client needs from a provider's stream assembler.

use crate::error::LlmError;
use crate::message::{ChatResponse, StreamDelta};
use crate::sse::SseEvent;

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
