//! How a job's answers are made (`sift_core::extract::AnswerMode`): held
//! to the locator's candidates (the sure fields fixed and not asked, the
//! others an `enum` in the exact answer schema the server receives), the
//! locator alone with no request at all, and the mode kept with the job.

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_core::extract::{
    AnswerMode, ExtractOptions, JobState, NewJob, job_view, run_job, start_job,
};
use sift_core::{PathPolicy, Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{JobStatus, Store};
use tokio_util::sync::CancellationToken;

use crate::{TempDir, selection};

/// Three fields labelled on their lines (sure), a date printed twice with
/// no label (unsure), and the seller at the top (a name: always free).
const INVOICE: &str = "ACME Ltd\nInvoice Number: INV-2024-0042\nBerlin 03.03.2024\n\
                       Delivered with parcel 01.04.2024\nSubtotal 1,000.00 EUR\n\
                       Total 1,200.00 EUR\n";

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "invoice_number": {"type": "string", "description": "The invoice's number"},
        "date": {"type": "string", "description": "The invoice's date"},
        "total": {"type": "number", "description": "The total amount due"},
        "currency": {"type": "string", "description": "The ISO 4217 code of the total"},
        "seller_name": {"type": "string", "description": "Who issued the invoice"}
    }, "required": ["invoice_number", "date", "total", "currency", "seller_name"]})
}

pub(crate) fn workspace(dir: &TempDir) -> Workspace {
    Workspace::open(WorkspaceOptions {
        config: Some(dir.0.join("config.toml")),
        db: Some(dir.db()),
        paths: PathPolicy::Trusted,
        starter_schemas: false,
    })
    .unwrap()
}

pub(crate) fn job(dir: &TempDir, server: &ScriptedServer, answers: Option<AnswerMode>) -> NewJob {
    let path = dir.0.join("invoice.txt");
    std::fs::write(&path, INVOICE).unwrap();
    NewJob {
        schema_name: "invoice".into(),
        schema: schema(),
        prompt: None,
        files: vec![path],
        selection: selection(server, &["m"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers,
    }
}

fn origin_of(evidence: &Value, key: &str) -> Value {
    evidence
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == key)
        .map(|e| e.get("origin").cloned().unwrap_or(Value::Null))
        .unwrap()
}

/// A located job on the invoice, run to completion with a server that
/// answers nothing: its workspace, the server, the job's id and the
/// invoice's path.
async fn completed_located_job(dir: &TempDir) -> (Workspace, ScriptedServer, String, PathBuf) {
    let ws = workspace(dir);
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let new = job(dir, &server, Some(AnswerMode::Located));
    let invoice = new.files[0].clone();
    let (view, run) = start_job(&ws, new, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    (ws, server, view.job_id, invoice)
}

/// Runs a job again, as a resume does, with `server`'s model; its
/// error as the user reads it.
pub(crate) async fn run_again(
    store: &Store,
    server: &ScriptedServer,
    job_id: &str,
) -> Result<(), String> {
    let options = ExtractOptions::new(selection(server, &["m"]));
    run_job(store, job_id, options, |_| {}, CancellationToken::new())
        .await
        .map(|_| ())
        .map_err(|error| error.to_string())
}

#[tokio::test]
async fn a_grounded_answer_asks_only_the_unsure_fields_and_holds_them_to_their_candidates() {
    let dir = TempDir::new("answers-grounded");
    let ws = workspace(&dir);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"date": "2024-04-01", "seller_name": "ACME Ltd"}),
        )],
    ))
    .await
    .unwrap();
    let (view, run) =
        start_job(&ws, job(&dir, &server, Some(AnswerMode::Grounded)), |_| {}).unwrap();
    let done = run.await.unwrap();
    assert_eq!(done.status, JobState::Completed);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let tool = &requests[0].body["tools"][0]["function"];
    assert_eq!(tool["name"], "submit_output");
    assert_eq!(
        tool["parameters"],
        json!({"type": "object", "properties": {
            "date": {"description": "The invoice's date", "type": ["string", "null"],
                     "enum": ["2024-03-03", "2024-04-01", null]},
            "seller_name": {"type": "string", "description": "Who issued the invoice"}
        }, "required": ["date", "seller_name"]})
    );

    let store = ws.store().unwrap();
    assert_eq!(
        store
            .get_extraction_job(&view.job_id)
            .unwrap()
            .unwrap()
            .answers
            .as_deref(),
        Some("grounded")
    );
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_eq!(
        document.values,
        Some(json!({"date": "2024-04-01", "seller_name": "ACME Ltd",
                    "invoice_number": "INV-2024-0042", "total": 1200.0, "currency": "EUR"}))
    );
    let evidence = document.evidence.as_ref().unwrap();
    for key in ["invoice_number", "total", "currency"] {
        assert_eq!(origin_of(evidence, key), json!("located"), "{key}");
    }
    assert_eq!(origin_of(evidence, "date"), Value::Null);
    // The stored call is the one the model answered: its schema is the
    // held one.
    let call = store
        .get_call(document.call_id.as_deref().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(call.request["schema"], tool["parameters"]);
}

#[tokio::test]
async fn a_hybrid_answer_keeps_every_located_value_and_asks_only_the_fields_not_found() {
    let dir = TempDir::new("answers-hybrid");
    let ws = workspace(&dir);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"payment_terms": "30 days net", "lines": [{"description": "Parcel", "amount": 1000.0}]}),
        )],
    ))
    .await
    .unwrap();
    let mut new_job = job(&dir, &server, Some(AnswerMode::Hybrid));
    let properties = new_job.schema["properties"].as_object_mut().unwrap();
    properties.insert(
        "payment_terms".into(),
        json!({"type": "string", "description": "When and how to pay"}),
    );
    properties.insert(
        "lines".into(),
        json!({"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"}, "amount": {"type": "number"}}}}),
    );
    let (view, run) = start_job(&ws, new_job, |_| {}).unwrap();
    let done = run.await.unwrap();
    assert_eq!(done.status, JobState::Completed);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let tool = &requests[0].body["tools"][0]["function"];
    // The five fields the locator found (even the date it is unsure of,
    // and the seller's name) are not asked: only what it found nothing for.
    assert_eq!(
        tool["parameters"],
        json!({"type": "object", "properties": {
            "payment_terms": {"type": "string", "description": "When and how to pay"},
            "lines": {"type": "array", "items": {"type": "object", "properties": {
                "description": {"type": "string"}, "amount": {"type": "number"}}}}
        }, "required": []})
    );

    let store = ws.store().unwrap();
    let job = store.get_extraction_job(&view.job_id).unwrap().unwrap();
    assert_eq!(job.answers.as_deref(), Some("hybrid"));
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_eq!(
        document.values,
        Some(json!({"payment_terms": "30 days net",
                    "lines": [{"description": "Parcel", "amount": 1000.0}],
                    "invoice_number": "INV-2024-0042", "date": "2024-03-03", "total": 1200.0,
                    "currency": "EUR", "seller_name": "ACME Ltd"}))
    );
    let evidence = document.evidence.as_ref().unwrap();
    for key in ["invoice_number", "date", "total", "currency", "seller_name"] {
        assert_eq!(origin_of(evidence, key), json!("located"), "{key}");
    }
}

#[tokio::test]
async fn a_hybrid_answer_whose_model_fails_keeps_the_located_values_and_notes_why() {
    let dir = TempDir::new("answers-hybrid-failed");
    let ws = workspace(&dir);
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::fault(400, "the prompt is too long")]),
    )
    .await
    .unwrap();
    let mut new_job = job(&dir, &server, Some(AnswerMode::Hybrid));
    new_job.schema["properties"]["payment_terms"] =
        json!({"type": "string", "description": "When and how to pay"});
    let (view, run) = start_job(&ws, new_job, |_| {}).unwrap();
    let done = run.await.unwrap();
    assert_eq!(done.status, JobState::Completed);
    assert_eq!(server.requests().len(), 1);

    let store = ws.store().unwrap();
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_eq!(document.status, sift_store::DocumentStatus::Completed);
    assert_eq!(document.error, None);
    assert_eq!(
        document.values,
        Some(
            json!({"payment_terms": null, "invoice_number": "INV-2024-0042", "date": "2024-03-03",
                    "total": 1200.0, "currency": "EUR", "seller_name": "ACME Ltd"})
        )
    );
    let evidence = document.evidence.as_ref().unwrap();
    let terms = evidence
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "payment_terms")
        .unwrap();
    assert_eq!(
        terms["problems"],
        json!(["the model's answer failed: HTTP 400: the prompt is too long"])
    );
    // The call that failed is kept, for its transcript.
    assert!(document.call_id.is_some());
}

#[tokio::test]
async fn located_answers_need_no_request_and_no_model() {
    let dir = TempDir::new("answers-located");
    let ws = workspace(&dir);
    // A server with nothing scripted: any request would fail the job.
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let (view, run) =
        start_job(&ws, job(&dir, &server, Some(AnswerMode::Located)), |_| {}).unwrap();
    let done = run.await.unwrap();
    assert_eq!(done.status, JobState::Completed);
    assert_eq!(server.requests().len(), 0);
    assert_eq!(server.model_info_requests().len(), 0);

    let store = ws.store().unwrap();
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_eq!(
        document.values,
        Some(
            json!({"invoice_number": "INV-2024-0042", "date": "2024-03-03", "total": 1200.0,
                    "currency": "EUR", "seller_name": "ACME Ltd"})
        )
    );
    assert_eq!(document.call_id, None);
    assert_eq!((document.input_tokens, document.output_tokens), (0, 0));
    let evidence = document.evidence.as_ref().unwrap();
    for key in ["invoice_number", "date", "total", "currency", "seller_name"] {
        assert_eq!(origin_of(evidence, key), json!("located"), "{key}");
    }
    // The total is found on its labelled line, so its evidence is as sure
    // as a model's exact value would be.
    let total = evidence
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "total")
        .unwrap();
    assert_eq!(total["status"], "normalised");
    assert_eq!(total["places"][0]["quote"], "Total 1,200.00 EUR");
}

/// Net and tax that do not add up to the total: each of the three keeps
/// its value, gets low confidence and the reason, and needs a look.
#[tokio::test]
async fn amounts_that_do_not_add_up_are_flagged_with_the_reason() {
    let dir = TempDir::new("answers-checks");
    let ws = workspace(&dir);
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let path = dir.0.join("checks.txt");
    std::fs::write(
        &path,
        "Invoice Number: INV-7\nSubtotal 100.00\nVAT 19.00\nTotal 120.00\nIBAN DE89 3704 0044 0532 0130 00\n",
    )
    .unwrap();
    let schema = json!({"type": "object", "properties": {
        "invoice_number": {"type": "string"},
        "subtotal": {"type": "number"},
        "tax": {"type": "number"},
        "total": {"type": "number"},
        "iban": {"type": "string"}
    }});
    let new_job = NewJob {
        schema,
        files: vec![path],
        ..job(&dir, &server, Some(AnswerMode::Located))
    };
    let (view, run) = start_job(&ws, new_job, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    let store = ws.store().unwrap();
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_eq!(
        document.values,
        Some(
            json!({"invoice_number": "INV-7", "subtotal": 100.0, "tax": 19.0, "total": 120.0,
                    "iban": "DE89370400440532013000"})
        )
    );
    let evidence = document.evidence.as_ref().unwrap().as_array().unwrap();
    let flagged: Vec<(Value, Value, Value)> = evidence
        .iter()
        .map(|e| {
            (
                e["key"].clone(),
                e["confidence"].clone(),
                e.get("problems").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    let sum = json!(["net 100.00 + tax 19.00 = 119.00, not the total 120.00"]);
    assert_eq!(
        flagged,
        [
            (json!("invoice_number"), json!("high"), Value::Null),
            (json!("subtotal"), json!("low"), sum.clone()),
            (json!("tax"), json!("low"), sum.clone()),
            (json!("total"), json!("low"), sum),
            // Given without the spaces it is printed with: found normalised.
            (json!("iban"), json!("medium"), Value::Null),
        ]
    );
    assert_eq!(job_view(&store, &view.job_id).unwrap().needs_review, 3);
}

#[tokio::test]
async fn a_job_that_names_no_mode_on_another_server_answers_freely() {
    let dir = TempDir::new("answers-default");
    let ws = workspace(&dir);
    let answer = json!({"invoice_number": "X", "date": "2024-03-03", "total": 1.0,
                        "currency": "EUR", "seller_name": "ACME Ltd"});
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::tool_call("submit_output", answer.clone())]),
    )
    .await
    .unwrap();
    let (view, run) = start_job(&ws, job(&dir, &server, None), |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    let requests = server.requests();
    assert_eq!(
        requests[0].body["tools"][0]["function"]["parameters"],
        schema()
    );
    let store = ws.store().unwrap();
    assert_eq!(
        store
            .get_extraction_job(&view.job_id)
            .unwrap()
            .unwrap()
            .answers
            .as_deref(),
        Some("free")
    );
    assert_eq!(
        store.extraction_documents(&view.job_id).unwrap()[0].values,
        Some(answer)
    );
}

/// A Factur-X PDF of the corpus gives its XML's values exactly, marked
/// as the e-invoice's, with no model asked.
#[tokio::test]
async fn an_e_invoice_gives_its_xml_values_exactly() {
    let dir = TempDir::new("answers-einvoice");
    let ws = workspace(&dir);
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let mut new = job(&dir, &server, Some(AnswerMode::Located));
    new.files = vec![
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../../shared/corpus/mustang_EN16931_Einfach.pdf"),
    ];
    let (view, run) = start_job(&ws, new, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);
    assert_eq!(server.requests().len(), 0);
    let store = ws.store().unwrap();
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    let values = document.values.as_ref().unwrap();
    assert_eq!(values["invoice_number"], json!("471102"));
    assert_eq!(values["date"], json!("2024-11-15"));
    assert_eq!(values["total"], json!(529.87));
    assert_eq!(values["currency"], json!("EUR"));
    let evidence = document.evidence.as_ref().unwrap();
    for key in ["invoice_number", "date", "total", "currency", "seller_name"] {
        assert_eq!(origin_of(evidence, key), json!("e_invoice"), "{key}");
    }
}

/// A resumed job whose evidence cannot be found again (here the store
/// lost a table) ends failed with that error, not left `running`.
#[tokio::test]
async fn a_failed_evidence_refresh_fails_the_job() {
    let dir = TempDir::new("answers-refresh-fails");
    let (ws, server, job_id, invoice) = completed_located_job(&dir).await;
    // The file changed since its values were found, so a run finds them
    // again, reading the document's revisions from a table now gone.
    std::fs::write(&invoice, format!("{INVOICE}Paid\n")).unwrap();
    rusqlite::Connection::open(dir.db())
        .unwrap()
        .execute_batch("DROP TABLE extraction_revisions")
        .unwrap();

    let store = ws.store().unwrap();
    let error = run_again(&store, &server, &job_id).await.unwrap_err();
    assert_eq!(
        error,
        "storage: database error: no such table: extraction_revisions"
    );
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Failed);
    assert_eq!(server.requests().len(), 0);
}

/// A job run again after its file changed finds its values' evidence
/// again as when the document was answered: each value keeps where it
/// came from (here the locator's), found in the file as it is now.
#[tokio::test]
async fn evidence_found_again_keeps_where_each_value_came_from() {
    let dir = TempDir::new("answers-refresh-origins");
    let (ws, server, job_id, invoice) = completed_located_job(&dir).await;
    let store = ws.store().unwrap();
    let first = store.extraction_documents(&job_id).unwrap()[0].clone();

    // The total moves down a line: the file changed, its values did not.
    std::fs::write(&invoice, INVOICE.replace("Total", "Paid\nTotal")).unwrap();
    run_again(&store, &server, &job_id).await.unwrap();
    let again = &store.extraction_documents(&job_id).unwrap()[0];
    assert_ne!(again.evidence_source, first.evidence_source);
    assert_eq!(again.values, first.values);
    let evidence = again.evidence.as_ref().unwrap();
    for key in ["invoice_number", "date", "total", "currency", "seller_name"] {
        assert_eq!(origin_of(evidence, key), json!("located"), "{key}");
    }
    // Each value is still on its line, quoted alike: the evidence found
    // again is the evidence found first, origins and confidence with it.
    assert_eq!(again.evidence, first.evidence);
    assert_eq!(server.requests().len(), 0);
}
