//! Asking before a workflow folder's shell commands run from the window.
//!
//! A folder of workflows may come from someone else, and a `command:` step
//! runs whatever its text says with the user's rights. So before the window
//! runs a workflow of a folder that holds shell commands, the user sees
//! every command the folder's workflows can run and allows them once for
//! the folder; the store remembers it ([`sift_store::Store::allow_workflow_commands`]).
//! The CLI does not ask: there the user typed the command that runs the file.
//!
//! The consent is for a folder (its canonical path) and for the exact
//! commands shown (their fingerprint). When a command changes, a file with
//! commands arrives, or an `env:` that steers the process changes, the
//! fingerprint changes and the window asks again: the user allowed what
//! they read, not whatever the folder may hold later (a synced or shared
//! folder can change under them). Reverting to commands allowed before
//! needs no new consent, since those are exactly what the user read.
//!
//! The consent covers the commands' text, not the programs they call: a
//! command `./build.sh` allowed once runs the script as it is at each run.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use sift_store::Store;
use sift_workflow::{Dag, StepAction, Workflow, steers_process};

use crate::error::CoreError;
pub use crate::shell_commands::{WorkflowCommand, WorkflowCommands};
use crate::workflows::files::{check_workflow_read, workflows_in};
use crate::workspace::Workspace;

/// The shell commands of a workflow: each command step of every DAG of
/// the file. Every DAG counts, not only those the main DAG reaches by
/// `dag.run`: a chat step offers DAGs as tools by name, and a name may be a
/// `${...}` resolved at run time, so any DAG of the file may run.
pub fn workflow_commands(file: &str, workflow: &Workflow) -> Vec<WorkflowCommand> {
    workflow
        .dags
        .iter()
        .enumerate()
        .flat_map(|(index, dag)| {
            dag_commands(file, (index > 0).then_some(dag.name.clone()).flatten(), dag)
        })
        .collect()
}

fn dag_commands(file: &str, name: Option<String>, dag: &Dag) -> Vec<WorkflowCommand> {
    dag.steps
        .iter()
        .filter_map(|step| match &step.action {
            StepAction::Command(command) => Some(WorkflowCommand {
                file: file.to_owned(),
                dag: name.clone(),
                step: step.key().to_owned(),
                command: command.clone(),
                env: dag
                    .env
                    .iter()
                    .chain(&step.env)
                    .filter(|(k, _)| steers_process(k))
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect(),
            }),
            _ => None,
        })
        .collect()
}

/// Every shell command of the workflow files directly in `folder`. A file
/// that cannot be read or parsed has none it could run; once it parses,
/// its commands change the fingerprint and the window asks again.
pub fn folder_commands(folder: &Path) -> Result<WorkflowCommands, CoreError> {
    let canonical = folder
        .canonicalize()
        .map_err(|e| CoreError::io("open the folder", folder, e))?;
    let mut commands = Vec::new();
    for file in workflows_in(&canonical)? {
        let Ok(text) = std::fs::read_to_string(&file.path) else {
            continue;
        };
        if let Ok(workflow) = sift_workflow::parse(&text) {
            commands.extend(workflow_commands(&file.name, &workflow));
        }
    }
    Ok(WorkflowCommands {
        folder: canonical.display().to_string(),
        fingerprint: fingerprint(&commands),
        commands,
    })
}

/// The sha256 of the commands as JSON (an unambiguous encoding: a command
/// holding a newline or a quote cannot pass for two).
fn fingerprint(commands: &[WorkflowCommand]) -> String {
    let json = serde_json::to_vec(commands).unwrap_or_default();
    Sha256::digest(&json)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The folder a workflow file's consent belongs to: the file's own.
fn folder_of(file: &Path) -> PathBuf {
    match file.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Refuses ([`CoreError::ConsentNeeded`], with the commands) to run `file`
/// from the window while its folder holds shell commands the user has not
/// allowed as they are now.
pub fn require_consent(store: &Store, file: &Path) -> Result<(), CoreError> {
    let listing = folder_commands(&folder_of(file))?;
    if listing.commands.is_empty()
        || store.workflow_commands_allowed(&listing.folder, &listing.fingerprint)?
    {
        return Ok(());
    }
    Err(CoreError::ConsentNeeded(Box::new(listing)))
}

/// Records the user's consent to the commands of `folder` they were shown
/// (`fingerprint`, from [`folder_commands`]). When the folder's commands
/// changed since, nothing is recorded and the new ones come back as
/// [`CoreError::ConsentNeeded`]: the user allows only what they read.
pub fn allow_commands(store: &Store, folder: &Path, fingerprint: &str) -> Result<(), CoreError> {
    let listing = folder_commands(folder)?;
    if listing.fingerprint != fingerprint {
        return Err(CoreError::ConsentNeeded(Box::new(listing)));
    }
    Ok(store.allow_workflow_commands(&listing.folder, &listing.fingerprint)?)
}

/// [`folder_commands`] for the window: a folder the page may not read
/// (not picked in this session nor remembered) is refused.
pub fn window_folder_commands(
    ws: &Workspace,
    folder: &Path,
) -> Result<WorkflowCommands, CoreError> {
    check_workflow_read(ws, folder)?;
    folder_commands(folder)
}

/// [`allow_commands`] for the window: only for a folder the page may read.
pub fn allow_window_commands(
    ws: &Workspace,
    folder: &Path,
    fingerprint: &str,
) -> Result<(), CoreError> {
    check_workflow_read(ws, folder)?;
    allow_commands(&ws.store()?, folder, fingerprint)
}
