//! Reading files into [`Documents`], enforcing the limits.

use std::path::{Path, PathBuf};

use crate::budget::Budget;
use crate::document::{DocImage, Document, Documents};
use crate::error::DocumentError;
use crate::in_process::{check_unopened, read_one};
use crate::limits::ReadOptions;
use crate::pdf;

/// Reads each file once, and gives them in the order named. Refuses the
/// whole set at the first file (in that order) that cannot be given to a
/// model, with a message naming that file.
///
/// Files are read in parallel (one thread a core, at most 4); each is
/// bounded by the limits on its own while read, and the totals are then
/// charged in order, so the outcome is the same as reading one by one.
/// After [`crate::isolate_readers`], each file is read in a reader process
/// of its own, under a memory and a time limit; a file that crashes its
/// reader or passes a limit is refused as any other
/// ([`DocumentError::ReaderStopped`]).
pub fn read_documents(
    paths: &[PathBuf],
    options: &ReadOptions,
) -> Result<Documents, DocumentError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(paths.len())
        .min(4);
    let results: Vec<Result<Document, DocumentError>> = if workers <= 1 {
        let mut results = Vec::with_capacity(paths.len());
        for path in paths {
            let result = read_file(path, options);
            let failed = result.is_err();
            results.push(result);
            if failed {
                break;
            }
        }
        results
    } else {
        read_parallel(paths, options, workers)
    };
    let mut budget = Budget::new(&options.limits);
    let mut files = Vec::with_capacity(paths.len());
    for result in results {
        let document = result?;
        budget.charge(&document)?;
        files.push(document);
    }
    Ok(Documents { files })
}

fn read_parallel(
    paths: &[PathBuf],
    options: &ReadOptions,
    workers: usize,
) -> Vec<Result<Document, DocumentError>> {
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let next = AtomicUsize::new(0);
    // Files after the first refused one need not be read.
    let first_error = AtomicUsize::new(usize::MAX);
    let slots: Vec<Mutex<Option<Result<Document, DocumentError>>>> =
        paths.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::SeqCst);
                    if index >= paths.len() || index > first_error.load(Ordering::SeqCst) {
                        break;
                    }
                    let result = read_file(&paths[index], options);
                    if result.is_err() {
                        first_error.fetch_min(index, Ordering::SeqCst);
                    }
                    if let Ok(mut slot) = slots[index].lock() {
                        *slot = Some(result);
                    }
                }
            });
        }
    });
    slots
        .into_iter()
        .map_while(|slot| slot.into_inner().ok().flatten())
        .collect()
}

/// One file, in a reader process when [`crate::isolate_readers`] asked
/// for them, else here. What needs no reading is refused here either way,
/// without starting a process.
fn read_file(path: &Path, options: &ReadOptions) -> Result<Document, DocumentError> {
    match crate::reader_process::reader_command() {
        Some(command) => {
            check_unopened(path, &options.limits)?;
            crate::reader_process::read_in_child(path, options, command)
        }
        None => read_one(path, options, &mut Budget::new(&options.limits)),
    }
}

/// One page of a PDF (0-based `index`) rendered for people to look at,
/// such as a preview beside the values read from it, whatever it holds
/// (text or scan): its long edge at most `edge` pixels. Returns the image
/// and the number of pages.
///
/// In a reader process of its own when the binary isolates its readers
/// ([`crate::isolate_readers`]), as reading is: PDFium may abort on a
/// malformed file, or inflate a stream whole.
pub fn render_pdf_page(
    path: &Path,
    index: usize,
    edge: u32,
    options: &ReadOptions,
) -> Result<(DocImage, usize), DocumentError> {
    match crate::reader_process::reader_command() {
        Some(command) => {
            check_unopened(path, &options.limits)?;
            crate::reader_process::render_in_child(path, index, edge, options, command)
        }
        None => pdf::render_pdf_page_here(path, index, edge, options),
    }
}
