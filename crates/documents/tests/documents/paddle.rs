//! OCR with PaddleOCR's models (installed by scripts/setup.sh into the
//! data directory): the words and their boxes, a receipt photo's values,
//! and where the models are looked for.

use sift_documents::{
    OcrMode, OcrOptions, PADDLE_FILES, ReadOptions, default_data_dir, installed_paddle_dir,
    read_documents,
};

use crate::TempDir;
use crate::ocr::{WORDS, first_ocr, ink_box, words_png};

fn with_paddle() -> ReadOptions {
    let paddle = installed_paddle_dir(&default_data_dir())
        .expect("PaddleOCR's models are in the data directory: run scripts/setup.sh");
    ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            paddle: Some(paddle),
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    }
}

#[test]
fn known_words_come_back_with_their_boxes_from_paddleocr() {
    let dir = TempDir::new();
    let path = words_png(dir.path());
    let documents = read_documents(std::slice::from_ref(&path), &with_paddle()).unwrap();
    let ocr = first_ocr(&documents);
    let words: Vec<&str> = ocr.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["Invoice", "4711", "Total", "571.04"]);
    // One line a row of the page: PaddleOCR has no blocks.
    assert_eq!(ocr.text, "Invoice 4711\nTotal 571.04");
    assert_eq!((ocr.width, ocr.height, ocr.rotation), (1400.0, 480.0, 0));
    let image = image::open(&path).unwrap();
    for (word, (_, x, y)) in ocr.words.iter().zip(WORDS) {
        let ink = ink_box(&image, x - 10, y - 80, (x + 560).min(1400), y + 30);
        let got = [word.left, word.top, word.width, word.height];
        for (g, i) in got.iter().zip(ink) {
            assert!(
                (g - i).abs() <= 3.0,
                "{}: box {got:?}, ink {ink:?}",
                word.text
            );
        }
        assert!(
            word.confidence > 80.0 && word.confidence <= 100.0,
            "{word:?}"
        );
    }
}

#[test]
fn a_receipt_photos_date_and_total_are_read_as_words() {
    let documents = read_documents(&[crate::corpus("sroie_000.jpg")], &with_paddle()).unwrap();
    let ocr = first_ocr(&documents);
    let lines: Vec<&str> = ocr.text.lines().collect();
    // The manifest's date and total, each a word of its own.
    for value in ["25/12/2018", "9.00"] {
        assert!(
            ocr.words.iter().any(|w| w.text == value),
            "{value} is not a word of {lines:#?}"
        );
    }
}

#[test]
fn the_models_are_found_in_a_data_directory_only_when_all_three_are_there() {
    let dir = TempDir::new();
    let paddle = dir.path().join("paddle");
    std::fs::create_dir_all(&paddle).unwrap();
    for name in &PADDLE_FILES[..2] {
        std::fs::write(paddle.join(name), b"").unwrap();
    }
    // Without a bundle (a source checkout's test) the data directory is
    // the one place left to look.
    assert_eq!(installed_paddle_dir(dir.path()), None);
    std::fs::write(paddle.join(PADDLE_FILES[2]), b"").unwrap();
    assert_eq!(installed_paddle_dir(dir.path()), Some(paddle));
}
