//! The text-only path against the real llama.cpp tier: the local model
//! (SmolLM2, text only, as the real server's `/props` says) gets the
//! receipt's OCR text and no image. `scripts/test.sh` runs it.

use std::path::PathBuf;

use serde_json::json;
use sift_core::extract::{ExtractOptions, create_job, run_job};
use sift_core::{ModelSelection, ProviderKind, ProviderSettings};
use sift_llm::local_server::{LocalServer, LocalServerConfig};
use sift_llm::{Message, Part, Role};
use sift_store::Store;
use tokio_util::sync::CancellationToken;

use crate::TempDir;
use crate::extract_ocr::SROIE_000_TEXT_ONLY;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local model server (scripts/setup.sh): run scripts/test.sh"]
async fn the_local_model_reads_a_receipt_as_its_ocr_text_without_the_image() {
    let dir = TempDir::new("extract-real-text-only");
    // SmolLM2, the fast real model: this test is of what is sent, not of
    // the default model.
    let server = start_server(&dir, "SmolLM2-135M-Instruct.Q4_1.gguf").await;
    let store = Store::open(dir.db()).unwrap();
    let receipt = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join("sroie_000.jpg");
    let schema = json!({
        "type": "object",
        "properties": {"total": {"type": "string"}},
        "required": ["total"],
    });
    let job_id = run_one(server, &store, "receipt", &schema, receipt).await;
    // What was sent, as the call recorded it (whatever the model answered).
    let document = &store.extraction_documents(&job_id).unwrap()[0];
    let call_id = document.call_id.clone().expect("the document was called");
    let call = store.get_call(&call_id).unwrap().unwrap();
    let transcript: Vec<Message> =
        serde_json::from_value(call.transcript.expect("a transcript")).unwrap();
    let user = transcript
        .iter()
        .find(|m| m.role == Role::User)
        .expect("a user message");
    let expected =
        format!("{SROIE_000_TEXT_ONLY}\n\nExtract the fields of the schema from this document.");
    assert_eq!(
        user.parts,
        [Part::Text {
            text: expected.clone()
        }]
    );
    // The receipt's total (MANIFEST.tsv) is in the request.
    assert!(expected.contains(" 9.00\n"));
}

/// The real llama.cpp server on the model file `model` of the data
/// directory's `models/`, logging into `dir`.
pub(crate) async fn start_server(dir: &TempDir, model: &str) -> LocalServer {
    let data_dir = sift_documents::default_data_dir();
    let mut config = LocalServerConfig::in_data_dir(&data_dir);
    config.model_path = data_dir.join("models").join(model);
    config.log_path = dir.0.join("llama-server.log");
    LocalServer::start(&config)
        .await
        .unwrap_or_else(|e| panic!("{e}"))
}

/// Runs a job of one document on `server` (the local provider at its
/// address), stops the server, and returns the job's id.
pub(crate) async fn run_one(
    server: LocalServer,
    store: &Store,
    schema_name: &str,
    schema: &serde_json::Value,
    document: PathBuf,
) -> String {
    let model = server.model_alias().to_owned();
    let job = create_job(
        store,
        schema_name,
        schema,
        None,
        &[document],
        std::slice::from_ref(&model),
    )
    .unwrap();
    let selection = ModelSelection {
        provider: ProviderSettings {
            provider: Some(ProviderKind::Local),
            base_url: Some(server.base_url()),
            extra_base_urls: Vec::new(),
            api_key_env: None,
            api_key_account: None,
            key_scope: Default::default(),
        },
        models: vec![model],
        ..ModelSelection::default()
    };
    let ran = run_job(
        store,
        &job.id,
        ExtractOptions::new(selection),
        |_| {},
        CancellationToken::new(),
    )
    .await;
    server.stop().await;
    ran.unwrap();
    job.id
}
