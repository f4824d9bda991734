#![no_main]
//! The GGUF header reader on arbitrary bytes: it refuses or reads, never
//! panics, and never allocates by the lengths the bytes claim.

use libfuzzer_sys::fuzz_target;
use sift_llm::gguf::parse_gguf_header;

fuzz_target!(|data: &[u8]| {
    if let Ok(header) = parse_gguf_header(data) {
        let _ = header.info(data.len() as u64);
    }
});
