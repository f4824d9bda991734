//! Each document read in a child process, with a memory limit and a time
//! limit, so that a file which crashes its reader or exhausts the machine
//! fails alone.
//!
//! PDFium is C++: an exception it throws or a fault in it aborts the whole
//! process, which no Rust code can catch; and a page inside PDFium, ONNX
//! Runtime or Tesseract has no clock of its own. So a binary that reads
//! strangers' files (the CLI, the app) calls [`isolate_readers`] once at
//! start, naming itself with [`READER_ARGUMENT`]; from then on
//! [`crate::read_documents`] starts that command for each file. The child
//! ([`serve_reader`]) sets its own limits before it looks at the file
//! (`RLIMIT_AS`, `RLIMIT_CPU`, and death with its parent), reads the one
//! file and writes the [`Document`](crate::Document) (or the refusal) to
//! its standard output, with a line for each page as it goes. The parent
//! kills it past the time limit and turns a limit or a crash into a
//! [`ReaderStop`] naming the file and the limit; the other files are read
//! as before. The same child renders a page for people to look at
//! ([`crate::render_pdf_page`], a request with a page to render). Without
//! [`isolate_readers`] (library tests, the fuzzers) files are read and
//! rendered in process.
//!
//! The limits ([`ReaderLimits::default`]) come from reading every file of
//! the test corpus in a reader process (`docs/BENCHMARKS.md`, "A reader
//! process's memory and time").

mod parent;
mod worker;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub(crate) use parent::{read_in_child, render_in_child};
pub use worker::serve_reader;

/// The hidden first argument that makes the CLI or the app a reader
/// process ([`serve_reader`]) rather than itself.
pub const READER_ARGUMENT: &str = "__read-document";

/// The bounds of one reader process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderLimits {
    /// Its address space (`RLIMIT_AS`), in bytes: 2 GiB. Address space, not
    /// resident memory: libraries, thread stacks and malloc's arenas count
    /// in it, so it sits well above what a read touches (measured in
    /// `docs/BENCHMARKS.md`).
    pub memory_bytes: u64,
    /// Its wall-clock time: 180 s, the PDF reader's own 120 s bound
    /// ([`crate::Limits::max_pdf_time`], checked between pages) and a
    /// minute for the pages under way when it is reached.
    pub time: Duration,
}

impl Default for ReaderLimits {
    fn default() -> Self {
        Self {
            memory_bytes: 2 << 30,
            time: Duration::from_secs(180),
        }
    }
}

/// How to start a reader process: a program and the arguments before the
/// request it reads from its standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReaderCommand {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub limits: ReaderLimits,
}

impl ReaderCommand {
    /// The running executable with [`READER_ARGUMENT`], and the default limits.
    pub fn this_executable() -> std::io::Result<Self> {
        Ok(Self {
            program: std::env::current_exe()?,
            args: vec![READER_ARGUMENT.into()],
            limits: ReaderLimits::default(),
        })
    }
}

static READER_COMMAND: OnceLock<ReaderCommand> = OnceLock::new();

/// From now on, each file [`crate::read_documents`] reads is read by
/// `command` in a child process of its own. Once per process: a second
/// call changes nothing and gives `false`. Unix only (elsewhere files are
/// still read in process, and this gives `false`).
pub fn isolate_readers(command: ReaderCommand) -> bool {
    cfg!(unix) && READER_COMMAND.set(command).is_ok()
}

/// Whether this process was started as a reader process: with
/// [`READER_ARGUMENT`] as its first argument. A binary asks this first
/// thing, and then runs [`serve_reader`] alone.
pub fn is_reader_invocation() -> bool {
    std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == READER_ARGUMENT)
}

/// What a binary does first thing: when started as a reader process, it
/// serves as one and never returns; otherwise each document it reads from
/// now on is read in a child process of its own executable, so that one
/// that crashes PDFium or passes a limit fails alone.
pub fn start_reading_in_child_processes() {
    if is_reader_invocation() {
        serve_reader();
    }
    if let Ok(command) = ReaderCommand::this_executable() {
        isolate_readers(command);
    }
}

pub(crate) fn reader_command() -> Option<&'static ReaderCommand> {
    READER_COMMAND.get()
}

/// Why a reader process stopped before it gave its file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
pub enum ReaderStop {
    /// It needed more memory than the limit.
    #[error("its reader stopped at the {} memory limit", size(*bytes))]
    MemoryLimit { bytes: u64 },
    /// It ran past the time limit, and was killed.
    #[error("its reader took longer than {seconds} s (the time limit), so it was stopped")]
    TimeLimit { seconds: u64 },
    /// It used more processor time than the limit (its threads together).
    #[error(
        "its reader used more than {seconds} s of processor time (the limit), so it was stopped"
    )]
    CpuLimit { seconds: u64 },
    /// Its result was larger than Sift takes from a reader.
    #[error("its reader's result is over the {} limit", size(*bytes))]
    ResultTooLarge { bytes: u64 },
    /// It crashed (a library it runs aborted, or a signal killed it).
    #[error("its reader crashed ({how}); the file is probably malformed")]
    Crashed { how: String },
    /// It could not be started, or gave no result.
    #[error("its reader failed ({reason})")]
    Failed { reason: String },
}

/// A size in the unit that shows it whole: `2 GiB`, `384 MiB`.
fn size(bytes: u64) -> String {
    if bytes >= 1 << 30 && bytes.is_multiple_of(1 << 30) {
        format!("{} GiB", bytes >> 30)
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}

/// What a reader process is asked: one file, and how to read it.
#[derive(Debug, Serialize, Deserialize)]
struct ReadRequest {
    /// The path's bytes: a file name need not be UTF-8.
    path: Vec<u8>,
    pdf_password: Option<String>,
    data_dir: Option<PathBuf>,
    pdfium_library: Option<PathBuf>,
    limits: crate::Limits,
    ocr: crate::OcrOptions,
    model_takes_images: bool,
    word_boxes: bool,
    /// [`crate::TextOrder`] by its name.
    text_order: String,
    invoice_xml: bool,
    /// A page to render for people to look at, instead of reading the file.
    #[serde(default)]
    render: Option<PageRender>,
    /// Whether to write a line for each page read.
    progress: bool,
    memory_bytes: u64,
    cpu_seconds: u64,
}

/// A page of a PDF a reader renders: 0-based `index`, its long edge at
/// most `edge` pixels ([`crate::render_pdf_page`]).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
struct PageRender {
    index: usize,
    edge: u32,
}

/// A rendered page and how many pages its PDF has.
#[derive(Debug, Serialize, Deserialize)]
struct RenderedPage {
    image: crate::DocImage,
    page_count: usize,
}

/// A line a reader process writes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum ReaderLine {
    /// `done` of `total` pages read.
    Page { done: usize, total: usize },
    /// The file, read (its path left empty, for the parent to fill in) or
    /// refused: the last line.
    Read(Box<Result<crate::Document, crate::DocumentError>>),
    /// The page asked for, rendered, or the refusal: the last line.
    Rendered(Box<Result<RenderedPage, crate::DocumentError>>),
    /// A refusal that cannot be written as JSON (it names a file whose
    /// name is not UTF-8), in words without the name: the last line.
    Unsendable { reason: String },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_named_in_whole_units() {
        assert_eq!(
            ReaderStop::MemoryLimit { bytes: 2 << 30 }.to_string(),
            "its reader stopped at the 2 GiB memory limit"
        );
        assert_eq!(
            ReaderStop::MemoryLimit { bytes: 384 << 20 }.to_string(),
            "its reader stopped at the 384 MiB memory limit"
        );
    }
}
