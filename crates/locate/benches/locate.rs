//! What locating costs: the field locator's candidates for an invoice's
//! four fields (number, date, total, currency) in each of the corpus's
//! text PDFs, which every grounded or located job proposes before its
//! call, and for the starter invoice schema's ten. docs/BENCHMARKS.md
//! compares the figures with a document's read and extraction time
//! (`cargo bench -p sift-core --bench evidence` reads the same PDFs).
#![allow(clippy::unwrap_used)] // a corpus file that does not read ends the run

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use sift_documents::{Document, ReadOptions, read_documents};
use sift_locate::locate_fields;

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

/// The corpus's text PDFs with ground truth.
fn manifest_text_pdfs() -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(corpus("MANIFEST.tsv")).unwrap_or_default();
    manifest
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() > 8 && f[4] == "text-pdf" && !f[5].is_empty()).then(|| corpus(f[0]))
        })
        .collect()
}

fn locate(c: &mut Criterion) {
    let paths = manifest_text_pdfs();
    assert!(!paths.is_empty(), "no corpus beside the repository");
    let options = ReadOptions {
        word_boxes: true,
        ..ReadOptions::default()
    };
    let documents: Vec<Document> = read_documents(&paths, &options).unwrap().files;
    let schema = json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "date": {"type": "string"},
        "total": {"type": "number"},
        "currency": {"type": "string"}
    }});
    // The group keeps the name it had in core's bench, so the figures in
    // docs/BENCHMARKS.md compare by name.
    let mut group = c.benchmark_group("evidence");
    group.measurement_time(Duration::from_secs(10));
    group.bench_function(
        "propose candidates for 4 fields in each of 15 text PDFs",
        |b| {
            b.iter(|| {
                for document in &documents {
                    std::hint::black_box(locate_fields(document, &schema));
                }
            });
        },
    );
    // A new user's first schema: ten scalar fields, the parties' names
    // and the tax among them (rules the four fields do not run).
    let starter: Value =
        serde_json::from_str(include_str!("../../core/starter-schemas/invoice.json")).unwrap();
    group.bench_function(
        "propose candidates for the starter invoice schema in each of 15 text PDFs",
        |b| {
            b.iter(|| {
                for document in &documents {
                    std::hint::black_box(locate_fields(document, &starter));
                }
            });
        },
    );
    group.finish();
}

criterion_group!(benches, locate);
criterion_main!(benches);
