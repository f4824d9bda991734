#![no_main]
//! The text reader on arbitrary bytes: it refuses or reads, never panics.

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use sift_documents::{ReadOptions, read_bytes};

fuzz_target!(|data: &[u8]| {
    let _ = read_bytes(Path::new("fuzz.txt"), data.to_vec(), &ReadOptions::default());
});
