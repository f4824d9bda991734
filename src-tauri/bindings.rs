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
        sift_core::server_models::ConnectionReport,
        sift_core::settings::ModelOverride,
        sift_core::model_capabilities::ModelCapabilities,
        sift_core::model_capabilities::CapabilitySource,
        sift_core::local_models::LocalModel,
        sift_core::local_models::ImportMode,
        sift_core::schemas::SchemaSummary,
        sift_core::schemas::SchemaDoc,
        sift_core::schema_check::SchemaProblem,
        sift_core::schema_check::Severity,
        sift_core::schemas::SavedSchema,
        sift_core::schema_suggestion::SuggestSchemaRequest,
        sift_core::schema_suggestion::SchemaSuggestion,
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
        sift_core::job_export::ExportFormat,
        sift_core::job_export::ExportReport,
        sift_core::preview::DocumentPreview,
        sift_core::call_transcript::CallTranscript,
        dialogs::FileFilter,
        dialogs::OpenDialogOptions,
        dialogs::SaveDialogOptions,
        sift_core::workflow_files::WorkflowFile,
        sift_core::workflow_files::WorkflowText,
        sift_core::workflow_files::WorkflowFileEvent,
        sift_core::workflow_runs::ParamValue,
        sift_core::workflow_runs::WorkflowRunArgs,
        sift_core::workflow_runs::StepView,
        sift_core::workflow_runs::WorkflowRunEvent,
        sift_core::workflow_runs::WorkflowRunView,
        sift_core::workflow_runs::WorkflowRunSummary,
        sift_core::chat_view::ApprovalView,
        sift_core::chat_reply::CutReplyView,
        sift_core::chat_view::SessionView,
        sift_core::chat_view::MessageView,
        sift_core::chat_view::ChatTurnEvent,
        sift_core::chat_view::ChatTurnView,
        sift_core::chat_view::ModelChoice,
        sift_core::chat_view::SessionChange,
        sift_core::chat_view::AttachmentView,
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
        sift_core::prices::Price,
        sift_core::prices::PriceSource,
        sift_core::usage::UsageRequest,
        sift_core::usage::UsageRow,
        sift_core::usage::UsageReport,
    );
    assert!(dir.join("JobView.ts").is_file());
}
