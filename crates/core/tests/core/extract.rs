//! Extraction jobs against the scripted server: the concurrency bound,
//! a failing document, cancel and resume, and revisions.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use sift_core::extract::{
    ExtractOptions, Progress, ProgressStatus, create_job, job_results, revise_value, run_job,
};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{DocumentStatus, JobStatus, Store};
use tokio_util::sync::CancellationToken;

use crate::{TempDir, selection};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"number": {"type": "string"}, "total": {"type": "number"}},
        "required": ["number", "total"],
    })
}

/// `n` text files `doc0.txt`, ... holding `document N`.
fn files(dir: &TempDir, n: usize) -> Vec<PathBuf> {
    (0..n)
        .map(|i| {
            let path = dir.db().with_file_name(format!("doc{i}.txt"));
            std::fs::write(&path, format!("document {i}\n")).unwrap();
            path
        })
        .collect()
}

fn ok(number: &str) -> Reply {
    Reply::tool_call("submit_output", json!({"number": number, "total": 1.5})).usage(10, 2)
}

fn options(server: &ScriptedServer, concurrency: usize) -> ExtractOptions {
    ExtractOptions {
        concurrency,
        ..ExtractOptions::new(selection(server, &["m"]))
    }
}

fn ignore(_: Progress) {}

/// In flight is counted from the job's own events: a document's call runs
/// strictly between its `Started` and its `Completed`/`Failed` event (the
/// latter is sent once its row is written, before its slot is released),
/// so the counter is an upper bound of the requests in flight. With 6
/// documents each taking 300 ms, the bound of 2 must be reached, never
/// passed, and the job must take at least 3 rounds. The answers are held
/// until two documents have started, so the bound is reached however slow
/// the machine is.
#[tokio::test]
async fn no_more_than_the_concurrency_bound_run_at_once() {
    let dir = TempDir::new("extract-bound");
    let store = Store::open(dir.db()).unwrap();
    let server = ScriptedServer::start(
        Script::new().with("m", [ok("A").held("two-started").delay_ms(300).repeated()]),
    )
    .await
    .unwrap();
    let two_started = server.gate("two-started");
    let job = create_job(
        &store,
        "invoice",
        &schema(),
        None,
        &files(&dir, 6),
        &["m".into()],
    )
    .unwrap();
    let in_flight = Arc::new(AtomicUsize::new(0));
    let most = Arc::new(AtomicUsize::new(0));
    let (counter, peak) = (in_flight.clone(), most.clone());
    let started = Instant::now();
    // Bounded: were two documents never in flight, the held answers would
    // wait forever.
    let job_run = run_job(
        &store,
        &job.id,
        options(&server, 2),
        move |p: Progress| match p.status {
            ProgressStatus::Started => {
                let now = counter.fetch_add(1, Ordering::SeqCst) + 1;
                peak.fetch_max(now, Ordering::SeqCst);
                if now == 2 {
                    two_started.release();
                }
            }
            _ => {
                counter.fetch_sub(1, Ordering::SeqCst);
            }
        },
        CancellationToken::new(),
    );
    let summary = tokio::time::timeout(Duration::from_secs(60), job_run)
        .await
        .expect("the job did not end in 60 s")
        .unwrap();
    let elapsed = started.elapsed();
    assert_eq!(most.load(Ordering::SeqCst), 2);
    assert_eq!(in_flight.load(Ordering::SeqCst), 0);
    assert!(elapsed >= Duration::from_millis(900), "{elapsed:?}");
    assert_eq!(
        (
            summary.totals.done,
            summary.totals.failed,
            summary.totals.pending
        ),
        (6, 0, 0)
    );
    assert_eq!(
        (summary.totals.input_tokens, summary.totals.output_tokens),
        (60, 12)
    );
    assert_eq!(server.requests().len(), 6);
    assert_eq!(
        store.get_extraction_job(&job.id).unwrap().unwrap().status,
        JobStatus::Completed
    );
}

#[tokio::test]
async fn a_failing_document_leaves_the_others() {
    let dir = TempDir::new("extract-fail");
    let store = Store::open(dir.db()).unwrap();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            ok("A"),
            Reply::fault(400, r#"{"error":{"message":"bad"}}"#),
            ok("C"),
        ],
    ))
    .await
    .unwrap();
    let job = create_job(
        &store,
        "invoice",
        &schema(),
        Some("Read it."),
        &files(&dir, 3),
        &["m".into()],
    )
    .unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let summary = run_job(
        &store,
        &job.id,
        options(&server, 1),
        move |p: Progress| seen.lock().unwrap().push((p.position, p.status)),
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!((summary.totals.done, summary.totals.failed), (2, 1));
    assert_eq!(
        *events.lock().unwrap(),
        [
            (0, ProgressStatus::Started),
            (0, ProgressStatus::Completed),
            (1, ProgressStatus::Started),
            (1, ProgressStatus::Failed),
            (2, ProgressStatus::Started),
            (2, ProgressStatus::Completed),
        ]
    );
    let docs = store.extraction_documents(&job.id).unwrap();
    let statuses: Vec<_> = docs.iter().map(|d| d.status).collect();
    assert_eq!(
        statuses,
        [
            DocumentStatus::Completed,
            DocumentStatus::Failed,
            DocumentStatus::Completed
        ]
    );
    assert_eq!(docs[0].values, Some(json!({"number": "A", "total": 1.5})));
    assert_eq!(docs[1].values, None);
    assert!(docs[1].error.is_some());
    assert_eq!(docs[2].values, Some(json!({"number": "C", "total": 1.5})));
    // Each row links to its recorded call, whose prompt is the job's.
    let call = store
        .get_call(docs[0].call_id.as_deref().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(call.kind, "extract");
    assert_eq!(call.request["prompt"], "Read it.");
    assert_eq!(
        store.get_extraction_job(&job.id).unwrap().unwrap().status,
        JobStatus::Failed
    );
}

/// Cancelled after the first document: the others are never called; run
/// again, only they are.
#[tokio::test]
async fn a_cancelled_job_resumes_without_calling_completed_documents_again() {
    let dir = TempDir::new("extract-resume");
    let store = Store::open(dir.db()).unwrap();
    let server = ScriptedServer::start(Script::new().with("m", [ok("A").repeated()]))
        .await
        .unwrap();
    let job = create_job(
        &store,
        "invoice",
        &schema(),
        None,
        &files(&dir, 4),
        &["m".into()],
    )
    .unwrap();
    let cancel = CancellationToken::new();
    let flag = cancel.clone();
    let summary = run_job(
        &store,
        &job.id,
        options(&server, 1),
        move |p: Progress| {
            if p.status == ProgressStatus::Completed {
                flag.cancel();
            }
        },
        cancel,
    )
    .await
    .unwrap();
    assert_eq!((summary.totals.done, summary.totals.pending), (1, 3));
    assert!(summary.cancelled);
    assert_eq!(
        store.get_extraction_job(&job.id).unwrap().unwrap().status,
        JobStatus::Cancelled
    );
    assert_eq!(server.requests().len(), 1);

    // Resumed from a freshly opened store, as after a restart.
    drop(store);
    let store = Store::open(dir.db()).unwrap();
    let events = Arc::new(Mutex::new(Vec::new()));
    let seen = events.clone();
    let summary = run_job(
        &store,
        &job.id,
        options(&server, 2),
        move |p: Progress| {
            if p.status == ProgressStatus::Started {
                seen.lock().unwrap().push(p.position);
            }
        },
        CancellationToken::new(),
    )
    .await
    .unwrap();
    let mut started = events.lock().unwrap().clone();
    started.sort_unstable();
    assert_eq!(started, [1, 2, 3]);
    assert_eq!(
        (
            summary.totals.done,
            summary.totals.failed,
            summary.totals.pending
        ),
        (4, 0, 0)
    );
    assert!(!summary.cancelled);
    assert_eq!(server.requests().len(), 4);
    assert_eq!(
        store.get_extraction_job(&job.id).unwrap().unwrap().status,
        JobStatus::Completed
    );
}

#[tokio::test]
async fn revisions_are_kept_beside_the_models_values() {
    let dir = TempDir::new("extract-revise");
    let store = Store::open(dir.db()).unwrap();
    let server = ScriptedServer::start(Script::new().with("m", [ok("A").repeated()]))
        .await
        .unwrap();
    let job = create_job(
        &store,
        "invoice",
        &schema(),
        None,
        &files(&dir, 2),
        &["m".into()],
    )
    .unwrap();
    run_job(
        &store,
        &job.id,
        options(&server, 2),
        ignore,
        CancellationToken::new(),
    )
    .await
    .unwrap();
    revise_value(
        &store,
        &job.id,
        1,
        &json!({"number": "B", "total": 1.5}),
        None,
    )
    .unwrap();
    revise_value(
        &store,
        &job.id,
        1,
        &json!({"number": "B", "total": 2.5}),
        None,
    )
    .unwrap();
    assert!(revise_value(&store, &job.id, 9, &json!({}), None).is_err());
    let results = job_results(&store, &job.id).unwrap();
    assert_eq!(results.len(), 2);
    assert_eq!(results[0].revised, None);
    assert!(results[0].changed.is_empty());
    assert_eq!(
        results[0].values(),
        Some(&json!({"number": "A", "total": 1.5}))
    );
    assert_eq!(
        results[1].document.values,
        Some(json!({"number": "A", "total": 1.5}))
    );
    assert_eq!(
        results[1].revised,
        Some(json!({"number": "B", "total": 2.5}))
    );
    assert_eq!(results[1].changed, ["number", "total"]);
    assert_eq!(store.extraction_revisions(&job.id, 1).unwrap().len(), 2);
}

#[test]
fn a_job_refuses_an_invalid_schema() {
    let dir = TempDir::new("extract-schema");
    let store = Store::open(dir.db()).unwrap();
    let err = create_job(
        &store,
        "bad",
        &json!({"type": "array"}),
        None,
        &files(&dir, 1),
        &[],
    )
    .unwrap_err();
    assert_eq!(err.code(), "schema");
    assert!(store.list_schemas().unwrap().is_empty());
}
