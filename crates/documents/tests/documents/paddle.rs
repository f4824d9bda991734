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
fn characters_paddleocrs_alphabet_lacks_come_from_tesseract() {
    let dir = TempDir::new();
    let path = dir.path().join("euro.png");
    let mut command = std::process::Command::new("convert");
    command.args(["-size", "1400x360", "xc:white", "-font"]);
    command.args([
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "-pointsize",
        "56",
    ]);
    for (line, y) in [
        ("Hauptstraße 12", 90),
        ("Gesamtbetrag: € 4.904,94", 190),
        ("Netto 49,90 €", 290),
    ] {
        command.args(["-annotate", &format!("+40+{y}"), line]);
    }
    assert!(
        command
            .arg(&path)
            .status()
            .expect("ImageMagick's convert")
            .success()
    );
    let mut options = with_paddle();
    options.ocr.languages = vec!["eng".into(), "deu".into()];
    let documents = read_documents(std::slice::from_ref(&path), &options).unwrap();
    // PaddleOCR alone reads `HauptstraBe 12`, `Gesamtbetrag: 4.904,94`
    // and `Netto 49,90`: its alphabet has no `ß` and no `€`.
    assert_eq!(
        first_ocr(&documents).text,
        "Hauptstraße 12\nGesamtbetrag: € 4.904,94\nNetto 49,90 €"
    );
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
