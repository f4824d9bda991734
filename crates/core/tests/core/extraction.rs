//! Extraction on a [`Workspace`], through the functions the app's
//! commands call: a resume runs with the job's models, an export writes
//! only a granted path, a preview reads only a job's document, and a job
//! whose local server will not start ends failed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_core::config::{AppSettings, ProviderEntry};
use sift_core::evidence::preview::preview_document;
use sift_core::extract::job_export::{ExportFormat, export_results};
use sift_core::extract::{
    AnswerMode, ExtractEvent, ExtractRequest, JobState, NewJob, cancel_extraction,
    resume_extraction, start_extraction, start_job,
};
use sift_core::{PathPolicy, ProviderKind, Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::JobStatus;

use crate::{TempDir, selection};

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"number": {"type": "string"}},
        "required": ["number"],
    })
}

/// A workspace as the app opens it (paths granted only), on `sift.db`
/// in `dir`, with its own configuration file; `dir`'s files may be read,
/// as when the folder is dropped on the window.
fn app_workspace(dir: &TempDir) -> Workspace {
    let ws = Workspace::open(WorkspaceOptions {
        config: Some(dir.0.join("config.toml")),
        db: Some(dir.db()),
        paths: PathPolicy::GrantedOnly,
        starter_schemas: false,
    })
    .unwrap();
    ws.grants().grant_read(&dir.0);
    ws
}

fn file(dir: &TempDir, name: &str) -> PathBuf {
    let path = dir.0.join(name);
    std::fs::write(&path, format!("{name}\n")).unwrap();
    path
}

/// A sink whose events land in the returned list, as JSON.
fn recording() -> (
    impl Fn(ExtractEvent) + Send + Sync + 'static,
    Arc<Mutex<Vec<Value>>>,
) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let events = seen.clone();
    let sink = move |event: ExtractEvent| {
        events
            .lock()
            .unwrap()
            .push(serde_json::to_value(&event).unwrap());
    };
    (sink, seen)
}

fn requested_models(server: &ScriptedServer) -> Vec<String> {
    server
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_owned())
        .collect()
}

/// The scenario `sift extract --resume` runs too (`crates/cli/tests/cli/
/// extract.rs`): a job over models `a` then `b` fails on both; resumed
/// through a provider whose `a` still fails but whose `b` answers, with
/// no model named, it calls `a` then `b` and completes.
#[tokio::test]
async fn a_resume_without_a_model_runs_all_of_the_jobs_models_in_order() {
    let dir = TempDir::new("resume-models");
    let ws = app_workspace(&dir);
    let fault = || Reply::fault(400, r#"{"error":{"message":"no"}}"#).repeated();
    let first = ScriptedServer::start(Script::new().with("a", [fault()]).with("b", [fault()]))
        .await
        .unwrap();
    let job = NewJob {
        schema_name: "invoice".into(),
        schema: schema(),
        prompt: None,
        files: vec![file(&dir, "doc0.txt")],
        selection: selection(&first, &["a", "b"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: None,
    };
    let (view, run) = start_job(&ws, job, |_| {}).unwrap();
    assert_eq!(view.models, ["a", "b"]);
    assert_eq!(run.await.unwrap().status, JobState::Failed);
    assert_eq!(requested_models(&first), ["a", "b"]);

    let second = ScriptedServer::start(Script::new().with("a", [fault()]).with(
        "b",
        [Reply::tool_call("submit_output", json!({"number": "B"}))],
    ))
    .await
    .unwrap();
    let mut settings = AppSettings::defaults();
    settings.providers.push(ProviderEntry {
        id: "scripted".into(),
        kind: ProviderKind::OpenAi,
        label: "Scripted".into(),
        base_url: Some(second.openai_base_url()),
        extra_base_urls: Vec::new(),
        api_key_env: Some("SIFT_CORE_TESTS_NO_KEY".into()),
    });
    ws.save_settings(settings).unwrap();
    let (sink, seen) = recording();
    let (resumed, run) =
        resume_extraction(&ws, &view.job_id, Some("scripted"), None, sink).unwrap();
    assert_eq!(resumed.status, JobState::Running);
    let done = run.await.unwrap();
    assert_eq!(done.status, JobState::Completed);
    assert_eq!(done.rows[0].values, Some(json!({"number": "B"})));
    assert_eq!(requested_models(&second), ["a", "b"]);
    let events = seen.lock().unwrap();
    assert_eq!(events.last().unwrap()["kind"], "finished");
    assert_eq!(events.last().unwrap()["totals"]["done"], 1);
}

/// The app writes an export only to a path granted in this session (a
/// save dialog's); anything else is refused and nothing is written.
#[tokio::test]
async fn an_export_writes_only_a_granted_path() {
    let dir = TempDir::new("export-grant");
    let ws = app_workspace(&dir);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call("submit_output", json!({"number": "A-1"}))],
    ))
    .await
    .unwrap();
    let doc = file(&dir, "a.txt");
    let job = NewJob {
        schema_name: "invoice".into(),
        schema: schema(),
        prompt: None,
        files: vec![doc.clone()],
        selection: selection(&server, &["m"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: None,
    };
    let (view, run) = start_job(&ws, job, |_| {}).unwrap();
    run.await.unwrap();

    let out = dir.0.join("out.csv");
    let refused = export_results(&ws, &view.job_id, ExportFormat::Csv, &out, false).unwrap_err();
    assert_eq!(refused.code(), "path_not_allowed");
    let written: Vec<String> = std::fs::read_dir(&dir.0)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("out.csv"))
        .collect();
    assert!(written.is_empty(), "{written:?}");
    ws.grants().grant_file(&out);
    let report = export_results(&ws, &view.job_id, ExportFormat::Csv, &out, false).unwrap();
    let expected = format!(
        "file,number,status,error\r\n{},A-1,completed,\r\n",
        doc.display()
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), expected);
    assert_eq!(
        (report.rows, report.bytes, report.path),
        (1, expected.len() as u64, out.display().to_string())
    );
}

/// The webview names the file to preview: only a document of a job is
/// read.
#[tokio::test]
async fn a_preview_reads_only_a_document_of_a_job() {
    let dir = TempDir::new("preview-job");
    let ws = app_workspace(&dir);
    let doc = file(&dir, "a.txt");
    let path = doc.display().to_string();
    let refused = preview_document(&ws, &path, 0).await.unwrap_err();
    assert_eq!(refused.code(), "not_found");
    assert_eq!(
        refused.to_string(),
        format!("{path} is not a document of any extraction job")
    );
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let job = NewJob {
        schema_name: "invoice".into(),
        schema: schema(),
        prompt: None,
        files: vec![doc],
        selection: selection(&server, &["m"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: None,
    };
    // Created, not run: its documents are the job's from the start.
    let (_view, _run) = start_job(&ws, job, |_| {}).unwrap();
    let shown = preview_document(&ws, &path, 0).await.unwrap();
    assert_eq!(shown.text.as_deref(), Some("a.txt\n"));
    assert_eq!((shown.page, shown.page_count), (0, 1));
}

/// Run in a child process of this test binary with the environment that
/// makes the local server fail (the environment cannot be changed in
/// this process): no program where `SIFT_LLAMA_SERVER` says, nothing at
/// `SIFT_LOCAL_PORT`.
#[test]
fn a_job_whose_local_server_will_not_start_ends_failed() {
    const CHILD: &str = "SIFT_CORE_TESTS_LOCAL_FAILURE_DIR";
    if let Some(dir) = std::env::var_os(CHILD) {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(local_failure_in(Path::new(&dir)));
        return;
    }
    let dir = TempDir::new("local-failure");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap());
    child
        .args([
            "--exact",
            "extraction::a_job_whose_local_server_will_not_start_ends_failed",
            "--nocapture",
        ])
        .env(CHILD, &dir.0)
        .env("SIFT_LLAMA_SERVER", dir.0.join("no-llama-server"))
        .env("SIFT_DATA_DIR", &dir.0)
        .env("SIFT_LOCAL_PORT", port.to_string());
    for var in ["SIFT_PROVIDER", "SIFT_BASE_URL", "SIFT_MODEL", "SIFT_DB"] {
        child.env_remove(var);
    }
    let output = child.output().unwrap();
    assert!(
        output.status.success(),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // The child ran the test itself, not nothing.
    assert!(String::from_utf8_lossy(&output.stdout).contains("1 passed"));
}

/// The app's start with the default settings (the local server), for
/// answers that need the model: the job ends failed with the local
/// server's error, and says so as its last event.
async fn local_failure_in(dir: &Path) {
    let dir = TempDir(dir.to_path_buf());
    let ws = app_workspace(&dir);
    let store = ws.store().unwrap();
    sift_core::schemas::save_schema(&store, "invoice", &schema()).unwrap();
    let doc = file(&dir, "a.txt");
    let (sink, seen) = recording();
    let request = ExtractRequest {
        files: vec![doc.display().to_string()],
        schema_name: "invoice".into(),
        schema_version: None,
        provider_id: None,
        model: None,
        prompt: None,
        concurrency: None,
        ocr_languages: None,
        answers: Some(AnswerMode::Grounded),
    };
    let (view, run) = start_extraction(&ws, request, sink).unwrap();
    let error = run.await.unwrap_err();
    let message = format!(
        "the local model server is not installed: {} is missing. Run scripts/setup.sh, or set SIFT_LLAMA_SERVER",
        dir.0.join("no-llama-server").display()
    );
    assert_eq!(
        (error.code(), error.to_string()),
        ("local_server", message.clone())
    );
    let job = store.get_extraction_job(&view.job_id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    let events = seen.lock().unwrap();
    // The server is started when the document asks the model, so the
    // status comes after the document's start.
    let kinds: Vec<&str> = events.iter().map(|e| e["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["started", "status", "error"], "{events:?}");
    assert_eq!(
        events[1],
        json!({"kind": "status", "jobId": view.job_id, "message": "Starting the local model…"})
    );
    assert_eq!(
        *events.last().unwrap(),
        json!({"kind": "error", "jobId": view.job_id, "error": {"code": "local_server", "message": message}})
    );
    // No longer running: a cancel finds nothing.
    assert!(!cancel_extraction(&ws, &view.job_id));
}
