//! The API surface against the scripted model server on loopback and a
//! real SQLite file in a temporary folder: the exact requests, the events,
//! and the rows left in the file.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

mod answer_channel;
mod answers;
mod ask;
mod catalogue_get;
mod chat;
mod einvoice;
mod endpoints;
mod eval;
mod evaluation;
mod evidence;
mod extract;
mod extract_ocr;
mod extract_real;
mod extract_real_qwen;
mod extraction;
mod formulas;
mod line_items;
mod model_actions;
mod model_capabilities;
mod preview;
mod read_paths;
mod schema_suggestion;
mod schemas;
mod server_models;
mod sessions;
mod settings;
mod settings_keys;
mod transcripts;
mod usage;
mod workflow_consent;
mod workflow_files;
mod workflow_runs;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use sift_core::{ModelSelection, ProviderKind, ProviderSettings};
use sift_scripted_server::ScriptedServer;

/// A folder removed when dropped.
#[derive(Debug)]
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let unique = format!(
            "sift-core-{name}-{}-{}-{}",
            std::process::id(),
            sift_store::now_ms(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let path = std::env::temp_dir().join(unique);
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    /// `sift.db` in the folder.
    pub fn db(&self) -> PathBuf {
        self.0.join("sift.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The scripted server's models, by name, with no API key (and so no
/// keychain lookup) and none of the developer's settings.
pub fn selection(server: &ScriptedServer, models: &[&str]) -> ModelSelection {
    ModelSelection {
        provider: ProviderSettings {
            provider: Some(ProviderKind::OpenAi),
            base_url: Some(server.openai_base_url()),
            extra_base_urls: Vec::new(),
            api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
            api_key_account: None,
            key_scope: Default::default(),
        },
        models: models.iter().map(|m| (*m).to_owned()).collect(),
        ..ModelSelection::default()
    }
}

/// Rows of a table, read with a connection of its own (as another process
/// would).
pub fn count(db: &Path, table: &str) -> i64 {
    let store = sift_store::Store::open(db).unwrap();
    match table {
        "messages" => store
            .list_sessions()
            .unwrap()
            .iter()
            .map(|s| store.messages(&s.id).unwrap().len() as i64)
            .sum(),
        "pending_turns" => store
            .list_sessions()
            .unwrap()
            .iter()
            .filter(|s| store.pending_turn(&s.id).unwrap().is_some())
            .count() as i64,
        other => panic!("no count for {other}"),
    }
}
