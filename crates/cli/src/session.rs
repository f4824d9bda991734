//! `sift session new|show`.

use std::io::Write;
use std::path::Path;

use clap::Subcommand;
use serde_json::Value;
use sift_core::{new_session, open_store, session_messages};

use crate::Failure;

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
}

pub fn run(command: SessionCommand, db: Option<&Path>) -> Result<(), Failure> {
    let store = open_store(db)?;
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
    }
    let mut out = std::io::stdout().lock();
    // A closed pipe (`sift session show … | head`) is not worth failing for.
    let _ = out.write_all(output.as_bytes());
    let _ = out.flush();
    Ok(())
}
