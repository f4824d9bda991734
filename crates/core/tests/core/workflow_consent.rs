//! The window asks before a folder's shell commands run: the commands a
//! real folder of YAML files can run, the consent kept in a real SQLite
//! file, a change of the commands asking again, and a run executing the
//! workflow as it was read for the check, not the file rewritten since.

use sift_core::workflows::consent::{
    WorkflowCommand, WorkflowCommands, allow_commands, folder_commands, require_consent,
};
use sift_core::workflows::runs::{WorkflowRunArgs, start_workflow_run};
use sift_store::Store;

use crate::TempDir;
use crate::sessions::app_workspace;

const MAIN: &str = "\
env:
  - PATH=./bin
  - GREETING=hi
steps:
  - id: fetch
    command: curl -s https://example.com/a > a.txt
  - id: ask
    action: chat.completion
    with: {provider: local, model: m, prompt: hi}
  - id: sub
    action: dag.run
    with: {dag: tidy}
---
name: tidy
steps:
  - id: clean
    env:
      - LD_PRELOAD=./x.so
    run: rm -f \"$OUT\"/*.tmp
";

fn command(file: &str, dag: Option<&str>, step: &str, text: &str, env: &[&str]) -> WorkflowCommand {
    WorkflowCommand {
        file: file.into(),
        dag: dag.map(Into::into),
        step: step.into(),
        command: text.into(),
        env: env.iter().map(|e| (*e).to_owned()).collect(),
    }
}

/// A folder of two workflow files with commands, one that does not parse,
/// and a file that is no workflow.
fn folder(dir: &TempDir) -> std::path::PathBuf {
    let folder = dir.0.join("flows");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("main.yaml"), MAIN).unwrap();
    std::fs::write(
        folder.join("b.yml"),
        "steps:\n  - script: |\n      echo one\n      echo two\n",
    )
    .unwrap();
    std::fs::write(folder.join("broken.yaml"), "steps: [unclosed\n").unwrap();
    std::fs::write(folder.join("notes.txt"), "steps:\n  - run: echo no\n").unwrap();
    folder
}

#[test]
fn a_folder_lists_every_command_its_workflows_can_run() {
    let dir = TempDir::new("consent-list");
    let folder = folder(&dir);
    let listing = folder_commands(&folder).unwrap();
    assert_eq!(
        listing.folder,
        folder.canonicalize().unwrap().display().to_string()
    );
    assert_eq!(
        listing.commands,
        [
            command("b.yml", None, "step_1", "echo one\necho two\n", &[]),
            command(
                "main.yaml",
                None,
                "fetch",
                "curl -s https://example.com/a > a.txt",
                &["PATH=./bin"]
            ),
            command(
                "main.yaml",
                Some("tidy"),
                "clean",
                "rm -f \"$OUT\"/*.tmp",
                &["LD_PRELOAD=./x.so"]
            ),
        ]
    );
    assert_eq!(listing.fingerprint.len(), 64);
    // The same folder through another spelling of its path is the same listing.
    let dotted = folder.join("..").join("flows");
    assert_eq!(folder_commands(&dotted).unwrap(), listing);
}

fn refused(store: &Store, file: &std::path::Path) -> WorkflowCommands {
    match require_consent(store, file) {
        Err(sift_core::CoreError::ConsentNeeded(listing)) => *listing,
        other => panic!("expected consent_needed, got {other:?}"),
    }
}

#[test]
fn a_consent_is_kept_in_the_database_file() {
    let dir = TempDir::new("consent-store");
    let folder = folder(&dir);
    let file = folder.join("main.yaml");
    let store = Store::open(dir.db()).unwrap();
    let error = require_consent(&store, &file).unwrap_err();
    assert_eq!(error.code(), "consent_needed");
    assert_eq!(
        error.to_string(),
        format!(
            "the workflows in {} run shell commands you have not allowed yet:\n\
             - b.yml step_1: echo one\necho two\n\n\
             - main.yaml fetch: curl -s https://example.com/a > a.txt\n\
             - main.yaml clean: rm -f \"$OUT\"/*.tmp",
            folder.canonicalize().unwrap().display()
        )
    );
    let listing = refused(&store, &file);
    allow_commands(&store, &folder, &listing.fingerprint).unwrap();
    require_consent(&store, &file).unwrap();
    // Another file of the folder needs no new consent.
    require_consent(&store, &folder.join("b.yml")).unwrap();
    drop(store);

    let reopened = Store::open(dir.db()).unwrap();
    require_consent(&reopened, &file).unwrap();
    assert!(
        reopened
            .workflow_commands_allowed(&listing.folder, &listing.fingerprint)
            .unwrap()
    );
    // Another folder with the same files is asked for on its own.
    let other = dir.0.join("copy");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::copy(&file, other.join("main.yaml")).unwrap();
    assert_eq!(
        require_consent(&reopened, &other.join("main.yaml"))
            .unwrap_err()
            .code(),
        "consent_needed"
    );
}

#[test]
fn changed_commands_ask_again_and_the_old_consent_does_not_allow_them() {
    let dir = TempDir::new("consent-changed");
    let folder = folder(&dir);
    let file = folder.join("main.yaml");
    let store = Store::open(dir.db()).unwrap();
    let first = refused(&store, &file);
    allow_commands(&store, &folder, &first.fingerprint).unwrap();

    // A command changed.
    std::fs::write(&file, MAIN.replace("a.txt", "b.txt")).unwrap();
    let changed = refused(&store, &file);
    assert_ne!(changed.fingerprint, first.fingerprint);
    assert_eq!(
        changed.commands[1].command,
        "curl -s https://example.com/a > b.txt"
    );
    // The fingerprint the user was shown before allows nothing new.
    let stale = allow_commands(&store, &folder, &first.fingerprint).unwrap_err();
    assert_eq!(stale.code(), "consent_needed");
    refused(&store, &file);

    // Back as they were when allowed: no new question.
    std::fs::write(&file, MAIN).unwrap();
    require_consent(&store, &file).unwrap();

    // An env entry that steers the process changed: asked again.
    std::fs::write(&file, MAIN.replace("PATH=./bin", "PATH=/tmp")).unwrap();
    refused(&store, &file);
    // One that does not: still allowed.
    std::fs::write(&file, MAIN.replace("GREETING=hi", "GREETING=bye")).unwrap();
    require_consent(&store, &file).unwrap();

    // A file that did not parse now does, with a command.
    std::fs::write(folder.join("broken.yaml"), "steps:\n  - run: echo new\n").unwrap();
    let grown = refused(&store, &file);
    assert_eq!(grown.commands.len(), 4);
    assert_eq!(grown.commands[1].command, "echo new");
}

#[test]
fn a_folder_without_commands_needs_no_consent() {
    let dir = TempDir::new("consent-none");
    let file = dir.0.join("chat.yaml");
    std::fs::write(
        &file,
        "steps:\n  - action: chat.completion\n    with: {provider: local, model: m, prompt: hi}\n",
    )
    .unwrap();
    let store = Store::open(dir.db()).unwrap();
    require_consent(&store, &file).unwrap();
    assert!(folder_commands(&dir.0).unwrap().commands.is_empty());
}

#[test]
fn a_file_that_is_no_workflow_file_of_its_folder_does_not_run_from_the_window() {
    let dir = TempDir::new("consent-not-listed");
    let folder = folder(&dir);
    let store = Store::open(dir.db()).unwrap();
    let listing = folder_commands(&folder).unwrap();
    allow_commands(&store, &folder, &listing.fingerprint).unwrap();
    // notes.txt runs `echo no`, a command the listing never showed.
    let notes = folder.join("notes.txt");
    let error = require_consent(&store, &notes).unwrap_err();
    assert_eq!(
        (error.code(), error.to_string()),
        (
            "usage",
            format!(
                "{} is not a .yaml or .yml file in its folder: the window runs only those, \
                 whose commands it can show",
                notes.display()
            )
        )
    );
}

/// A workflow whose main DAG and `dag.run` sub-DAG each touch a marker
/// file named `{prefix}-main` and `{prefix}-helper` in `markers`.
fn touching(markers: &std::path::Path, prefix: &str) -> String {
    let marker = |name: &str| format!("'{}'", markers.join(format!("{prefix}-{name}")).display());
    format!(
        "steps:\n  - id: main\n    command: touch {}\n  - id: sub\n    depends: main\n    \
         action: dag.run\n    with: {{dag: helper}}\n---\nname: helper\nsteps:\n  - id: inner\n    \
         command: touch {}\n",
        marker("main"),
        marker("helper")
    )
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_executes_the_commands_allowed_not_the_file_rewritten_after_the_check() {
    let dir = TempDir::new("consent-race");
    let folder = dir.0.join("flows");
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join("flow.yaml");
    std::fs::write(&file, touching(&dir.0, "a")).unwrap();
    let ws = app_workspace(&dir, None);
    // As the folder dialog grants the folder it returned.
    ws.grants().grant_folder(&folder);
    let allowed = folder_commands(&folder).unwrap();
    allow_commands(&ws.store().unwrap(), &folder, &allowed.fingerprint).unwrap();
    let args = WorkflowRunArgs {
        path: file.display().to_string(),
        params: Vec::new(),
        from_step: None,
        from_run: None,
    };

    // The consent is checked as the run starts; the file is rewritten
    // before its first step runs, its sub-DAG's command too.
    let (_, run) = start_workflow_run(&ws, args.clone(), |_| {}).unwrap();
    std::fs::write(&file, touching(&dir.0, "b")).unwrap();
    let view = run.await.unwrap();

    let steps: Vec<(&str, &str)> = view
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str()))
        .collect();
    assert_eq!(steps, [("main", "succeeded"), ("sub", "succeeded")]);
    let ran = |name: &str| dir.0.join(name).exists();
    assert_eq!(
        [
            ran("a-main"),
            ran("a-helper"),
            ran("b-main"),
            ran("b-helper")
        ],
        [true, true, false, false]
    );

    // The rewritten commands were never allowed: the next run asks.
    let error = start_workflow_run(&ws, args, |_| {}).err().unwrap();
    let sift_core::CoreError::ConsentNeeded(listing) = error else {
        panic!("expected consent_needed, got {error:?}");
    };
    let touch = |name: &str| format!("touch '{}'", dir.0.join(name).display());
    assert_eq!(
        listing.commands,
        [
            command("flow.yaml", None, "main", &touch("b-main"), &[]),
            command(
                "flow.yaml",
                Some("helper"),
                "inner",
                &touch("b-helper"),
                &[]
            ),
        ]
    );
    assert!(!ran("b-main"));
}
