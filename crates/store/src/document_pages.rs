//! A job's documents read a page at a time, and their counts by SQL
//! aggregate. A caller that goes over a large job (its run, its summary,
//! an export) then holds one page of rows, not the job: a job of 10,000
//! documents costs the memory of 256.

use std::vec::IntoIter;

use rusqlite::params;

use crate::Store;
use crate::error::Result;
use crate::extraction::{DOCUMENT_COLUMNS, ExtractionDocument, document_from_row};

/// Documents read per query by [`DocumentPages`].
pub const DOCUMENT_PAGE: u32 = 256;

/// A job's documents counted by status, with their tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DocumentTotals {
    pub completed: u64,
    pub failed: u64,
    pub pending: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl DocumentTotals {
    /// Every document of the job, whatever its status.
    pub fn documents(&self) -> u64 {
        self.completed + self.failed + self.pending
    }
}

/// A job's documents by position, read [`DOCUMENT_PAGE`] at a time; each
/// page is read when the one before has been used up, in its own query,
/// so the store is not held between pages (a caller may write a document
/// it was given before it asks for the next). A document written after
/// its page was read is seen as it was then. After an error, nothing more.
#[derive(Debug)]
pub struct DocumentPages {
    store: Store,
    job_id: String,
    /// The position of the last document read (-1: none yet).
    after: i64,
    page: IntoIter<ExtractionDocument>,
    finished: bool,
}

impl Iterator for DocumentPages {
    type Item = Result<ExtractionDocument>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(document) = self.page.next() {
            return Some(Ok(document));
        }
        if self.finished {
            return None;
        }
        match self.store.document_page(&self.job_id, self.after) {
            Ok(page) => {
                // A short page is the last one: no query to learn so.
                self.finished = page.len() < DOCUMENT_PAGE as usize;
                if let Some(last) = page.last() {
                    self.after = last.position;
                }
                self.page = page.into_iter();
                self.page.next().map(Ok)
            }
            Err(error) => {
                self.finished = true;
                Some(Err(error))
            }
        }
    }
}

impl Store {
    /// A job's documents by position, a page at a time (an unknown job
    /// has none).
    pub fn extraction_document_pages(&self, job_id: &str) -> DocumentPages {
        DocumentPages {
            store: self.clone(),
            job_id: job_id.to_owned(),
            after: -1,
            page: Vec::new().into_iter(),
            finished: false,
        }
    }

    /// A job's documents counted by status, with their tokens, summed by
    /// SQLite (no row is read into memory).
    pub fn extraction_document_totals(&self, job_id: &str) -> Result<DocumentTotals> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT status, COUNT(*), SUM(input_tokens), SUM(output_tokens) \
             FROM extraction_documents WHERE job_id = ?1 GROUP BY status",
        )?;
        let mut rows = stmt.query([job_id])?;
        let mut totals = DocumentTotals::default();
        while let Some(row) = rows.next()? {
            let status: String = row.get(0)?;
            let count = count_of(row.get(1)?);
            match status.as_str() {
                "completed" => totals.completed += count,
                "failed" => totals.failed += count,
                _ => totals.pending += count,
            }
            totals.input_tokens += count_of(row.get::<_, Option<i64>>(2)?.unwrap_or(0));
            totals.output_tokens += count_of(row.get::<_, Option<i64>>(3)?.unwrap_or(0));
        }
        Ok(totals)
    }

    fn document_page(&self, job_id: &str, after: i64) -> Result<Vec<ExtractionDocument>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(&format!(
            "SELECT {DOCUMENT_COLUMNS} FROM extraction_documents \
             WHERE job_id = ?1 AND position > ?2 ORDER BY position LIMIT ?3"
        ))?;
        let rows = stmt
            .query_map(params![job_id, after, DOCUMENT_PAGE], document_from_row)?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}

/// A count or a sum read back (never negative as written; a negative one
/// counts as none, as a document's tokens do).
fn count_of(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}
