//! `sift extract`: exact CSV and JSONL, a failing document, and a killed
//! job resumed. (The concurrency bound is tested at the API surface, in
//! `crates/core/tests/core/extract.rs`, where the job's events can be
//! counted.)

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{DocumentStatus, Store};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::{run, sift, stderr};

/// A folder with a schema and text files, removed when dropped.
pub(crate) struct Scratch {
    pub(crate) dir: PathBuf,
}

impl Scratch {
    pub(crate) fn new(name: &str, files: usize) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-x-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // Properties named in alphabetical order too, so the columns are
        // the same whether or not JSON objects keep their order.
        let schema = r#"{"type": "object", "properties": {
            "number": {"type": "string"},
            "total": {"type": "number"},
            "vendor": {"type": "object", "properties": {
                "city": {"type": "string"}, "name": {"type": "string"}}}},
            "required": ["number", "total"]}"#;
        std::fs::write(dir.join("invoice.json"), schema).unwrap();
        for i in 0..files {
            std::fs::write(dir.join(format!("doc{i}.txt")), format!("document {i}\n")).unwrap();
        }
        Self { dir }
    }

    pub(crate) fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    pub(crate) fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.join(name)).unwrap()
    }

    /// `sift extract --resume JOB` on this folder's database through
    /// `server`.
    fn resume_args(&self, job_id: &str, server: &ScriptedServer) -> Vec<String> {
        let db = self.path("sift.db");
        let url = server.openai_base_url();
        [
            "--db",
            &db,
            "extract",
            "--resume",
            job_id,
            "--provider",
            "openai",
            "--base-url",
            &url,
        ]
        .map(str::to_owned)
        .to_vec()
    }

    fn args(&self, server: &ScriptedServer) -> Vec<String> {
        [
            "--db",
            &self.path("sift.db"),
            "extract",
            "--schema",
            &self.path("invoice.json"),
            "--provider",
            "openai",
            "--base-url",
            &server.openai_base_url(),
            "--model",
            "m",
        ]
        .map(str::to_owned)
        .to_vec()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn answer(number: &str, name: &str, total: f64) -> Reply {
    Reply::tool_call(
        "submit_output",
        json!({"number": number, "vendor": {"name": name, "city": "Lyon"}, "total": total}),
    )
    .usage(20, 5)
}

/// Which document a request was for: the `document N` its text holds.
fn document_of(body: &serde_json::Value) -> usize {
    let text = body.to_string();
    (0..10)
        .find(|i| text.contains(&format!("document {i}\\n")))
        .expect("a request without a document")
}

#[tokio::test]
async fn three_documents_give_exact_csv_and_jsonl_and_revisions_are_exported() {
    let scratch = Scratch::new("exact", 3);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            answer("A-1", "Acme, Inc.", 12.5),
            answer("B-2", "The \"Best\" Co", 7.0),
            answer("C-3", "Plain", 100.25),
        ],
    ))
    .await
    .unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--jobs", "1", "--csv"].map(str::to_owned));
    args.push(scratch.path("out.csv"));
    args.push("--jsonl".into());
    args.push(scratch.path("out.jsonl"));
    args.push(scratch.path("doc*.txt"));
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let (d0, d1, d2) = (
        scratch.path("doc0.txt"),
        scratch.path("doc1.txt"),
        scratch.path("doc2.txt"),
    );
    assert_eq!(
        scratch.read("out.csv"),
        format!(
            "file,number,total,vendor.city,vendor.name,status,error\r\n\
             {d0},A-1,12.5,Lyon,\"Acme, Inc.\",completed,\r\n\
             {d1},B-2,7.0,Lyon,\"The \"\"Best\"\" Co\",completed,\r\n\
             {d2},C-3,100.25,Lyon,Plain,completed,\r\n"
        )
    );
    assert_eq!(
        scratch.read("out.jsonl"),
        format!(
            "{{\"error\":null,\"file\":\"{d0}\",\"status\":\"completed\",\"values\":{{\"number\":\"A-1\",\"total\":12.5,\"vendor\":{{\"city\":\"Lyon\",\"name\":\"Acme, Inc.\"}}}}}}\n\
             {{\"error\":null,\"file\":\"{d1}\",\"status\":\"completed\",\"values\":{{\"number\":\"B-2\",\"total\":7.0,\"vendor\":{{\"city\":\"Lyon\",\"name\":\"The \\\"Best\\\" Co\"}}}}}}\n\
             {{\"error\":null,\"file\":\"{d2}\",\"status\":\"completed\",\"values\":{{\"number\":\"C-3\",\"total\":100.25,\"vendor\":{{\"city\":\"Lyon\",\"name\":\"Plain\"}}}}}}\n"
        )
    );
    let err = stderr(&output);
    assert!(err.starts_with("job job_"), "{err}");
    assert!(
        err.contains(&format!("[1/3] completed {d0} (20 in, 5 out tokens)\n")),
        "{err}"
    );
    // None of the values is in its document (`document 0`, ...).
    assert!(
        err.ends_with(
            "done 3, failed 0, tokens 60 in, 15 out\n12 values not found in the documents\n"
        ),
        "{err}"
    );
    // Each request carried its own document only.
    let seen: Vec<usize> = server
        .requests()
        .iter()
        .map(|r| document_of(&r.body))
        .collect();
    assert_eq!(seen, [0, 1, 2]);

    // A user's revision is exported in place of the model's values; the
    // resumed job calls nothing.
    let job_id = err.lines().next().unwrap()["job ".len()..]
        .split(' ')
        .next()
        .unwrap()
        .to_owned();
    let store = Store::open(scratch.path("sift.db")).unwrap();
    store
        .add_extraction_revision(
            &job_id,
            1,
            &json!({"number": "B-2", "total": 8, "vendor": {"name": "Best", "city": "Nice"}}),
            None,
        )
        .unwrap();
    let output = run(sift().args([
        "--db",
        &scratch.path("sift.db"),
        "extract",
        "--resume",
        &job_id,
        "--csv",
        &scratch.path("revised.csv"),
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        scratch.read("revised.csv"),
        format!(
            "file,number,total,vendor.city,vendor.name,status,error\r\n\
             {d0},A-1,12.5,Lyon,\"Acme, Inc.\",completed,\r\n\
             {d1},B-2,8,Nice,Best,completed,\r\n\
             {d2},C-3,100.25,Lyon,Plain,completed,\r\n"
        )
    );
    assert_eq!(server.requests().len(), 3);
    // The model's values are kept beside the revision.
    assert_eq!(
        store.extraction_documents(&job_id).unwrap()[1]
            .values
            .as_ref()
            .unwrap()["total"],
        json!(7.0)
    );
}

#[tokio::test]
async fn a_failing_document_leaves_the_others_and_exits_1() {
    let scratch = Scratch::new("fail", 3);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            answer("A-1", "Acme", 1.0),
            Reply::fault(400, r#"{"error":{"message":"bad document"}}"#),
            answer("C-3", "Cee", 3.0),
        ],
    ))
    .await
    .unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--jobs", "1", "--csv"].map(str::to_owned));
    args.push(scratch.path("out.csv"));
    for i in 0..3 {
        args.push(scratch.path(&format!("doc{i}.txt")));
    }
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let csv = scratch.read("out.csv");
    let lines: Vec<&str> = csv.split("\r\n").collect();
    assert_eq!(lines.len(), 5, "{csv}");
    assert_eq!(
        lines[1],
        format!("{},A-1,1.0,Lyon,Acme,completed,", scratch.path("doc0.txt"))
    );
    assert!(
        lines[2].starts_with(&format!("{},,,,,failed,", scratch.path("doc1.txt"))),
        "{}",
        lines[2]
    );
    assert!(lines[2].contains("bad document"), "{}", lines[2]);
    assert_eq!(
        lines[3],
        format!("{},C-3,3.0,Lyon,Cee,completed,", scratch.path("doc2.txt"))
    );
    assert_eq!(lines[4], "");
    let err = stderr(&output);
    assert!(
        err.contains("done 2, failed 1, tokens 40 in, 10 out\n"),
        "{err}"
    );
    assert!(
        err.contains("error: 1 of 3 documents failed (job job_"),
        "{err}"
    );
}

/// `sift extract` killed (SIGKILL) once its first documents completed, then
/// run again with `--resume`: the documents completed before the kill are
/// never asked for again, and every row ends completed.
#[tokio::test(flavor = "multi_thread")]
async fn a_killed_job_resumes_without_calling_completed_documents_again() {
    let scratch = Scratch::new("resume", 5);
    // The first two documents are answered; the rest are held until the
    // kill, so it lands with exactly those two completed, however slow.
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            answer("N", "Slow", 1.0),
            answer("N", "Slow", 1.0),
            answer("N", "Slow", 1.0).held("rest").repeated(),
        ],
    ))
    .await
    .unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--jobs", "1"].map(str::to_owned));
    args.push(scratch.path("doc*.txt"));
    let mut child = sift()
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next_line().await.unwrap().unwrap();
    let job_id = first
        .strip_prefix("job ")
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_owned();
    assert_eq!(first, format!("job {job_id} (5 documents)"));
    loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .unwrap()
            .unwrap()
            .unwrap();
        if line.starts_with("[2/5] completed") {
            break;
        }
    }
    child.start_kill().unwrap();
    let status = child.wait().await.unwrap();
    assert!(!status.success());

    let store = Store::open(scratch.path("sift.db")).unwrap();
    let before: Vec<usize> = store
        .extraction_documents(&job_id)
        .unwrap()
        .iter()
        .filter(|d| d.status == DocumentStatus::Completed)
        .map(|d| d.position as usize)
        .collect();
    assert!(before.len() >= 2 && before.len() < 5, "{before:?}");
    server.gate("rest").release();

    let output = run(sift().args([
        "--db",
        &scratch.path("sift.db"),
        "extract",
        "--resume",
        &job_id,
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--jsonl",
        &scratch.path("out.jsonl"),
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let docs = store.extraction_documents(&job_id).unwrap();
    assert!(docs.iter().all(|d| d.status == DocumentStatus::Completed));
    assert_eq!(scratch.read("out.jsonl").lines().count(), 5);
    let mut per_document = [0; 5];
    for request in server.requests() {
        per_document[document_of(&request.body)] += 1;
    }
    for position in before {
        assert_eq!(per_document[position], 1, "{per_document:?}");
    }
    assert!(per_document.iter().all(|&n| n >= 1), "{per_document:?}");
    // Four values a document, none in it but the total 1.0 of `document 1`.
    assert!(stderr(&output).ends_with(
        "done 5, failed 0, tokens 100 in, 25 out\n19 values not found in the documents\n"
    ));
}

/// `--evidence`: where each value was found, as CSV columns and JSONL
/// objects, and the count of values not found at the end.
#[tokio::test]
async fn evidence_is_exported_beside_the_values() {
    let scratch = Scratch::new("evidence", 0);
    std::fs::write(
        scratch.dir.join("invoice.txt"),
        "Invoice A-1\nAcme, Inc.\nTotal: 12.50 EUR\n",
    )
    .unwrap();
    let server =
        ScriptedServer::start(Script::new().with("m", [answer("A-1", "Acme, Inc.", 12.5)]))
            .await
            .unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--evidence", "--csv"].map(str::to_owned));
    args.push(scratch.path("out.csv"));
    args.push("--jsonl".into());
    args.push(scratch.path("out.jsonl"));
    args.push(scratch.path("invoice.txt"));
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let file = scratch.path("invoice.txt");
    assert_eq!(
        scratch.read("out.csv"),
        format!(
            "file,number,number.page,number.found,total,total.page,total.found,\
             vendor.city,vendor.city.page,vendor.city.found,\
             vendor.name,vendor.name.page,vendor.name.found,status,error\r\n\
             {file},A-1,1,exact,12.5,1,normalised,Lyon,,not_found,\"Acme, Inc.\",1,exact,completed,\r\n"
        )
    );
    let line: serde_json::Value = serde_json::from_str(scratch.read("out.jsonl").trim()).unwrap();
    assert_eq!(
        line["evidence"]["total"],
        json!({"status": "normalised", "confidence": "medium", "places": [
            {"page": 1, "quote": "Total: 12.50 EUR", "box": null, "labelled": true}
        ]})
    );
    assert_eq!(
        line["evidence"]["vendor.city"],
        json!({"status": "not_found", "confidence": "low", "places": []})
    );
    assert!(
        stderr(&output).ends_with("1 value not found in the documents\n"),
        "{}",
        stderr(&output)
    );
}

/// The job id on the first line of `sift extract`'s stderr.
pub(crate) fn job_id_of(stderr: &str) -> String {
    stderr
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("job "))
        .and_then(|rest| rest.split(' ').next())
        .unwrap()
        .to_owned()
}

/// The summary line's figures are the job's totals as the app's table
/// shows them (one computation, in `sift-core`).
#[tokio::test]
async fn the_summary_line_is_the_jobs_totals() {
    let scratch = Scratch::new("totals", 3);
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            answer("A-1", "Acme", 1.0),
            Reply::fault(400, r#"{"error":{"message":"bad document"}}"#),
            answer("C-3", "Cee", 3.0),
        ],
    ))
    .await
    .unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--jobs", "1"].map(str::to_owned));
    args.push(scratch.path("doc*.txt"));
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let err = stderr(&output);
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let view = sift_core::extract::job_view(&store, &job_id_of(&err)).unwrap();
    let t = &view.totals;
    assert_eq!((t.done, t.failed, t.pending), (2, 1, 0));
    let line = format!(
        "done {}, failed {}, tokens {} in, {} out\n",
        t.done, t.failed, t.input_tokens, t.output_tokens
    );
    assert!(err.contains(&line), "{err}");
}

/// The scenario of the app's resume (`crates/core/tests/core/
/// extraction.rs`): a job over `a` then `b` fails on both; `--resume`
/// with no `--model` calls `a` then `b` at the new server and completes.
#[tokio::test]
async fn a_resume_without_a_model_runs_all_of_the_jobs_models_in_order() {
    let scratch = Scratch::new("resume-models", 1);
    let fault = || Reply::fault(400, r#"{"error":{"message":"no"}}"#).repeated();
    let first = ScriptedServer::start(Script::new().with("a", [fault()]).with("b", [fault()]))
        .await
        .unwrap();
    let mut args = scratch.args(&first);
    args.extend(["--model", "b"].map(str::to_owned));
    // `--model m` of the scratch's arguments: replaced by `a`, `b`.
    let m = args.iter().position(|a| a == "m").unwrap();
    args[m] = "a".into();
    args.push(scratch.path("doc0.txt"));
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let job_id = job_id_of(&stderr(&output));

    let second = ScriptedServer::start(
        Script::new()
            .with("a", [fault()])
            .with("b", [answer("B", "Bee", 2.0)]),
    )
    .await
    .unwrap();
    let output = run(sift().args(scratch.resume_args(&job_id, &second))).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let models: Vec<String> = second
        .requests()
        .iter()
        .map(|r| r.body["model"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(models, ["a", "b"]);
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let docs = store.extraction_documents(&job_id).unwrap();
    assert_eq!(docs[0].status, DocumentStatus::Completed);
    assert_eq!(docs[0].values.as_ref().unwrap()["number"], "B");
}

/// `--schema invoice` names the library's starter (installed when the CLI
/// created the database); a name the library lacks is refused with the
/// names it has.
#[tokio::test]
async fn a_library_schema_is_named_by_its_name() {
    let scratch = Scratch::new("schema-by-name", 0);
    std::fs::write(
        scratch.dir.join("invoice.txt"),
        "ACME GmbH\nInvoice Number: 2024-17A\nInvoice date: 2024-03-01\nTotal: 1.234,50 EUR\n",
    )
    .unwrap();
    let extract = |schema: &str| {
        let mut command = sift();
        command
            .args([
                "--db",
                &scratch.path("sift.db"),
                "extract",
                "--schema",
                schema,
            ])
            .args(["--provider", "local", "--answers", "located"])
            .arg(scratch.path("invoice.txt"))
            .env("SIFT_DATA_DIR", &scratch.dir);
        command
    };
    let output = run(&mut extract("invoice")).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let job = store
        .get_extraction_job(&job_id_of(&stderr(&output)))
        .unwrap()
        .unwrap();
    assert_eq!(job.schema_name, "invoice");
    assert_eq!(
        job.schema,
        store.get_schema("invoice", None).unwrap().unwrap().schema
    );
    let documents = store.extraction_documents(&job.id).unwrap();
    let values = documents[0].values.as_ref().unwrap();
    assert_eq!(
        (
            &values["invoice_number"],
            &values["invoice_date"],
            &values["total"]
        ),
        (&json!("2024-17A"), &json!("2024-03-01"), &json!(1234.5))
    );

    let output = run(&mut extract("invoices")).await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(2),
            "error: no schema file invoices and no library schema named invoices \
             (the library has bank_statement, invoice, purchase_order, receipt)\n"
                .to_owned()
        )
    );
}

/// `sift schema import` and `sift extract --schema` refuse a schema with
/// the error of the app's save (core's one rule), and save nothing.
#[tokio::test]
async fn a_bad_schema_is_refused_alike_by_import_and_extract() {
    let scratch = Scratch::new("bad-schema", 1);
    let bad = json!({"type": "object", "properties": {"a": {"type": "text"}}, "required": ["b"]});
    std::fs::write(scratch.dir.join("bad.json"), bad.to_string()).unwrap();
    let expected = format!(
        "error (other): {}\n",
        sift_core::schemas::check::check_usable(&bad).unwrap_err()
    );
    assert!(
        expected.contains("/required/0: \"required\" names \"b\""),
        "{expected}"
    );
    let db = scratch.path("sift.db");
    let import =
        run(sift().args(["--db", &db, "schema", "import", &scratch.path("bad.json")])).await;
    assert_eq!(
        (import.status.code(), stderr(&import)),
        (Some(1), expected.clone())
    );
    let extract = run(sift().args([
        "--db",
        &db,
        "extract",
        "--schema",
        &scratch.path("bad.json"),
        "--provider",
        "openai",
        "--base-url",
        "http://127.0.0.1:9",
        "--model",
        "m",
        &scratch.path("doc0.txt"),
    ]))
    .await;
    assert_eq!(
        (extract.status.code(), stderr(&extract)),
        (Some(1), expected)
    );
    // Nothing beside the starters the new library was given.
    let names: Vec<String> = Store::open(&db)
        .unwrap()
        .list_schemas()
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(
        names,
        ["bank_statement", "invoice", "purchase_order", "receipt"]
    );
}

/// A language whose Tesseract pack is missing refuses the job before it
/// starts, naming the apt package; no job is recorded.
#[tokio::test]
async fn a_missing_ocr_language_is_refused_before_the_job_starts() {
    let scratch = Scratch::new("missing-lang", 1);
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--lang".into(), "eng+xyz".into(), scratch.path("doc0.txt")]);
    let output = run(sift().args(&args)).await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(2),
            "error: OCR in the language \"xyz\" needs its Tesseract language pack; install it with `apt-get install tesseract-ocr-xyz`\n".to_owned()
        )
    );
    assert!(server.requests().is_empty());
    let store = Store::open(scratch.path("sift.db")).unwrap();
    assert!(store.list_extraction_jobs(10).unwrap().is_empty());
}

/// A job started with `--lang` keeps its languages: a resume reads in
/// them (here one whose pack has since gone missing, so it is refused
/// before any call, naming the pack).
#[tokio::test]
async fn a_resume_reads_in_the_jobs_own_ocr_languages() {
    let scratch = Scratch::new("resume-lang", 1);
    let server = ScriptedServer::start(Script::new().with("m", [answer("A", "Acme", 1.0)]))
        .await
        .unwrap();
    let mut args = scratch.args(&server);
    args.extend(["--lang".into(), "eng".into(), scratch.path("doc0.txt")]);
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let job_id = job_id_of(&stderr(&output));
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.ocr_languages, Some(vec!["eng".to_owned()]));
    store
        .set_job_ocr_languages(&job_id, &["eng".into(), "xyz".into()])
        .unwrap();
    let output = run(sift().args(scratch.resume_args(&job_id, &server))).await;
    assert_eq!(
        (output.status.code(), stderr(&output)),
        (
            Some(2),
            "error: OCR in the language \"xyz\" needs its Tesseract language pack; install it with `apt-get install tesseract-ocr-xyz`\n".to_owned()
        )
    );
    assert_eq!(server.requests().len(), 1);
}
