#![no_main]
//! A streamed Anthropic answer from arbitrary bytes: SSE framing, then the chunk
//! assembler. It ends with an answer or an error, never a panic, a hang or
//! an allocation sized by what the bytes claim.

use libfuzzer_sys::fuzz_target;
use sift_llm::ProviderKind;
use sift_llm::fuzzing::decode_stream;

fuzz_target!(|data: &[u8]| {
    let _ = decode_stream(ProviderKind::Anthropic, data);
});
