//! `sift turn`: one invocation of a host-owned turn (seed 003).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;
use sift_core::ToolSpec;
use sift_core::{CoreError, HostToolResult, TurnRequest, Workspace, host_turn};

use crate::Failure;
use crate::model_args::ModelArgs;
use sift_core::calls::canonical_json;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["message", "tool_results"])))]
pub struct TurnArgs {
    /// The session.
    #[arg(long, value_name = "ID")]
    session: String,
    /// A new user message.
    #[arg(long)]
    message: Option<String>,
    /// The results of the pending calls: a JSON list of `{id, content, is_error?}`.
    #[arg(long, value_name = "FILE")]
    tool_results: Option<PathBuf>,
    /// The tools to advertise: a JSON list of `{name, description, parameters}`
    /// [default when resuming: the tools the turn advertised].
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    #[command(flatten)]
    model: ModelArgs,
}

/// Prints `{"content", "pending", "signals"}`. When calls are pending and a
/// message is sent: exit 1 with `{"error":"tool_results_required","ids"}`.
pub async fn run(args: TurnArgs, ws: &Workspace) -> Result<(), Failure> {
    let tools: Vec<ToolSpec> = match &args.tools {
        Some(path) => read_list(path, "tools", "{name, description, parameters}", |t| {
            serde_json::from_str(t)
        })?,
        None => Vec::new(),
    };
    let tool_results: Vec<HostToolResult> = match &args.tool_results {
        Some(path) => read_list(path, "tool results", "{id, content, is_error?}", |t| {
            serde_json::from_str(t)
        })?,
        None => Vec::new(),
    };
    let store = ws.store()?;
    let request = TurnRequest {
        session_id: args.session,
        message: args.message,
        tool_results,
        tools,
        selection: args.model.selection(ws),
        context: ws.config().context,
        extract_signals: None,
    };
    match host_turn(&store, request).await {
        Ok(result) => {
            let line = json!({
                "content": result.content,
                "pending": result.pending,
                "signals": result.signals,
            });
            print_line(&canonical_json(&line));
            Ok(())
        }
        Err(CoreError::ToolResultsRequired { ids }) => {
            let error = CoreError::ToolResultsRequired { ids: ids.clone() };
            print_line(&canonical_json(&json!({"error": error.code(), "ids": ids})));
            Err(Failure::Failed {
                category: error.code().to_owned(),
                message: error.to_string(),
            })
        }
        Err(other) => Err(other.into()),
    }
}

fn print_line(line: &str) {
    let mut out = std::io::stdout().lock();
    // A closed pipe is not worth failing the turn for: it is committed.
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// A JSON list from `path`, or a usage error naming the file.
fn read_list<T>(
    path: &Path,
    what: &str,
    shape: &str,
    parse: impl Fn(&str) -> Result<Vec<T>, serde_json::Error>,
) -> Result<Vec<T>, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Failure::Usage(format!(
            "cannot read the {what} file {}: {e}",
            path.display()
        ))
    })?;
    parse(&text).map_err(|e| {
        Failure::Usage(format!(
            "the {what} file {} is not a JSON list of {shape}: {e}",
            path.display()
        ))
    })
}
