//! Reading corpus documents: PDF text, PDF page rendering, XLSX, DOCX and
//! image scaling. `scripts/bench-documents.sh` runs the same work with the
//! peers (pypdfium2, poppler, python-calamine, openpyxl, python-docx,
//! Pillow) and records the ratios in docs/BENCHMARKS.md.

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sift_documents::{ReadOptions, read_documents};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

/// The files each benchmark reads; the peers script reads the same ones.
pub const CASES: &[(&str, &[&str])] = &[
    // Text PDFs with ground truth: 15 files, 19 pages.
    (
        "pdf_text",
        &[
            "i2d_AmazonWebServices.pdf",
            "i2d_AzureInterior.pdf",
            "i2d_FlipkartInvoice.pdf",
            "i2d_NetpresseInvoice.pdf",
            "i2d_QualityHosting.pdf",
            "i2d_coolblue1.pdf",
            "i2d_free_fiber.pdf",
            "i2d_oyo.pdf",
            "i2d_saeco.pdf",
            "mustang_103767-Invoice.pdf",
            "mustang_Avoir_AV-2017-0005.pdf",
            "mustang_EN16931_Einfach.pdf",
            "mustang_EXTENDED_Fremdwaehrung.pdf",
            "mustang_Facture_F20180027.pdf",
            "mustang_RE-20170509_505.pdf",
        ],
    ),
    // Scans: 7 pages rendered to a long edge of 1568 px and encoded.
    (
        "pdf_render",
        &[
            "mustang_rasterized_viewer_invoice.pdf",
            "ocrmypdf_c02-22.pdf",
            "docling_ocr_test.pdf",
        ],
    ),
    (
        "xlsx",
        &[
            "docling_xlsx_06_edge_cases.xlsx",
            "calamine_table-multiple.xlsx",
            "calamine_merge_cells.xlsx",
            "calamine_date.xlsx",
        ],
    ),
    (
        "docx",
        &[
            "docling_word_tables.docx",
            "docling_docx_rich_cells.docx",
            "docling_unit_test_headers.docx",
        ],
    ),
    // Images scaled to a long edge of 1568 px (and encoded).
    (
        "image_scale",
        &[
            "i2d_AmazonWebServices.png",
            "i2d_oyo.png",
            "docling_qr_bill_example.jpg",
        ],
    ),
];

fn bench(c: &mut Criterion) {
    let options = ReadOptions::default();
    for (name, files) in CASES {
        let paths: Vec<PathBuf> = files.iter().map(|f| corpus(f)).collect();
        // Bound once, outside the measurement (PDFium is loaded on first use).
        read_documents(&paths, &options).expect("the corpus files read");
        c.bench_function(name, |b| {
            b.iter(|| read_documents(&paths, &options).expect("read"));
        });
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    targets = bench
}
criterion_main!(benches);
