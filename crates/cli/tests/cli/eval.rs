//! `sift eval` as a black box: three corpus invoices through the scripted
//! server, compared with ground truth taken from the corpus's MANIFEST.tsv.

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::{run, sift, stderr, stdout};

fn corpus(name: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus");
    std::fs::canonicalize(dir)
        .unwrap()
        .join(name)
        .display()
        .to_string()
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// An invoice schema for MANIFEST.tsv's ground-truth columns (and a
/// `vendor` property without truth, so not scored).
fn scratch() -> Scratch {
    // One folder per test: the tests run at once, and each removes its own.
    static COUNTER: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "sift-cli-eval-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // As text: the table follows the properties' order in it.
    let schema = r#"{
        "type": "object",
        "properties": {
            "invoice_number": {"type": "string"},
            "date": {"type": "string", "description": "the invoice date"},
            "total": {"type": "number"},
            "currency": {"type": "string", "description": "ISO 4217 code"},
            "vendor": {"type": "string"}
        },
        "required": ["invoice_number", "date", "total", "currency"]
    }"#;
    std::fs::write(dir.join("invoice.json"), schema).unwrap();
    // MANIFEST.tsv's rows for these files, some of its columns (`kind` is
    // not a schema property and is ignored).
    std::fs::write(
        dir.join("truth.tsv"),
        "file\tkind\tinvoice_number\tdate\ttotal\tcurrency\n\
         i2d_AmazonWebServices.pdf\ttext-pdf\t42183017\t2014-08-03\t4.11\tUSD\n\
         i2d_FlipkartInvoice.pdf\ttext-pdf\t#BLR_WFLD20151000982590\t2015-10-20\t319.0\tINR\n\
         i2d_QualityHosting.pdf\ttext-pdf\t30064443\t2014-05-07\t34.73\tEUR\n",
    )
    .unwrap();
    Scratch(dir)
}

/// The model's answers, in file order: differently written but equal
/// values, and one wrong currency.
fn replies() -> [Reply; 3] {
    [
        Reply::tool_call(
            "submit_output",
            json!({"invoice_number": "42183017", "date": "03/08/2014", "total": 4.11, "currency": "usd"}),
        ),
        Reply::tool_call(
            "submit_output",
            json!({"invoice_number": "# BLR_WFLD20151000982590", "date": "20 October 2015", "total": 319, "currency": "INR", "vendor": "Flipkart"}),
        ),
        Reply::tool_call(
            "submit_output",
            json!({"invoice_number": "30064443", "date": "07.05.2014", "total": 34.73, "currency": "USD"}),
        ),
    ]
}

fn eval_args(scratch: &Scratch, server: &ScriptedServer) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "--db".into(),
        scratch.0.join("sift.db").display().to_string(),
        "eval".into(),
        "--schema".into(),
        scratch.0.join("invoice.json").display().to_string(),
        "--truth".into(),
        scratch.0.join("truth.tsv").display().to_string(),
        "--provider".into(),
        "openai".into(),
        "--base-url".into(),
        server.openai_base_url(),
        "--model".into(),
        "m".into(),
    ];
    args.extend(
        [
            "i2d_AmazonWebServices.pdf",
            "i2d_FlipkartInvoice.pdf",
            "i2d_QualityHosting.pdf",
        ]
        .map(corpus),
    );
    args
}

#[tokio::test]
async fn prints_exact_accuracy_per_field_and_overall() {
    let scratch = scratch();
    let server = ScriptedServer::start(Script::new().with("m", replies()))
        .await
        .unwrap();
    let output = run(sift()
        .env("OPENAI_API_KEY", "sk-test")
        .args(eval_args(&scratch, &server)))
    .await;
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "invoice_number    3/3  100.0%\n\
         date              3/3  100.0%\n\
         total             3/3  100.0%\n\
         currency          2/3   66.7%\n\
         overall         11/12   91.7%\n\
         \n\
         by evidence\n\
         exact       4/4  100.0%\n\
         normalised  7/7  100.0%\n\
         not_found   0/1    0.0%\n"
    );
    // One structured call per file, each with that file's text.
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let first = requests[0].body["messages"].to_string();
    assert!(first.contains("42183017"), "{first}");
}

#[tokio::test]
async fn json_report_and_a_failed_call_counts_as_wrong() {
    let scratch = scratch();
    let [amazon, flipkart, _] = replies();
    let script = Script::new().with("m", [amazon, flipkart, Reply::refusal(None).repeated()]);
    let server = ScriptedServer::start(script).await.unwrap();
    let mut args = eval_args(&scratch, &server);
    args.insert(3, "--json".into());
    let output = run(sift().env("OPENAI_API_KEY", "sk-test").args(args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("i2d_QualityHosting.pdf: "),
        "{}",
        stderr(&output)
    );
    let report: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        report["overall"],
        json!({"field": "overall", "correct": 8, "scored": 12, "accuracy": 8.0 / 12.0})
    );
    assert_eq!(
        report["fields"][3],
        json!({"field": "currency", "correct": 2, "scored": 3, "accuracy": 2.0 / 3.0})
    );
    let wrong: Vec<(&str, &str)> = report["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["correct"] == json!(false))
        .map(|c| (c["file"].as_str().unwrap(), c["field"].as_str().unwrap()))
        .collect();
    assert_eq!(wrong.len(), 4);
    // Where each answered value was found in its invoice (the refused
    // call's have none).
    let evidence: Vec<(String, &str, &Value)> = report["comparisons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let file = c["file"]
                .as_str()
                .unwrap()
                .rsplit('/')
                .next()
                .unwrap()
                .to_owned();
            (file, c["field"].as_str().unwrap(), &c["evidence"])
        })
        .collect();
    let expected = [
        (
            "i2d_AmazonWebServices.pdf",
            "invoice_number",
            json!("exact"),
        ),
        ("i2d_AmazonWebServices.pdf", "date", json!("normalised")),
        ("i2d_AmazonWebServices.pdf", "total", json!("exact")),
        // Printed as `$4.11`.
        ("i2d_AmazonWebServices.pdf", "currency", json!("normalised")),
        ("i2d_FlipkartInvoice.pdf", "invoice_number", json!("exact")),
        ("i2d_FlipkartInvoice.pdf", "date", json!("normalised")),
        ("i2d_FlipkartInvoice.pdf", "total", json!("normalised")),
        // Printed as `Rs`.
        ("i2d_FlipkartInvoice.pdf", "currency", json!("normalised")),
        ("i2d_QualityHosting.pdf", "invoice_number", Value::Null),
        ("i2d_QualityHosting.pdf", "date", Value::Null),
        ("i2d_QualityHosting.pdf", "total", Value::Null),
        ("i2d_QualityHosting.pdf", "currency", Value::Null),
    ];
    let got: Vec<(&str, &str, &Value)> = evidence
        .iter()
        .map(|(f, k, e)| (f.as_str(), *k, *e))
        .collect();
    let want: Vec<(&str, &str, &Value)> = expected.iter().map(|(f, k, e)| (*f, *k, e)).collect();
    assert_eq!(got, want);
    assert_eq!(
        report["by_evidence"][2],
        json!({"field": "not_found", "correct": 0, "scored": 0, "accuracy": null})
    );
    assert!(
        wrong
            .iter()
            .all(|(file, _)| file.ends_with("i2d_QualityHosting.pdf"))
    );
}

/// `--sources`: the model is asked for each value's source text beside
/// it; the sources are taken out before scoring and counted (given, and
/// found on the page).
#[tokio::test]
async fn sources_are_asked_for_counted_and_left_out_of_the_scores() {
    let scratch = scratch();
    let cited = |values: Value| Reply::tool_call("submit_output", values);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            cited(json!({"invoice_number": "42183017", "invoice_number_source": "Invoice Number: 42183017",
                "date": "2014-08-03", "date_source": "Invoice Date: August 3, 2014",
                "total": 4.11, "total_source": "nowhere on the page", "currency": "USD"})),
            cited(json!({"invoice_number": "x", "date": "2015-10-20", "total": 319, "currency": "INR"})),
            cited(json!({"invoice_number": "30064443", "date": "2014-05-07", "total": 34.73, "currency": "EUR"})),
        ],
    ))
    .await
    .unwrap();
    let mut args = eval_args(&scratch, &server);
    args.insert(3, "--sources".into());
    let output = run(sift().env("OPENAI_API_KEY", "sk-test").args(args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let out = stdout(&output);
    assert!(out.starts_with("invoice_number    2/3   66.7%\n"), "{out}");
    assert!(out.ends_with("\nsources given 3, on the page 2\n"), "{out}");
    // The answer tool's schema asked for a source beside each field.
    let tools = server.requests()[0].body["tools"].to_string();
    for name in [
        "invoice_number_source",
        "date_source",
        "total_source",
        "currency_source",
    ] {
        assert!(tools.contains(name), "{tools}");
    }
}

/// `--jobs 3` calls the three files at once (the server holds every reply
/// until all three requests have arrived, which one at a time never
/// would). Every file gets the first file's answer.
#[tokio::test]
async fn jobs_call_the_files_at_once() {
    let scratch = scratch();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"invoice_number": "42183017", "date": "03/08/2014", "total": 4.11, "currency": "USD"}),
        )
        .held("all-arrived")
        .repeated()],
    ))
    .await
    .unwrap();
    let mut args = eval_args(&scratch, &server);
    args.splice(3..3, ["--jobs".to_owned(), "3".to_owned()]);
    let mut command = sift();
    command.env("OPENAI_API_KEY", "sk-test").args(args);
    let child = tokio::spawn(async move { run(&mut command).await });
    // The bound is far above the need: the requests are sent at once.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while server.requests().len() < 3 {
        assert!(
            std::time::Instant::now() < deadline,
            "only {} requests arrived",
            server.requests().len()
        );
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    server.gate("all-arrived").release();
    let output = child.await.unwrap();
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        stdout(&output),
        "invoice_number   1/3   33.3%\n\
         date             1/3   33.3%\n\
         total            1/3   33.3%\n\
         currency         1/3   33.3%\n\
         overall         4/12   33.3%\n\
         \n\
         by evidence\n\
         exact       2/2  100.0%\n\
         normalised  2/2  100.0%\n\
         not_found   0/8    0.0%\n"
    );
}
