//! Recognised pages kept on disk, so that no page is OCR'd twice: a
//! re-run, a resume, a revision or a preview reads them back.
//!
//! A page is kept at `CACHE_DIR/XX/KEY/PAGE.json`, where `KEY` is the
//! SHA-256 of the file's bytes followed by that of the OCR settings (the
//! languages, the resolution, the program and [`RECIPE`]), and `XX` its
//! first two characters. A file that cannot be read back (a partial
//! write, another version's format) is recognised again and replaced.
//! The pages are documents' text, so the folders the cache creates are
//! the user's alone (0700 on Unix), as its files are (written through a
//! temporary file, which is 0600).

use std::io;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::recognize::OCR_DPI;
use super::{OcrOptions, OcrPage};

/// The version of how pages are recognised: bumped when a change to it
/// would give other text, so that older results are not reused.
const RECIPE: &str = "sift-ocr-5";
/// Added when PaddleOCR reads the words (Tesseract-only pages keep their key).
const PADDLE_RECIPE: &str = "\npaddle-ppocrv4-4";

/// The OCR settings that change what a page reads as.
pub(crate) fn cache_settings(options: &OcrOptions) -> String {
    let engine = if options.paddle.is_some() {
        PADDLE_RECIPE
    } else {
        ""
    };
    format!("{RECIPE}\n{}\n{OCR_DPI}{engine}", options.language_arg())
}

/// Where one file's recognised pages are kept.
#[derive(Debug, Clone)]
pub(crate) struct OcrCache {
    dir: PathBuf,
}

impl OcrCache {
    /// The cache of the file with these bytes, or `None` without a cache
    /// directory.
    pub fn of(options: &OcrOptions, bytes: &[u8]) -> Option<Self> {
        let root = options.cache_dir.as_ref()?;
        let file = hex(&Sha256::digest(bytes));
        let settings = hex(&Sha256::digest(cache_settings(options).as_bytes()));
        Some(Self {
            dir: root
                .join(&file[..2])
                .join(format!("{file}-{}", &settings[..16])),
        })
    }

    /// A page (from 1) recognised before.
    pub fn get(&self, page: usize) -> Option<OcrPage> {
        let bytes = std::fs::read(self.dir.join(format!("{page}.json"))).ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    /// Keeps a recognised page. A cache that cannot be written only costs
    /// time later, so failures are not errors.
    pub fn put(&self, page: usize, result: &OcrPage) {
        let Ok(json) = serde_json::to_vec(result) else {
            return;
        };
        if create_private_folder(&self.dir).is_err() {
            return;
        }
        // Written whole: a reader never sees half a page.
        let target = self.dir.join(format!("{page}.json"));
        let _ = crate::atomic_write::write_atomically(&target, &json);
    }
}

/// Creates `folder` and those above it that are missing, each readable
/// by the user alone.
fn create_private_folder(folder: &Path) -> io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(folder)
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// The permission bits in octal, as `ls` and `chmod` write them.
    fn mode(path: &Path) -> String {
        let mode = std::fs::metadata(path).unwrap().permissions().mode();
        format!("{:o}", mode & 0o777)
    }

    #[test]
    fn the_cache_is_the_users_alone() {
        let folder = tempfile::tempdir().unwrap();
        let root = folder.path().join("ocr-cache");
        let options = OcrOptions {
            cache_dir: Some(root.clone()),
            ..OcrOptions::default()
        };
        let cache = OcrCache::of(&options, b"a scan").unwrap();
        let page = OcrPage {
            text: "Total 4.11".into(),
            words: Vec::new(),
            width: 100.0,
            height: 50.0,
            rotation: 0,
        };
        cache.put(1, &page);

        assert_eq!(cache.get(1), Some(page));
        assert_eq!(mode(&root), "700");
        let shard = std::fs::read_dir(&root).unwrap().next().unwrap().unwrap();
        assert_eq!(mode(&shard.path()), "700");
        assert_eq!(mode(&cache.dir), "700");
        assert_eq!(mode(&cache.dir.join("1.json")), "600");
    }
}
