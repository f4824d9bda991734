//! A model whose chat template has tool calls (Qwen2.5-Coder-1.5B, the
//! default, which `scripts/setup.sh` installs) on the real llama.cpp server, through an
//! extraction as the app runs one: Sift answers through a reply held to
//! the schema with every key required (this server drops a `tool_choice`
//! naming a function, and the model then answers in prose), so the model
//! writes the optional fields too, in one turn. `scripts/test.sh` runs it.

use serde_json::{Value, json};
use sift_store::{DocumentStatus, Store};

use crate::TempDir;
use crate::extract_real::{run_one, start_server};

const QWEN_FILE: &str = sift_llm::local_server::DEFAULT_MODEL_FILE;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "needs the local model server and the default model (scripts/setup.sh): run scripts/test.sh"]
async fn qwen_writes_every_field_held_to_the_schema() {
    let dir = TempDir::new("extract-real-qwen");
    let server = start_server(&dir, QWEN_FILE).await;
    let store = Store::open(dir.db()).unwrap();
    let invoice = dir.0.join("invoice.txt");
    std::fs::write(
        &invoice,
        "INVOICE No. A-1043\nDate: 2024-03-12\nSeller: Acme GmbH\n\
         Widget 2 x 10.00 EUR = 20.00\nNet 20.00\nVAT 19% 3.80\nTotal due: 23.80 EUR\n",
    )
    .unwrap();
    // Only the total is required: before, a grammar-held answer stopped
    // after it.
    let schema = json!({
        "type": "object",
        "properties": {
            "invoice_number": {"type": "string"},
            "date": {"type": "string", "format": "date"},
            "seller": {"type": "string"},
            "total": {"type": "number"},
            "currency": {"type": "string"},
        },
        "required": ["total"],
    });
    let job_id = run_one(server, &store, "invoice", &schema, invoice).await;
    let document = &store.extraction_documents(&job_id).unwrap()[0];
    assert_eq!(document.status, DocumentStatus::Completed);
    let call = store
        .get_call(document.call_id.as_deref().unwrap())
        .unwrap()
        .unwrap();
    // Temperature 0 on one request: the same answer every run. (The 0.5B
    // turned "12 March 2024" into "1234-03-12" when held to `format: date`,
    // so the document prints its date as ISO: this test is of the answer
    // path, and BENCHMARKS.md has the models' dates on real documents.)
    assert_eq!(
        call.output,
        Some(json!({
            "invoice_number": "A-1043",
            "date": "2024-03-12",
            "seller": "Acme GmbH",
            "total": 23.8,
            "currency": "EUR",
        }))
    );
    assert_eq!(call.metadata["answer_channel"], json!("json_format"));
    // One request: the reply, held to the schema, is the answer.
    let transcript: Vec<Value> = serde_json::from_value(call.transcript.unwrap()).unwrap();
    let assistant_turns = transcript
        .iter()
        .filter(|m| m["role"] == "assistant")
        .count();
    assert_eq!(assistant_turns, 1);
}
