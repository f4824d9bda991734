//! `sift eval` as a black box: three corpus invoices through the scripted
//! server, compared with ground truth taken from the corpus's MANIFEST.tsv.

use std::path::PathBuf;

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};

use crate::{corpus, run, sift, stderr, stdout};

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

/// Two `--model`s are two candidates: each reads the three invoices, and
/// the matrix gives each field's count per model, each model's latency
/// (from its stored calls), tokens and failures, and whether the two differ
/// beyond noise.
#[tokio::test]
async fn two_models_are_candidates_side_by_side_in_a_matrix() {
    let scratch = scratch();
    let good = replies().map(|r| r.usage(1000, 50));
    let weak = [
        // The date and the total wrong.
        Reply::tool_call(
            "submit_output",
            json!({"invoice_number": "42183017", "date": "2014-08-04", "total": 4.12, "currency": "USD"}),
        )
        .usage(900, 40),
        Reply::tool_call(
            "submit_output",
            json!({"invoice_number": "BLR_WFLD20151000982590", "date": "2015-10-20", "total": 319.0, "currency": "INR"}),
        )
        .usage(900, 40),
        Reply::refusal(None).usage(900, 5).repeated(),
    ];
    let script = || {
        Script::new()
            .with("m-good", good.clone())
            .with("m-weak", weak.clone())
    };
    let two_models = |server: &ScriptedServer| {
        let mut args = eval_args(&scratch, server);
        let model = args.iter().position(|a| a == "m").unwrap();
        args[model] = "m-good".into();
        args.splice(
            model + 1..model + 1,
            ["--model".to_owned(), "m-weak".to_owned()],
        );
        args
    };
    let server = ScriptedServer::start(script()).await.unwrap();
    let args = two_models(&server);
    let output = run(sift().env("OPENAI_API_KEY", "sk-test").args(&args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let err = stderr(&output);
    let errors: Vec<&str> = err.lines().collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(&format!(
            "m-weak: {}: call ",
            corpus("i2d_QualityHosting.pdf")
        )),
        "{errors:?}"
    );
    // Each model got its own three requests.
    let models: Vec<String> = server
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        models,
        ["m-good", "m-good", "m-good", "m-weak", "m-weak", "m-weak"]
    );

    let printed = stdout(&output);
    let lines: Vec<&str> = printed.lines().collect();
    assert_eq!(
        lines[..7],
        [
            "field                m-good      m-weak",
            // Without its `#`, the Flipkart number is wrong.
            "invoice_number   3/3 100.0%   1/3 33.3%",
            "date             3/3 100.0%   1/3 33.3%",
            "total            3/3 100.0%   1/3 33.3%",
            "currency          2/3 66.7%   2/3 66.7%",
            "overall         11/12 91.7%  5/12 41.7%",
            "",
        ]
    );
    // The latencies are the stored calls' own, per model: the median and
    // the 95th percentile (nearest rank) of three.
    let store = sift_store::Store::open(scratch.0.join("sift.db")).unwrap();
    let calls = store.list_calls(Some("eval")).unwrap();
    let latencies = |model: &str| {
        let mut of: Vec<i64> = calls
            .iter()
            .filter(|c| c.request["model"] == json!(model))
            .map(|c| c.finished_at - c.created_at)
            .collect();
        of.sort_unstable();
        assert_eq!(of.len(), 3, "{model}'s stored calls");
        (format!("{} ms", of[1]), format!("{} ms", of[2]))
    };
    let ((good_median, good_p95), (weak_median, weak_p95)) =
        (latencies("m-good"), latencies("m-weak"));
    let words = |line: &str| {
        line.split_whitespace()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let split = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(
        words(lines[7]),
        [
            vec!["latency".into(), "median".into()],
            split(&good_median),
            split(&weak_median)
        ]
        .concat()
    );
    assert_eq!(
        words(lines[8]),
        [
            vec!["latency".into(), "p95".into()],
            split(&good_p95),
            split(&weak_p95)
        ]
        .concat()
    );
    // The refused answer's tokens count too.
    assert_eq!(words(lines[9]), ["tokens", "in/out", "3000/150", "2700/85"]);
    assert_eq!(words(lines[10]), ["failures", "none", "refusal", "1"]);
    assert_eq!(
        lines[11..],
        [
            "",
            "m-good vs m-weak: 11/12 against 5/12; 6 cells differ (6 for m-good, 0 for m-weak): \
             beyond noise (McNemar exact p = 0.031)",
        ]
    );

    // --json: the same matrix, each candidate's full report (the same
    // answers, from a server of its own).
    let server = ScriptedServer::start(script()).await.unwrap();
    let mut args = two_models(&server);
    args.insert(3, "--json".into());
    let output = run(sift().env("OPENAI_API_KEY", "sk-test").args(&args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let matrix: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(
        matrix["pairs"],
        json!([{"a": "m-good", "b": "m-weak", "only_a": 6, "only_b": 0, "p_value": 0.03125, "within_noise": false}])
    );
    let candidates = matrix["candidates"].as_array().unwrap();
    assert_eq!(
        candidates
            .iter()
            .map(|c| (
                c["label"].clone(),
                c["report"]["overall"]["correct"].clone(),
                c["failures"].clone()
            ))
            .collect::<Vec<_>>(),
        [
            (json!("m-good"), json!(11), json!({})),
            (json!("m-weak"), json!(5), json!({"refusal": 1})),
        ]
    );
    assert_eq!(
        matrix["fields"],
        json!(["invoice_number", "date", "total", "currency"])
    );
}
