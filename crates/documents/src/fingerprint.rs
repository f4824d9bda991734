//! What a read of a file depends on, as one string: a result computed
//! from a read (an extraction's evidence) is stale when its fingerprint
//! differs from the file's now.

use sha2::{Digest, Sha256};

use crate::limits::ReadOptions;
use crate::ocr::cache_settings;

/// The SHA-256 of the file's bytes and of the OCR settings that would
/// read it (languages, resolution, the recognition recipe), in hex.
pub fn read_fingerprint(bytes: &[u8], options: &ReadOptions) -> String {
    let mut hasher = Sha256::new();
    hasher.update(bytes);
    hasher.update(b"\n");
    hasher.update(cache_settings(&options.ocr).as_bytes());
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fingerprint_follows_the_bytes_and_the_ocr_languages() {
        let options = ReadOptions::default();
        let a = read_fingerprint(b"one", &options);
        assert_eq!(a.len(), 64);
        assert_eq!(a, read_fingerprint(b"one", &options));
        assert_ne!(a, read_fingerprint(b"two", &options));
        let mut german = ReadOptions::default();
        german.ocr.languages = vec!["deu".into()];
        assert_ne!(a, read_fingerprint(b"one", &german));
    }
}
