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

use sift_core::settings::form as settings;
use sift_core::{AskArgs, AskEvent};

use crate::commands::dialogs;
use crate::{IpcError, LocalServerStatus};
use sift_core::ErrorCode;

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
        ErrorCode,
        LocalServerStatus,
        AskArgs,
        AskEvent,
        sift_core::app_info::AppInfo,
        sift_core::ProviderKind,
        settings::ProviderForm,
        settings::SettingsForm,
        settings::SettingsView,
        settings::DefaultBaseUrls,
        settings::KeySource,
        settings::KeyStatus,
        sift_core::models::server::ConnectionReport,
        sift_core::models::ModelOverride,
        sift_core::models::capabilities::ModelCapabilities,
        sift_core::models::capabilities::CapabilitySource,
        sift_core::models::local_files::LocalModel,
        sift_core::models::local_files::ImportMode,
        sift_core::models::catalogue::CatalogueEntry,
        sift_core::models::catalogue_downloads::CatalogueGetEvent,
        sift_core::schemas::SchemaSummary,
        sift_core::schemas::SchemaDoc,
        sift_core::schemas::check::SchemaProblem,
        sift_core::schemas::check::Severity,
        sift_core::schemas::SavedSchema,
        sift_core::extract::schema_suggestion::SuggestSchemaRequest,
        sift_core::extract::schema_suggestion::SchemaSuggestion,
        sift_core::extract::ExtractRequest,
        sift_core::extract::JobState,
        sift_core::extract::RowStatus,
        sift_core::extract::JobRow,
        sift_core::extract::Column,
        sift_core::extract::JobTotals,
        sift_core::extract::JobView,
        sift_core::extract::JobSummary,
        sift_core::evidence::FieldEvidence,
        sift_core::evidence::EvidencePlace,
        sift_core::evidence::EvidenceStatus,
        sift_core::evidence::Confidence,
        sift_core::evidence::PageBox,
        sift_core::evidence::PageWords,
        sift_core::evidence::PageWordBox,
        sift_core::extract::ExtractEvent,
        sift_core::extract::job_export::ExportFormat,
        sift_core::extract::job_export::ExportReport,
        sift_core::evidence::preview::DocumentPreview,
        sift_core::transcripts::call::CallTranscript,
        dialogs::FileFilter,
        dialogs::OpenDialogOptions,
        dialogs::SaveDialogOptions,
        sift_core::workflows::files::WorkflowFile,
        sift_core::workflows::files::WorkflowText,
        sift_core::workflows::files::WorkflowFileEvent,
        sift_core::workflows::runs::ParamValue,
        sift_core::workflows::runs::WorkflowRunArgs,
        sift_core::workflows::runs::StepView,
        sift_core::workflows::runs::WorkflowRunEvent,
        sift_core::workflows::runs::WorkflowRunView,
        sift_core::workflows::runs::WorkflowRunSummary,
        sift_core::workflows::consent::WorkflowCommand,
        sift_core::workflows::consent::WorkflowCommands,
        sift_core::chat::view::ApprovalView,
        sift_core::chat::reply::CutReplyView,
        sift_core::chat::view::SessionView,
        sift_core::chat::view::MessageView,
        sift_core::chat::view::ChatTurnEvent,
        sift_core::chat::view::ChatTurnView,
        sift_core::chat::view::ModelChoice,
        sift_core::chat::view::SessionChange,
        sift_core::chat::view::AttachmentView,
        sift_core::transcripts::CallSummary,
        sift_core::transcripts::RevisionNode,
        sift_core::eval::LabelledSetSummary,
        sift_core::eval::LabelledSetView,
        sift_core::eval::LabelledDocumentView,
        sift_core::eval::Candidate,
        sift_core::eval::ResolvedCandidate,
        sift_core::eval::EvaluateRequest,
        sift_core::eval::EvaluateEvent,
        sift_core::eval::EvalRunView,
        sift_core::eval::EvalRunSummary,
        sift_core::eval::CandidateView,
        sift_core::eval::CandidateValue,
        sift_core::eval::Disagreement,
        sift_core::eval::PairView,
        sift_core::eval::ScoreCell,
        sift_core::usage::prices::Price,
        sift_core::usage::prices::PriceSource,
        sift_core::usage::UsageRequest,
        sift_core::usage::UsageRow,
        sift_core::usage::UsageReport,
    );
    assert!(dir.join("JobView.ts").is_file());
}
