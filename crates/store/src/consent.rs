//! The user's consent to a workflow folder's shell commands: which sets of
//! commands (by fingerprint) the user allowed for which folder (by its
//! canonical path). Core decides what the fingerprint covers
//! (`sift_core::workflows::consent`); the store only keeps the pairs.

use rusqlite::{OptionalExtension, params};

use crate::Store;
use crate::error::{Result, StoreError};
use crate::ids::now_ms;

impl Store {
    /// Records that the user allowed the commands with `fingerprint` in
    /// `folder`; allowing them again keeps the first time.
    pub fn allow_workflow_commands(&self, folder: &str, fingerprint: &str) -> Result<()> {
        if folder.is_empty() || fingerprint.is_empty() {
            return Err(StoreError::Invalid(
                "a consent needs a folder and a fingerprint".into(),
            ));
        }
        self.lock().execute(
            "INSERT INTO workflow_command_consents (folder, fingerprint, allowed_at) \
             VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            params![folder, fingerprint, now_ms()],
        )?;
        Ok(())
    }

    /// Whether the user allowed the commands with `fingerprint` in `folder`.
    pub fn workflow_commands_allowed(&self, folder: &str, fingerprint: &str) -> Result<bool> {
        let found: Option<i64> = self
            .lock()
            .query_row(
                "SELECT 1 FROM workflow_command_consents WHERE folder = ?1 AND fingerprint = ?2",
                params![folder, fingerprint],
                |row| row.get(0),
            )
            .optional()?;
        Ok(found.is_some())
    }
}
