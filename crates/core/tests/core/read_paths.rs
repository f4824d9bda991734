//! One read path: every reader of documents for a model (an extraction
//! job, an evaluation of a labelled set, a workflow step's `files:`, a
//! chat message's attachments; an evaluation by files is in
//! `extract_ocr.rs`) reads the same photo the same way for a model whose
//! server says it cannot take images (as llama.cpp's `/props` does): the
//! workspace's OCR languages, the receipt's OCR text (PaddleOCR's words,
//! its models being in the data directory), no image. Each test checks
//! the exact user message of the one request.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use sift_core::chat::stream::{ChatMessage, send_chat_message};
use sift_core::chat::view::ModelChoice;
use sift_core::eval::{Candidate, EvaluateRequest, import_set, start_evaluation};
use sift_core::extract::{AnswerMode, JobState, NewJob, start_job};
use sift_core::workflows::runs::{WorkflowRunArgs, start_workflow_run};
use sift_core::{Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::NewSession;

use crate::extract_ocr::{SROIE_000_PADDLE_TEXT_ONLY, llama_cpp};
use crate::{TempDir, selection};

const PROMPT: &str = "Extract the fields of the schema from this document.";

fn photo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus/sroie_000.jpg")
        .canonicalize()
        .unwrap()
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"total": {"type": "string"}}, "required": ["total"]})
}

/// A llama.cpp server without vision whose model `m` answers once with
/// `reply`.
async fn text_only_server(reply: Reply) -> ScriptedServer {
    ScriptedServer::start(
        Script::new()
            .answering_as(llama_cpp(false))
            .with("m", [reply]),
    )
    .await
    .unwrap()
}

/// The app's workspace on `server`, reading scans with English OCR.
fn workspace(dir: &TempDir, server: &ScriptedServer) -> Workspace {
    let config = dir.0.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "[defaults]\nprovider = \"scripted\"\nmodel = \"m\"\n\n[ocr]\nlanguages = [\"eng\"]\n\n\
             [[providers]]\nid = \"scripted\"\nkind = \"openai\"\nbase_url = \"{}\"\n\
             api_key_env = \"SIFT_CORE_TESTS_NO_KEY\"\n",
            server.openai_base_url()
        ),
    )
    .unwrap();
    let ws = Workspace::open(WorkspaceOptions::app(Some(config), Some(dir.db()))).unwrap();
    // As the open dialog grants the file it returned.
    ws.grants().grant_read(&photo());
    ws
}

/// The content of the one request's one user message.
fn user_content(server: &ScriptedServer) -> Value {
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let users: Vec<Value> = requests[0].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .cloned()
        .collect();
    assert_eq!(users.len(), 1, "{users:?}");
    users[0]["content"].clone()
}

fn read_for(prompt: &str) -> Value {
    json!(format!("{SROIE_000_PADDLE_TEXT_ONLY}\n\n{prompt}"))
}

#[tokio::test(flavor = "multi_thread")]
async fn an_extraction_job_reads_the_photo_as_its_ocr_text() {
    let dir = TempDir::new("read-path-job");
    let server =
        text_only_server(Reply::tool_call("submit_output", json!({"total": "9.00"}))).await;
    let ws = workspace(&dir, &server);
    let new_job = NewJob {
        schema_name: "receipt".into(),
        schema: schema(),
        prompt: None,
        files: vec![photo()],
        selection: selection(&server, &["m"]),
        concurrency: 1,
        provider_id: Some("scripted".into()),
        ocr_languages: None,
        answers: Some(AnswerMode::Free),
    };
    let (_, run) = start_job(&ws, new_job, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    assert_eq!(user_content(&server), read_for(PROMPT));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_evaluation_of_a_set_reads_the_photo_as_its_ocr_text() {
    let dir = TempDir::new("read-path-set");
    let server =
        text_only_server(Reply::tool_call("submit_output", json!({"total": "9.00"}))).await;
    let ws = workspace(&dir, &server);
    let store = ws.store().unwrap();
    store.save_schema("receipt", &schema()).unwrap();
    let tsv = dir.0.join("truth.tsv");
    std::fs::write(&tsv, format!("file\ttotal\n{}\t9.00\n", photo().display())).unwrap();
    import_set(&store, "receipts", &tsv, "receipt", None).unwrap();
    let request = EvaluateRequest {
        set_name: "receipts".into(),
        candidates: vec![Candidate {
            provider_id: Some("scripted".into()),
            model: Some("m".into()),
            answers: Some(AnswerMode::Free),
            ..Candidate::default()
        }],
        concurrency: Some(1),
    };
    let (_, run) = start_evaluation(&ws, request, |_| {}).unwrap();
    run.await.unwrap();
    assert_eq!(user_content(&server), read_for(PROMPT));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workflow_steps_files_are_read_as_the_photos_ocr_text() {
    let dir = TempDir::new("read-path-workflow");
    let server = text_only_server(Reply::text("9.00")).await;
    let ws = workspace(&dir, &server);
    // As the folder dialog grants the folder it returned, and the open
    // dialog the photo outside it that the step reads.
    ws.grants().grant_folder(&dir.0);
    ws.grants().grant_read(&photo());
    let file = dir.0.join("flow.yaml");
    std::fs::write(
        &file,
        format!(
            "steps:\n  - id: total\n    action: chat.completion\n    with:\n      \
             provider: openai\n      model: m\n      base_url: {}\n      \
             api_key_env: SIFT_CORE_TESTS_NO_KEY\n      files: [\"{}\"]\n      \
             prompt: What is the total?\n",
            server.openai_base_url(),
            photo().display()
        ),
    )
    .unwrap();
    let args = WorkflowRunArgs {
        path: file.display().to_string(),
        params: Vec::new(),
        from_step: None,
        from_run: None,
    };
    let (_, run) = start_workflow_run(&ws, args, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, "succeeded");
    assert_eq!(user_content(&server), read_for("What is the total?"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_attachment_is_read_as_the_photos_ocr_text() {
    let dir = TempDir::new("read-path-chat");
    let server = text_only_server(Reply::text("9.00")).await;
    let ws = workspace(&dir, &server);
    let session = ws
        .store()
        .unwrap()
        .create_session(NewSession {
            title: String::new(),
            system_prompt: None,
            model_choice: None,
        })
        .unwrap()
        .id;
    let message = ChatMessage {
        session_id: session,
        text: "What is the total?".into(),
        files: vec![photo()],
        choice: ModelChoice::default(),
    };
    let seen = Arc::new(Mutex::new(0));
    let counter = seen.clone();
    let (_, turn) =
        send_chat_message(&ws, message, move |_| *counter.lock().unwrap() += 1).unwrap();
    assert_eq!(turn.await.unwrap().status, "completed");
    assert_eq!(user_content(&server), read_for("What is the total?"));
}
