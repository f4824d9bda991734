//! Why a file is refused. Every message names the file (or the pattern) it
//! is about, so that a user who named twenty files knows which one to fix.

use std::path::PathBuf;

pub use crate::reader_process::ReaderStop;

/// A refusal: nothing is sent to a model when any file is refused.
///
/// Serialisable, so that a reader process ([`crate::isolate_readers`])
/// hands its refusal to Sift as it would have been made in process.
#[derive(Debug, thiserror::Error, serde::Serialize, serde::Deserialize)]
pub enum DocumentError {
    /// A path that names no file.
    #[error("{}: no such file", .path.display())]
    NotFound { path: PathBuf },
    /// A glob pattern that matches no file.
    #[error("{pattern}: no file matches this pattern")]
    NoMatch { pattern: String },
    /// A glob pattern that cannot be parsed.
    #[error("{pattern}: not a valid pattern ({reason})")]
    BadPattern { pattern: String, reason: String },
    /// A path that names a directory.
    #[error("{}: is a directory, not a file (name its files, e.g. {}/*.pdf)", .path.display(), .path.display())]
    IsDirectory { path: PathBuf },
    /// A path that names neither a file nor a directory (a named pipe, a
    /// socket, a device): opening a pipe waits for a writer forever.
    #[error("{}: is not a regular file (a pipe, socket or device), so it is not opened", .path.display())]
    NotAFile { path: PathBuf },
    /// A kind of file Sift does not read.
    #[error(
        "{}: Sift does not read this kind of file ({kind}); it reads text (.txt .md .csv .tsv .json .jsonl .yaml .yml .xml .html .htm .log), Word (.docx), Excel (.xlsx .xlsm), PDF and images (.png .jpg .jpeg .gif .webp)",
        .path.display()
    )]
    Unsupported { path: PathBuf, kind: String },
    /// A file over the size limit (50 MB).
    #[error("{}: the file is {} bytes, over the limit of {} bytes (50 MB)", .path.display(), .bytes, .limit)]
    TooLarge {
        path: PathBuf,
        bytes: u64,
        limit: u64,
    },
    /// An encrypted PDF (or password-protected workbook) and no password, or the wrong one.
    #[error("{}: {reason}", .path.display())]
    Encrypted { path: PathBuf, reason: String },
    /// A corrupt or unreadable file.
    #[error("{}: cannot be read: {reason}", .path.display())]
    Corrupt { path: PathBuf, reason: String },
    /// A file that would take the decoder past a safety bound (a
    /// decompression bomb, a huge image, a PDF with too many pages or one
    /// that takes too long).
    #[error("{}: refused: {reason}", .path.display())]
    Bound { path: PathBuf, reason: String },
    /// The files together hold more text than the limit.
    #[error(
        "{}: the files together hold more than {limit} characters of text (the limit), counting this one",
        .path.display()
    )]
    TooMuchText { path: PathBuf, limit: usize },
    /// The files together hold more images than the limit.
    #[error(
        "{}: the files together hold more than {limit} images (the limit), counting this one",
        .path.display()
    )]
    TooManyImages { path: PathBuf, limit: usize },
    /// PDFium, which Sift reads PDFs with, is not installed or cannot be loaded.
    #[error(
        "{}: reading a PDF needs PDFium, which was not found ({detail}). Run scripts/setup.sh to install it into {}, or set SIFT_PDFIUM to the path of libpdfium.so",
        .path.display(), .install_dir.display()
    )]
    PdfiumMissing {
        path: PathBuf,
        detail: String,
        install_dir: PathBuf,
    },
    /// OCR could not read a page (Tesseract or a language pack missing,
    /// or Tesseract failing).
    #[error("{}: {source}", .path.display())]
    Ocr {
        path: PathBuf,
        #[source]
        source: crate::ocr::OcrError,
    },
    /// An I/O error while reading a file.
    #[error("{}: cannot be read: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        #[serde(with = "io_error_text")]
        source: std::io::Error,
    },
    /// The reader process stopped before it gave the file: a limit (memory,
    /// time, the size of its result) or a crash in a library it runs
    /// (PDFium, ONNX Runtime); see [`crate::isolate_readers`].
    #[error("{}: {stop}", .path.display())]
    ReaderStopped { path: PathBuf, stop: ReaderStop },
    /// Assembly needs a user message to put the files in front of.
    #[error("the files go with a user message, and there is none")]
    NoUserMessage,
}

impl DocumentError {
    /// The file or pattern the refusal is about, when there is one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            Self::NotFound { path }
            | Self::IsDirectory { path }
            | Self::NotAFile { path }
            | Self::Unsupported { path, .. }
            | Self::TooLarge { path, .. }
            | Self::Encrypted { path, .. }
            | Self::Corrupt { path, .. }
            | Self::Bound { path, .. }
            | Self::TooMuchText { path, .. }
            | Self::TooManyImages { path, .. }
            | Self::PdfiumMissing { path, .. }
            | Self::Ocr { path, .. }
            | Self::Io { path, .. }
            | Self::ReaderStopped { path, .. } => Some(path),
            Self::NoMatch { .. } | Self::BadPattern { .. } | Self::NoUserMessage => None,
        }
    }

    pub(crate) fn corrupt(path: &std::path::Path, reason: impl std::fmt::Display) -> Self {
        Self::Corrupt {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }

    pub(crate) fn bound(path: &std::path::Path, reason: impl std::fmt::Display) -> Self {
        Self::Bound {
            path: path.to_path_buf(),
            reason: reason.to_string(),
        }
    }
}

/// An I/O error crosses from a reader process as its message: what a
/// caller shows. Its kind is not kept (no caller asks for it).
mod io_error_text {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        error: &std::io::Error,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&error.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<std::io::Error, D::Error> {
        Ok(std::io::Error::other(String::deserialize(deserializer)?))
    }
}
