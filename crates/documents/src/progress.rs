//! Progress of a read, page by page: a long PDF (1,000 pages, or a scan
//! whose pages are OCR'd) takes long enough that a caller shows how far
//! it has got.

use std::path::PathBuf;
use std::sync::Arc;

/// `done` of `total` pages of the file at `path` read. A page counts as
/// read once its text is taken and, when it is OCR'd, recognised (a page
/// read back from the OCR cache at once). An image file OCR'd is one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageProgress {
    pub path: PathBuf,
    pub done: usize,
    pub total: usize,
}

/// Told after each page is read ([`crate::ReadOptions::on_page`]), from
/// the thread that read it: a PDF's reader, in page order, or with OCR
/// the worker that recognised the page, so that two workers may tell
/// their pages out of order; either way `done` counts each page once, and
/// the page that completes the file is told with `done == total`.
#[derive(Clone)]
pub struct OnPage(Arc<dyn Fn(PageProgress) + Send + Sync>);

impl OnPage {
    pub fn new(tell: impl Fn(PageProgress) + Send + Sync + 'static) -> Self {
        Self(Arc::new(tell))
    }

    pub(crate) fn tell(&self, progress: PageProgress) {
        (self.0)(progress);
    }
}

impl std::fmt::Debug for OnPage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnPage(Fn)")
    }
}
