//! `sift read` as a black box: what a model would receive, and refusals.

use std::path::PathBuf;

use tokio::process::Command;

use serde_json::json;

use crate::{installed_pdfium, run, sift, stderr, stdout};

/// A corpus file, by the path `sift` reports (without `..`).
fn corpus(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    std::fs::canonicalize(dir).unwrap().join(name)
}

/// A directory of its own for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-read-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `sift` with a data directory of its own, `data` in `scratch` (so its
/// OCR cache is not the user's), PDFium still found where the set-up put
/// it.
fn sift_in(scratch: &Scratch) -> Command {
    let mut command = sift();
    command
        .env("SIFT_DATA_DIR", scratch.0.join("data"))
        .env("SIFT_PDFIUM", installed_pdfium());
    command
}

#[tokio::test]
async fn prints_the_text_then_a_line_per_image() {
    let scratch = Scratch::new("text");
    std::fs::write(scratch.0.join("note.txt"), "Total: 12.50\n").unwrap();
    std::fs::copy(corpus("sroie_000.jpg"), scratch.0.join("receipt.jpg")).unwrap();
    let output = run(sift()
        .current_dir(&scratch.0)
        .args(["read", "--ocr", "off", "note.txt", "*.jpg"]))
    .await;
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    let out = stdout(&output);
    let (text, image_line) = out.rsplit_once("</file>\n").unwrap();
    assert_eq!(
        text,
        "<file name=\"note.txt\">\nTotal: 12.50\n</file>\n\n<file name=\"receipt.jpg\">\n[Image 1 is receipt.jpg.]\n"
    );
    let bytes = image_line
        .trim_end()
        .rsplit_once(", ")
        .unwrap()
        .1
        .trim_end_matches(" bytes]")
        .parse::<usize>()
        .unwrap();
    assert_eq!(
        image_line,
        format!("[image 1: receipt.jpg, image/jpeg, 463x1013, {bytes} bytes]\n")
    );
    assert!(bytes > 10_000 && bytes <= 98_120, "{bytes}");
}

#[tokio::test]
async fn json_gives_the_text_and_each_image() {
    let output = run(sift()
        .args(["read", "--json", "--ocr", "off"])
        .arg(corpus("docling_ocr_test.pdf"))
        .arg(corpus("i2d_Orlen.txt")))
    .await;
    assert_eq!(
        (stderr(&output).as_str(), output.status.code()),
        ("", Some(0))
    );
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    let text = value["text"].as_str().unwrap();
    assert!(text.starts_with("<file name=\"docling_ocr_test.pdf\">\n--- page 1: image 1 ---\n</file>\n\n<file name=\"i2d_Orlen.txt\">\nFaktura nr: F 1234K20/1234/12"), "{text}");
    assert!(text.ends_with("</file>"));
    let bytes = value["images"][0]["bytes"].clone();
    assert!(bytes.as_u64().unwrap() > 0);
    assert_eq!(
        value["images"],
        json!([{"name": "docling_ocr_test.pdf page 1", "mime": "image/png", "width": 1109, "height": 1568, "bytes": bytes}])
    );
    assert_eq!(value.as_object().unwrap().len(), 2);
}

#[tokio::test]
async fn a_refusal_exits_1_naming_the_file() {
    let encrypted = corpus("docling_password_1234.pdf");
    let output = run(sift()
        .arg("read")
        .arg(corpus("i2d_Orlen.txt"))
        .arg(&encrypted))
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(stdout(&output), "");
    assert_eq!(
        stderr(&output),
        format!(
            "error (document): {}: the PDF is encrypted and no password was given\n",
            encrypted.display()
        )
    );

    let output = run(sift()
        .arg("read")
        .arg("--password")
        .arg("1234")
        .arg(&encrypted))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stdout(&output).starts_with("<file name=\"docling_password_1234.pdf\">\n--- page 1 ---\n")
    );

    let scratch = Scratch::new("refusals");
    let output = run(sift().current_dir(&scratch.0).args(["read", "missing.pdf"])).await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        format!(
            "error (document): {}: no such file\n",
            scratch.0.join("missing.pdf").display()
        )
    );
    let output = run(sift().current_dir(&scratch.0).args(["read", "*.pdf"])).await;
    assert_eq!(
        (output.status.code(), stderr(&output).as_str()),
        (
            Some(1),
            "error (document): *.pdf: no file matches this pattern\n"
        )
    );
}

#[tokio::test]
async fn without_pdfium_the_error_says_how_to_install_it() {
    let scratch = Scratch::new("pdfium");
    let missing = scratch.0.join("nowhere/libpdfium.so");
    let pdf = corpus("i2d_oyo.pdf");
    let output = run(sift().arg("read").arg(&pdf).env("SIFT_PDFIUM", &missing)).await;
    assert_eq!(output.status.code(), Some(1));
    let data_dir = std::env::var_os("SIFT_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var("HOME").unwrap()).join(".local/share/sift"));
    assert_eq!(
        stderr(&output),
        format!(
            "error (document): {}: reading a PDF needs PDFium, which was not found (no {}). Run scripts/setup.sh to install it into {}, or set SIFT_PDFIUM to the path of libpdfium.so\n",
            pdf.display(),
            missing.display(),
            data_dir.join("lib").display()
        )
    );
}

#[tokio::test]
async fn no_files_is_a_usage_error() {
    let output = run(sift().arg("read")).await;
    assert_eq!(output.status.code(), Some(2));
}

/// The scanned page's text, as OCR reads it.
const DOCLING_TEXT: &str = "Docling bundles PDF document conversion to\nJSON and Markdown in an easy self contained\npackage";

#[tokio::test]
async fn by_default_scans_and_photos_come_with_their_ocr_text() {
    let scratch = Scratch::new("ocr-default");
    let output = run(sift_in(&scratch)
        .arg("read")
        .arg(corpus("docling_ocr_test.pdf")))
    .await;
    assert_eq!(
        (stderr(&output).as_str(), output.status.code()),
        ("", Some(0))
    );
    let out = stdout(&output);
    let (text, image_line) = out.rsplit_once("</file>\n").unwrap();
    assert_eq!(
        text,
        format!("<file name=\"docling_ocr_test.pdf\">\n--- page 1: image 1 ---\n{DOCLING_TEXT}\n")
    );
    assert!(
        image_line.starts_with("[image 1: docling_ocr_test.pdf page 1, image/png, 1109x1568, ")
    );
    // The page was kept in the data directory's OCR cache.
    let cached = std::fs::read_dir(scratch.0.join("data").join("ocr-cache"))
        .unwrap()
        .count();
    assert!(cached > 0, "nothing cached");
}

#[tokio::test]
async fn text_only_leaves_the_image_out_and_json_gives_the_words_and_boxes() {
    let scratch = Scratch::new("ocr-text-only");
    let output = run(sift_in(&scratch)
        .args(["read", "--json", "--text-only", "--lang", "eng+deu"])
        .arg(corpus("docling_ocr_test.pdf")))
    .await;
    assert_eq!(
        (stderr(&output).as_str(), output.status.code()),
        ("", Some(0))
    );
    let value: serde_json::Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        value["text"],
        format!(
            "<file name=\"docling_ocr_test.pdf\">\n--- page 1: image omitted, the model reads its text ---\n{DOCLING_TEXT}\n</file>"
        )
    );
    assert_eq!(value["images"], json!([]));
    let page = &value["ocr"][0];
    assert_eq!(
        (
            &page["file"],
            &page["page"],
            &page["text"],
            &page["rotation"]
        ),
        (
            &json!("docling_ocr_test.pdf"),
            &json!(1),
            &json!(DOCLING_TEXT),
            &json!(0)
        )
    );
    let words = page["words"].as_array().unwrap();
    let texts: Vec<&str> = words.iter().map(|w| w["text"].as_str().unwrap()).collect();
    assert_eq!(texts.join(" "), DOCLING_TEXT.replace('\n', " "));
    for word in words {
        let keys: Vec<&String> = word.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["text", "left", "top", "width", "height", "confidence"]
        );
        let right = word["left"].as_f64().unwrap() + word["width"].as_f64().unwrap();
        assert!(
            right > 0.0 && right <= page["width"].as_f64().unwrap(),
            "{word}"
        );
    }
}

#[tokio::test]
async fn an_unknown_ocr_mode_is_a_usage_error() {
    let output = run(sift()
        .args(["read", "--ocr", "sometimes"])
        .arg(corpus("i2d_Orlen.txt")))
    .await;
    assert_eq!(output.status.code(), Some(2));
}
