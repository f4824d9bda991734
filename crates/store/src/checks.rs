//! Evidence kept beside an extraction's values: where they were found
//! (rewritten when the document changed), and the fields a user checked:
//! accepted as right in review, or corrected (a revision checks what it
//! changed).

use rusqlite::{TransactionBehavior, params};
use serde_json::Value;

use crate::Store;
use crate::error::{Result, StoreError};
use crate::extraction::require_document;
use crate::ids::now_ms;

impl Store {
    /// Replaces a document's evidence (of the model's values) and what it
    /// was found in, and that of its latest revision when there is one
    /// (`revision`: its evidence), in one transaction.
    pub fn set_evidence(
        &self,
        job_id: &str,
        position: i64,
        evidence: &Value,
        source: &str,
        revision: Option<&Value>,
    ) -> Result<()> {
        let text = serde_json::to_string(evidence).map_err(|source| StoreError::Json {
            what: "document evidence",
            source,
        })?;
        let revised = revision
            .map(serde_json::to_string)
            .transpose()
            .map_err(|source| StoreError::Json {
                what: "revision evidence",
                source,
            })?;
        let mut conn = self.lock();
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        require_document(&tx, job_id, position)?;
        tx.execute(
            "UPDATE extraction_documents SET evidence = ?3, evidence_source = ?4 \
             WHERE job_id = ?1 AND position = ?2",
            params![job_id, position, text, source],
        )?;
        if let Some(revised) = revised {
            tx.execute(
                "UPDATE extraction_revisions SET evidence = ?3 WHERE id = \
                 (SELECT max(id) FROM extraction_revisions WHERE job_id = ?1 AND position = ?2)",
                params![job_id, position, revised],
            )?;
        }
        tx.commit()?;
        Ok(())
    }

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
