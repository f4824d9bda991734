//! Damaged files: every reader refuses or reads them, and never panics or
//! hangs. A cheap, deterministic complement to fuzzing: each sample is
//! truncated and has bytes overwritten at pseudo-random places.

use std::path::PathBuf;

use crate::fixtures::{PdfPage, docx, pdf, png, xlsx};
use crate::{TempDir, corpus, read_one};

/// A small deterministic generator (xorshift).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn samples() -> Vec<(String, Vec<u8>)> {
    let mut samples = vec![
        (
            "a.pdf".to_string(),
            pdf(&[
                PdfPage::text(200, 200, &["Total 12.50"]),
                PdfPage::scan(100, 100),
            ]),
        ),
        (
            "a.docx".to_string(),
            docx(
                "<w:p><w:r><w:t>Total</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr></w:tbl>",
            ),
        ),
        (
            "a.xlsx".to_string(),
            xlsx(
                &[("S", r#"<row r="1"><c r="A1"><v>1.5</v></c></row>"#, "")],
                &[],
                &[0],
            ),
        ),
        ("a.png".to_string(), png(16, 16, [1, 2, 3])),
        ("a.txt".to_string(), "Total: 12.50 €\n".as_bytes().to_vec()),
    ];
    for name in [
        "sroie_019.jpg",
        "i2d_oyo.pdf",
        "docling_word_tables.docx",
        "calamine_merge_cells.xlsx",
    ] {
        samples.push((
            format!("c-{name}"),
            std::fs::read(corpus(name)).expect("a corpus file"),
        ));
    }
    samples
}

#[test]
fn damaged_files_are_refused_or_read_without_panicking() {
    let dir = TempDir::new();
    let mut rng = Rng(0x5EED_1234_ABCD_0001);
    let mut outcomes = (0usize, 0usize);
    for (name, bytes) in samples() {
        for round in 0..12 {
            let mut damaged = bytes.clone();
            if round % 3 == 0 {
                damaged.truncate(rng.below(damaged.len()));
            }
            for _ in 0..=rng.below(8) {
                if !damaged.is_empty() {
                    let at = rng.below(damaged.len());
                    damaged[at] = rng.next() as u8;
                }
            }
            let path: PathBuf = dir.write(&format!("r{round}-{name}"), &damaged);
            match read_one(&path) {
                Ok(_) => outcomes.0 += 1,
                Err(error) => {
                    let message = error.to_string();
                    assert!(
                        message.starts_with(&path.display().to_string()),
                        "{message}"
                    );
                    outcomes.1 += 1;
                }
            }
        }
    }
    assert_eq!(outcomes.0 + outcomes.1, 9 * 12);
}
