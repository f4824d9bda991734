//! The reader process's side: limits first, then the one file.

use std::io::{Read, Write};
use std::path::PathBuf;

use super::{ReadRequest, ReaderLine, RenderedPage};
use crate::budget::Budget;
use crate::document::Document;
use crate::error::DocumentError;
use crate::limits::ReadOptions;
use crate::progress::OnPage;

/// The largest request a reader process takes: a path, a password and
/// options are a few KiB.
const MAX_REQUEST_BYTES: u64 = 1 << 20;

/// Runs this process as a reader process: reads one request (a file and
/// how to read it) from standard input, sets its limits, reads the file
/// and writes its lines to standard output, then exits. A binary calls
/// this, and nothing else, when [`super::is_reader_invocation`] says so.
pub fn serve_reader() -> ! {
    let code = match serve() {
        Ok(()) => 0,
        Err(message) => {
            // The parent keeps the end of this for its message.
            let _ = writeln!(std::io::stderr(), "sift reader: {message}");
            2
        }
    };
    std::process::exit(code)
}

fn serve() -> Result<(), String> {
    // A reader outlives no parent: killed with it, even one killed itself.
    #[cfg(target_os = "linux")]
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
        .map_err(|e| format!("cannot tie the reader to its parent: {e}"))?;
    let mut request = Vec::new();
    std::io::stdin()
        .take(MAX_REQUEST_BYTES)
        .read_to_end(&mut request)
        .map_err(|e| format!("cannot read the request: {e}"))?;
    let request: ReadRequest =
        serde_json::from_slice(&request).map_err(|e| format!("not a read request: {e}"))?;
    set_limits(&request)?;
    let path = path_of(request.path);
    #[cfg(debug_assertions)]
    test_fault(&path);
    let options = ReadOptions {
        pdf_password: request.pdf_password,
        data_dir: request.data_dir,
        pdfium_library: request.pdfium_library,
        limits: request.limits,
        ocr: request.ocr,
        model_takes_images: request.model_takes_images,
        word_boxes: request.word_boxes,
        text_order: request
            .text_order
            .parse()
            .map_err(|e| format!("not a read request: {e}"))?,
        invoice_xml: request.invoice_xml,
        on_page: request.progress.then(|| {
            OnPage::new(|progress| {
                write_line(&ReaderLine::Page {
                    done: progress.done,
                    total: progress.total,
                });
            })
        }),
    };
    if let Some(render) = request.render {
        let result = crate::pdf::render_pdf_page_here(&path, render.index, render.edge, &options)
            .map(|(image, page_count)| RenderedPage { image, page_count });
        send(result, &path, ReaderLine::Rendered);
        return Ok(());
    }
    // The document's path is the parent's to put back: a name that is not
    // UTF-8 cannot be written as JSON.
    let result = crate::in_process::read_one(&path, &options, &mut Budget::new(&options.limits))
        .map(|document| Document {
            path: PathBuf::new(),
            ..document
        });
    send(result, &path, ReaderLine::Read);
    Ok(())
}

/// Writes the result's line; a refusal naming a file whose name is not
/// UTF-8 (which JSON cannot carry) in words.
fn send<T>(
    result: Result<T, DocumentError>,
    path: &std::path::Path,
    line_of: fn(Box<Result<T, DocumentError>>) -> ReaderLine,
) {
    match result {
        Err(error) if serde_json::to_vec(&error).is_err() => {
            let prefix = format!("{}: ", path.display());
            let message = error.to_string();
            write_line(&ReaderLine::Unsendable {
                reason: message
                    .strip_prefix(&prefix)
                    .unwrap_or(&message)
                    .to_string(),
            });
        }
        result => write_line(&line_of(Box::new(result))),
    }
}

#[cfg(unix)]
fn path_of(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(not(unix))]
fn path_of(bytes: Vec<u8>) -> PathBuf {
    PathBuf::from(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(unix)]
fn set_limits(request: &ReadRequest) -> Result<(), String> {
    use rustix::process::Resource;
    set_limit(Resource::As, request.memory_bytes, request.memory_bytes)
        .map_err(|e| format!("cannot set the memory limit: {e}"))?;
    // SIGXCPU at the soft limit; the hard one, a little later, is SIGKILL
    // for a reader that ignores it.
    set_limit(Resource::Cpu, request.cpu_seconds, request.cpu_seconds + 5)
        .map_err(|e| format!("cannot set the processor time limit: {e}"))
}

/// Sets a limit, kept within one Sift was started under (`prlimit --as`,
/// `ulimit -v`): a limit can be lowered, never raised past its maximum.
#[cfg(unix)]
fn set_limit(
    resource: rustix::process::Resource,
    current: u64,
    maximum: u64,
) -> rustix::io::Result<()> {
    use rustix::process::{Rlimit, getrlimit, setrlimit};
    let inherited = getrlimit(resource).maximum;
    let within = |value: u64| Some(inherited.map_or(value, |max| value.min(max)));
    setrlimit(
        resource,
        Rlimit {
            current: within(current),
            maximum: within(maximum),
        },
    )
}

#[cfg(not(unix))]
fn set_limits(_request: &ReadRequest) -> Result<(), String> {
    Ok(())
}

/// One line to standard output, whole, as the parent reads them.
fn write_line(line: &ReaderLine) {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // A parent that stopped reading has killed this process or is gone.
    let _ = serde_json::to_writer(&mut out, line);
    let _ = out.write_all(b"\n");
    let _ = out.flush();
}

/// Debug builds only: `SIFT_TEST_READER_FAULT=abort:NAME` makes the reader
/// of the file named NAME abort (as PDFium does on some files), and
/// `stall:NAME` makes it wait forever (as a reader stuck in a library
/// would), so that tests show what the parent does without a file that
/// does it to this machine's PDFium.
#[cfg(debug_assertions)]
fn test_fault(path: &std::path::Path) {
    let Ok(fault) = std::env::var("SIFT_TEST_READER_FAULT") else {
        return;
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
    for entry in fault.split(',') {
        let Some((what, target)) = entry.split_once(':') else {
            continue;
        };
        if name.as_deref() != Some(target) {
            continue;
        }
        match what {
            "abort" => std::process::abort(),
            "stall" => loop {
                std::thread::park();
            },
            _ => {}
        }
    }
}
