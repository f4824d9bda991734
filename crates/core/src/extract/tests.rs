//! The extraction as the app's commands drive it, against a real SQLite
//! file and the scripted model server: a whole job with its events, a
//! revision and the exported CSV; a cancel before and during a run.
#![allow(clippy::unwrap_used)] // a failed unwrap is a failed test, with its location

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::Store;
use tokio_util::sync::CancellationToken;

use super::start::run_reporting;
use super::{
    ExtractEvent, ExtractOptions, JobState, RowStatus, cancel_extraction, check_value, create_job,
    job_view, recent_jobs, revise_field, with_field,
};
use crate::evidence::{EvidenceStatus, FieldEvidence};
use crate::extract::job_export::{ExportFormat, export_results};
use crate::path_grants::PathPolicy;
use crate::running::WorkKind;
use crate::{ModelSelection, ProviderKind, ProviderSettings, Workspace, WorkspaceOptions};

pub(super) type Sink = Arc<dyn Fn(ExtractEvent) + Send + Sync>;

/// A folder removed when dropped.
pub(super) struct TempDir(pub(super) PathBuf);

impl TempDir {
    pub(super) fn new(name: &str) -> Self {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let path = std::env::temp_dir().join(format!(
            "sift-core-unit-{name}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).unwrap();
        Self(path)
    }

    /// A workspace on `sift.db` here, with no configuration file, whose
    /// paths are trusted (as the CLI's), and its store.
    fn workspace(&self) -> (Workspace, Store) {
        let ws = Workspace::open(WorkspaceOptions {
            config: Some(self.0.join("no-config.toml")),
            db: Some(self.0.join("sift.db")),
            paths: PathPolicy::Trusted,
            starter_schemas: false,
        })
        .unwrap();
        let store = ws.store().unwrap();
        (ws, store)
    }

    pub(super) fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn invoice_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "number": {"type": "string"},
            "total": {"type": "number"},
            "seller": {"type": "object", "properties": {"name": {"type": "string"}}}
        },
        "required": ["number", "total"]
    })
}

fn scripted(server: &ScriptedServer) -> ModelSelection {
    ModelSelection {
        provider: ProviderSettings {
            provider: Some(ProviderKind::OpenAi),
            base_url: Some(server.openai_base_url()),
            extra_base_urls: Vec::new(),
            api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
            api_key_account: None,
            key_scope: Default::default(),
        },
        models: vec!["m".into()],
        ..ModelSelection::default()
    }
}

/// A sink whose events land in the returned list, as JSON.
pub(super) fn recording() -> (Sink, Arc<Mutex<Vec<Value>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let events = seen.clone();
    let sink: Sink = Arc::new(move |event: ExtractEvent| {
        events
            .lock()
            .unwrap()
            .push(serde_json::to_value(&event).unwrap());
    });
    (sink, seen)
}

#[test]
fn a_field_is_set_at_its_path_keeping_the_others() {
    let values = json!({"number": "A1", "seller": {"name": "X", "city": "Y"}});
    let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    assert_eq!(
        with_field(Some(&values), &path(&["seller", "name"]), json!("Z")).unwrap(),
        json!({"number": "A1", "seller": {"name": "Z", "city": "Y"}})
    );
    assert_eq!(
        with_field(None, &path(&["a", "b"]), json!(1)).unwrap(),
        json!({"a": {"b": 1}})
    );
    assert_eq!(
        with_field(Some(&values), &[], json!(1)).unwrap_err().code(),
        "usage"
    );
}

#[tokio::test]
async fn an_extraction_streams_its_rows_then_a_revision_and_the_csv() {
    let dir = TempDir::new("extract");
    let (ws, store) = dir.workspace();
    let good = dir.file("a.txt", "Invoice A-1, total 12.50\n");
    let bad = dir.file("b, c.txt", "not an invoice\n");
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::tool_call(
                    "submit_output",
                    json!({"number": "A-1", "total": 12.5, "seller": {"name": "ACME"}}),
                )
                .usage(100, 20),
                Reply::fault(400, r#"{"error":{"message":"bad request"}}"#),
            ],
        ),
    )
    .await
    .unwrap();
    let selection = scripted(&server);
    let job = create_job(
        &store,
        "invoice",
        &invoice_schema(),
        None,
        &[good.clone(), bad.clone()],
        &selection.models,
    )
    .unwrap();
    let before = job_view(&store, &job.id).unwrap();
    assert_eq!(before.status, JobState::Running);
    assert_eq!(before.totals.pending, 2);
    let keys: Vec<&str> = before.columns.iter().map(|c| c.key.as_str()).collect();
    assert_eq!(keys, ["number", "total", "seller.name"]);
    assert_eq!(before.columns[1].field_type, "number");

    let options = ExtractOptions {
        // One at a time, so the scripted replies go to the files in order.
        concurrency: 1,
        ..ExtractOptions::new(selection)
    };
    let (sink, seen) = recording();
    run_reporting(&store, &job.id, options, CancellationToken::new(), sink)
        .await
        .unwrap();
    let events = seen.lock().unwrap().clone();
    let kinds: Vec<(&str, i64)> = events
        .iter()
        .map(|e| {
            let position = e
                .get("position")
                .or_else(|| e.pointer("/row/position"))
                .and_then(Value::as_i64)
                .unwrap_or(-1);
            (e["kind"].as_str().unwrap(), position)
        })
        .collect();
    assert_eq!(
        kinds,
        [("started", 0), ("row", 0), ("started", 1), ("row", 1)]
    );
    assert!(events.iter().all(|e| e["jobId"] == json!(job.id)));
    let first = &events[1]["row"];
    assert_eq!(first["status"], "completed");
    assert_eq!(first["fileName"], "a.txt");
    assert_eq!(
        first["values"],
        json!({"number": "A-1", "total": 12.5, "seller": {"name": "ACME"}})
    );
    assert_eq!(
        (
            first["inputTokens"].as_u64(),
            first["outputTokens"].as_u64()
        ),
        (Some(100), Some(20))
    );
    assert!(first["callId"].as_str().unwrap().starts_with("call_"));
    assert_eq!(events[3]["row"]["status"], "failed");
    assert_eq!(events[3]["row"]["errorCode"], "model");

    let after = job_view(&store, &job.id).unwrap();
    assert_eq!(after.status, JobState::Failed);
    // Where each value was found in the file the model read.
    let found: Vec<(&str, EvidenceStatus, Vec<&str>)> = after.rows[0]
        .evidence
        .iter()
        .map(|e| {
            let quotes = e.places.iter().map(|p| p.quote.as_str()).collect();
            (e.key.as_str(), e.status, quotes)
        })
        .collect();
    let line = "Invoice A-1, total 12.50";
    assert_eq!(
        found,
        [
            ("number", EvidenceStatus::Exact, vec![line]),
            ("total", EvidenceStatus::Normalised, vec![line]),
            ("seller.name", EvidenceStatus::NotFound, vec![]),
        ]
    );
    assert!(after.rows[1].evidence.is_empty());
    assert_eq!(after.needs_review, 1);
    assert_eq!(
        (after.totals.done, after.totals.failed, after.totals.pending),
        (1, 1, 0)
    );
    let listed = recent_jobs(&store, 10).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].job_id, job.id);
    assert_eq!(
        (listed[0].documents, listed[0].status),
        (2, JobState::Failed)
    );
    assert_eq!(listed[0].totals, after.totals);
    assert_eq!(listed[0].models, ["m"]);
    assert!(listed[0].finished_at.is_some());

    // A correction: a revision beside the model's values.
    let path = vec!["seller".to_owned(), "name".to_owned()];
    let read = ws.read_options();
    let row = revise_field(
        &store,
        &read,
        &job.id,
        0,
        &path,
        json!("ACME, Inc. \"East\""),
    )
    .await
    .unwrap();
    // The corrected value is looked for again, and counts as checked.
    assert_eq!(row.evidence[2].key, "seller.name");
    assert_eq!(row.evidence[2].status, EvidenceStatus::NotFound);
    assert_eq!(row.checked, ["seller.name"]);
    assert_eq!(row.needs_review(), 0);
    let row = revise_field(&store, &read, &job.id, 0, &path, json!("invoice a-1"))
        .await
        .unwrap();
    assert_eq!(row.evidence[2].status, EvidenceStatus::Normalised);
    let row = check_value(&store, &job.id, 0, "number").unwrap();
    assert_eq!(row.checked, ["seller.name", "number"]);
    assert_eq!(
        check_value(&store, &job.id, 0, "nope")
            .unwrap_err()
            .to_string(),
        "a.txt has no value nope"
    );
    let row = revise_field(
        &store,
        &read,
        &job.id,
        0,
        &path,
        json!("ACME, Inc. \"East\""),
    )
    .await
    .unwrap();
    assert_eq!(row.changed, ["seller"]);
    assert_eq!(
        row.values.as_ref().unwrap()["seller"]["name"],
        "ACME, Inc. \"East\""
    );
    assert_eq!(row.model_values.as_ref().unwrap()["seller"]["name"], "ACME");
    let refused = revise_field(&store, &read, &job.id, 1, &["total".to_owned()], json!(3))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "usage");
    assert_eq!(after.rows[1].status, RowStatus::Failed);

    let csv_path = dir.0.join("out.csv");
    let report = export_results(&ws, &job.id, ExportFormat::Csv, &csv_path, false).unwrap();
    assert_eq!(report.rows, 2);
    let csv = std::fs::read_to_string(&csv_path).unwrap();
    let error = after.rows[1].error.clone().unwrap();
    let expected = format!(
        "file,number,total,seller.name,status,error\r\n{},A-1,12.5,\"ACME, Inc. \"\"East\"\"\",completed,\r\n\"{}\",,,,failed,{}\r\n",
        good.display(),
        bad.display(),
        if error.contains([',', '"']) {
            format!("\"{}\"", error.replace('"', "\"\""))
        } else {
            error.clone()
        }
    );
    assert_eq!(csv, expected);
    assert_eq!(report.bytes, expected.len() as u64);

    let jsonl_path = dir.0.join("out.jsonl");
    export_results(&ws, &job.id, ExportFormat::Jsonl, &jsonl_path, false).unwrap();
    let jsonl = std::fs::read_to_string(&jsonl_path).unwrap();
    let first_line: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(
        first_line["values"]["seller"]["name"],
        "ACME, Inc. \"East\""
    );
}

#[tokio::test]
async fn a_cancelled_job_calls_nothing_more() {
    let dir = TempDir::new("cancel");
    let (_ws, store) = dir.workspace();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call("submit_output", json!({"number": "X", "total": 1})).repeated()],
    ))
    .await
    .unwrap();
    let selection = scripted(&server);
    let files = [dir.file("a.txt", "a\n"), dir.file("b.txt", "b\n")];
    let job = create_job(
        &store,
        "invoice",
        &invoice_schema(),
        None,
        &files,
        &selection.models,
    )
    .unwrap();
    let (sink, seen) = recording();
    let cancelled = CancellationToken::new();
    cancelled.cancel();
    run_reporting(
        &store,
        &job.id,
        ExtractOptions::new(selection),
        cancelled,
        sink,
    )
    .await
    .unwrap();
    assert!(seen.lock().unwrap().is_empty());
    let view = job_view(&store, &job.id).unwrap();
    assert_eq!(view.status, JobState::Cancelled);
    assert_eq!(view.totals.pending, 2);
}

/// Cancel as the window does it, through the workspace's registry of
/// running work, once the first document has started: that document finishes and
/// is written, no other starts, and the job is cancelled.
#[tokio::test]
async fn cancelling_mid_run_lets_the_started_document_finish_and_starts_no_other() {
    let dir = TempDir::new("cancel-mid");
    let (ws, store) = dir.workspace();
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::tool_call("submit_output", json!({"number": "X", "total": 1}))
                    .delay_ms(300)
                    .repeated(),
            ],
        ),
    )
    .await
    .unwrap();
    let selection = scripted(&server);
    let files = [
        dir.file("a.txt", "a\n"),
        dir.file("b.txt", "b\n"),
        dir.file("c.txt", "c\n"),
    ];
    let job = create_job(
        &store,
        "invoice",
        &invoice_schema(),
        None,
        &files,
        &selection.models,
    )
    .unwrap();
    let guard = ws
        .running()
        .register(WorkKind::Extraction, &job.id)
        .unwrap();
    let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
    let (events, registry, job_id) = (seen.clone(), ws.clone(), job.id.clone());
    let sink: Sink = Arc::new(move |event: ExtractEvent| {
        let event = serde_json::to_value(&event).unwrap();
        if event["kind"] == "started" {
            assert!(cancel_extraction(&registry, &job_id));
        }
        events.lock().unwrap().push(event);
    });
    let options = ExtractOptions {
        concurrency: 1,
        ..ExtractOptions::new(selection)
    };
    run_reporting(&store, &job.id, options, guard.token().clone(), sink)
        .await
        .unwrap();
    let kinds: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|e| e["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["started", "row"]);
    let view = job_view(&store, &job.id).unwrap();
    assert_eq!(view.status, JobState::Cancelled);
    assert_eq!((view.totals.done, view.totals.pending), (1, 2));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
}

/// A scan's OCR reports each page as a status of the job, before its row.
#[tokio::test]
async fn a_scans_ocr_is_reported_page_by_page() {
    let dir = TempDir::new("extract-ocr-status");
    let (_ws, store) = dir.workspace();
    let scan = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/docling_ocr_test.pdf");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"number": "1", "total": 1.0}),
        )],
    ))
    .await
    .unwrap();
    let selection = scripted(&server);
    let job = create_job(
        &store,
        "invoice",
        &invoice_schema(),
        None,
        &[scan],
        &selection.models,
    )
    .unwrap();
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
    let events: Vec<(String, String)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_owned(),
                e["message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let event = |kind: &str, message: &str| (kind.to_owned(), message.to_owned());
    assert_eq!(
        events,
        [
            event("started", ""),
            event("status", "Reading page 1 of 1 of docling_ocr_test.pdf…"),
            event("row", ""),
        ]
    );
}

/// Evidence follows its file: a run of the job after the file changed
/// (a resume) finds the values again, the model's and the revision's.
#[tokio::test]
async fn a_changed_file_has_its_values_found_again_on_a_resume() {
    let dir = TempDir::new("extract-refresh");
    let (ws, store) = dir.workspace();
    let file = dir.file("a.txt", "Invoice A-1\n");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"number": "A-1", "total": 12.5, "seller": {"name": "ACME"}}),
        )],
    ))
    .await
    .unwrap();
    let selection = scripted(&server);
    let job = create_job(
        &store,
        "invoice",
        &invoice_schema(),
        None,
        std::slice::from_ref(&file),
        &selection.models,
    )
    .unwrap();
    let run = |store: Store| {
        let options = ExtractOptions::new(selection.clone());
        let id = job.id.clone();
        async move { super::run_job(&store, &id, options, |_| {}, CancellationToken::new()).await }
    };
    run(store.clone()).await.unwrap();
    let statuses = |row: &super::JobRow| -> Vec<EvidenceStatus> {
        row.evidence.iter().map(|e| e.status).collect()
    };
    let before = job_view(&store, &job.id).unwrap();
    use EvidenceStatus::{Exact, NotFound};
    assert_eq!(statuses(&before.rows[0]), [Exact, NotFound, NotFound]);
    let read = ws.read_options();
    let path = ["seller".to_owned(), "name".to_owned()];
    revise_field(&store, &read, &job.id, 0, &path, json!("Zed"))
        .await
        .unwrap();

    // Unchanged: nothing is read again.
    run(store.clone()).await.unwrap();
    let source = store.extraction_documents(&job.id).unwrap()[0]
        .evidence_source
        .clone();
    assert!(source.is_some());
    std::fs::write(&file, "Invoice A-1\nACME, total 12.5\nZed\n").unwrap();
    run(store.clone()).await.unwrap();
    let documents = store.extraction_documents(&job.id).unwrap();
    assert_ne!(documents[0].evidence_source, source);
    let model: Vec<FieldEvidence> =
        serde_json::from_value(documents[0].evidence.clone().unwrap()).unwrap();
    assert_eq!(
        model.iter().map(|e| e.status).collect::<Vec<_>>(),
        [Exact, Exact, Exact]
    );
    // The table shows the revision's: `Zed` is on the page now.
    let after = job_view(&store, &job.id).unwrap();
    assert_eq!(statuses(&after.rows[0]), [Exact, Exact, Exact]);
    assert_eq!(after.rows[0].evidence[2].places[0].quote, "Zed");
    // One call in all: the resumes called nothing.
    assert_eq!(server.requests().len(), 1);
}

/// A document's pages are built once per job: the locator searches them,
/// and evidence then finds the answer's values in the same pages, not in
/// pages built again from the document (issue 41).
#[tokio::test]
async fn a_located_documents_pages_are_built_once_for_the_locator_and_evidence() {
    use crate::calls::CallRequest;
    use crate::evidence::PAGES_BUILT;

    let dir = TempDir::new("pages-once");
    let file = dir.file(
        "invoice.txt",
        "ACME GmbH\nInvoice number: INV-7\nTotal: 12.00 EUR\n",
    );
    let store = Store::open(dir.0.join("sift.db")).unwrap();
    let mut request = CallRequest::new(ModelSelection::default(), "unused: no model is asked");
    request.files = vec![file];
    request.read_options.word_boxes = true;
    let schema = invoice_schema();
    PAGES_BUILT.with(|built| built.set(0));
    let server = super::JobServer::new(false, None, None);
    let answer = super::answer_document(
        &store,
        &request,
        &schema,
        super::AnswerMode::Located,
        &server,
    )
    .await
    .unwrap();
    assert_eq!(
        PAGES_BUILT.with(std::cell::Cell::get),
        1,
        "built for the locator"
    );
    let result = answer.into_result(&request.read_options, &schema);
    assert_eq!(
        PAGES_BUILT.with(std::cell::Cell::get),
        1,
        "evidence searched the locator's pages"
    );
    assert_eq!(
        result.values,
        Some(json!({"number": "INV-7", "total": 12.0}))
    );
    let evidence: Vec<FieldEvidence> = serde_json::from_value(result.evidence.unwrap()).unwrap();
    let statuses: Vec<(&str, EvidenceStatus)> = evidence
        .iter()
        .map(|e| (e.key.as_str(), e.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("number", EvidenceStatus::Exact),
            ("total", EvidenceStatus::Normalised)
        ]
    );
}
