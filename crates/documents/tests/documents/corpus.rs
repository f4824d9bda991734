//! Every file of the shared corpus, with the outcome expected for it, and
//! the fidelity of the text documents that have ground truth.

use std::collections::BTreeSet;

use sift_documents::{Content, DocumentError, ReadOptions, read_documents, render_text};

use crate::{corpus, corpus_dir, read_one};

#[derive(Debug)]
enum Expect {
    /// Text, Word and Excel files: the text holds this line.
    Text(&'static str),
    /// The whole rendered block, exactly.
    Exact(&'static str),
    /// A PDF read as text: its page count, and a line its text holds.
    TextPdf(usize, &'static str),
    /// A PDF whose pages are all rendered: each page's (width, height, mime)
    /// and the PDF's text (its invisible text, if any).
    Scan(&'static [(u32, u32, &'static str)], &'static str),
    /// An image file: its (width, height, mime) as sent.
    Image(u32, u32, &'static str),
    /// Refused: the message after `PATH: `.
    Refused(&'static str),
}

use Expect::*;

const PNG: &str = "image/png";
const JPEG: &str = "image/jpeg";

/// Every corpus file and its outcome. A file added to the corpus fails the
/// test until it is listed here.
const EXPECTED: &[(&str, Expect)] = &[
    (
        "calamine_date.xlsx",
        Exact(
            "<file name=\"calamine_date.xlsx\">\n--- sheet Sheet1 ---\n2021-01-01 | 15\n2021-01-02 | 16\n255:10:10 | 17\n</file>",
        ),
    ),
    (
        "calamine_date_1904.xlsx",
        Exact(
            "<file name=\"calamine_date_1904.xlsx\">\n--- sheet Sheet1 ---\n2021-01-01 | 15\n2021-01-02 | 16\n255:10:10 | 17\n</file>",
        ),
    ),
    (
        "calamine_errors.xlsx",
        Exact(
            "<file name=\"calamine_errors.xlsx\">\n--- sheet Feuil1 ---\n#DIV/0!\n#NAME?\n#VALUE!\n#NULL!\n#REF!\n#NUM!\n#N/A\n\n--- sheet Feuil2 ---\n\n--- sheet Feuil3 ---\n</file>",
        ),
    ),
    (
        "calamine_has_x000D_.xlsx",
        Exact("<file name=\"calamine_has_x000D_.xlsx\">\n--- sheet Sheet1 ---\nABC DEF\n</file>"),
    ),
    (
        "calamine_merge_cells.xlsx",
        Exact(
            "<file name=\"calamine_merge_cells.xlsx\">\n--- sheet Sheet1 ---\nRow Merge | Row Merge | Not Merged\nColumn Merge | Chunk Merged | Chunk Merged | Chunk Merged\nColumn Merge | Chunk Merged | Chunk Merged | Chunk Merged\nColumn Merge | Chunk Merged | Chunk Merged | Chunk Merged\n</file>",
        ),
    ),
    (
        "calamine_pass_protected.xlsx",
        Refused(
            "the Excel workbook is password-protected (encrypted); save it without a password to read it",
        ),
    ),
    (
        "calamine_richtext-namespaced.xlsx",
        Text("\n--- sheet Sheet3 ---\n</file>"),
    ),
    (
        "calamine_table-multiple.xlsx",
        Text("Item | Type | Quantity\n1 | Apple | 50\n"),
    ),
    (
        "cpython_shift_jis-utf8.txt",
        Text("Python の開発は、1990 年ごろから開始されています。"),
    ),
    (
        "cpython_shift_jis.txt",
        Text("Python の開発は、1990 年ごろから開始されています。"),
    ),
    (
        "docling_csv-semicolon.csv",
        Text("Index;Customer Id;First Name;"),
    ),
    (
        "docling_csv-semicolon.csv.md",
        Text("| Index | Customer Id |"),
    ),
    (
        "docling_docx_rich_cells.docx",
        Text("Column A | Column B\n"),
    ),
    (
        "docling_invisible_text_layer.pdf",
        Exact(
            "<file name=\"docling_invisible_text_layer.pdf\">\n--- page 1 ---\nVisible heading line\nInvisible OCR text layer\n</file>",
        ),
    ),
    ("docling_ocr_test.pdf", Scan(&[(1109, 1568, PNG)], "")),
    (
        "docling_ocr_test_rotated_90.pdf",
        Scan(&[(1568, 1109, PNG)], ""),
    ),
    (
        "docling_password_1234.pdf",
        Refused("the PDF is encrypted and no password was given"),
    ),
    ("docling_qr_bill_example.jpg", Image(1021, 1423, JPEG)),
    (
        "docling_unit_test_headers.docx",
        Text("Test Document\n\nSection 1\n\nParagraph 1.1\n\nParagraph 1.2\n"),
    ),
    (
        "docling_word_tables.docx",
        Text(
            "Cell 1.0 | Merged Cell 1.1 2.1 | Cell 1.2\nCell 2.0 | Merged Cell 1.1 2.1 | Cell 2.2\n",
        ),
    ),
    (
        "docling_word_tables.docx.md",
        Text("| Cell 1.0 | Merged Cell 1.1 1.2 | Merged Cell 1.1 1.2 |"),
    ),
    (
        "docling_xlsx_05_table_with_title.xlsx",
        Exact(
            "<file name=\"docling_xlsx_05_table_with_title.xlsx\">\n--- sheet Duck Observations ---\nNumber of freshwater ducks per year\n\nYear | Freshwater Ducks\n2019 | 120\n2020 | 135\n2021 | 150\n2022 | 170\n2023 | 160\n2024 | 180\n</file>",
        ),
    ),
    (
        "docling_xlsx_05_table_with_title.xlsx.md",
        Text("## Duck Observations"),
    ),
    (
        "docling_xlsx_06_edge_cases.xlsx",
        Text(
            "--- sheet missing_header_head ---\n | Sub-category | ID | Question | Answer | Extra\n",
        ),
    ),
    (
        "docling_xlsx_06_edge_cases.xlsx.md",
        Text("## missing_header_head"),
    ),
    (
        "i2d_AmazonWebServices.pdf",
        TextPdf(1, "Invoice Number: 42183017"),
    ),
    ("i2d_AmazonWebServices.png", Image(1212, 1568, JPEG)),
    (
        "i2d_AzureInterior.pdf",
        TextPdf(1, "Invoice INV/2023/03/0008"),
    ),
    (
        "i2d_FlipkartInvoice.pdf",
        TextPdf(1, "BLR_WFLD20151000982590"),
    ),
    ("i2d_FlipkartInvoice.png", Image(789, 557, JPEG)),
    (
        "i2d_NetpresseInvoice.pdf",
        TextPdf(1, " Facture n° 2022089083"),
    ),
    ("i2d_Orlen.txt", Text("Faktura nr: F 1234K20/1234/12")),
    ("i2d_QualityHosting.pdf", TextPdf(2, "30064443")),
    ("i2d_coolblue1.pdf", TextPdf(1, "993548900")),
    ("i2d_free_fiber.pdf", TextPdf(2, "562044387")),
    ("i2d_oyo.pdf", TextPdf(1, "IBZY2087")),
    ("i2d_oyo.png", Image(1108, 1568, JPEG)),
    (
        "i2d_saeco.pdf",
        TextPdf(1, "Prijzen zijn inclusief BTW Factuur totaal EUR 49,99"),
    ),
    ("mustang_103767-Invoice.pdf", TextPdf(1, "Invoice 103767")),
    (
        "mustang_Avoir_AV-2017-0005.pdf",
        TextPdf(1, "Avoir AV-2017-0005"),
    ),
    (
        "mustang_EN16931_Einfach.pdf",
        TextPdf(2, "Handelsrechnung (380) Nr. 471102 vom 15.11.2024"),
    ),
    (
        "mustang_EXTENDED_Fremdwaehrung.pdf",
        TextPdf(3, "Handelsrechnung (380) Nr. 47110815 vom 01.12.2025"),
    ),
    ("mustang_Facture_F20180027.pdf", TextPdf(1, "F20180027")),
    (
        "mustang_RE-20170509_505.pdf",
        TextPdf(1, "Rechnung # RE-20170509/505 von 09.05.2017"),
    ),
    (
        "mustang_corrupt_waytoosmall.pdf",
        Refused("cannot be read: not a valid PDF (PDFium cannot parse it)"),
    ),
    (
        "mustang_corruptedV2PDF.pdf",
        Refused(
            "cannot be read: page 1 is 0.2 x 841.8 points, too small to show anything (a malformed page)",
        ),
    ),
    (
        "mustang_rasterized_viewer_invoice.pdf",
        Scan(
            &[
                (1108, 1568, PNG),
                (1108, 1568, JPEG),
                (1108, 1568, JPEG),
                (1108, 1568, JPEG),
                (1108, 1568, JPEG),
            ],
            "",
        ),
    ),
    ("ocrmypdf_c02-22.pdf", Scan(&[(1279, 1568, JPEG)], "")),
    (
        "pdfjs_90ms_rksj_h_sample.pdf",
        Exact(
            "<file name=\"pdfjs_90ms_rksj_h_sample.pdf\">\n--- page 1 ---\nHello ASCII\n日本語テスト\n</file>",
        ),
    ),
    (
        "pdfjs_empty_protected.pdf",
        Exact("<file name=\"pdfjs_empty_protected.pdf\">\n--- page 1 ---\n</file>"),
    ),
    (
        "pdfjs_noembed-sjis.pdf",
        Exact("<file name=\"pdfjs_noembed-sjis.pdf\">\n--- page 1 ---\nあいうえお\n</file>"),
    ),
    ("pdfjs_scan-bad.pdf", Scan(&[(1212, 1568, PNG)], "pdf.js")),
    (
        "pdfjs_xref_command_missing.pdf",
        Exact(
            "<file name=\"pdfjs_xref_command_missing.pdf\">\n--- page 1 ---\nReduced test-case\n</file>",
        ),
    ),
    ("sroie_000.jpg", Image(463, 1013, JPEG)),
    ("sroie_000.json", Text("\"total\": \"9.00\"")),
    ("sroie_001.jpg", Image(439, 1004, JPEG)),
    ("sroie_001.json", Text("\"total\": \"60.30\"")),
    ("sroie_019.jpg", Image(447, 915, JPEG)),
    ("sroie_019.json", Text("\"total\": \"86.00\"")),
    ("sroie_047.jpg", Image(1080, 1527, JPEG)),
    ("sroie_047.json", Text("\"total\": \"170.00\"")),
];

#[test]
fn every_corpus_file_has_its_expected_outcome() {
    let on_disk: BTreeSet<String> = std::fs::read_dir(corpus_dir())
        .expect("the shared corpus is at ../shared/corpus")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "MANIFEST.tsv")
        .collect();
    let listed: BTreeSet<String> = EXPECTED.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(
        on_disk, listed,
        "the corpus and this test's table list different files"
    );

    let mut failures = Vec::new();
    for (name, expect) in EXPECTED {
        if let Err(message) = check(name, expect) {
            failures.push(format!("{name}: {message}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} corpus files differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn check(name: &str, expect: &Expect) -> Result<(), String> {
    let path = corpus(name);
    let result = read_one(&path);
    let documents = match (expect, result) {
        (Refused(message), Err(error)) => {
            let expected = format!("{}: {message}", path.display());
            return if error.to_string() == expected {
                Ok(())
            } else {
                Err(format!("refused with {error:?}, not {expected:?}"))
            };
        }
        (Refused(_), Ok(_)) => return Err("read, but should be refused".into()),
        (_, Err(error)) => return Err(format!("refused: {error}")),
        (_, Ok(documents)) => documents,
    };
    let text = render_text(&documents);
    let document = &documents.files[0];
    let opening = format!("<file name=\"{name}\">\n");
    if !text.starts_with(&opening) || !text.ends_with("</file>") {
        return Err(format!("not one block: {text:?}"));
    }
    match expect {
        Refused(_) => unreachable!(),
        Exact(exact) => expect_eq(text.as_str(), *exact),
        Text(holds) => {
            expect_eq(matches!(document.content, Content::Text(_)), true)?;
            expect_true(text.contains(holds), || {
                format!("{holds:?} is not in {text:?}")
            })
        }
        TextPdf(pages, holds) => {
            let Content::Pages(read_pages) = &document.content else {
                return Err("not pages".into());
            };
            expect_eq(read_pages.len(), *pages)?;
            expect_true(read_pages.iter().all(|p| p.image.is_none()), || {
                "a page was rendered".into()
            })?;
            let markers: Vec<String> = (1..=*pages).map(|n| format!("--- page {n} ---")).collect();
            let found: Vec<String> = text
                .lines()
                .filter(|l| l.starts_with("--- page "))
                .map(str::to_string)
                .collect();
            expect_eq(found, markers)?;
            expect_true(text.contains(holds), || {
                format!("{holds:?} is not in the text")
            })
        }
        Scan(sizes, page_text) => {
            let Content::Pages(read_pages) = &document.content else {
                return Err("not pages".into());
            };
            let got: Vec<(u32, u32, &str)> = read_pages
                .iter()
                .filter_map(|p| p.image.as_ref())
                .map(|i| (i.width, i.height, i.mime.as_str()))
                .collect();
            expect_eq(got.as_slice(), *sizes)?;
            expect_eq(read_pages.len(), sizes.len())?;
            let mut expected = opening.clone();
            for n in 1..=sizes.len() {
                expected.push_str(&format!("--- page {n}: image {n} ---\n"));
                if !page_text.is_empty() {
                    expected.push_str(page_text);
                    expected.push('\n');
                }
            }
            expected.push_str("</file>");
            expect_eq(text.as_str(), expected.as_str())?;
            for image in documents.images() {
                let magic: &[u8] = if image.mime == PNG {
                    b"\x89PNG"
                } else {
                    b"\xFF\xD8\xFF"
                };
                expect_true(image.data.starts_with(magic), || {
                    format!("{} is not a {}", image.name, image.mime)
                })?;
            }
            Ok(())
        }
        Image(width, height, mime) => {
            let images = documents.images();
            expect_eq(images.len(), 1)?;
            expect_eq(
                (images[0].width, images[0].height, images[0].mime.as_str()),
                (*width, *height, *mime),
            )?;
            expect_eq(images[0].name.as_str(), name)?;
            expect_eq(text, format!("{opening}[Image 1 is {name}.]\n</file>"))
        }
    }
}

fn expect_eq<T: PartialEq + std::fmt::Debug>(got: T, expected: T) -> Result<(), String> {
    if got == expected {
        Ok(())
    } else {
        Err(format!("got {got:?}, expected {expected:?}"))
    }
}

fn expect_true(ok: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if ok { Ok(()) } else { Err(message()) }
}

#[test]
fn the_encrypted_pdf_opens_with_its_password() {
    let path = corpus("docling_password_1234.pdf");
    let options = ReadOptions {
        pdf_password: Some("1234".into()),
        ..ReadOptions::default()
    };
    let documents = read_documents(std::slice::from_ref(&path), &options).unwrap();
    let text = render_text(&documents);
    assert!(
        text.starts_with("<file name=\"docling_password_1234.pdf\">\n--- page 1 ---\n"),
        "{text}"
    );
    assert!(text.contains("DocLayNet"), "{text}");

    let wrong = ReadOptions {
        pdf_password: Some("wrong".into()),
        ..ReadOptions::default()
    };
    let error = read_documents(std::slice::from_ref(&path), &wrong).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: the PDF is encrypted and the password given does not open it",
            path.display()
        )
    );
    assert!(matches!(error, DocumentError::Encrypted { .. }));
}

#[test]
fn shift_jis_text_decodes_to_its_utf8_reference() {
    let documents = read_one(&corpus("cpython_shift_jis.txt")).unwrap();
    let reference = std::fs::read_to_string(corpus("cpython_shift_jis-utf8.txt")).unwrap();
    assert_eq!(documents.files[0].content, Content::Text(reference));
}

/// One row of MANIFEST.tsv with ground truth.
#[derive(Debug)]
pub(crate) struct Truth {
    pub file: String,
    pub kind: String,
    pub number: String,
    pub date: String,
    pub total: String,
    pub currency: String,
}

pub(crate) fn ground_truth() -> Vec<Truth> {
    let manifest = std::fs::read_to_string(corpus("MANIFEST.tsv")).expect("the corpus manifest");
    manifest
        .lines()
        .skip(1)
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|f| f.len() > 7 && (!f[5].is_empty() || !f[7].is_empty()))
        .map(|f| Truth {
            file: f[0].into(),
            kind: f[4].into(),
            number: f[5].into(),
            date: f[6].into(),
            total: f[7].into(),
            currency: f.get(8).copied().unwrap_or_default().into(),
        })
        .collect()
}

/// The ways a document may print an amount: `1021.91` as `1,021.91`,
/// `1.021,91`, `1 021,91`, `1'021.91`; `319.0` as `319.00` or `319`. The
/// sign is left out: credit notes print it in several ways.
pub(crate) fn renderings(amount: &str) -> Vec<String> {
    let amount = amount.trim_start_matches('-');
    let (int, frac) = amount.split_once('.').unwrap_or((amount, ""));
    let mut fracs = vec![format!("{frac:0<2}")];
    if frac.trim_end_matches('0').is_empty() {
        fracs.push(String::new());
    }
    let mut out = Vec::new();
    for group in ["", ",", ".", " ", "\u{a0}", "'", "`", "\u{202f}"] {
        let mut grouped = String::new();
        for (i, c) in int.chars().enumerate() {
            if i > 0 && (int.len() - i) % 3 == 0 {
                grouped.push_str(group);
            }
            grouped.push(c);
        }
        for frac in &fracs {
            if frac.is_empty() {
                out.push(grouped.clone());
            } else {
                for point in [".", ","] {
                    out.push(format!("{grouped}{point}{frac}"));
                }
            }
        }
    }
    out
}

#[test]
fn the_invoice_number_and_total_of_every_text_document_reach_the_model() {
    let truths = ground_truth();
    let text_kinds: Vec<&Truth> = truths
        .iter()
        .filter(|t| t.kind == "text-pdf" || t.kind == "txt")
        .collect();
    assert_eq!(
        text_kinds.len(),
        16,
        "text documents with ground truth in MANIFEST.tsv"
    );
    let mut failures = Vec::new();
    for truth in text_kinds {
        let documents = read_one(&corpus(&truth.file)).unwrap();
        let text = render_text(&documents);
        let squeezed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        let number: String = truth
            .number
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        if !number.is_empty() && !squeezed.contains(&number) {
            failures.push(format!(
                "{}: the number {:?} is not in the text",
                truth.file, truth.number
            ));
        }
        if !truth.total.is_empty()
            && !renderings(&truth.total)
                .iter()
                .any(|r| text.contains(r.as_str()))
        {
            failures.push(format!(
                "{}: the total {:?} is not in the text",
                truth.file, truth.total
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_scan_and_photo_with_ground_truth_reaches_the_model_as_images() {
    let truths = ground_truth();
    let visual: Vec<&Truth> = truths
        .iter()
        .filter(|t| t.kind == "image" || t.kind == "scanned-pdf")
        .collect();
    assert_eq!(
        visual.len(),
        9,
        "images and scans with ground truth in MANIFEST.tsv"
    );
    for truth in visual {
        let documents = read_one(&corpus(&truth.file)).unwrap();
        let images = documents.images();
        assert!(!images.is_empty(), "{} gave no image", truth.file);
        for image in images {
            assert!(image.width.max(image.height) <= 1568, "{image:?}");
        }
    }
}
