//! `sift call`, `sift calls show|list` and `sift revise`.

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use serde_json::Value;
use sift_core::Workspace;
use sift_core::calls::{
    CallRequest, DEFAULT_KIND, DEFAULT_MAX_TURNS, call_summary, canonical_json, revise_call,
    run_call,
};
use sift_core::{CallStatus, StructuredCall};

use crate::Failure;
use crate::model_args::ModelArgs;

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The answer's JSON Schema (a `.json` file); without it the answer is JSON text.
    #[arg(long, value_name = "FILE")]
    schema: Option<PathBuf>,
    /// What to ask.
    #[arg(long)]
    prompt: String,
    /// What the call is for, recorded on its row.
    #[arg(long, default_value = DEFAULT_KIND)]
    kind: String,
    #[arg(long)]
    system: Option<String>,
    /// The most model requests the call may take.
    #[arg(long, default_value_t = DEFAULT_MAX_TURNS)]
    max_turns: u32,
    /// A file the model reads with the prompt (a path or glob; repeat for
    /// more): text files, Word, Excel, PDF and images.
    #[arg(long = "file", value_name = "PATH")]
    files: Vec<String>,
    /// Run the call as a turn of this session.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Print the call's row summary instead of the answer.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    model: ModelArgs,
}

#[derive(Debug, Subcommand)]
pub enum CallsCommand {
    /// The whole row of a call as JSON, transcript included.
    Show { id: String },
    /// One line of JSON per call, newest first.
    List {
        #[arg(long)]
        kind: Option<String>,
    },
}

#[derive(Debug, Args)]
pub struct ReviseArgs {
    /// The call to revise.
    id: String,
    /// The correction.
    text: String,
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    model: ModelArgs,
}

pub async fn run(args: CallArgs, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let mut request = CallRequest::new(args.model.selection(ws), args.prompt);
    request.kind = args.kind;
    request.system = args.system;
    request.max_turns = args.max_turns;
    request.session = args.session;
    request.schema = args.schema.as_deref().map(read_schema).transpose()?;
    request.context = ws.config().context;
    if !args.files.is_empty() {
        let working_dir = std::env::current_dir().map_err(|e| Failure::Failed {
            category: "other".into(),
            message: format!("no working directory: {e}"),
        })?;
        request.files = sift_core::resolve_files(&args.files, &working_dir)?;
    }
    let call = run_call(&store, &request).await?;
    finish(&call, args.json)
}

pub async fn revise(args: ReviseArgs, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let context = ws.config().context;
    let call = revise_call(
        &store,
        &args.id,
        &args.text,
        &args.model.selection(ws),
        &context,
    )
    .await?;
    finish(&call, args.json)
}

pub fn calls(command: CallsCommand, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let mut out = std::io::stdout().lock();
    match command {
        CallsCommand::Show { id } => {
            let call = store
                .get_call(&id)
                .map_err(sift_core::CoreError::from)?
                .ok_or_else(|| Failure::Failed {
                    category: "other".into(),
                    message: format!("no call {id}"),
                })?;
            let row = serde_json::to_value(&call).unwrap_or(Value::Null);
            let _ = writeln!(out, "{}", canonical_json(&row));
        }
        CallsCommand::List { kind } => {
            for call in store
                .list_calls(kind.as_deref())
                .map_err(sift_core::CoreError::from)?
            {
                let _ = writeln!(out, "{}", canonical_json(&call_summary(&call)));
            }
        }
    }
    Ok(())
}

fn read_schema(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read the schema {}: {e}", path.display())))?;
    serde_json::from_str(&text)
        .map_err(|e| Failure::Usage(format!("the schema {} is not JSON: {e}", path.display())))
}

/// Exit 0 when completed (stdout: the answer, or the summary with
/// `--json`); 1 when failed; 3 when turn-limited.
fn finish(call: &StructuredCall, json: bool) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    if json {
        let _ = writeln!(out, "{}", canonical_json(&call_summary(call)));
    } else if let Some(output) = &call.output {
        let _ = writeln!(out, "{}", canonical_json(output));
    }
    match call.status {
        CallStatus::Completed => Ok(()),
        CallStatus::Failed => Err(Failure::Failed {
            category: call
                .error_category
                .clone()
                .unwrap_or_else(|| "other".into()),
            message: format!(
                "call {} failed: {}",
                call.id,
                call.error.as_deref().unwrap_or("unknown error")
            ),
        }),
        CallStatus::TurnLimited => Err(Failure::Exit {
            code: 3,
            message: format!(
                "call {} is turn_limited: {}",
                call.id,
                call.error.as_deref().unwrap_or("no valid output")
            ),
        }),
    }
}
