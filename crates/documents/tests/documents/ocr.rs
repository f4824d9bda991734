//! OCR with the real Tesseract: known words with their boxes, rotated
//! scans, blank pages, the errors, the text-only blocks, the cache and
//! progress.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use image::GenericImageView;
use sift_documents::{
    Content, DocumentError, OcrMode, OcrOptions, OcrPage, OnPage, ReadOptions, read_bytes,
    read_documents, render_pdf_page, render_text,
};

use crate::fixtures::{PdfPage, encode_png, pdf, png};
use crate::{TempDir, corpus};

fn always() -> ReadOptions {
    ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    }
}

fn text_only() -> ReadOptions {
    ReadOptions {
        model_takes_images: false,
        ..ReadOptions::default()
    }
}

fn read_path(
    path: &Path,
    options: &ReadOptions,
) -> Result<sift_documents::Documents, DocumentError> {
    read_documents(&[path.to_path_buf()], options)
}

/// The OCR of a file's first page (an image file's, or a PDF's).
pub(crate) fn first_ocr(documents: &sift_documents::Documents) -> OcrPage {
    let document = &documents.files[0];
    match &document.content {
        Content::Pages(pages) => pages[0].ocr.clone().expect("the page was OCR'd"),
        _ => document.ocr.clone().expect("the image was OCR'd"),
    }
}

pub(crate) const WORDS: [(&str, u32, u32); 4] = [
    ("Invoice", 80, 140),
    ("4711", 700, 140),
    ("Total", 80, 360),
    ("571.04", 700, 360),
];

/// A PNG with [`WORDS`] drawn at their baselines in DejaVu Sans 56 px,
/// by ImageMagick (installed by scripts/setup.sh).
pub(crate) fn words_png(dir: &Path) -> PathBuf {
    let path = dir.join("words.png");
    let mut command = std::process::Command::new("convert");
    command.args([
        "-size",
        "1400x480",
        "xc:white",
        "-font",
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "-pointsize",
        "56",
        "-fill",
        "black",
    ]);
    for (word, x, y) in WORDS {
        command.args(["-annotate", &format!("+{x}+{y}"), word]);
    }
    let status = command.arg(&path).status().expect("ImageMagick's convert");
    assert!(status.success());
    path
}

/// The box of the ink in a region of the image: (left, top, width, height).
pub(crate) fn ink_box(image: &image::DynamicImage, x0: u32, y0: u32, x1: u32, y1: u32) -> [f32; 4] {
    let (mut left, mut top, mut right, mut bottom) = (u32::MAX, u32::MAX, 0, 0);
    for y in y0..y1 {
        for x in x0..x1 {
            if image.get_pixel(x, y)[0] < 128 {
                left = left.min(x);
                top = top.min(y);
                right = right.max(x + 1);
                bottom = bottom.max(y + 1);
            }
        }
    }
    [
        left as f32,
        top as f32,
        (right - left) as f32,
        (bottom - top) as f32,
    ]
}

#[test]
fn known_words_come_back_with_their_boxes() {
    let dir = TempDir::new();
    let path = words_png(dir.path());
    let documents = read_path(&path, &always()).unwrap();
    let ocr = first_ocr(&documents);
    let words: Vec<&str> = ocr.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["Invoice", "4711", "Total", "571.04"]);
    assert_eq!(ocr.text, "Invoice 4711\n\nTotal 571.04");
    assert_eq!((ocr.width, ocr.height, ocr.rotation), (1400.0, 480.0, 0));
    let image = image::open(&path).unwrap();
    for (word, (_, x, y)) in ocr.words.iter().zip(WORDS) {
        // The word's ink: from its origin to the next word, one line high.
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
    assert_eq!(
        render_text(&documents),
        "<file name=\"words.png\">\n[Image 1 is words.png.]\nInvoice 4711\n\nTotal 571.04\n</file>"
    );
}

/// A receipt photographed in poor light: faint grey print on a shaded
/// background, with the dark edge of the table at its top and bottom.
/// The edge sets Tesseract's threshold, and the print is lost with the
/// background (plain `tesseract` reads nothing of it).
fn faint_photo(dir: &Path) -> PathBuf {
    let path = dir.join("faint.png");
    let status = std::process::Command::new("convert")
        .args(["-size", "800x1600", "gradient:#f4f4f4-#d4d4d4"])
        .args(["-font", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"])
        .args(["-pointsize", "40", "-fill", "#b4b4b4"])
        .args(["-annotate", "+80+300", "Invoice 4711"])
        .args(["-annotate", "+80+500", "Total 571.04"])
        .args(["-fill", "black", "-draw", "rectangle 0,0 800,20"])
        .args(["-draw", "rectangle 0,1580 800,1600"])
        .arg(&path)
        .status()
        .expect("ImageMagick's convert");
    assert!(status.success());
    path
}

#[test]
fn a_faint_photo_with_a_dark_edge_is_read_with_its_contrast_stretched() {
    let dir = TempDir::new();
    let documents = read_path(&faint_photo(dir.path()), &always()).unwrap();
    let ocr = first_ocr(&documents);
    let words: Vec<&str> = ocr.words.iter().map(|w| w.text.as_str()).collect();
    assert_eq!(words, ["Invoice", "4711", "Total", "571.04"]);
}

const DOCLING_TEXT: &str = "Docling bundles PDF document conversion to\nJSON and Markdown in an easy self contained\npackage";

#[test]
fn a_scanned_page_is_read_with_its_boxes_in_pdf_points() {
    let documents = read_path(&corpus("docling_ocr_test.pdf"), &always()).unwrap();
    let ocr = first_ocr(&documents);
    assert_eq!(ocr.text, DOCLING_TEXT);
    assert_eq!(ocr.rotation, 0);
    let Content::Pages(pages) = &documents.files[0].content else {
        panic!("pages")
    };
    // The page is 595 x 842 points (A4), rendered for OCR at 300 dpi.
    assert_eq!((ocr.width.round(), ocr.height.round()), (595.0, 842.0));
    assert_eq!(pages[0].text, DOCLING_TEXT);
    for w in &ocr.words {
        assert!(w.left >= 0.0 && w.top >= 0.0, "{w:?}");
        assert!(
            w.left + w.width <= ocr.width && w.top + w.height <= ocr.height,
            "{w:?}"
        );
    }
    // A vision model gets the image and the text.
    assert_eq!(
        render_text(&documents),
        format!(
            "<file name=\"docling_ocr_test.pdf\">\n--- page 1: image 1 ---\n{DOCLING_TEXT}\n</file>"
        )
    );
    assert_eq!(documents.images().len(), 1);
}

#[test]
fn a_page_scanned_turned_reads_upright_with_its_boxes_on_the_page() {
    let upright = first_ocr(&read_path(&corpus("docling_ocr_test.pdf"), &always()).unwrap());
    let turned =
        first_ocr(&read_path(&corpus("docling_ocr_test_rotated_90.pdf"), &always()).unwrap());
    assert_eq!(turned.text, DOCLING_TEXT);
    assert_eq!(turned.rotation, 90);
    // The page lies on its side: its words run down it.
    assert_eq!(
        (turned.width.round(), turned.height.round()),
        (842.0, 595.0)
    );
    assert_eq!(turned.words.len(), upright.words.len());
    for (t, u) in turned.words.iter().zip(&upright.words) {
        assert_eq!(t.text, u.text);
        assert!(t.height > t.width || t.text.len() <= 2, "{t:?}");
        // The page was turned a quarter counter-clockwise: the upright
        // page's top edge is the sideways page's left edge.
        let (left, top) = (u.top, turned.height - (u.left + u.width));
        assert!(
            (t.left - left).abs() <= 4.0 && (t.top - top).abs() <= 4.0,
            "{t:?} {u:?}"
        );
    }
}

#[test]
fn an_image_turned_180_or_270_degrees_reads_upright() {
    let (page, _) = render_pdf_page(
        &corpus("docling_ocr_test.pdf"),
        0,
        2480,
        &ReadOptions::default(),
    )
    .unwrap();
    let image = image::load_from_memory(&page.data).unwrap();
    for (degrees, turned) in [(180, image.rotate180()), (270, image.rotate270())] {
        let name = format!("turned_{degrees}.png");
        let document = read_bytes(Path::new(&name), encode_png(&turned), &always()).unwrap();
        let ocr = document.ocr.clone().unwrap();
        assert_eq!(ocr.text, DOCLING_TEXT, "{name}");
        assert_eq!(ocr.rotation, 360 - degrees, "{name}");
    }
}

#[test]
fn a_blank_page_gives_no_text() {
    let document = read_bytes(
        Path::new("blank.png"),
        png(1200, 1600, [255, 255, 255]),
        &always(),
    )
    .unwrap();
    let ocr = document.ocr.clone().unwrap();
    assert_eq!((ocr.text.as_str(), ocr.words.len()), ("", 0));
    let documents = sift_documents::Documents {
        files: vec![document],
    };
    assert_eq!(
        render_text(&documents),
        "<file name=\"blank.png\">\n[Image 1 is blank.png.]\n</file>"
    );
    let document = read_bytes(
        Path::new("blank.png"),
        png(1200, 1600, [255, 255, 255]),
        &text_only(),
    )
    .unwrap();
    assert_eq!(
        render_text(&sift_documents::Documents {
            files: vec![document]
        }),
        "<file name=\"blank.png\">\n[Image omitted: blank.png; the model reads its text.]\n</file>"
    );
}

#[test]
fn a_missing_language_pack_names_its_package() {
    // Yoruba: scripts/setup.sh never installs tesseract-ocr-yor.
    let options = ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            languages: vec!["eng".into(), "yor".into()],
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    };
    let path = corpus("sroie_000.jpg");
    let error = read_path(&path, &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: OCR in the language \"yor\" needs its Tesseract language pack; install it with `apt-get install tesseract-ocr-yor`",
            path.display()
        )
    );
    assert!(matches!(error, DocumentError::Ocr { .. }));
}

#[test]
fn without_tesseract_the_error_names_its_package() {
    let dir = TempDir::new();
    let missing = dir.path().join("no-tesseract");
    let options = ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            tesseract: Some(missing.clone()),
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    };
    let path = corpus("sroie_000.jpg");
    let error = read_path(&path, &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: OCR needs Tesseract, which cannot be run ({}: No such file or directory (os error 2)); install it with `apt-get install tesseract-ocr` (scripts/setup.sh does)",
            path.display(),
            missing.display()
        )
    );
}

#[test]
fn a_corrupt_image_is_refused_as_corrupt_before_any_ocr() {
    let error = read_bytes(
        Path::new("broken.png"),
        b"\x89PNG\r\n\x1a\nnot really".to_vec(),
        &always(),
    )
    .unwrap_err();
    assert!(matches!(error, DocumentError::Corrupt { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with("broken.png: cannot be read: "),
        "{error}"
    );
}

#[test]
fn a_model_that_cannot_take_images_gets_the_text_and_no_image() {
    let receipt = corpus("sroie_000.jpg");
    let documents = read_path(&receipt, &text_only()).unwrap();
    assert!(documents.images().is_empty());
    let ocr = first_ocr(&documents);
    assert!(ocr.text.contains("9.00"), "{}", ocr.text);
    assert_eq!(
        render_text(&documents),
        format!(
            "<file name=\"sroie_000.jpg\">\n[Image omitted: sroie_000.jpg; the model reads its text.]\n{}\n</file>",
            ocr.text
        )
    );

    let scan = corpus("docling_ocr_test.pdf");
    let documents = read_path(&scan, &text_only()).unwrap();
    assert!(documents.images().is_empty());
    assert_eq!(
        render_text(&documents),
        format!(
            "<file name=\"docling_ocr_test.pdf\">\n--- page 1: image omitted, the model reads its text ---\n{DOCLING_TEXT}\n</file>"
        )
    );

    // OCR off: the image is still left out, and the block says only that.
    let off = ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Off,
            ..OcrOptions::default()
        },
        ..text_only()
    };
    let documents = read_documents(&[scan, receipt], &off).unwrap();
    assert!(documents.images().is_empty());
    assert_eq!(
        render_text(&documents),
        "<file name=\"docling_ocr_test.pdf\">\n--- page 1: image omitted ---\n</file>\n\n<file name=\"sroie_000.jpg\">\n[Image omitted: sroie_000.jpg.]\n</file>"
    );
}

#[test]
fn a_garbage_text_layer_is_replaced_by_ocr_and_a_good_one_is_kept() {
    // pdf.js's scan carries the invisible text "pdf.js" only.
    let documents = read_path(&corpus("pdfjs_scan-bad.pdf"), &always()).unwrap();
    let Content::Pages(pages) = &documents.files[0].content else {
        panic!("pages")
    };
    // OCR'd: the scan shows the same two words large, which OCR reads
    // with their box.
    let ocr = pages[0].ocr.as_ref().expect("OCR'd");
    assert_eq!(
        (pages[0].text.as_str(), ocr.text.as_str()),
        ("pdf.js", "pdf.js")
    );
    assert_eq!(ocr.words.len(), 1);

    let layer = "Invoice number 4711 of 15 November 2024, total 571.04 EUR";
    let scanned_with_layer = PdfPage {
        invisible: Some(layer),
        ..PdfPage::scan(900, 300)
    };
    let document = read_bytes(
        Path::new("layer.pdf"),
        pdf(&[scanned_with_layer]),
        &always(),
    )
    .unwrap();
    let Content::Pages(pages) = &document.content else {
        panic!("pages")
    };
    assert_eq!(
        (pages[0].text.as_str(), pages[0].ocr.is_none()),
        (layer, true)
    );
}

#[test]
fn a_page_is_never_ocrd_twice_with_a_cache() {
    let cache = TempDir::new();
    let with_cache = |tesseract: Option<PathBuf>| ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            cache_dir: Some(cache.path().to_path_buf()),
            tesseract,
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    };
    let paths = [corpus("docling_ocr_test.pdf"), corpus("sroie_000.jpg")];
    let first = read_documents(&paths, &with_cache(None)).unwrap();
    // No Tesseract at all the second time: every page comes from the cache.
    let nowhere = cache.path().join("no-tesseract");
    let again = read_documents(&paths, &with_cache(Some(nowhere.clone()))).unwrap();
    assert_eq!(again, first);
    // Other languages are other settings: recognised again (and failing here).
    let mut other = with_cache(Some(nowhere));
    other.ocr.languages = vec!["deu".into()];
    assert!(matches!(
        read_documents(&paths, &other),
        Err(DocumentError::Ocr { .. })
    ));
}

#[test]
fn progress_is_told_page_by_page() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            ..OcrOptions::default()
        },
        on_page: Some(OnPage::new(move |p| {
            sink.lock().unwrap().push((p.done, p.total));
        })),
        ..ReadOptions::default()
    };
    let pages = [
        PdfPage::scan(200, 200),
        PdfPage::text(200, 200, &["A page with text"]),
        PdfPage::scan(200, 200),
    ];
    read_bytes(Path::new("three.pdf"), pdf(&pages), &options).unwrap();
    let mut seen = seen.lock().unwrap().clone();
    seen.sort_unstable();
    assert_eq!(seen, [(1, 3), (2, 3), (3, 3)]);
}
