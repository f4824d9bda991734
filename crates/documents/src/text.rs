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

/// The least base64 an element holds for [`without_binary_content`] to
/// leave it out: a digest or a key is shorter, an attached file longer.
const BINARY_RUN: usize = 1024;

/// An XML file's text with the base64 content of each element (a PDF or
/// an image attached to an e-invoice, in UBL's
/// `EmbeddedDocumentBinaryObject` or CII's `AttachmentBinaryObject`)
/// replaced by a note of its size: it is no text a reader can use, and a
/// few attached megabytes would put the file over the text limit.
pub fn without_binary_content(text: String) -> String {
    let is_base64 = |b: u8| b.is_ascii_alphanumeric() || b"+/=\r\n\t ".contains(&b);
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut at = 0;
    while let Some(open) = text[at..].find('>').map(|i| at + i + 1) {
        let close = text[open..].find('<').map_or(text.len(), |i| open + i);
        let run = &bytes[open..close];
        let encoded = run.iter().filter(|b| !b.is_ascii_whitespace()).count();
        if encoded >= BINARY_RUN && run.iter().all(|b| is_base64(*b)) {
            out.push_str(&text[copied..open]);
            out.push_str(&format!(
                "[{} bytes of base64 data left out]",
                encoded / 4 * 3
            ));
            copied = close;
        }
        at = close;
    }
    if copied == 0 {
        return text;
    }
    out.push_str(&text[copied..]);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_content_of_an_xml_element_is_left_out_with_its_size() {
        let blob = "QUJD".repeat(300);
        let xml = format!(
            "<Invoice><ID>INV-7</ID><Note>{}</Note><Object mimeCode=\"application/pdf\">\n{blob}\n</Object><Total>12.00</Total></Invoice>",
            "short note"
        );
        assert_eq!(
            without_binary_content(xml),
            "<Invoice><ID>INV-7</ID><Note>short note</Note><Object mimeCode=\"application/pdf\">[900 bytes of base64 data left out]</Object><Total>12.00</Total></Invoice>"
        );
        // A short run of letters and digits is text, whatever it looks like.
        let key = "<Key>QUJDRA==</Key>".to_owned();
        assert_eq!(without_binary_content(key.clone()), key);
    }
}
