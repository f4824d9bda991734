//! `sift session new|show|compact`.

use std::io::Write;

use clap::Subcommand;
use serde_json::Value;
use sift_core::calls::compaction::compact_session;
use sift_core::calls::{CallRequest, call_summary, canonical_json};
use sift_core::{Workspace, new_session, session_messages};

use crate::Failure;
use crate::model_args::ModelArgs;

#[derive(Debug, Subcommand)]
pub enum SessionCommand {
    /// Create a session and print its id.
    New {
        /// The session's system prompt, sent first by its first turn.
        #[arg(long)]
        system: Option<String>,
    },
    /// Print a session's messages, one line of JSON each, in order.
    Show { id: String },
    /// Summarise all but the newest messages with a structured call of kind
    /// `compaction`; the summary then stands in for them in every request
    /// (the stored messages stay). Prints the call's summary line.
    Compact {
        id: String,
        /// How many of the newest messages stay as they are.
        #[arg(long, default_value_t = 4)]
        keep: usize,
        #[command(flatten)]
        model: ModelArgs,
    },
}

pub async fn run(command: SessionCommand, ws: &Workspace) -> Result<(), Failure> {
    let store = ws.store()?;
    let mut output = String::new();
    match command {
        SessionCommand::New { system } => {
            let session = new_session(&store, system)?;
            output.push_str(&session.id);
            output.push('\n');
        }
        SessionCommand::Show { id } => {
            for message in session_messages(&store, &id)? {
                let row = serde_json::to_value(&message).unwrap_or(Value::Null);
                output.push_str(&row.to_string());
                output.push('\n');
            }
        }
        SessionCommand::Compact { id, keep, model } => {
            let mut request = CallRequest::new(model.selection(ws), String::new());
            request.context = ws.config().context;
            let call = compact_session(&store, &id, keep, &request).await?;
            output.push_str(&canonical_json(&call_summary(&call)));
            output.push('\n');
            if call.status != sift_core::CallStatus::Completed {
                let _ = std::io::stdout().lock().write_all(output.as_bytes());
                return Err(Failure::Failed {
                    category: call
                        .error_category
                        .clone()
                        .unwrap_or_else(|| "other".into()),
                    message: format!(
                        "compaction {} failed: {}",
                        call.id,
                        call.error.as_deref().unwrap_or("no summary")
                    ),
                });
            }
        }
    }
    let mut out = std::io::stdout().lock();
    // A closed pipe (`sift session show … | head`) is not worth failing for.
    let _ = out.write_all(output.as_bytes());
    let _ = out.flush();
    Ok(())
}
