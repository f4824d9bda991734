//! What evidence costs an extraction: reading the corpus's text PDFs with
//! their words' boxes against without, and locating an invoice's four
//! values (number, date, total, currency) in each, beside the small text
//! invoice of `scripts/bench-extract.sh`. The field locator's candidates
//! are benched in `crates/locate/benches/locate.rs`. docs/BENCHMARKS.md
//! compares the figures with a document's extraction time with the
//! scripted server.
//!
//! The group `locating` is what a job without a model does with each of
//! those PDFs, on the starter invoice schema: read it as a job reads it
//! (word boxes, its e-invoice XML), locate the fields, find the located
//! values' evidence; once with the pages built once (as a job does now),
//! once built for each (as it did before), and the locator alone, for
//! its share of the whole (issue 41 asks under 5%).
#![allow(clippy::unwrap_used)] // a corpus file that does not read ends the run

use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::{Value, json};
use sift_core::evidence::{locate_values, locate_values_in_pages, search_pages};
use sift_documents::{Document, ReadOptions, read_documents};
use sift_locate::{FieldCandidates, locate_fields, locate_in_pages, set_path};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

/// The corpus's text PDFs with ground truth, with their MANIFEST values.
fn manifest_text_pdfs() -> Vec<(PathBuf, Value)> {
    let manifest = std::fs::read_to_string(corpus("MANIFEST.tsv")).unwrap_or_default();
    manifest
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() > 8 && f[4] == "text-pdf" && !f[5].is_empty()).then(|| {
                let values = json!({
                    "invoice_number": f[5], "date": f[6],
                    "total": f[7].parse::<f64>().unwrap_or(0.0), "currency": f[8],
                });
                (corpus(f[0]), values)
            })
        })
        .collect()
}

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "date": {"type": "string"},
        "total": {"type": "number"},
        "currency": {"type": "string"}
    }})
}

fn read(paths: &[PathBuf], word_boxes: bool) -> Vec<Document> {
    let options = ReadOptions {
        word_boxes,
        ..ReadOptions::default()
    };
    read_documents(paths, &options).unwrap().files
}

fn evidence(c: &mut Criterion) {
    let cases = manifest_text_pdfs();
    assert!(!cases.is_empty(), "no corpus beside the repository");
    let paths: Vec<PathBuf> = cases.iter().map(|(p, _)| p.clone()).collect();
    let mut group = c.benchmark_group("evidence");
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("read 15 text PDFs", |b| b.iter(|| read(&paths, false)));
    group.bench_function("read 15 text PDFs with word boxes", |b| {
        b.iter(|| read(&paths, true));
    });
    let documents = read(&paths, true);
    let schema = schema();
    group.bench_function("locate 4 values in each of 15 text PDFs", |b| {
        b.iter(|| {
            for (document, (_, values)) in documents.iter().zip(&cases) {
                std::hint::black_box(locate_values(document, &schema, values, false));
            }
        });
    });
    let dir = std::env::temp_dir().join(format!("sift-bench-evidence-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let small = dir.join("doc-0001.txt");
    std::fs::write(
        &small,
        "INVOICE INV-0001\nDate: 2024-03-02\nTotal due: 1.50 EUR\n",
    )
    .unwrap();
    let small_doc = read(std::slice::from_ref(&small), true);
    let small_schema = json!({"type": "object", "properties": {
        "number": {"type": "string"}, "total": {"type": "number"}}});
    let small_values = json!({"number": "INV-1", "total": 1.5});
    group.bench_function("locate 2 values in bench-extract's text invoice", |b| {
        b.iter(|| locate_values(&small_doc[0], &small_schema, &small_values, false));
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// The starter invoice schema, as a job on the Extract screen uses it.
fn starter_schema() -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("starter-schemas/invoice.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The answer of a job without a model: each field's best candidate.
fn located_answer(located: &[FieldCandidates]) -> Value {
    let mut answer = serde_json::Map::new();
    for field in located {
        if let Some(best) = field.best() {
            set_path(&mut answer, &field.key, best.clone());
        }
    }
    Value::Object(answer)
}

/// Read as a job without a model reads: word boxes and the e-invoice XML.
fn read_as_job(paths: &[PathBuf]) -> Vec<Document> {
    let options = ReadOptions {
        word_boxes: true,
        invoice_xml: true,
        ..ReadOptions::default()
    };
    read_documents(paths, &options).unwrap().files
}

fn locating(c: &mut Criterion) {
    let paths: Vec<PathBuf> = manifest_text_pdfs().into_iter().map(|(p, _)| p).collect();
    assert!(!paths.is_empty(), "no corpus beside the repository");
    let schema = starter_schema();
    let none = std::collections::HashMap::new();
    let mut group = c.benchmark_group("locating");
    group.measurement_time(Duration::from_secs(10));
    group.bench_function("read, locate, evidence, pages built once", |b| {
        b.iter(|| {
            for document in read_as_job(&paths) {
                let pages = search_pages(&document);
                let located = locate_in_pages(&pages, &schema);
                let answer = located_answer(&located);
                std::hint::black_box(locate_values_in_pages(
                    &pages, &schema, &answer, &none, false,
                ));
            }
        });
    });
    group.bench_function("read, locate, evidence, pages built for each", |b| {
        b.iter(|| {
            for document in read_as_job(&paths) {
                let located = locate_fields(&document, &schema);
                let answer = located_answer(&located);
                std::hint::black_box(locate_values(&document, &schema, &answer, false));
            }
        });
    });
    let documents = read_as_job(&paths);
    let pages: Vec<_> = documents.iter().map(search_pages).collect();
    group.bench_function("build the pages", |b| {
        b.iter(|| documents.iter().map(search_pages).collect::<Vec<_>>());
    });
    group.bench_function("locate in built pages", |b| {
        b.iter(|| {
            for pages in &pages {
                std::hint::black_box(locate_in_pages(pages, &schema));
            }
        });
    });
    let answers: Vec<Value> = pages
        .iter()
        .map(|pages| located_answer(&locate_in_pages(pages, &schema)))
        .collect();
    group.bench_function("evidence in built pages", |b| {
        b.iter(|| {
            for (pages, answer) in pages.iter().zip(&answers) {
                std::hint::black_box(locate_values_in_pages(pages, &schema, answer, &none, false));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, evidence, locating);
criterion_main!(benches);
