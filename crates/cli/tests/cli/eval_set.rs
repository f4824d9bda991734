//! `sift sets` and `sift eval --set` as a black box: a labelled set of
//! corpus invoices stored from a TSV, two candidates on the scripted
//! server, a re-run that makes no request, and a candidates file whose
//! changed prompt calls again only for the candidate it changed.

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

const FILES: [&str; 3] = [
    "i2d_AmazonWebServices.pdf",
    "i2d_FlipkartInvoice.pdf",
    "i2d_QualityHosting.pdf",
];

fn scratch() -> Scratch {
    let dir = std::env::temp_dir().join(format!("sift-cli-eval-set-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("invoice.json"),
        r#"{"type": "object", "properties": {
            "invoice_number": {"type": "string"},
            "total": {"type": "number"}
        }, "required": ["invoice_number", "total"]}"#,
    )
    .unwrap();
    let rows = [
        ("42183017", "4.11"),
        ("#BLR_WFLD20151000982590", "319.0"),
        ("30064443", "34.73"),
    ];
    let mut tsv = String::from("file\tinvoice_number\ttotal\n");
    for (file, (number, total)) in FILES.iter().zip(rows) {
        tsv.push_str(&format!("{}\t{number}\t{total}\n", corpus(file)));
    }
    std::fs::write(dir.join("invoices.tsv"), tsv).unwrap();
    Scratch(dir)
}

fn answer(number: &str, total: f64) -> Reply {
    Reply::tool_call(
        "submit_output",
        json!({"invoice_number": number, "total": total}),
    )
    .usage(100, 10)
}

#[tokio::test]
async fn a_stored_set_is_evaluated_and_an_unchanged_candidate_is_not_called_again() {
    let scratch = scratch();
    let server = ScriptedServer::start(
        Script::new()
            .with(
                "m-good",
                [
                    answer("42183017", 4.11),
                    answer("#BLR_WFLD20151000982590", 319.0),
                    answer("30064443", 34.73),
                ],
            )
            .with(
                "m-weak",
                [
                    answer("42183017", 4.12),
                    answer("BLR", 319.0),
                    answer("30064443", 34.73),
                    // For the changed prompt.
                    answer("42183017", 4.11),
                    answer("#BLR_WFLD20151000982590", 319.0),
                    answer("30064443", 34.73),
                ],
            ),
    )
    .await
    .unwrap();
    let db = scratch.0.join("sift.db").display().to_string();
    let import = run(sift().args([
        "--db",
        &db,
        "sets",
        "import",
        "invoices",
        "--truth",
        &scratch.0.join("invoices.tsv").display().to_string(),
        "--schema",
        &scratch.0.join("invoice.json").display().to_string(),
    ]))
    .await;
    assert_eq!(stderr(&import), "");
    assert_eq!(
        stdout(&import),
        "invoices\t3 documents\tinvoice_number,total\tfile invoices.tsv\n"
    );

    let eval = |extra: &[&str]| {
        let mut args: Vec<String> = [
            "--db",
            &db,
            "eval",
            "--set",
            "invoices",
            "--provider",
            "openai",
            "--base-url",
        ]
        .map(str::to_owned)
        .to_vec();
        args.push(server.openai_base_url());
        args.extend(extra.iter().map(|s| (*s).to_owned()));
        args
    };
    let first = run(sift()
        .env("OPENAI_API_KEY", "sk-test")
        .args(eval(&["--model", "m-good", "--model", "m-weak"])))
    .await;
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    assert_eq!(stderr(&first), "");
    assert_eq!(server.requests().len(), 6);
    let printed = stdout(&first);
    let lines: Vec<&str> = printed.lines().collect();
    assert!(
        lines[0].starts_with("run evr_") && lines[0].ends_with(" of set invoices"),
        "{lines:?}"
    );
    assert_eq!(
        lines[1..5],
        [
            "field               m-good     m-weak",
            "invoice_number  3/3 100.0%  2/3 66.7%",
            "total           3/3 100.0%  2/3 66.7%",
            "overall         6/6 100.0%  4/6 66.7%",
        ]
    );
    // On loopback, both are free.
    assert!(
        lines.contains(&"cost               $0.0000    $0.0000"),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"m-good vs m-weak: 6/6 against 4/6; 2 cells differ (2 for m-good, 0 for m-weak): within noise (McNemar exact p = 0.500)"),
        "{lines:?}"
    );

    // Again: both reused, no request.
    let again = run(sift()
        .env("OPENAI_API_KEY", "sk-test")
        .args(eval(&["--model", "m-good", "--model", "m-weak", "--json"])))
    .await;
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(server.requests().len(), 6);
    let reused: Vec<String> = stderr(&again)
        .lines()
        .map(|l| l.split(" of job ").next().unwrap().to_owned())
        .collect();
    assert_eq!(
        reused,
        [
            "candidate 1: reused the results",
            "candidate 2: reused the results"
        ]
    );
    let json: Value = serde_json::from_str(&stdout(&again)).unwrap();
    assert_eq!(json["reused"], json!([true, true]));
    // The run as the Evaluate screen shows it: one disagreement per field
    // m-weak got wrong.
    let view = &json["view"];
    assert_eq!(view["setName"], "invoices");
    let wrong: Vec<(&str, &str, &str)> = view["disagreements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["fileName"].as_str().unwrap(),
                d["field"].as_str().unwrap(),
                d["truth"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        wrong,
        [
            ("i2d_AmazonWebServices.pdf", "total", "4.11"),
            (
                "i2d_FlipkartInvoice.pdf",
                "invoice_number",
                "#BLR_WFLD20151000982590"
            )
        ]
    );
    assert_eq!(json["candidates"][1]["report"]["overall"]["correct"], 4);

    // A candidates file: `m-weak` with another prompt calls again; `m-good` does not.
    std::fs::write(
        scratch.0.join("candidates.yaml"),
        "- label: good\n  model: m-good\n- label: weak, new prompt\n  model: m-weak\n  prompt: Read the invoice's number and total.\n",
    )
    .unwrap();
    let candidates = scratch.0.join("candidates.yaml").display().to_string();
    let third = run(sift().env("OPENAI_API_KEY", "sk-test").args(eval(&[
        "--candidates",
        &candidates,
        "--json",
    ])))
    .await;
    assert_eq!(third.status.code(), Some(0), "{}", stderr(&third));
    assert_eq!(server.requests().len(), 9);
    let json: Value = serde_json::from_str(&stdout(&third)).unwrap();
    assert_eq!(json["reused"], json!([true, false]));
    let labels: Vec<&str> = json["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["good", "weak, new prompt"]);
    assert_eq!(json["candidates"][1]["report"]["overall"]["correct"], 6);
    // The changed candidate's first request carries its own prompt.
    let sent = server.requests()[6].body["messages"].to_string();
    assert!(
        sent.contains("Read the invoice's number and total."),
        "{sent}"
    );

    let list = run(sift().args(["--db", &db, "sets", "list"])).await;
    assert_eq!(
        stdout(&list),
        "invoices\t3 documents\tinvoice_number,total\tfile invoices.tsv\n"
    );
    let out = scratch.0.join("out.tsv").display().to_string();
    let export = run(sift().args(["--db", &db, "sets", "export", "invoices", &out])).await;
    assert_eq!(stdout(&export), format!("3 documents written to {out}\n"));
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        std::fs::read_to_string(scratch.0.join("invoices.tsv")).unwrap()
    );
    let missing = run(sift().args(["--db", &db, "eval", "--set", "nope", "--model", "m"])).await;
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(
        stderr(&missing),
        "error (other): no labelled set named \"nope\"\n"
    );
}
