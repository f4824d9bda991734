//! Small hostile files that would take the machine (issue 40, items
//! 9–13): each is generated here, a few kilobytes to a few megabytes, and
//! each is refused with a message naming the file and the limit, or read
//! within the limits, instead of growing into gigabytes or running for
//! minutes.

use sift_documents::{
    Content, Limits, OcrMode, OcrOptions, ReadOptions, default_data_dir, embedded_invoice_xml,
    installed_paddle_dir, read_documents, resolve_files,
};

use crate::fixtures::{docx, png, xlsx, zip};
use crate::{TempDir, read_one};

/// One cell of 10,000 characters, 64 grid columns wide, merged down
/// 10,000 rows: 6.4 billion characters once every copy is made.
#[test]
fn a_docx_cell_merged_across_and_down_is_refused_as_it_grows() {
    let text = "x".repeat(10_000);
    let mut body = format!(
        r#"<w:tbl><w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/><w:vMerge w:val="restart"/></w:tcPr><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:tc></w:tr>"#
    );
    for _ in 0..10_000 {
        body.push_str(
            r#"<w:tr><w:tc><w:tcPr><w:gridSpan w:val="64"/><w:vMerge/></w:tcPr><w:p/></w:tc></w:tr>"#,
        );
    }
    body.push_str("</w:tbl>");
    let dir = TempDir::new();
    let path = dir.write("merged.docx", docx(&body));
    assert_eq!(
        read_one(&path).unwrap_err().to_string(),
        format!(
            "{}: the files together hold more than 1000000 characters of text (the limit), counting this one",
            path.display()
        )
    );
}

/// 10,000 merged regions of 10,000 cells each (each under the per-region
/// bound), every one filled with a 15-digit number: 1.5 billion
/// characters once filled.
#[test]
fn xlsx_merged_regions_are_bounded_together() {
    let mut data = String::new();
    let mut merges = String::new();
    for i in 0..10_000u32 {
        let top = i * 100 + 1;
        data.push_str(&format!(
            r#"<row r="{top}"><c r="A{top}"><v>123456789012345</v></c></row>"#
        ));
        merges.push_str(&format!(r#"<mergeCell ref="A{top}:CV{}"/>"#, top + 99));
    }
    let extra = format!(r#"<mergeCells count="10000">{merges}</mergeCells>"#);
    let dir = TempDir::new();
    let path = dir.write("merges.xlsx", xlsx(&[("S", &data, &extra)], &[], &[0]));
    assert_eq!(
        read_one(&path).unwrap_err().to_string(),
        format!(
            "{}: the files together hold more than 1000000 characters of text (the limit), counting this one",
            path.display()
        )
    );
}

/// A number format of two million zeros: shown as written, each number
/// would be padded to two million digits, one at a time.
#[test]
fn an_xlsx_number_format_longer_than_excel_allows_is_shown_as_general() {
    let zeros = "0".repeat(2_000_000);
    let dir = TempDir::new();
    let path = dir.write(
        "zeros.xlsx",
        xlsx(
            &[("S", r#"<row r="1"><c r="A1" s="1"><v>7</v></c></row>"#, "")],
            &[(164, &zeros)],
            &[0, 164],
        ),
    );
    let documents = read_one(&path).unwrap();
    let Content::Text(text) = &documents.files[0].content else {
        panic!("a workbook reads as text");
    };
    assert_eq!(text, "--- sheet S ---\n7");
}

/// Twenty sheets that all point at one 100 kB part, under a 1 MB bound
/// on what the parts expand to: each sheet decompresses the part again.
#[test]
fn xlsx_sheets_that_share_a_part_count_it_for_each_sheet() {
    let rows: String = (1..=4_000)
        .map(|r| format!(r#"<row r="{r}"><c r="A{r}"/></row>"#))
        .collect();
    let sheet = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{rows}</sheetData></worksheet>"#
    );
    let mut sheets = String::new();
    let mut rels = String::new();
    for n in 1..=20 {
        sheets.push_str(&format!(
            r#"<sheet name="S{n}" sheetId="{n}" r:id="rId{n}"/>"#
        ));
        rels.push_str(&format!(r#"<Relationship Id="rId{n}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/>"#));
    }
    let workbook = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets>{sheets}</sheets></workbook>"#
    );
    let workbook_rels = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{rels}</Relationships>"#
    );
    let bytes = zip(&[
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>"#,
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#,
        ),
        ("xl/workbook.xml", &workbook),
        ("xl/_rels/workbook.xml.rels", &workbook_rels),
        ("xl/worksheets/sheet1.xml", &sheet),
    ]);
    let dir = TempDir::new();
    let path = dir.write("shared.xlsx", bytes);
    let options = ReadOptions {
        limits: Limits {
            max_zip_total_bytes: 1_000_000,
            ..Limits::default()
        },
        ..ReadOptions::default()
    };
    let part = sheet.len() as u64;
    let sheets_to_pass = 1_000_000 / part + 1;
    assert_eq!(
        read_documents(std::slice::from_ref(&path), &options)
            .unwrap_err()
            .to_string(),
        format!(
            "{}: refused: its sheets would expand to {} bytes together (a part counts again for each sheet that points at it), over the limit of 1000000 bytes",
            path.display(),
            part * sheets_to_pass
        )
    );
    // Under the default bound the same workbook is read.
    assert!(read_one(&path).is_ok());
}

/// A PDF whose 1,000 attachments `aN.xml` all name one 4 MB stream, and
/// `factur-x.xml` last: holding each before choosing took 4 GB.
fn pdf_with_many_xml_attachments(count: usize, xml_bytes: usize) -> Vec<u8> {
    let mut names = String::new();
    for n in 0..count {
        names.push_str(&format!("(a{n}.xml) 5 0 R "));
    }
    names.push_str("(factur-x.xml) 6 0 R");
    let body = format!("<x>{}</x>", "y".repeat(xml_bytes - 7));
    let objects = [
        format!(
            "<< /Type /Catalog /Pages 2 0 R /Names << /EmbeddedFiles << /Names [{names}] >> >> >>"
        ),
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_owned(),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>".to_owned(),
        "null".to_owned(),
        "<< /Type /Filespec /F (a.xml) /UF (a.xml) /EF << /F 7 0 R >> >>".to_owned(),
        "<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 8 0 R >> >>".to_owned(),
        format!(
            "<< /Type /EmbeddedFile /Length {} >>\nstream\n{body}\nendstream",
            body.len()
        ),
        "<< /Type /EmbeddedFile /Length 13 >>\nstream\n<Invoice/>   \nendstream".to_owned(),
    ];
    let mut out = b"%PDF-1.7\n".to_vec();
    let mut offsets = Vec::new();
    for (n, object) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend_from_slice(format!("{} 0 obj\n{object}\nendobj\n", n + 1).as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(
        format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes(),
    );
    for offset in offsets {
        out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn a_pdf_invoice_attachment_is_chosen_without_holding_every_xml() {
    let dir = TempDir::new();
    let path = dir.write(
        "attachments.pdf",
        pdf_with_many_xml_attachments(1_000, 4_000_000),
    );
    let xml = embedded_invoice_xml(&path, &ReadOptions::default())
        .unwrap()
        .expect("the invoice attachment");
    assert_eq!(xml.name, "factur-x.xml");
    assert_eq!(xml.bytes, b"<Invoice/>   ");
}

/// Read with its pages when asked (as a job reads, in the file's reader
/// process), the same attachment is the document's; unasked, none is read.
#[test]
fn a_pdf_read_for_its_invoice_xml_carries_it() {
    let dir = TempDir::new();
    let path = dir.write("attachments.pdf", pdf_with_many_xml_attachments(3, 100));
    let read = |invoice_xml: bool| {
        let options = ReadOptions {
            invoice_xml,
            ..ReadOptions::default()
        };
        read_documents(std::slice::from_ref(&path), &options)
            .unwrap()
            .files
            .remove(0)
            .invoice_xml
    };
    let xml = read(true).expect("the invoice attachment");
    assert_eq!(xml.name, "factur-x.xml");
    assert_eq!(xml.bytes, b"<Invoice/>   ");
    assert_eq!(read(false), None);
}

/// A 2000×1 image: detection scales a page's short side up to 736 px,
/// and its long side as much, which made a tensor of 13 GB.
#[test]
fn a_strip_one_pixel_high_is_read_by_paddleocr_within_bounds() {
    let paddle = installed_paddle_dir(&default_data_dir())
        .expect("PaddleOCR's models are in the data directory: run scripts/setup.sh");
    let options = ReadOptions {
        ocr: OcrOptions {
            mode: OcrMode::Always,
            paddle: Some(paddle),
            ..OcrOptions::default()
        },
        ..ReadOptions::default()
    };
    let dir = TempDir::new();
    let path = dir.write("strip.png", png(2000, 1, [255, 255, 255]));
    let documents = read_documents(std::slice::from_ref(&path), &options).unwrap();
    let ocr = documents.files[0].ocr.as_ref().expect("the strip is OCR'd");
    assert_eq!(
        (ocr.text.as_str(), ocr.width, ocr.height),
        ("", 2000.0, 1.0)
    );
}

/// Two links in a folder back to the folder itself: a `**` walk that
/// followed them would meet 2^40 paths before the kernel's link limit.
#[test]
fn a_double_star_glob_does_not_follow_links_to_folders() {
    let dir = TempDir::new();
    let file = dir.write("in/x.txt", "x");
    let folder = dir.path().join("in");
    std::os::unix::fs::symlink(&folder, folder.join("a")).unwrap();
    std::os::unix::fs::symlink(&folder, folder.join("b")).unwrap();
    let pattern = format!("{}/**/*.txt", folder.display());
    assert_eq!(resolve_files(&[pattern], dir.path()).unwrap(), vec![file]);
}

/// A named pipe called `x.pdf`: opening it waits for a writer forever.
#[test]
fn a_fifo_is_refused_before_it_is_opened() {
    let dir = TempDir::new();
    let path = dir.path().join("x.pdf");
    let made = std::process::Command::new("mkfifo")
        .arg(&path)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    assert_eq!(
        read_one(&path).unwrap_err().to_string(),
        format!(
            "{}: is not a regular file (a pipe, socket or device), so it is not opened",
            path.display()
        )
    );
}
