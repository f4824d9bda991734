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

/// The workflow files directly in a folder, each read once: what the
/// consent is checked against and, for a run from the window, what runs.
/// Reading a file again after the check could run a text rewritten in
/// between, commands the user never saw.
struct FolderSnapshot {
    /// The folder's canonical path.
    folder: PathBuf,
    /// Each workflow file's name and text, by name; why it could not be
    /// read for one that could not.
    files: Vec<(String, Result<String, CoreError>)>,
}

impl FolderSnapshot {
    fn read(folder: &Path) -> Result<Self, CoreError> {
        let canonical = folder
            .canonicalize()
            .map_err(|e| CoreError::io("open the folder", folder, e))?;
        let files = workflows_in(&canonical)?
            .into_iter()
            .map(|file| {
                let text = std::fs::read_to_string(&file.path)
                    .map_err(|e| CoreError::io("read", Path::new(&file.path), e));
                (file.name, text)
            })
            .collect();
        Ok(Self {
            folder: canonical,
            files,
        })
    }

    /// Every shell command of the files. A file that cannot be read or
    /// parsed has none it could run; once it parses, its commands change
    /// the fingerprint and the window asks again.
    fn commands(&self) -> WorkflowCommands {
        let commands: Vec<WorkflowCommand> = self
            .files
            .iter()
            .filter_map(|(name, text)| {
                let workflow = sift_workflow::parse(text.as_ref().ok()?).ok()?;
                Some(workflow_commands(name, &workflow))
            })
            .flatten()
            .collect();
        WorkflowCommands {
            folder: self.folder.display().to_string(),
            fingerprint: fingerprint(&commands),
            commands,
        }
    }

    /// The workflow of the file `name` as read here, validated. A file
    /// that is not a workflow file of the folder is refused: its commands
    /// were not among those listed.
    fn into_workflow(self, name: &str, path: &Path) -> Result<Workflow, CoreError> {
        let Some((_, text)) = self.files.into_iter().find(|(file, _)| file == name) else {
            return Err(CoreError::Usage(format!(
                "{} is not a .yaml or .yml file in its folder: the window runs only those, \
                 whose commands it can show",
                path.display()
            )));
        };
        sift_workflow::load(&text?).map_err(CoreError::InvalidWorkflow)
    }
}

/// Every shell command of the workflow files directly in `folder`.
pub fn folder_commands(folder: &Path) -> Result<WorkflowCommands, CoreError> {
    Ok(FolderSnapshot::read(folder)?.commands())
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

/// The workflow `file` holds, read once with the rest of its folder, when
/// the user has allowed the folder's shell commands as they are in that
/// reading (or it has none); else [`CoreError::ConsentNeeded`], with the
/// commands. A run from the window executes this workflow, not the file
/// read again: what runs is what the consent was checked against, even
/// when the file is rewritten in between. Its `dag.run` sub-runs and tool
/// DAGs are DAGs of the same file, so of this reading too.
///
/// A file that is not valid is refused with its problems first
/// ([`CoreError::InvalidWorkflow`]), as is one that is not a workflow
/// file of its folder.
pub fn require_consent(store: &Store, file: &Path) -> Result<Workflow, CoreError> {
    let snapshot = FolderSnapshot::read(&folder_of(file))?;
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let listing = snapshot.commands();
    let workflow = snapshot.into_workflow(&name, file)?;
    if listing.commands.is_empty()
        || store.workflow_commands_allowed(&listing.folder, &listing.fingerprint)?
    {
        return Ok(workflow);
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
