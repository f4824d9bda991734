//! Sift's side: a reader process started for one file, watched against the
//! time limit, its result read up to a cap, its death put in words.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStderr, ChildStdout, Command, ExitStatus, Stdio};
use std::sync::{Condvar, Mutex, OnceLock, mpsc};

use super::{
    PageRender, ReadRequest, ReaderCommand, ReaderLimits, ReaderLine, ReaderStop, RenderedPage,
    size,
};
use crate::document::DocImage;
use crate::document::Document;
use crate::error::DocumentError;
use crate::limits::ReadOptions;
use crate::pdf::MAX_INVOICE_XML_BYTES;
use crate::progress::{OnPage, PageProgress};

/// The most Sift takes from one reader: a file's text is at most 1,000,000
/// characters, but its 50 images (base64) and its words' boxes may add
/// a few hundred MiB.
const MAX_RESULT_BYTES: u64 = 512 << 20;

/// The end of a reader's standard error kept, to tell a failed allocation
/// from another abort.
const STDERR_TAIL_BYTES: usize = 16 << 10;

/// How a reader's output ended.
enum Output {
    Read(Box<Result<Document, DocumentError>>),
    Rendered(Box<Result<RenderedPage, DocumentError>>),
    /// A refusal it could only put in words (see [`ReaderLine::Unsendable`]).
    Refused(Box<DocumentError>),
    TooLarge,
    /// Its output closed without a result: it died, or wrote something else.
    Nothing,
}

/// Reads `path` in a reader process started by `command`.
pub(crate) fn read_in_child(
    path: &Path,
    options: &ReadOptions,
    command: &ReaderCommand,
) -> Result<Document, DocumentError> {
    let document = match run_child(path, options, command, None)? {
        Output::Read(result) => (*result)?,
        Output::Refused(error) => return Err(*error),
        _ => return Err(no_result(path)),
    };
    // The reader passes over a larger one; a reader that sends one
    // anyway is not believed.
    if let Some(xml) = &document.invoice_xml
        && xml.bytes.len() > MAX_INVOICE_XML_BYTES
    {
        return Err(DocumentError::bound(
            path,
            format_args!(
                "its reader sent an e-invoice XML ({}) of {}, over the limit of {}",
                xml.name,
                size(xml.bytes.len() as u64),
                size(MAX_INVOICE_XML_BYTES as u64)
            ),
        ));
    }
    Ok(Document {
        path: path.to_path_buf(),
        ..document
    })
}

/// Renders page `index` (0-based) of the PDF at `path`, its long edge at
/// most `edge` pixels, in a reader process started by `command`: the
/// image and the PDF's number of pages.
pub(crate) fn render_in_child(
    path: &Path,
    index: usize,
    edge: u32,
    options: &ReadOptions,
    command: &ReaderCommand,
) -> Result<(DocImage, usize), DocumentError> {
    match run_child(path, options, command, Some(PageRender { index, edge }))? {
        Output::Rendered(result) => (*result).map(|page| (page.image, page.page_count)),
        Output::Refused(error) => Err(*error),
        _ => Err(no_result(path)),
    }
}

/// A reader that answered with another kind of result than asked.
fn no_result(path: &Path) -> DocumentError {
    DocumentError::ReaderStopped {
        path: path.to_path_buf(),
        stop: ReaderStop::Failed {
            reason: "it gave another result than asked".into(),
        },
    }
}

/// Runs one reader process for `path` (a read, or with `render` a page's
/// rendering) to its result; a limit, a crash or too large a result is
/// the error naming the file.
fn run_child(
    path: &Path,
    options: &ReadOptions,
    command: &ReaderCommand,
    render: Option<PageRender>,
) -> Result<Output, DocumentError> {
    let limits = effective_limits(&command.limits);
    let stopped = |stop| DocumentError::ReaderStopped {
        path: path.to_path_buf(),
        stop,
    };
    let request =
        serde_json::to_vec(&request_for(path, options, &limits, render)).map_err(|e| {
            stopped(ReaderStop::Failed {
                reason: format!("the request cannot be written: {e}"),
            })
        })?;
    // Held until the reader is waited for: the readers running at once,
    // and so the memory they hold together, are bounded.
    let _slot = ReaderSlots::global().take();
    let mut child = spawn(command).map_err(|e| {
        stopped(ReaderStop::Failed {
            reason: format!("{} cannot be started: {e}", command.program.display()),
        })
    })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A reader that died before reading it is told by its exit below.
        let _ = stdin.write_all(&request);
    }
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let (output, stderr_tail, timed_out) = std::thread::scope(|scope| {
        let stderr_tail = scope.spawn(move || tail_of(stderr));
        let (sender, receiver) = mpsc::channel();
        let on_page = options.on_page.as_ref();
        scope.spawn(move || {
            let _ = sender.send(read_output(stdout, path, on_page));
        });
        let (output, timed_out) = match receiver.recv_timeout(limits.time) {
            Ok(output) => (output, false),
            // Killed with its group (a Tesseract it started, say), which
            // closes the pipes the threads read.
            Err(_) => {
                kill_group(&child);
                (Output::Nothing, true)
            }
        };
        if matches!(output, Output::TooLarge) {
            kill_group(&child);
        }
        (output, stderr_tail.join().unwrap_or_default(), timed_out)
    });
    let status = child.wait();
    if timed_out {
        return Err(stopped(ReaderStop::TimeLimit {
            seconds: limits.time.as_secs(),
        }));
    }
    match output {
        Output::Read(_) | Output::Rendered(_) | Output::Refused(_) => Ok(output),
        Output::TooLarge => Err(stopped(ReaderStop::ResultTooLarge {
            bytes: MAX_RESULT_BYTES,
        })),
        Output::Nothing => Err(stopped(match status {
            Ok(status) => why_stopped(status, &stderr_tail, &limits),
            Err(e) => ReaderStop::Failed {
                reason: format!("waiting for it: {e}"),
            },
        })),
    }
}

/// The processor time a reader may use: a backstop for the wall clock,
/// which is the limit, at every core busy for all of it (OCR runs a page
/// a core).
fn cpu_seconds(limits: &ReaderLimits) -> u64 {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    limits.time.as_secs().max(1) * cores
}

fn request_for(
    path: &Path,
    options: &ReadOptions,
    limits: &ReaderLimits,
    render: Option<PageRender>,
) -> ReadRequest {
    ReadRequest {
        path: path_bytes(path),
        pdf_password: options.pdf_password.clone(),
        data_dir: options.data_dir.clone(),
        pdfium_library: options.pdfium_library.clone(),
        limits: options.limits.clone(),
        ocr: options.ocr.clone(),
        model_takes_images: options.model_takes_images,
        word_boxes: options.word_boxes,
        text_order: options.text_order.name().to_string(),
        invoice_xml: options.invoice_xml,
        render,
        progress: options.on_page.is_some(),
        memory_bytes: limits.memory_bytes,
        cpu_seconds: cpu_seconds(limits),
    }
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Vec<u8> {
    path.to_string_lossy().into_owned().into_bytes()
}

fn spawn(command: &ReaderCommand) -> std::io::Result<Child> {
    let mut process = Command::new(&command.program);
    process
        .args(&command.args)
        // Each thread's malloc arena reserves 64 MiB of address space
        // (counted by RLIMIT_AS) however little it holds: two keep the
        // limit a bound on memory rather than on threads.
        .env("MALLOC_ARENA_MAX", "2")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // A group of its own, so that killing it kills what it started.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut process, 0);
    process.spawn()
}

fn kill_group(child: &Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        // Gone already is fine: it is waited for next.
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Reads the reader's lines: pages told as they come, up to the result.
fn read_output(stdout: Option<ChildStdout>, path: &Path, on_page: Option<&OnPage>) -> Output {
    let Some(stdout) = stdout else {
        return Output::Nothing;
    };
    let mut lines = BufReader::new(stdout.take(MAX_RESULT_BYTES + 1));
    let mut taken = 0u64;
    let mut line = Vec::new();
    loop {
        line.clear();
        match lines.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return Output::Nothing,
            Ok(n) => taken += n as u64,
        }
        if taken > MAX_RESULT_BYTES {
            return Output::TooLarge;
        }
        match serde_json::from_slice::<ReaderLine>(&line) {
            Ok(ReaderLine::Page { done, total }) => {
                if let Some(on_page) = on_page {
                    on_page.tell(PageProgress {
                        path: path.to_path_buf(),
                        done,
                        total,
                    });
                }
            }
            Ok(ReaderLine::Read(result)) => return Output::Read(result),
            Ok(ReaderLine::Rendered(result)) => return Output::Rendered(result),
            Ok(ReaderLine::Unsendable { reason }) => {
                return Output::Refused(Box::new(DocumentError::ReaderStopped {
                    path: path.to_path_buf(),
                    stop: ReaderStop::Failed { reason },
                }));
            }
            // Not a line of Sift's (a library printing): skipped.
            Err(_) => {}
        }
    }
}

/// The last [`STDERR_TAIL_BYTES`] of the reader's standard error.
fn tail_of(stderr: Option<ChildStderr>) -> String {
    let Some(mut stderr) = stderr else {
        return String::new();
    };
    let mut tail: Vec<u8> = Vec::new();
    let mut buffer = [0u8; 8192];
    while let Ok(n) = stderr.read(&mut buffer) {
        if n == 0 {
            break;
        }
        tail.extend_from_slice(&buffer[..n]);
        if tail.len() > STDERR_TAIL_BYTES {
            tail.drain(..tail.len() - STDERR_TAIL_BYTES);
        }
    }
    String::from_utf8_lossy(&tail).into_owned()
}

/// Why a reader that gave no result stopped.
fn why_stopped(status: ExitStatus, stderr: &str, limits: &ReaderLimits) -> ReaderStop {
    // Rust's allocator, C++'s `new` and PDFium's partition allocator each
    // abort with one of these when RLIMIT_AS refuses them memory.
    const OUT_OF_MEMORY: [&str; 4] = [
        "memory allocation of",
        "bad_alloc",
        "Out of memory",
        "out of memory",
    ];
    if OUT_OF_MEMORY.iter().any(|m| stderr.contains(m)) {
        return ReaderStop::MemoryLimit {
            bytes: limits.memory_bytes,
        };
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            if signal == libc_signal::XCPU {
                return ReaderStop::CpuLimit {
                    seconds: cpu_seconds(limits),
                };
            }
            return ReaderStop::Crashed {
                how: signal_words(signal),
            };
        }
    }
    // The reader's own refusal to start (a request it cannot read, a limit
    // it cannot set) is its last line.
    if let Some(reason) = stderr
        .lines()
        .last()
        .and_then(|line| line.strip_prefix("sift reader: "))
    {
        return ReaderStop::Failed {
            reason: reason.to_string(),
        };
    }
    match status.code() {
        Some(0) => ReaderStop::Failed {
            reason: "it gave no result".into(),
        },
        Some(code) => ReaderStop::Crashed {
            how: format!("exit status {code}"),
        },
        None => ReaderStop::Crashed {
            how: status.to_string(),
        },
    }
}

/// The signals a reader dies of, by number (the same on Linux's
/// architectures Sift builds for).
#[cfg(unix)]
mod libc_signal {
    pub const ILL: i32 = 4;
    pub const TRAP: i32 = 5;
    pub const ABRT: i32 = 6;
    pub const BUS: i32 = 7;
    pub const FPE: i32 = 8;
    pub const KILL: i32 = 9;
    pub const SEGV: i32 = 11;
    pub const XCPU: i32 = 24;
}

#[cfg(unix)]
fn signal_words(signal: i32) -> String {
    use libc_signal::*;
    let name = match signal {
        ABRT => "aborted, SIGABRT",
        SEGV => "segmentation fault, SIGSEGV",
        BUS => "bus error, SIGBUS",
        ILL => "illegal instruction, SIGILL",
        TRAP => "trap, SIGTRAP",
        FPE => "arithmetic fault, SIGFPE",
        KILL => "killed, SIGKILL",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

/// The limits, with debug builds' test knobs applied:
/// `SIFT_TEST_READER_TIME_LIMIT_SECS` and `SIFT_TEST_READER_MEMORY_LIMIT_MIB`
/// (tests of the limits without a file that takes minutes or gigabytes).
fn effective_limits(limits: &ReaderLimits) -> ReaderLimits {
    let mut limits = limits.clone();
    #[cfg(debug_assertions)]
    {
        let knob = |name| std::env::var(name).ok()?.parse::<u64>().ok();
        if let Some(seconds) = knob("SIFT_TEST_READER_TIME_LIMIT_SECS") {
            limits.time = std::time::Duration::from_secs(seconds);
        }
        if let Some(mib) = knob("SIFT_TEST_READER_MEMORY_LIMIT_MIB") {
            limits.memory_bytes = mib << 20;
        }
    }
    // A reader cannot have more than Sift was started with (`prlimit
    // --as`); the message names the limit it had.
    #[cfg(unix)]
    if let Some(inherited) = rustix::process::getrlimit(rustix::process::Resource::As).maximum {
        limits.memory_bytes = limits.memory_bytes.min(inherited);
    }
    limits
}

/// The reader processes that may run at once: one a core, 4 at most (as
/// many as [`crate::read_documents`] reads in parallel), across all the
/// reads of this process (an extraction's documents, a chat's files), so
/// that readers hold at most that many times the memory limit together.
struct ReaderSlots {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A reader's place among [`ReaderSlots`], given back when dropped.
struct ReaderSlot(&'static ReaderSlots);

impl ReaderSlots {
    fn global() -> &'static Self {
        static SLOTS: OnceLock<ReaderSlots> = OnceLock::new();
        SLOTS.get_or_init(|| Self {
            free: Mutex::new(
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .min(4),
            ),
            freed: Condvar::new(),
        })
    }

    fn take(&'static self) -> ReaderSlot {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        ReaderSlot(self)
    }
}

impl Drop for ReaderSlot {
    fn drop(&mut self) {
        let mut free = self.0.free.lock().unwrap_or_else(|e| e.into_inner());
        *free += 1;
        self.0.freed.notify_one();
    }
}
