//! Entry points for the fuzz targets (`crates/llm/fuzz`): a provider's
//! stream decoding (SSE framing, then its chunk assembler) over arbitrary
//! bytes, as the client runs it on a response body, without a server.

use crate::anthropic::AnthropicStream;
use crate::capabilities::ProviderKind;
use crate::error::LlmError;
use crate::message::ChatResponse;
use crate::openai::OpenAiStream;
use crate::sse::SseDecoder;
use crate::stream::StreamDecoder;

/// Decodes `body` as `provider`'s streamed answer. The body arrives in
/// pieces whose sizes the first byte chooses, so that the fuzzer also
/// tries events and UTF-8 sequences split across reads.
#[doc(hidden)]
pub fn decode_stream(provider: ProviderKind, body: &[u8]) -> Result<ChatResponse, LlmError> {
    match provider {
        ProviderKind::OpenAi => run(OpenAiStream::new("m"), body),
        ProviderKind::Anthropic => run(AnthropicStream::new("m"), body),
    }
}

fn run(mut decoder: impl StreamDecoder, body: &[u8]) -> Result<ChatResponse, LlmError> {
    let (piece, body) = match body.split_first() {
        Some((first, rest)) => (usize::from(*first % 16) + 1, rest),
        None => (1, body),
    };
    let mut sse = SseDecoder::new();
    let mut events = Vec::new();
    let mut emit = |_| {};
    for chunk in body.chunks(piece) {
        sse.feed(chunk, &mut events);
        for event in events.drain(..) {
            decoder.on_event(&event, &mut emit)?;
            if decoder.is_finished() {
                return Ok(decoder.into_response());
            }
        }
    }
    sse.finish(&mut events);
    for event in events.drain(..) {
        decoder.on_event(&event, &mut emit)?;
    }
    Ok(decoder.into_response())
}
