//! What an extraction job sends for a scan or a photo: the OCR text to
//! every model, the image only to a model that takes images, as the
//! model's server says (against the scripted server answering as
//! llama.cpp's `/props`, with real Tesseract on a corpus receipt).

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_core::extract::{ExtractOptions, create_job, run_job};
use sift_scripted_server::{Reply, Script, ScriptedServer, ServerIdentity};
use sift_store::{DocumentStatus, Store};
use tokio_util::sync::CancellationToken;

use crate::{TempDir, selection};

/// A corpus file (read in place, never copied into the repository).
fn corpus(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/corpus")
        .join(name)
}

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"total": {"type": "string"}},
        "required": ["total"],
    })
}

/// The block of `sroie_000.jpg` for a model that cannot take images: the
/// line saying the image is left out, then Tesseract's text of the
/// receipt (its total, 9.00 in `MANIFEST.tsv`, on the item's line), then
/// the lines of the second reading (`--psm 6`) that hold a number the
/// first lacks.
pub(crate) const SROIE_000_TEXT_ONLY: &str = r#"<file name="sroie_000.jpg">
[Image omitted: sroie_000.jpg; the model reads its text.]
tan woon yann

BOOK TA _K (TAMAN DAYA) SDN BHD
FEU 7-W
NOS: $5.57 & $9, JALAN SAGU 18)
TAMAN DAYA,
81100 JOHOR BAHRU,
JOHOR

UAE AAU i

Document No : TDO1167104

Date 25/12/2018 8:13:39 PM
Cashier : MANIS
Member :

CASH BILL

CODE/DESC PRICE Disc AMQUHTI

QTY RM RM
9556939040116 KF MODELLING CLAY KIDDY FISH
1 PC * 9.00) 6,00 9.00
Total : 91.00
Rour ding Adjustment : 0.00
Round: :d Total (RM); 9.60
Cash ge 4 0 00

CHANGE

GOODS SOLD ARE NOT RE TURNAF
EXCHANGEABLE

THANK YOU
PLEASE COre AGARY !

NO.5? $5.57 & $9, JALAN SAGU 18,
Date 25/12/2018 B: 13:39 PM
“9556939040116 KF MODELLING CLAY KIDDY FISH
1 PC # 9.000 6,00 9.00
Cash gy = 500
fo fy 7 ea iP et 1a Hy
</file>"#;

/// The same block as a workspace reads it (the app, the CLI) with
/// PaddleOCR's models installed in the data directory, as
/// `scripts/setup.sh` puts them: PaddleOCR's words of the receipt (its
/// total `9.00` on the item's line and after `Total :`) and Tesseract's
/// lines that hold a number PaddleOCR's lack, laid out (the default
/// `[read] order`): each visual row rebuilt from the words' boxes, so a
/// Tesseract line sits beside PaddleOCR's reading of the same row.
pub(crate) const SROIE_000_PADDLE_TEXT_ONLY: &str = r#"<file name="sroie_000.jpg">
[Image omitted: sroie_000.jpg; the model reads its text.]
tan  woon  yann

BOOK TA _K (TAMAN  DAYA) SDN  BHD
789417-W
FEU 7-W
NOS: $5.57 & $9, JALAN SAGU 18)
NO.5: 55,57 &  59, JALAN SAGU 18
TAMAN DAYA.
81100  JOHOR  BAHRU
JOHOR.

Document No  :  TDO1167104
Document No : TD01167104

Date        25/12/2018 8:13:39 PM
Date:        25/12/20188:13:39 PM
Cashier :      MANIS

Member :

CASH  BILL

CODE/DESC        PRICE    Disc        AMOUI
QTY        R14        RM

9556939040116   KF MODELLING CLAY KIDDY FISH
9556939040118   KF MODELINGC LAY KIDDY FISH

1 PC    *       9.00)    6,00        9.00
1 PC        9.000     0.00        9.00

Total :        91.00
Total :        9.00

Rour ing Adjustment        0.00

Round: :d Total (RM);        9.60
Round  d Totai (RM):        9.00

ge    4 0 00
Cash
Cash        10.00
CHANGE        9.00  100

GOODS SOLD ARE NOT RE TURNABLE OR
EXCHANGEABLE
物出门,得不退建或更换
姐有干  便,敬请原谅。谢谢!

THANK YOU
PLEASE COE  AGAIN !
</file>"#;

pub(crate) fn llama_cpp(vision: bool) -> ServerIdentity {
    ServerIdentity::LlamaCpp {
        vision,
        supports_tools: Some(true),
        n_ctx: 4096,
        total_slots: 1,
    }
}

/// The user message of the one request the job sent.
fn user_content(server: &ScriptedServer) -> Value {
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let messages = requests[0].body["messages"].as_array().unwrap().clone();
    let users: Vec<&Value> = messages.iter().filter(|m| m["role"] == "user").collect();
    assert_eq!(users.len(), 1, "{messages:?}");
    users[0]["content"].clone()
}

/// Runs a job over `sroie_000.jpg` on the model `m` of `server`.
async fn extract_receipt(server: &ScriptedServer, dir: &TempDir) -> DocumentStatus {
    let store = Store::open(dir.db()).unwrap();
    let receipt = corpus("sroie_000.jpg");
    let job = create_job(
        &store,
        "receipt",
        &schema(),
        None,
        &[receipt],
        &["m".into()],
    )
    .unwrap();
    let summary = run_job(
        &store,
        &job.id,
        ExtractOptions::new(selection(server, &["m"])),
        |_| {},
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(summary.totals.pending, 0);
    store.extraction_documents(&job.id).unwrap()[0].status
}

#[tokio::test]
async fn a_model_without_images_gets_the_receipts_ocr_text_and_no_image() {
    let dir = TempDir::new("extract-ocr-text-only");
    let server = ScriptedServer::start(Script::new().answering_as(llama_cpp(false)).with(
        "m",
        [Reply::tool_call("submit_output", json!({"total": "9.00"}))],
    ))
    .await
    .unwrap();
    assert_eq!(
        extract_receipt(&server, &dir).await,
        DocumentStatus::Completed
    );
    // The server was asked what the model takes.
    let asked: Vec<String> = server
        .model_info_requests()
        .iter()
        .map(|r| r.path.clone())
        .collect();
    assert_eq!(asked, ["/props"]);
    let expected =
        format!("{SROIE_000_TEXT_ONLY}\n\nExtract the fields of the schema from this document.");
    assert_eq!(user_content(&server), json!(expected));
    assert!(expected.contains(" 9.00\n"));
}

#[tokio::test]
async fn a_model_with_images_gets_the_image_and_the_ocr_text() {
    let dir = TempDir::new("extract-ocr-vision");
    let server = ScriptedServer::start(Script::new().answering_as(llama_cpp(true)).with(
        "m",
        [Reply::tool_call("submit_output", json!({"total": "9.00"}))],
    ))
    .await
    .unwrap();
    assert_eq!(
        extract_receipt(&server, &dir).await,
        DocumentStatus::Completed
    );
    let content = user_content(&server);
    let parts = content.as_array().unwrap();
    let kinds: Vec<&str> = parts.iter().map(|p| p["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["text", "image_url"]);
    let ocr_text = SROIE_000_TEXT_ONLY
        .split_once('\n')
        .unwrap()
        .1
        .split_once('\n')
        .unwrap()
        .1;
    assert_eq!(
        parts[0]["text"],
        format!(
            "<file name=\"sroie_000.jpg\">\n[Image 1 is sroie_000.jpg.]\n{ocr_text}\n\nExtract the fields of the schema from this document."
        )
    );
    assert!(
        parts[1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/jpeg;base64,")
    );
}

/// A job's message is built once for its fallback list: when a model
/// after the first cannot take images, no model gets the image (here the
/// vision model fails, and the text-only one reads the same text).
#[tokio::test]
async fn a_text_only_fallback_means_no_model_gets_the_image() {
    let dir = TempDir::new("extract-ocr-fallback");
    let capabilities = std::collections::BTreeMap::from([
        (
            "seeing".to_owned(),
            vec!["completion".to_owned(), "vision".to_owned()],
        ),
        ("reading".to_owned(), vec!["completion".to_owned()]),
    ]);
    let server = ScriptedServer::start(
        Script::new()
            .answering_as(ServerIdentity::Ollama { capabilities })
            .with(
                "seeing",
                [Reply::fault(500, r#"{"error":{"message":"down"}}"#)],
            )
            .with(
                "reading",
                [Reply::tool_call("submit_output", json!({"total": "9.00"}))],
            ),
    )
    .await
    .unwrap();
    let store = Store::open(dir.db()).unwrap();
    let models = ["seeing".to_owned(), "reading".to_owned()];
    let job = create_job(
        &store,
        "receipt",
        &schema(),
        None,
        &[corpus("sroie_000.jpg")],
        &models,
    )
    .unwrap();
    let summary = run_job(
        &store,
        &job.id,
        ExtractOptions::new(selection(&server, &["seeing", "reading"])),
        |_| {},
        CancellationToken::new(),
    )
    .await
    .unwrap();
    assert_eq!(summary.totals.done, 1);
    let expected = json!(format!(
        "{SROIE_000_TEXT_ONLY}\n\nExtract the fields of the schema from this document."
    ));
    let chat: Vec<(String, Value)> = server
        .requests()
        .iter()
        .map(|r| {
            let user = r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["role"] == "user")
                .unwrap()["content"]
                .clone();
            (r.body["model"].as_str().unwrap().to_owned(), user)
        })
        .collect();
    assert!(chat.iter().all(|(_, user)| *user == expected), "{chat:?}");
    // The vision model is tried again once on its 500, then the fallback.
    assert_eq!(
        chat.iter().map(|(m, _)| m.as_str()).collect::<Vec<_>>(),
        ["seeing", "seeing", "reading"]
    );
}

/// `sift eval --schema --truth FILES` reads a photo the way a job does:
/// the same text-only message to a model that cannot see images, never
/// the image (the bundled model answered such a request with `HTTP 500:
/// image input is not supported`).
#[tokio::test]
async fn an_evaluation_by_files_reads_the_receipt_as_a_job_does() {
    let dir = TempDir::new("eval-files-ocr-text-only");
    std::fs::write(dir.0.join("config.toml"), "[ocr]\nlanguages = [\"eng\"]\n").unwrap();
    let ws = sift_core::Workspace::open(sift_core::WorkspaceOptions {
        config: Some(dir.0.join("config.toml")),
        db: Some(dir.db()),
        paths: sift_core::PathPolicy::Trusted,
        starter_schemas: false,
    })
    .unwrap();
    let server = ScriptedServer::start(Script::new().answering_as(llama_cpp(false)).with(
        "m",
        [Reply::tool_call("submit_output", json!({"total": "9.00"}))],
    ))
    .await
    .unwrap();
    let selection = selection(&server, &["m"]);
    let mut request = sift_core::calls::CallRequest::new(
        selection.clone(),
        "Extract the fields of the schema from this document.",
    );
    request.schema = Some(schema());
    request.files = vec![corpus("sroie_000.jpg")];
    request.read_options = sift_core::extract::read_options_for_models(&ws, &selection)
        .await
        .unwrap();
    assert!(!request.read_options.model_takes_images);
    let documents =
        sift_core::eval::run_documents(&ws.store().unwrap(), &[request], false, 1).await;
    assert_eq!(documents[0].error, None);
    assert_eq!(documents[0].values, Some(json!({"total": "9.00"})));
    let expected = format!(
        "{SROIE_000_PADDLE_TEXT_ONLY}\n\nExtract the fields of the schema from this document."
    );
    assert_eq!(user_content(&server), json!(expected));
}
