//! `sift` as a black box: the built binary against the scripted model
//! server on loopback, asserting exit codes, exact output and the exact
//! requests it sent.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

mod ask;
mod call;
mod chat;
mod crash;
mod eval;
mod eval_set;
mod extract;
mod extract_local;
mod interrupted;
mod models;
mod read;
mod reader_process;
mod turn;
mod workflow_chat;
mod workflow_dag;
mod workflow_files;
mod workflow_hostile;
mod workflow_real_peer;
mod workflow_rerun;
mod workflow_sessions;
mod workflow_structured;
mod workflow_support;
mod workflow_tools;
mod workflow_validate;
mod workspace;

use std::process::Output;

use tokio::process::Command;

/// `sift` with a clean environment: none of the developer's provider
/// settings or keys leak into a test.
pub fn sift() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_sift"));
    for var in [
        "SIFT_PROVIDER",
        "SIFT_BASE_URL",
        "SIFT_MODEL",
        "SIFT_API_KEY",
        "OPENAI_API_KEY",
        "ANTHROPIC_API_KEY",
        "SIFT_LOCAL_PORT",
    ] {
        command.env_remove(var);
    }
    // Nor their configuration file.
    command.env(
        "SIFT_CONFIG",
        std::env::temp_dir().join("sift-tests-no-config.toml"),
    );
    command.kill_on_drop(true);
    command
}

/// A corpus file's absolute path (read in place, never copied).
pub fn corpus(name: &str) -> String {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    std::fs::canonicalize(dir)
        .unwrap()
        .join(name)
        .display()
        .to_string()
}

/// The PDFium library the set-up installed (`SIFT_PDFIUM`, or `lib` in the
/// data directory), for a test that gives `sift` a data directory of its
/// own.
pub fn installed_pdfium() -> std::path::PathBuf {
    std::env::var_os("SIFT_PDFIUM")
        .filter(|p| !p.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::env::var_os("SIFT_DATA_DIR")
                .filter(|d| !d.is_empty())
                .map(std::path::PathBuf::from)
                .unwrap_or_else(|| {
                    std::path::PathBuf::from(std::env::var("HOME").unwrap())
                        .join(".local/share/sift")
                })
                .join("lib")
        })
}

pub async fn run(command: &mut Command) -> Output {
    command.output().await.expect("sift did not run")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
