//! The fields of an extraction's documents that a user checked: accepted
//! as right in review, or corrected (a revision checks what it changed).

use rusqlite::{TransactionBehavior, params};

use crate::Store;
use crate::error::{Result, StoreError};
use crate::extraction::require_document;
use crate::ids::now_ms;

impl Store {
    /// Marks `field` (an evidence key, `total` or `items[0].amount`) of a
    /// document as checked by the user; checking it again keeps the first
    /// time.
    pub fn check_field(&self, job_id: &str, position: i64, field: &str) -> Result<()> {
        if field.is_empty() {
            return Err(StoreError::Invalid("a checked field needs a name".into()));
        }
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        require_document(&tx, job_id, position)?;
        tx.execute(
            "INSERT INTO extraction_checks (job_id, position, field, checked_at) \
             VALUES (?1, ?2, ?3, ?4) ON CONFLICT DO NOTHING",
            params![job_id, position, field, now_ms()],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The fields of a document the user checked, in the order checked.
    pub fn checked_fields(&self, job_id: &str, position: i64) -> Result<Vec<String>> {
        let conn = self.lock();
        let mut stmt = conn.prepare_cached(
            "SELECT field FROM extraction_checks WHERE job_id = ?1 AND position = ?2 \
             ORDER BY checked_at, rowid",
        )?;
        let rows = stmt
            .query_map(params![job_id, position], |row| row.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        Ok(rows)
    }
}
