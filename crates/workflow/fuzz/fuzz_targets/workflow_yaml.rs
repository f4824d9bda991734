#![no_main]
//! A workflow file from arbitrary text: parsed and validated with dagu's
//! rules, it loads or is refused with messages, never a panic or a hang.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = sift_workflow::load(text);
    }
});
