//! `sift key`: API keys in the OS keychain.

use std::io::BufRead;

use clap::Subcommand;
use sift_core::ApiKey;
use sift_core::models::keychain;

use crate::Failure;

#[derive(Debug, Subcommand)]
pub enum KeyCommand {
    /// Store a key, read from the first line of standard input (so that it
    /// never appears in the shell history or the process list).
    Set {
        /// The account: a provider's name (`openai`, `anthropic`) is used
        /// by that provider unless `--api-key-account` names another.
        account: String,
    },
    /// Remove a stored key.
    Delete { account: String },
}

pub fn run(command: KeyCommand) -> Result<(), Failure> {
    match command {
        KeyCommand::Set { account } => {
            let mut line = String::new();
            std::io::stdin().lock().read_line(&mut line).map_err(|e| {
                Failure::Usage(format!("cannot read the key from standard input: {e}"))
            })?;
            let key = line.trim();
            if key.is_empty() {
                return Err(Failure::Usage("no key on standard input".to_owned()));
            }
            keychain::store_key(&account, &ApiKey::new(key))?;
            Ok(())
        }
        KeyCommand::Delete { account } => Ok(keychain::delete_key(&account)?),
    }
}
