//! Text files: encodings detected from the bytes.

use sift_documents::Content;

use crate::{TempDir, read_one};

fn text_of(name: &str, bytes: &[u8]) -> String {
    let dir = TempDir::new();
    let documents = read_one(&dir.write(name, bytes)).expect("read");
    match &documents.files[0].content {
        Content::Text(text) => text.clone(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn utf8_with_and_without_a_bom() {
    assert_eq!(
        text_of("a.txt", "Zürich 12,50 €".as_bytes()),
        "Zürich 12,50 €"
    );
    assert_eq!(
        text_of("b.csv", b"\xEF\xBB\xBFname;total\nZ\xC3\xBCrich;12,50\n"),
        "name;total\nZürich;12,50\n"
    );
}

#[test]
fn utf16_with_either_bom() {
    let le: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain("Grüße\r\n日本".encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    assert_eq!(text_of("le.txt", &le), "Grüße\n日本");
    let be: Vec<u8> = [0xFE, 0xFF]
        .into_iter()
        .chain("Grüße 日本".encode_utf16().flat_map(u16::to_be_bytes))
        .collect();
    assert_eq!(text_of("be.log", &be), "Grüße 日本");
}

#[test]
fn shift_jis_is_detected_whatever_the_extension() {
    // 請求書 合計 ¥1,200 (invoice, total) in Shift_JIS.
    let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("請求書\r\n合計 ￥1,200");
    for name in ["invoice.txt", "invoice.csv", "invoice.json"] {
        assert_eq!(text_of(name, &bytes), "請求書\n合計 ￥1,200", "{name}");
    }
}

#[test]
fn other_single_byte_text_falls_back_to_windows_1252() {
    // "café 5€" in Windows-1252: not UTF-8, and not valid Shift_JIS.
    assert_eq!(text_of("menu.txt", b"caf\xE9 5\x80"), "café 5€");
}

#[test]
fn line_ends_become_newlines() {
    assert_eq!(
        text_of("crlf.md", b"one\r\ntwo\rthree\n"),
        "one\ntwo\nthree\n"
    );
}

#[test]
fn western_text_that_happens_to_be_valid_shift_jis_is_not_misread() {
    // "°C ©" in Windows-1252: each high byte is a half-width katakana in Shift_JIS.
    assert_eq!(text_of("temp.txt", b"20\xB0C \xA9"), "20°C ©");
}
