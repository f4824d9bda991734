//! The commands the UI calls (through `ui/src/ipc.ts` only). Each parses
//! its arguments, calls `sift-core` and maps the error to [`crate::IpcError`].

pub mod app;
pub mod chat;
pub mod dialogs;
pub mod documents;
pub mod evaluate;
pub mod extract;
pub mod local_models;
pub mod schemas;
pub mod settings;
pub mod transcripts;
pub mod workflows;
