//! The refusals and bounds, each naming the file.

use std::time::Duration;

use sift_documents::{DocumentError, Limits, ReadOptions, read_documents};

use crate::fixtures::{PdfPage, docx, pdf, png, png_header_claiming};
use crate::{TempDir, read, read_one};

#[test]
fn a_file_over_50_mb_is_refused_without_reading_it() {
    let dir = TempDir::new();
    let path = dir.0.join("huge.pdf");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(50_000_001).unwrap(); // sparse: no disk space used
    let error = read_one(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the file is 50000001 bytes, over the limit of 50000000 bytes (50 MB)",
            path.display()
        )
    );
}

#[test]
fn a_file_of_exactly_50_mb_is_not_refused_for_its_size() {
    let dir = TempDir::new();
    let path = dir.0.join("big.txt");
    std::fs::write(&path, "a".repeat(50_000_000)).unwrap();
    // It is refused, but for its text, not its size.
    let error = read_one(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the files together hold more than 1000000 characters of text (the limit), counting this one",
            path.display()
        )
    );
}

#[test]
fn other_kinds_are_refused_by_name() {
    let dir = TempDir::new();
    let exe = dir.write("tool.exe", "MZ");
    let error = read_one(&exe).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: Sift does not read this kind of file (.exe); it reads text (.txt .md .csv .tsv .json .jsonl .yaml .yml .xml .html .htm .log), Word (.docx), Excel (.xlsx .xlsm), PDF and images (.png .jpg .jpeg .gif .webp)",
            exe.display()
        )
    );
    let bare = dir.write("README", "text");
    assert_eq!(
        read_one(&bare).unwrap_err().to_string(),
        format!(
            "{}: Sift does not read this kind of file (no extension); it reads text (.txt .md .csv .tsv .json .jsonl .yaml .yml .xml .html .htm .log), Word (.docx), Excel (.xlsx .xlsm), PDF and images (.png .jpg .jpeg .gif .webp)",
            bare.display()
        )
    );
}

#[test]
fn a_million_characters_pass_and_one_more_is_refused_naming_the_file_that_passed_the_limit() {
    let dir = TempDir::new();
    // 1,000,000 characters, many of them multi-byte.
    let exact = dir.write("exact.txt", "é".repeat(500_000) + &"a".repeat(500_000));
    assert_eq!(
        read(std::slice::from_ref(&exact)).unwrap().chars(),
        1_000_000
    );

    let first = dir.write("first.txt", "a".repeat(600_000));
    let second = dir.write("second.md", "b".repeat(400_001));
    let error = read(&[first, second.clone()]).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the files together hold more than 1000000 characters of text (the limit), counting this one",
            second.display()
        )
    );
    assert!(matches!(
        error,
        DocumentError::TooMuchText {
            limit: 1_000_000,
            ..
        }
    ));
}

#[test]
fn fifty_images_pass_and_the_fifty_first_is_refused_by_name() {
    let dir = TempDir::new();
    let image = png(8, 8, [10, 20, 30]);
    let paths: Vec<_> = (1..=51)
        .map(|n| dir.write(&format!("img{n:02}.png"), &image))
        .collect();
    assert_eq!(read(&paths[..50]).unwrap().images().len(), 50);
    let error = read(&paths).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the files together hold more than 50 images (the limit), counting this one",
            paths[50].display()
        )
    );
}

#[test]
fn scanned_pages_count_towards_the_images() {
    let dir = TempDir::new();
    let photos: Vec<_> = (1..=49)
        .map(|n| dir.write(&format!("p{n:02}.png"), png(4, 4, [1, 2, 3])))
        .collect();
    let scans = dir.write(
        "scans.pdf",
        pdf(&[PdfPage::scan(100, 100), PdfPage::scan(100, 100)]),
    );
    let mut paths = photos;
    paths.push(scans.clone());
    let error = read(&paths).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the files together hold more than 50 images (the limit), counting this one",
            scans.display()
        )
    );
}

#[test]
fn a_zip_entry_past_the_bound_is_refused() {
    let dir = TempDir::new();
    let path = dir.write(
        "bomb.docx",
        docx(&format!(
            "<w:p><w:r><w:t>{}</w:t></w:r></w:p>",
            "x".repeat(5_000)
        )),
    );
    let options = ReadOptions {
        limits: Limits {
            max_zip_entry_bytes: 4_096,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let error = read_documents(std::slice::from_ref(&path), &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: refused: its part word/document.xml would expand to 5201 bytes, over the limit of 4096 bytes",
            path.display()
        )
    );
    let options = ReadOptions {
        limits: Limits {
            max_zip_total_bytes: 5_000,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let error = read_documents(std::slice::from_ref(&path), &options).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: refused: its parts would expand to 5515 bytes, over the limit of 5000 bytes",
            path.display()
        )
    );
}

#[test]
fn an_image_claiming_huge_dimensions_is_refused_before_decoding() {
    let dir = TempDir::new();
    let path = dir.write("bomb.png", png_header_claiming(100_000, 100_000));
    let error = read_one(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: refused: the image is 100000x100000 pixels, over the limit of 100000000 pixels",
            path.display()
        )
    );
}

#[test]
fn a_pdf_past_the_page_or_time_bound_is_refused() {
    let dir = TempDir::new();
    let path = dir.write(
        "long.pdf",
        pdf(&[
            PdfPage::text(100, 100, &["one"]),
            PdfPage::text(100, 100, &["two"]),
        ]),
    );
    let options = ReadOptions {
        limits: Limits {
            max_pdf_pages: 1,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    assert_eq!(
        read_documents(std::slice::from_ref(&path), &options)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: refused: the PDF has 2 pages, over the limit of 1 pages",
            path.display()
        )
    );
    let options = ReadOptions {
        limits: Limits {
            max_pdf_time: Duration::ZERO,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    assert_eq!(
        read_documents(std::slice::from_ref(&path), &options)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: refused: reading the PDF took longer than 0 seconds (stopped at page 1)",
            path.display()
        )
    );
}

#[test]
fn corrupt_files_are_refused_by_name() {
    let dir = TempDir::new();
    let cases = [
        (
            "fake.pdf",
            "this is not a PDF",
            "cannot be read: not a valid PDF (PDFium cannot parse it)",
        ),
        (
            "fake.docx",
            "not a zip",
            "cannot be read: not a valid Word document (invalid Zip archive: Could not find EOCD)",
        ),
        (
            "fake.xlsx",
            "not a zip",
            "cannot be read: not a valid Excel workbook (invalid Zip archive: Could not find EOCD)",
        ),
        (
            "fake.png",
            "not an image",
            "cannot be read: not a PNG, JPEG, GIF or WebP image",
        ),
        (
            "binary.txt",
            "a\0b",
            "cannot be read: not a text file (it holds binary data)",
        ),
    ];
    for (name, content, message) in cases {
        let path = dir.write(name, content);
        assert_eq!(
            read_one(&path).unwrap_err().to_string(),
            format!("{}: {message}", path.display()),
            "{name}"
        );
    }
    let truncated = dir.write("truncated.png", &png(64, 64, [1, 2, 3])[..60]);
    let message = read_one(&truncated).unwrap_err().to_string();
    assert!(
        message.starts_with(&format!(
            "{}: cannot be read: not a valid image (",
            truncated.display()
        )),
        "{message}"
    );
}

#[test]
fn pdfium_is_looked_for_where_the_setup_installs_it() {
    let options = ReadOptions {
        data_dir: Some("/data/sift".into()),
        ..ReadOptions::default()
    };
    let candidates = sift_documents::pdfium_library_candidates(&options);
    if std::env::var_os("SIFT_PDFIUM").is_none() {
        let exe_dir = std::env::current_exe()
            .unwrap()
            .parent()
            .unwrap()
            .to_path_buf();
        assert_eq!(
            candidates,
            vec![
                exe_dir.join("libpdfium.so"),
                "/data/sift/lib/libpdfium.so".into()
            ]
        );
    }
}
