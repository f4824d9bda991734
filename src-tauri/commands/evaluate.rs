//! The Evaluate screen: labelled sets (from a TSV, from a checked job,
//! exported), evaluation runs over candidates (events over a channel),
//! their history, the price table, and the Usage view.

use std::path::PathBuf;

use sift_core::Workspace;
use sift_core::eval::{
    self, EvalRunSummary, EvalRunView, EvaluateEvent, EvaluateRequest, LabelledSetSummary,
    LabelledSetView,
};
use sift_core::usage::prices::{self, Price};
use sift_core::usage::{self, UsageReport, UsageRequest};
use tauri::State;
use tauri::ipc::Channel;

use crate::error::IpcResult;

#[tauri::command]
pub fn list_labelled_sets(ws: State<'_, Workspace>) -> IpcResult<Vec<LabelledSetSummary>> {
    Ok(eval::list_sets(&ws.store()?)?)
}

#[tauri::command]
pub fn labelled_set(name: String, ws: State<'_, Workspace>) -> IpcResult<LabelledSetView> {
    Ok(eval::get_set(&ws.store()?, &name)?)
}

/// A set from a ground-truth TSV the open dialog returned (`pickFiles`).
#[tauri::command]
pub fn import_labelled_set(
    name: String,
    path: PathBuf,
    schema_name: String,
    schema_version: Option<i64>,
    ws: State<'_, Workspace>,
) -> IpcResult<LabelledSetSummary> {
    // The files the TSV names are its picker's choice, as a workflow
    // file's are: read when the set is evaluated.
    ws.grants().check_read(&path)?;
    Ok(eval::import_set(
        &ws.store()?,
        &name,
        &path,
        &schema_name,
        schema_version,
    )?)
}

/// "Save as a labelled set": the job's checked and corrected values.
#[tauri::command]
pub fn save_job_as_labelled_set(
    job_id: String,
    name: String,
    ws: State<'_, Workspace>,
) -> IpcResult<LabelledSetSummary> {
    Ok(eval::set_from_job(&ws.store()?, &job_id, &name)?)
}

/// Writes a set as a TSV to `path` (from `pickSavePath`, which grants it).
#[tauri::command]
pub fn export_labelled_set(
    name: String,
    path: PathBuf,
    ws: State<'_, Workspace>,
) -> IpcResult<u32> {
    Ok(eval::export_set(&ws, &name, &path)?)
}

#[tauri::command]
pub fn delete_labelled_set(name: String, ws: State<'_, Workspace>) -> IpcResult<bool> {
    Ok(eval::delete_set(&ws.store()?, &name)?)
}

/// Creates a run and starts it; returns at once with the run as it
/// starts. Events follow on `events`, the last `finished` or `error`.
#[tauri::command]
pub async fn start_evaluation(
    request: EvaluateRequest,
    events: Channel<EvaluateEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<EvalRunView> {
    let (view, run) = eval::start_evaluation(&ws, request, move |e| {
        let _ = events.send(e);
    })?;
    tauri::async_runtime::spawn(run);
    Ok(view)
}

/// Runs the rest of a cancelled or cut-short run.
#[tauri::command]
pub async fn resume_evaluation(
    run_id: String,
    events: Channel<EvaluateEvent>,
    ws: State<'_, Workspace>,
) -> IpcResult<EvalRunView> {
    let (view, run) = eval::resume_evaluation(&ws, &run_id, move |e| {
        let _ = events.send(e);
    })?;
    tauri::async_runtime::spawn(run);
    Ok(view)
}

/// False when the run is not running.
#[tauri::command]
pub fn cancel_evaluation(run_id: String, ws: State<'_, Workspace>) -> bool {
    eval::cancel_evaluation(&ws, &run_id)
}

#[tauri::command]
pub fn evaluation_run(run_id: String, ws: State<'_, Workspace>) -> IpcResult<EvalRunView> {
    Ok(eval::evaluation_view(&ws, &run_id)?)
}

/// A set's runs, newest first.
#[tauri::command]
pub fn evaluation_history(
    set_name: String,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<EvalRunSummary>> {
    Ok(eval::evaluation_history(&ws, &set_name)?)
}

#[tauri::command]
pub fn price_table(ws: State<'_, Workspace>) -> IpcResult<Vec<Price>> {
    Ok(prices::price_table(&ws.store()?)?)
}

#[tauri::command]
pub fn set_price(
    provider_id: String,
    model: String,
    input_per_mtok: f64,
    output_per_mtok: f64,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<Price>> {
    let store = ws.store()?;
    prices::set_price(
        &store,
        &provider_id,
        &model,
        input_per_mtok,
        output_per_mtok,
    )?;
    Ok(prices::price_table(&store)?)
}

#[tauri::command]
pub fn delete_price(
    provider_id: String,
    model: String,
    ws: State<'_, Workspace>,
) -> IpcResult<Vec<Price>> {
    let store = ws.store()?;
    prices::delete_price(&store, &provider_id, &model)?;
    Ok(prices::price_table(&store)?)
}

/// Tokens and cost in a period (the Usage view).
#[tauri::command]
pub fn usage_report(request: UsageRequest, ws: State<'_, Workspace>) -> IpcResult<UsageReport> {
    Ok(usage::usage(&ws.store()?, request)?)
}
