//! The job's local server as a run reports it (`job_server`): kept apart
//! from `job_server.rs`, which `start.rs` calls, because these tests call
//! `start.rs` in turn.

use serde_json::json;
use sift_store::Store;
use tokio_util::sync::CancellationToken;

use super::start::run_reporting;
use super::tests::{TempDir, recording};
use super::{ExtractOptions, create_job};
use crate::{ModelSelection, ProviderKind, ProviderSettings};

/// A `hybrid` job on the local model whose schema the locator answers
/// whole starts no server, so it does not say it is starting one: its
/// events are the document's, and its row is the locator's.
#[tokio::test]
async fn a_job_that_never_asks_the_model_does_not_say_it_is_starting_it() {
    let dir = TempDir::new("job-server");
    let file = dir.file(
        "invoice.txt",
        "ACME GmbH\nInvoice Number: 2024-17A\nTotal: 1.234,50 EUR\n",
    );
    let store = Store::open(dir.0.join("sift.db")).unwrap();
    let schema = json!({
        "type": "object",
        "properties": {"number": {"type": "string"}, "total": {"type": "number"}}
    });
    let selection = ModelSelection {
        provider: ProviderSettings {
            provider: Some(ProviderKind::Local),
            ..ProviderSettings::default()
        },
        ..ModelSelection::default()
    };
    let job = create_job(&store, "located", &schema, None, &[file], &[]).unwrap();
    store.set_job_answers(&job.id, "hybrid").unwrap();
    let (sink, seen) = recording();
    run_reporting(
        &store,
        &job.id,
        ExtractOptions::new(selection),
        CancellationToken::new(),
        sink,
    )
    .await
    .unwrap();
    let seen = seen.lock().unwrap().clone();
    let kinds: Vec<&str> = seen.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["started", "row"], "{seen:?}");
    assert_eq!(seen[1]["row"]["status"], "completed");
    assert_eq!(
        seen[1]["row"]["values"],
        json!({"number": "2024-17A", "total": 1234.5})
    );
}
