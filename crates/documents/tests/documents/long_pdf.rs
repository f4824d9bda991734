//! A 1,000-page PDF: read within the limits, telling each page as it is
//! read; one past the page limit refused before any page is read.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use sift_documents::{
    Content, Limits, OcrMode, OcrOptions, OnPage, PageProgress, ReadOptions, read_documents,
};

use crate::TempDir;
use crate::fixtures::{PdfPage, pdf};

const LINE: &str = "Quarterly report, one of its many pages";

fn long_pdf(pages: usize) -> Vec<u8> {
    pdf(&vec![PdfPage::text(300, 400, &[LINE]); pages])
}

/// Options telling each page into the returned list.
fn recording(base: ReadOptions) -> (ReadOptions, Arc<Mutex<Vec<PageProgress>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    let options = ReadOptions {
        on_page: Some(OnPage::new(move |p| sink.lock().expect("the list").push(p))),
        ..base
    };
    (options, seen)
}

fn told(path: &Path, pages: usize) -> Vec<PageProgress> {
    (1..=pages)
        .map(|done| PageProgress {
            path: path.to_path_buf(),
            done,
            total: pages,
        })
        .collect()
}

fn write(dir: &TempDir, name: &str, pages: usize) -> PathBuf {
    dir.write(name, long_pdf(pages))
}

#[test]
fn a_thousand_page_pdf_is_read_within_the_limits_telling_each_page_in_order() {
    let dir = TempDir::new();
    let path = write(&dir, "report.pdf", 1_000);
    let (options, seen) = recording(ReadOptions::default());
    let documents = read_documents(std::slice::from_ref(&path), &options).unwrap();
    let Content::Pages(pages) = &documents.files[0].content else {
        panic!("a PDF reads as pages");
    };
    assert_eq!(pages.len(), 1_000);
    assert_eq!((pages[999].number, pages[999].text.as_str()), (1_000, LINE));
    // Told once a page, in page order, the last one 1,000 of 1,000.
    assert_eq!(*seen.lock().unwrap(), told(&path, 1_000));
}

/// An extraction reads with OCR on: a page of text needs none, and is
/// told as read by the OCR's count instead of the reader's, the same.
#[test]
fn with_ocr_on_a_thousand_text_pages_are_told_the_same() {
    let dir = TempDir::new();
    let path = write(&dir, "report.pdf", 1_000);
    let (options, seen) = recording(ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    });
    let documents = read_documents(std::slice::from_ref(&path), &options).unwrap();
    assert!(matches!(&documents.files[0].content, Content::Pages(p) if p.len() == 1_000));
    assert_eq!(*seen.lock().unwrap(), told(&path, 1_000));
}

#[test]
fn a_pdf_past_the_page_limit_is_refused_before_a_page_is_read() {
    let dir = TempDir::new();
    // The default limit is 2,000 pages: 2,001 is one too many.
    let path = write(&dir, "too-long.pdf", 2_001);
    let (options, seen) = recording(ReadOptions::default());
    assert_eq!(
        read_documents(std::slice::from_ref(&path), &options)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: refused: the PDF has 2001 pages, over the limit of 2000 pages",
            path.display()
        )
    );
    assert_eq!(*seen.lock().unwrap(), []);

    let path = write(&dir, "report.pdf", 1_000);
    let (options, seen) = recording(ReadOptions {
        limits: Limits {
            max_pdf_pages: 999,
            ..Limits::default()
        },
        ..ReadOptions::default()
    });
    assert_eq!(
        read_documents(std::slice::from_ref(&path), &options)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: refused: the PDF has 1000 pages, over the limit of 999 pages",
            path.display()
        )
    );
    assert_eq!(*seen.lock().unwrap(), []);
}
