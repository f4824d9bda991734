//! The OCR of one file's pages: cached pages read back, the others
//! recognised on worker threads (as many as the cores), progress told
//! page by page.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::{Scope, ScopedJoinHandle};

use image::DynamicImage;

use crate::error::DocumentError;
use crate::ocr::cache::OcrCache;
use crate::ocr::{OcrOptions, OcrPage, recognize};
use crate::progress::{OnPage, PageProgress};

/// One file's OCR: its cache and its progress.
pub(crate) struct FileOcr<'a> {
    path: PathBuf,
    options: &'a OcrOptions,
    on_page: Option<&'a OnPage>,
    cache: Option<OcrCache>,
    total: usize,
    done: AtomicUsize,
}

impl<'a> FileOcr<'a> {
    /// The OCR of the file at `path` with these bytes and `total` pages,
    /// telling `on_page` as each page is done.
    pub fn new(
        path: &Path,
        bytes: &[u8],
        options: &'a OcrOptions,
        on_page: Option<&'a OnPage>,
        total: usize,
    ) -> Self {
        Self {
            path: path.to_path_buf(),
            options,
            on_page,
            cache: OcrCache::of(options, bytes),
            total,
            done: AtomicUsize::new(0),
        }
    }

    /// Page `number` (from 1) as recognised before, counted as done.
    pub fn cached(&self, number: usize) -> Option<OcrPage> {
        let page = self.cache.as_ref()?.get(number)?;
        self.page_done();
        Some(page)
    }

    /// Counts a page as done (one that needs no OCR, or was read back).
    pub fn page_done(&self) {
        let done = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        if let Some(on_page) = self.on_page {
            on_page.tell(PageProgress {
                path: self.path.clone(),
                done,
                total: self.total,
            });
        }
    }

    /// Recognises page `number` (from 1), keeps it in the cache and counts
    /// it as done.
    pub fn recognize(
        &self,
        number: usize,
        image: &DynamicImage,
        page_width: f32,
    ) -> Result<OcrPage, DocumentError> {
        let page =
            recognize(image, page_width, self.options).map_err(|source| DocumentError::Ocr {
                path: self.path.clone(),
                source,
            })?;
        if let Some(cache) = &self.cache {
            cache.put(number, &page);
        }
        self.page_done();
        Ok(page)
    }
}

/// A page waiting for OCR: its number (from 1), image and width in page units.
type Job = (usize, DynamicImage, f32);
type Done = Vec<(usize, Result<OcrPage, DocumentError>)>;

/// Worker threads recognising pages as they are handed over. Handing
/// over waits while every worker is busy and one page is waiting, so at
/// most workers + 1 rendered pages are held at once.
pub(crate) struct PageQueue<'scope> {
    sender: Option<SyncSender<Job>>,
    workers: Vec<ScopedJoinHandle<'scope, Done>>,
}

impl<'scope> PageQueue<'scope> {
    pub fn start<'env>(scope: &'scope Scope<'scope, 'env>, file: &'scope FileOcr<'env>) -> Self {
        let count = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (sender, receiver) = sync_channel::<Job>(1);
        let receiver = Arc::new(Mutex::new(receiver));
        let workers = (0..count)
            .map(|_| {
                let receiver = Arc::clone(&receiver);
                scope.spawn(move || work(file, &receiver))
            })
            .collect();
        Self {
            sender: Some(sender),
            workers,
        }
    }

    /// Hands page `number` over.
    pub fn submit(&self, number: usize, image: DynamicImage, page_width: f32) {
        if let Some(sender) = &self.sender {
            // The workers only stop once the queue is closed.
            let _ = sender.send((number, image, page_width));
        }
    }

    /// Waits for every page handed over; their results by page number.
    pub fn finish(mut self) -> Done {
        self.sender = None;
        let mut done: Done = Vec::new();
        for worker in self.workers.drain(..) {
            if let Ok(results) = worker.join() {
                done.extend(results);
            }
        }
        done.sort_by_key(|(number, _)| *number);
        done
    }
}

fn work(file: &FileOcr<'_>, receiver: &Mutex<Receiver<Job>>) -> Done {
    let mut done = Vec::new();
    loop {
        let job = match receiver.lock() {
            Ok(receiver) => receiver.recv(),
            Err(_) => break,
        };
        let Ok((number, image, page_width)) = job else {
            break;
        };
        done.push((number, file.recognize(number, &image, page_width)));
    }
    done
}
