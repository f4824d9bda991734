//! Opening the database.

use std::path::Path;

use sift_store::Store;

use crate::error::CoreError;

/// The store at `path`, else at `SIFT_DB`, else `sift.db` in the data
/// directory.
pub fn open_store(path: Option<&Path>) -> Result<Store, CoreError> {
    Ok(match path {
        Some(path) => Store::open(path)?,
        None => Store::open_default()?,
    })
}
