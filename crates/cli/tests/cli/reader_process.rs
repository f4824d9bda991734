//! Each document is read in a reader process of its own: one whose reader
//! crashes, runs past the time limit or past the memory limit fails alone,
//! with a message naming the file and the limit, and the job goes on.
//!
//! A crash and a stall come from the debug build's
//! `SIFT_TEST_READER_FAULT` (no file crashes this machine's PDFium on
//! demand); the limits are lowered with `SIFT_TEST_READER_TIME_LIMIT_SECS`
//! and `SIFT_TEST_READER_MEMORY_LIMIT_MIB`. The stalled reader waits
//! forever, so the time limit is reached however fast the machine is.

use std::path::PathBuf;

use sift_store::Store;

use crate::{installed_pdfium, run, sift, stderr};

/// A folder of its own for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("sift-cli-reader-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A PNG of 9000 × 9000 pixels whose data is cut short: 69 bytes for
/// which a decoder sets aside 243 MB before it finds the data missing.
const HUGE_CUT_SHORT_PNG: &str = "89504e470d0a1a0a0000000d4948445200002328000023280802000000e2b7e5ed0000000c49444154789c63f84f070000a7c8639d167d73710000000049454e44ae426082";

fn bytes_of(hex: &str) -> Vec<u8> {
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect()
}

/// `sift extract --answers located` over an invoice and a PDF whose reader
/// aborts (as PDFium does on some malformed files): the invoice's row has
/// its values, the PDF's row is failed with a message naming it, and the
/// job ends with one of two failed.
#[tokio::test]
async fn a_reader_that_crashes_fails_its_file_alone_and_the_job_goes_on() {
    let scratch = Scratch::new("crash");
    std::fs::write(
        scratch.0.join("invoice.txt"),
        "ACME GmbH\nInvoice Number: 2024-17A\nInvoice date: 2024-03-01\nTotal: 1.234,50 EUR\n",
    )
    .unwrap();
    std::fs::copy(crate::corpus("i2d_oyo.pdf"), scratch.0.join("aborts.pdf")).unwrap();
    let output = run(sift()
        .args(["--db", &scratch.path("sift.db"), "extract"])
        .args(["--schema", "invoice", "--provider", "local"])
        .args(["--answers", "located", "--jobs", "1"])
        .args(["--csv", &scratch.path("out.csv")])
        .args([scratch.path("invoice.txt"), scratch.path("aborts.pdf")])
        .env("SIFT_DATA_DIR", &scratch.0)
        .env("SIFT_TEST_READER_FAULT", "abort:aborts.pdf"))
    .await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let csv = std::fs::read_to_string(scratch.0.join("out.csv")).unwrap();
    let rows: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(rows.len(), 4, "{csv}");
    assert!(
        rows[1].starts_with(&format!("{},", scratch.path("invoice.txt")))
            && rows[1].contains(",2024-17A,")
            && rows[1].ends_with(",completed,"),
        "{}",
        rows[1]
    );
    assert!(
        rows[2].starts_with(&format!("{},", scratch.path("aborts.pdf"))),
        "{}",
        rows[2]
    );
    assert!(
        rows[2].ends_with(&format!(
            ",failed,\"{}: its reader crashed (aborted, SIGABRT); the file is probably malformed\"",
            scratch.path("aborts.pdf")
        )),
        "{}",
        rows[2]
    );
    assert!(
        stderr(&output).contains("error: 1 of 2 documents failed (job job_"),
        "{}",
        stderr(&output)
    );
}

/// A reader that never finishes is killed at the time limit, and the
/// refusal names the file and the limit.
#[tokio::test]
async fn a_reader_past_the_time_limit_is_stopped_and_named() {
    let scratch = Scratch::new("stall");
    std::fs::write(scratch.0.join("stalls.txt"), "never read\n").unwrap();
    let output = run(sift()
        .args(["read", &scratch.path("stalls.txt")])
        .env("SIFT_DATA_DIR", &scratch.0)
        .env("SIFT_TEST_READER_FAULT", "stall:stalls.txt")
        .env("SIFT_TEST_READER_TIME_LIMIT_SECS", "1"))
    .await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(1),
            format!(
                "error (document): {}: its reader took longer than 1 s (the time limit), so it was stopped\n",
                scratch.path("stalls.txt")
            )
        )
    );
}

/// An image that needs more memory than the limit (decoded, 243 MB) is
/// refused naming the limit; under the real limit the same file is read
/// as far as its data goes, and refused as the corrupt file it is.
#[tokio::test]
async fn a_reader_past_the_memory_limit_is_stopped_and_named() {
    let scratch = Scratch::new("memory");
    std::fs::write(scratch.0.join("huge.png"), bytes_of(HUGE_CUT_SHORT_PNG)).unwrap();
    let read = |limit: Option<&str>| {
        let mut command = sift();
        command
            .args(["read", "--ocr", "off", &scratch.path("huge.png")])
            .env("SIFT_DATA_DIR", &scratch.0);
        if let Some(limit) = limit {
            command.env("SIFT_TEST_READER_MEMORY_LIMIT_MIB", limit);
        }
        command
    };
    let output = run(&mut read(Some("150"))).await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(1),
            format!(
                "error (document): {}: its reader stopped at the 150 MiB memory limit\n",
                scratch.path("huge.png")
            )
        )
    );
    let output = run(&mut read(None)).await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(1),
            format!(
                "error (document): {}: cannot be read: not a valid image (Format error decoding Png: IDAT or fDAT chunk does not have enough data for image.)\n",
                scratch.path("huge.png")
            )
        )
    );
}

/// A Factur-X PDF's embedded XML comes back from its reader process with
/// its pages: `sift extract --answers located` gives the XML's values,
/// each marked as the e-invoice's (the due date, which its XML does not
/// give, is the page's; so are the line items, the rows of its page's
/// table, which add up to its net of 473.00).
#[tokio::test]
async fn an_e_invoice_pdf_gives_its_xml_values_through_its_reader() {
    let scratch = Scratch::new("einvoice");
    let output = run(sift()
        .args(["--db", &scratch.path("sift.db"), "extract"])
        .args(["--schema", "invoice", "--provider", "local"])
        .args(["--answers", "located", "--jobs", "1"])
        .args(["--csv", &scratch.path("out.csv")])
        .arg(crate::corpus("mustang_EN16931_Einfach.pdf"))
        .env("SIFT_DATA_DIR", &scratch.0)
        .env("SIFT_PDFIUM", installed_pdfium()))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let csv = std::fs::read_to_string(scratch.0.join("out.csv")).unwrap();
    assert_eq!(
        csv,
        format!(
            "file,invoice_number,invoice_date,due_date,seller_name,seller_tax_id,buyer_name,currency,line_items,subtotal,tax,total,status,error\r\n\
             {},471102,2024-11-15,2024-12-15,Lieferant GmbH,DE123456789,Kunden AG Mitte,EUR,\
             \"[{{\"\"amount\"\":198.0,\"\"description\"\":\"\"Trennblätter A4\"\",\"\"quantity\"\":20.0,\"\"unit_price\"\":9.9}},\
             {{\"\"amount\"\":275.0,\"\"description\"\":\"\"Joghurt Banane\"\",\"\"quantity\"\":50.0,\"\"unit_price\"\":5.5}}]\",\
             473.0,56.87,529.87,completed,\r\n",
            crate::corpus("mustang_EN16931_Einfach.pdf")
        )
    );
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let job_id = crate::extract::job_id_of(&stderr(&output));
    let evidence = store.extraction_documents(&job_id).unwrap()[0]
        .evidence
        .clone()
        .unwrap();
    let from_xml: Vec<&str> = evidence
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["origin"] == "e_invoice")
        .map(|e| e["key"].as_str().unwrap())
        .collect();
    assert_eq!(
        from_xml,
        [
            "invoice_number",
            "invoice_date",
            "seller_name",
            "seller_tax_id",
            "buyer_name",
            "currency",
            "subtotal",
            "tax",
            "total"
        ]
    );
}

/// The evidence view's page preview renders in a reader process too: a
/// page of a corpus PDF comes back as an image with the page count, and
/// a PDF whose reader aborts (the debug build's fault, set for the
/// reader alone through `env`) is refused by name while this process
/// goes on. This test binary starts `sift` as its readers, as the CLI
/// and the app do themselves.
#[test]
fn a_preview_page_is_rendered_in_a_reader_process() {
    use sift_core::evidence::preview::{PREVIEW_EDGE, PreviewContent, preview};
    let isolated = sift_core::isolate_readers(sift_core::ReaderCommand {
        program: "env".into(),
        args: vec![
            "SIFT_TEST_READER_FAULT=abort:aborts.pdf".into(),
            env!("CARGO_BIN_EXE_sift").into(),
            sift_core::READER_ARGUMENT.into(),
        ],
        limits: sift_core::ReaderLimits::default(),
    });
    assert!(isolated, "no other test of this binary isolates readers");
    let scratch = Scratch::new("preview");
    let shown = preview(
        std::path::Path::new(&crate::corpus("mustang_EN16931_Einfach.pdf")),
        1,
    )
    .unwrap();
    assert_eq!((shown.page, shown.page_count), (1, 2));
    let PreviewContent::Image { width, height, .. } = shown.content else {
        panic!("a PDF page is shown as an image");
    };
    assert_eq!(width.max(height), PREVIEW_EDGE);
    std::fs::copy(crate::corpus("i2d_oyo.pdf"), scratch.0.join("aborts.pdf")).unwrap();
    let error = preview(&scratch.0.join("aborts.pdf"), 0).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "{}: its reader crashed (aborted, SIGABRT); the file is probably malformed",
            scratch.path("aborts.pdf")
        )
    );
}
