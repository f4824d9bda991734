//! The Sift desktop app: a Tauri shell around the engine crates.
//!
//! Commands stay thin: they read their arguments, call into the engine
//! (`sift-core`) and return serializable values or one error,
//! `{code, message}`. Streams (an extraction's progress, a reply) go over
//! a `tauri::ipc::Channel`. The UI reaches them only through
//! `ui/src/ipc.ts`, whose types are generated from these (see
//! `bindings.rs`).

mod ask;
#[cfg(test)]
mod bindings;
#[cfg(test)]
mod catalogue_tests;
pub mod commands;
mod drops;
mod error;
mod launch;
#[cfg(test)]
mod mock_ipc;
#[cfg(test)]
mod read_paths_tests;
#[cfg(test)]
mod workflow_consent_tests;
#[cfg(test)]
mod write_paths_tests;

use tauri::{Manager, RunEvent};

pub use error::{IpcError, IpcResult};
pub use launch::LaunchOptions;
pub use sift_core::LocalServerStatus;
use sift_core::Workspace;

/// Builds and runs the app; returns when the last window has closed.
pub fn run() -> tauri::Result<()> {
    let launch = LaunchOptions::from_args(std::env::args().skip(1));
    let workspace = match Workspace::open(launch.workspace_options()) {
        Ok(workspace) => workspace,
        Err(error) => {
            // A configuration file that cannot be read: say which and why.
            let error: Box<dyn std::error::Error> = error.to_string().into();
            return Err(tauri::Error::Setup(error.into()));
        }
    };
    let local = workspace.local_server().clone();
    let starts_local = workspace.settings().default_is_local_server();
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(workspace)
        .manage(sift_core::workflows::files::WorkflowFolderWatch::default())
        .manage(
            sift_core::models::catalogue_downloads::CatalogueDownloads::new(
                sift_core::paths::data_dir(),
            ),
        )
        .on_window_event(|window, event| {
            drops::grant_dropped(&window.state::<Workspace>(), event);
        })
        .setup(move |_app| {
            // The default provider is the local server: start it now, so
            // that it is warm by the first extraction.
            if starts_local {
                tauri::async_runtime::spawn(async move {
                    // A failure is kept in the status for the UI to show.
                    let _ = local.ensure_running().await;
                });
            }
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::app::app_info,
            commands::app::local_server_status,
            commands::app::start_local_server,
            commands::settings::get_settings,
            commands::settings::save_settings,
            commands::settings::api_key_status,
            commands::settings::set_api_key,
            commands::settings::delete_api_key,
            commands::settings::list_models,
            commands::settings::test_connection,
            commands::settings::save_model_overrides,
            commands::settings::model_capabilities,
            commands::local_models::local_models,
            commands::local_models::add_local_model,
            commands::local_models::choose_local_model,
            commands::local_models::model_catalogue,
            commands::local_models::get_catalogue_model,
            commands::local_models::cancel_catalogue_model,
            commands::schemas::list_schemas,
            commands::schemas::suggest_schema,
            commands::schemas::get_schema,
            commands::schemas::save_schema,
            commands::schemas::check_schema,
            commands::schemas::import_schema,
            commands::schemas::export_schema,
            commands::extract::start_extraction,
            commands::extract::resume_extraction,
            commands::extract::cancel_extraction,
            commands::extract::list_jobs,
            commands::extract::job_results,
            commands::extract::revise_value,
            commands::extract::check_value,
            commands::extract::page_words,
            commands::extract::export_results,
            commands::documents::preview_document,
            commands::documents::call_transcript,
            commands::dialogs::pick_files,
            commands::dialogs::pick_save_path,
            commands::dialogs::pick_folder,
            commands::workflows::list_workflows,
            commands::workflows::read_workflow,
            commands::workflows::save_workflow,
            commands::workflows::check_workflow,
            commands::workflows::watch_workflows,
            commands::workflows::run_workflow,
            commands::workflows::workflow_commands,
            commands::workflows::allow_workflow_commands,
            commands::workflows::cancel_workflow_run,
            commands::workflows::workflow_runs,
            commands::workflows::workflow_run,
            commands::chat::list_sessions,
            commands::chat::new_session,
            commands::chat::delete_session,
            commands::chat::discard_cut_reply,
            commands::chat::session_messages,
            commands::chat::branch_session,
            commands::chat::send_chat_message,
            commands::chat::answer_approval,
            commands::chat::stop_chat_turn,
            commands::chat::update_session,
            commands::chat::describe_attachments,
            commands::chat::write_export,
            commands::transcripts::list_calls,
            commands::transcripts::call_revisions,
            commands::evaluate::list_labelled_sets,
            commands::evaluate::labelled_set,
            commands::evaluate::import_labelled_set,
            commands::evaluate::save_job_as_labelled_set,
            commands::evaluate::export_labelled_set,
            commands::evaluate::delete_labelled_set,
            commands::evaluate::start_evaluation,
            commands::evaluate::resume_evaluation,
            commands::evaluate::cancel_evaluation,
            commands::evaluate::evaluation_run,
            commands::evaluate::evaluation_history,
            commands::evaluate::price_table,
            commands::evaluate::set_price,
            commands::evaluate::delete_price,
            commands::evaluate::usage_report,
            ask::ask,
        ])
        .build(tauri::generate_context!())?;
    app.run(|app, event| {
        if let RunEvent::Exit = event {
            // Cancel every job, run and turn, and stop the local model
            // server before the process goes; its stdin watchdog would end
            // it anyway, but not wait for it.
            tauri::async_runtime::block_on(app.state::<Workspace>().shut_down());
        }
    });
    Ok(())
}
