//! The one error every command returns: core's `{code, message}`
//! ([`sift_core::ErrorBody`], `IpcError` in TypeScript), mapped from
//! [`sift_core::CoreError`] by `?`.

pub use sift_core::ErrorBody as IpcError;

/// What every command returns.
pub type IpcResult<T> = Result<T, IpcError>;
