#![no_main]
//! The OCR input path on arbitrary answers: Tesseract's orientation report
//! and TSV over an arbitrary grey image, parsed, placed, tightened and put
//! in reading order (`sift_documents::page_from_tesseract_answers`). Never
//! panics; every word it keeps has text and finite coordinates.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // [width][scale][osd length][osd][tsv length][tsv][pixels...]
    let [width, scale, osd_len, rest @ ..] = data else {
        return;
    };
    let (osd, rest) = rest.split_at((*osd_len as usize).min(rest.len()));
    let Some((&tsv_len, rest)) = rest.split_first() else {
        return;
    };
    let tsv_len = usize::from(tsv_len) * 4;
    let (tsv, pixels) = rest.split_at(tsv_len.min(rest.len()));
    let page = sift_documents::page_from_tesseract_answers(
        u32::from(*width),
        pixels,
        &String::from_utf8_lossy(osd),
        &String::from_utf8_lossy(tsv),
        f32::from(*scale) / 32.0,
    );
    for word in &page.words {
        assert!(!word.text.trim().is_empty());
        assert!(word.left.is_finite() && word.top.is_finite(), "{word:?}");
        assert!(
            word.width.is_finite() && word.height.is_finite(),
            "{word:?}"
        );
    }
});
