//! A line item's number the model left empty is worked out from the
//! line's other two where the page prints it there
//! (`sift_core::extract`'s `line_arithmetic`): the stored row holds it,
//! and its evidence says where it came from.

use serde_json::{Value, json};
use sift_core::extract::{AnswerMode, JobState, NewJob, start_job};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::answers::workspace;
use crate::{TempDir, selection};

/// A quantity column headed "Amount", as some invoices print it.
const INVOICE: &str = "Invoice # RE-508\n\
                       Amount    Product        VAT      Price        Total\n\
                       1.00      Design (hours)    7%    160.00 €     160.00 €\n\
                       400.00    Ballons       19%      0.79 €       316.00 €\n\
                       3         Gutschein     19%      5.00 €        12.00 €\n";

fn schema() -> Value {
    json!({"type": "object", "properties": {
        "lines": {"type": "array", "items": {"type": "object", "properties": {
            "description": {"type": "string"},
            "quantity": {"type": ["number", "null"]},
            "unit_price": {"type": ["number", "null"]},
            "amount": {"type": ["number", "null"]}
        }}}
    }})
}

#[tokio::test]
async fn a_quantity_the_model_left_empty_is_the_amount_over_the_price_printed_on_its_line() {
    let dir = TempDir::new("line-items-arithmetic");
    let ws = workspace(&dir);
    let path = dir.0.join("invoice.txt");
    std::fs::write(&path, INVOICE).unwrap();
    // The model's answer: every quantity empty. The third line's numbers
    // do not multiply out (a discount), so it stays empty.
    let answer = json!({"lines": [
        {"description": "Design (hours)", "quantity": null, "unit_price": 160.0, "amount": 160.0},
        {"description": "Ballons", "quantity": null, "unit_price": 0.79, "amount": 316.0},
        {"description": "Gutschein", "quantity": null, "unit_price": 5.0, "amount": 12.0}
    ]});
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::tool_call("submit_output", answer.clone())]),
    )
    .await
    .unwrap();
    let job = NewJob {
        schema_name: "lines".into(),
        schema: schema(),
        prompt: None,
        files: vec![path],
        selection: selection(&server, &["m"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: Some(AnswerMode::Free),
    };
    let (view, run) = start_job(&ws, job, |_| {}).unwrap();
    assert_eq!(run.await.unwrap().status, JobState::Completed);

    let store = ws.store().unwrap();
    let document = &store.extraction_documents(&view.job_id).unwrap()[0];
    assert_eq!(
        document.values,
        Some(json!({"lines": [
            {"description": "Design (hours)", "quantity": 1.0, "unit_price": 160.0, "amount": 160.0},
            {"description": "Ballons", "quantity": 400.0, "unit_price": 0.79, "amount": 316.0},
            {"description": "Gutschein", "quantity": null, "unit_price": 5.0, "amount": 12.0}
        ]}))
    );
    let evidence = document.evidence.as_ref().unwrap().as_array().unwrap();
    let of = |key: &str| evidence.iter().find(|e| e["key"] == key).unwrap();
    for key in ["lines[0].quantity", "lines[1].quantity"] {
        assert_eq!(of(key)["origin"], "line_arithmetic", "{key}");
        // Found as a number, `1.00` for 1: the evidence's `normalised`.
        assert_eq!(of(key)["status"], "normalised", "{key}");
    }
    assert_eq!(
        of("lines[1].quantity")["places"][0]["quote"],
        "400.00 Ballons 19% 0.79 € 316.00 €"
    );
    assert_eq!(of("lines[1].amount").get("origin"), None);
    assert_eq!(of("lines[2].quantity")["status"], "not_applicable");
    // The stored call is the model's own answer.
    let call = store
        .get_call(document.call_id.as_deref().unwrap())
        .unwrap()
        .unwrap();
    assert_eq!(call.output, Some(answer));
}
