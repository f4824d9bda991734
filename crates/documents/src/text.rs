//! Text files: the encoding is detected from the bytes, never guessed from
//! the extension.

use std::path::Path;

use encoding_rs::{Encoding, SHIFT_JIS, WINDOWS_1252};

use crate::DocumentError;

/// Decodes a text file: a UTF-8 or UTF-16 byte-order mark decides; else
/// valid UTF-8 is UTF-8; else text that is valid Shift_JIS and holds kana
/// or kanji is Shift_JIS; else Windows-1252 (which decodes any bytes). Bytes that hold NUL
/// characters without a UTF-16 mark are not text and are refused.
/// Line ends (`\r\n`, `\r`) become `\n`.
pub fn decode(path: &Path, bytes: &[u8]) -> Result<String, DocumentError> {
    let text = decode_bytes(bytes)
        .ok_or_else(|| DocumentError::corrupt(path, "not a text file (it holds binary data)"))?;
    Ok(normalize_newlines(text))
}

/// The decoded text, or `None` for binary data.
pub fn decode_bytes(bytes: &[u8]) -> Option<String> {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        let (text, _) = encoding.decode_without_bom_handling(&bytes[bom_len..]);
        return Some(text.into_owned());
    }
    if bytes.contains(&0) {
        return None;
    }
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Some(text.to_string());
    }
    if let Some(text) = SHIFT_JIS.decode_without_bom_handling_and_without_replacement(bytes)
        && text.chars().any(is_japanese)
    {
        return Some(text.into_owned());
    }
    let (text, _) = WINDOWS_1252.decode_without_bom_handling(bytes);
    Some(text.into_owned())
}

pub fn normalize_newlines(text: String) -> String {
    if !text.contains('\r') {
        return text;
    }
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// Hiragana, katakana (full-width) and CJK ideographs: what a Shift_JIS
/// text holds and a Western single-byte text misread as Shift_JIS rarely does.
fn is_japanese(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}')
}
