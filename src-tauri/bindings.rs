//! The TypeScript types of the IPC, generated from the Rust types with
//! ts-rs into `ui/src/bindings/` (committed). This test writes them;
//! `scripts/check-bindings.sh` (run by `scripts/test.sh` and CI) runs it
//! and fails when the committed files differ.
//!
//! ```sh
//! cargo test -p sift-app --lib bindings   # regenerate
//! ```

use std::path::PathBuf;

use ts_rs::{Config, TS};

use crate::commands::{app, chat, dialogs, settings, transcripts, workflows};
use crate::{AskArgs, AskEvent, IpcError, LocalServerStatus};

fn out_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ui/src/bindings")
}

#[test]
fn bindings_are_written_for_every_ipc_type() {
    let dir = out_dir();
    // Regenerated from scratch, so a type that is gone leaves no file.
    if dir.exists() {
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // i64/u64 counts (tokens, positions, times) are far below 2^53.
    let config = Config::new().with_out_dir(&dir).with_large_int("number");
    macro_rules! export {
        ($($t:ty),* $(,)?) => {
            $( <$t as TS>::export_all(&config).unwrap(); )*
        };
    }
    export!(
        IpcError,
        LocalServerStatus,
        AskArgs,
        AskEvent,
        app::AppInfo,
        settings::ProviderKind,
        settings::ProviderConfig,
        settings::Settings,
        settings::SettingsView,
        settings::DefaultBaseUrls,
        settings::KeySource,
        settings::KeyStatus,
        settings::ConnectionReport,
        sift_core::schemas::SchemaSummary,
        sift_core::schemas::SchemaDoc,
        sift_core::schema_check::SchemaProblem,
        sift_core::schema_check::Severity,
        sift_core::schemas::SavedSchema,
        sift_core::extract::ExtractRequest,
        sift_core::extract::JobState,
        sift_core::extract::RowStatus,
        sift_core::extract::JobRow,
        sift_core::extract::Column,
        sift_core::extract::JobTotals,
        sift_core::extract::JobView,
        sift_core::extract::JobSummary,
        sift_core::extract::ExtractEvent,
        sift_core::job_export::ExportFormat,
        sift_core::job_export::ExportReport,
        sift_core::preview::DocumentPreview,
        sift_core::call_transcript::CallTranscript,
        dialogs::FileFilter,
        dialogs::OpenDialogOptions,
        dialogs::SaveDialogOptions,
        workflows::WorkflowFile,
        workflows::WorkflowText,
        workflows::WorkflowFileEvent,
        workflows::ParamValue,
        workflows::WorkflowRunRequest,
        workflows::StepView,
        workflows::WorkflowRunEvent,
        workflows::WorkflowRunView,
        workflows::WorkflowRunSummary,
        chat::ApprovalView,
        chat::SessionView,
        chat::MessageView,
        chat::ChatTurnEvent,
        chat::ChatTurnView,
        chat::ModelChoice,
        chat::SessionChange,
        chat::AttachmentView,
        transcripts::CallSummary,
        transcripts::RevisionNode,
    );
    assert!(dir.join("JobView.ts").is_file());
}
