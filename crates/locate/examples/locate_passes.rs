//! Locating, counted in instructions: the starter invoice schema located
//! in each of the corpus's text PDFs, PASSES times over (5 unless given),
//! for valgrind's callgrind to count. Criterion's wall-clock figures on a
//! shared 2-core machine swing by a fifth between runs of one binary; the
//! instructions a pass takes do not, so a change's A/B is read here:
//!
//! ```sh
//! cargo build --release -p sift-locate --example locate_passes
//! valgrind --tool=callgrind --toggle-collect='locate_passes::passes_over' \
//!     target/release/examples/locate_passes 5
//! ```
//!
//! With `--write FILE` it also writes every field's candidates, one
//! document a line, to compare two builds' results.
#![allow(clippy::unwrap_used)] // a corpus file that does not read ends the run

use std::path::{Path, PathBuf};

use serde_json::Value;
use sift_documents::{ReadOptions, read_documents};
use sift_locate::locate_in_pages;
use sift_locate::pages::{SearchPage, search_pages};

fn corpus(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let passes: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(5);
    let write = args
        .iter()
        .position(|a| a == "--write")
        .and_then(|at| args.get(at + 1));
    // The corpus's text PDFs with ground truth, as the criterion bench reads them.
    let manifest = std::fs::read_to_string(corpus("MANIFEST.tsv")).unwrap();
    let paths: Vec<PathBuf> = manifest
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            (f.len() > 8 && f[4] == "text-pdf" && !f[5].is_empty()).then(|| corpus(f[0]))
        })
        .collect();
    let options = ReadOptions {
        word_boxes: true,
        ..ReadOptions::default()
    };
    let documents = read_documents(&paths, &options).unwrap().files;
    let pages: Vec<Vec<SearchPage>> = documents.iter().map(search_pages).collect();
    let starter: Value =
        serde_json::from_str(include_str!("../../core/starter-schemas/invoice.json")).unwrap();
    // Once outside the count: the language tables are read on first use.
    let located: Vec<String> = pages
        .iter()
        .map(|p| serde_json::to_string(&locate_in_pages(p, &starter)).unwrap())
        .collect();
    if let Some(file) = write {
        std::fs::write(file, located.join("\n") + "\n").unwrap();
    }
    passes_over(passes, &pages, &starter);
}

/// What callgrind counts (`--toggle-collect`).
#[inline(never)]
fn passes_over(passes: usize, pages: &[Vec<SearchPage>], schema: &Value) {
    for _ in 0..passes {
        for document in pages {
            std::hint::black_box(locate_in_pages(document, schema));
        }
    }
}
