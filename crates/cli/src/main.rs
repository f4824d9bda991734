//! `sift`: Sift's engine on the command line.

mod ask;
mod call;
mod chat;
mod eval;
mod eval_set;
mod extract;
mod key;
mod model_args;
mod models;
mod read;
mod schema;
mod session;
mod sets;
mod turn;
mod workflow;

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use sift_core::{CoreError, Workspace, WorkspaceOptions};

#[derive(Debug, Parser)]
#[command(
    name = "sift",
    version,
    about = "Turn documents into typed data with language models"
)]
struct Cli {
    /// The database file [default: $SIFT_DB, else sift.db in the data
    /// folder of the settings (`[defaults] data_dir`), else in the data
    /// directory].
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<std::path::PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Send one prompt to a model and print the reply.
    Ask(ask::AskArgs),
    /// Run a structured call: a prompt, a tool loop, an answer validated
    /// against a JSON Schema. Exit 0 completed, 1 failed, 3 turn-limited.
    Call(call::CallArgs),
    /// Show or list recorded structured calls.
    #[command(subcommand)]
    Calls(call::CallsCommand),
    /// Revise a structured call with a correction.
    Revise(call::ReviseArgs),
    /// The schema library: import, export, list.
    #[command(subcommand)]
    Schema(schema::SchemaCommand),
    /// The local server's GGUF models: list, add, choose; the catalogue, and get one.
    #[command(subcommand)]
    Models(models::ModelsCommand),
    /// Store or remove an API key in the OS keychain.
    #[command(subcommand)]
    Key(key::KeyCommand),
    /// Show exactly what a model would receive for some files: the text,
    /// then a line per image (refusals exit 1 as `error (document): ...`).
    Read(read::ReadArgs),
    /// Labelled sets for `sift eval --set`: import a TSV, make one from
    /// a checked job, list, export, delete.
    #[command(subcommand)]
    Sets(sets::SetsCommand),
    /// Create a session, or print its messages.
    #[command(subcommand)]
    Session(session::SessionCommand),
    /// One model call of a host-owned turn: a new message, or the results
    /// of the pending tool calls. Prints `{"content", "pending", "signals"}`.
    Turn(turn::TurnArgs),
    /// One chat turn on a session: the reply is streamed to stdout. With
    /// several `--model`s, a session whose model choice is "auto" offers a
    /// refused turn to the next one, in order; other sessions use the
    /// first. Exit 1 on failure (nothing stored), 3 at the turn limit.
    Chat(chat::ChatArgs),
    /// Run one structured call per file and compare the answers with
    /// ground truth (a TSV): accuracy per field and overall. Several
    /// `--model`s are candidates, each run over every file: a matrix of
    /// fields × models, latency, tokens, failures, and whether each pair
    /// differs beyond noise. Exit 0 when it ran, whatever the accuracy.
    Eval(eval::EvalArgs),
    /// Extract typed values from documents: one structured call per file,
    /// at most --jobs at once, recorded as a job (--resume continues it).
    /// Progress and a summary go to stderr. Exit 0 when every document
    /// succeeds, 1 when any fails (the other rows are still written).
    Extract(extract::ExtractArgs),
    /// Check a workflow file: `ok` and exit 0, or `Validation failed for
    /// FILE` and one `- problem` line each on stderr, exit 1.
    Validate(workflow::ValidateArgs),
    /// Run a workflow file: each step's stdout streams as it runs (or,
    /// with --json, the run is printed at the end). Exit 0 when the run
    /// succeeds, 1 when it fails.
    Run(workflow::RunArgs),
}

/// How a command ended. Exit codes: 0 success, 1 failure, 2 usage error.
#[derive(Debug)]
pub enum Failure {
    /// Printed as `error (CATEGORY): MESSAGE`; exit 1.
    Failed { category: String, message: String },
    /// Printed as `error: MESSAGE`; exit 2.
    Usage(String),
    /// Printed as `error: MESSAGE`; exit `code` (e.g. 3, turn-limited).
    Exit { code: u8, message: String },
    /// Already reported on stderr; exit `code`.
    Reported { code: u8 },
}

/// The exit code follows the error's kind: 2 for a usage error, else 1.
impl From<CoreError> for Failure {
    fn from(error: CoreError) -> Self {
        match error.kind().exit_code() {
            1 => Self::Failed {
                category: error.category().to_string(),
                message: error.to_string(),
            },
            2 => Self::Usage(error.to_string()),
            code => Self::Exit {
                code,
                message: error.to_string(),
            },
        }
    }
}

fn main() -> ExitCode {
    // Before any argument is parsed as a command's: a reader process
    // serves its one document here and exits.
    sift_core::start_reading_in_child_processes();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            return report(Failure::Failed {
                category: "other".into(),
                message: e.to_string(),
            });
        }
    };
    // The same workspace as the app's: the configuration file read once,
    // and the database where the settings put it.
    let ws = match Workspace::open(WorkspaceOptions::cli(cli.db)) {
        Ok(ws) => ws,
        Err(error) => return report(error.into()),
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Ask(args) => ask::run(args).await,
            Command::Key(command) => key::run(command),
            Command::Models(command) => models::run(command).await,
            Command::Schema(command) => schema::run(command, &ws),
            Command::Call(args) => call::run(args, &ws).await,
            Command::Calls(command) => call::calls(command, &ws),
            Command::Revise(args) => call::revise(args, &ws).await,
            Command::Read(args) => read::run(args, &ws),
            Command::Session(command) => session::run(command, &ws).await,
            Command::Sets(command) => sets::run(command, &ws),
            Command::Turn(args) => turn::run(args, &ws).await,
            Command::Chat(args) => chat::run(args, &ws).await,
            Command::Eval(args) if args.set.is_some() => eval_set::run(args, &ws).await,
            Command::Eval(args) => eval::run(args, &ws).await,
            Command::Extract(args) => extract::run(args, &ws).await,
            Command::Validate(args) => workflow::validate(args),
            Command::Run(args) => workflow::run(args, &ws).await,
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => report(failure),
    }
}

#[allow(clippy::print_stderr)]
fn report(failure: Failure) -> ExitCode {
    match failure {
        Failure::Failed { category, message } => {
            eprintln!("error ({category}): {message}");
            ExitCode::from(1)
        }
        Failure::Usage(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
        Failure::Exit { code, message } => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
        Failure::Reported { code } => ExitCode::from(code),
    }
}
