//! `sift extract` on the local model server: a job whose answers need
//! the model and whose server cannot start ends failed with the server's
//! error; the local default (`hybrid`) needs the server only for fields
//! the locator did not find.

use std::path::Path;
use std::process::Output;

use sift_store::Store;

use crate::extract::{Scratch, job_id_of};
use crate::{run, sift, stderr};

/// The job failed before any call because `program`, the server, is
/// missing: exit 1 and the server's error, exactly. Returns the job's id.
fn assert_no_server(output: &Output, program: &Path) -> String {
    let err = stderr(output);
    assert_eq!(output.status.code(), Some(1), "{err}");
    let job_id = job_id_of(&err);
    assert_eq!(
        err,
        format!(
            "job {job_id} (1 documents)\nerror (other): the local model server is not installed: {} is missing. Run scripts/setup.sh, or set SIFT_LLAMA_SERVER\n",
            program.display()
        )
    );
    job_id
}

/// With the local server as the provider and no way to start it, a job
/// whose answers need the model ends failed with the local server's
/// error, as the app's does.
#[tokio::test]
async fn a_job_whose_local_server_will_not_start_ends_failed() {
    let scratch = Scratch::new("local-failure", 1);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let program = scratch.dir.join("no-llama-server");
    let output = run(sift()
        .args([
            "--db",
            &scratch.path("sift.db"),
            "extract",
            "--schema",
            &scratch.path("invoice.json"),
            "--provider",
            "local",
            "--answers",
            "grounded",
            &scratch.path("doc0.txt"),
        ])
        .env("SIFT_LLAMA_SERVER", &program)
        .env("SIFT_DATA_DIR", &scratch.dir)
        .env("SIFT_LOCAL_PORT", port.to_string()))
    .await;
    let job_id = assert_no_server(&output, &program);
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.status, sift_store::JobStatus::Failed);
}

/// `located` answers need no model server, so one that cannot start does
/// not matter and the row holds the labelled values. The local model's
/// default is `hybrid` (measured best for it), which asks the model for
/// the fields the locator did not find: with a schema the locator
/// answers whole it needs no server either (the server starts only when
/// a document asks), and with the vendor's fields too it needs the
/// server and ends with its error.
#[tokio::test]
async fn the_local_default_needs_the_model_server_only_for_fields_the_locator_did_not_find() {
    let scratch = Scratch::new("local-located", 0);
    std::fs::write(
        scratch.dir.join("invoice.txt"),
        "ACME GmbH\nInvoice Number: 2024-17A\nSubtotal 1.000,00 EUR\nTotal: 1.234,50 EUR\n",
    )
    .unwrap();
    let program = scratch.dir.join("no-llama-server");
    std::fs::write(
        scratch.dir.join("located.json"),
        r#"{"type": "object", "properties": {"number": {"type": "string"}, "total": {"type": "number"}}}"#,
    )
    .unwrap();
    let extract = |answers: Option<&str>, schema: &str| {
        let mut command = sift();
        command.args(["--db", &scratch.path("sift.db"), "extract"]);
        if let Some(answers) = answers {
            command.args(["--answers", answers]);
        }
        command
            .args([
                "--schema",
                &scratch.path(schema),
                "--provider",
                "local",
                "--csv",
                &scratch.path("out.csv"),
                &scratch.path("invoice.txt"),
            ])
            .env("SIFT_LLAMA_SERVER", &program)
            .env("SIFT_DATA_DIR", &scratch.dir);
        command
    };
    let output = run(&mut extract(Some("located"), "invoice.json")).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        scratch.read("out.csv"),
        format!(
            "file,number,total,vendor.city,vendor.name,status,error\r\n{},2024-17A,1234.5,,,completed,\r\n",
            scratch.path("invoice.txt")
        )
    );
    let store = Store::open(scratch.path("sift.db")).unwrap();
    let job_id = job_id_of(&stderr(&output));
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.answers.as_deref(), Some("located"));
    assert_eq!(
        store.extraction_documents(&job_id).unwrap()[0].call_id,
        None
    );

    // The default, on a schema the locator answers whole: no server.
    let output = run(&mut extract(None, "located.json")).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        scratch.read("out.csv"),
        format!(
            "file,number,total,status,error\r\n{},2024-17A,1234.5,completed,\r\n",
            scratch.path("invoice.txt")
        )
    );
    let job_id = job_id_of(&stderr(&output));
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.answers.as_deref(), Some("hybrid"));
    assert_eq!(job.status, sift_store::JobStatus::Completed);
    assert_eq!(
        store.extraction_documents(&job_id).unwrap()[0].call_id,
        None
    );

    // The default, with fields the locator does not find: the server.
    let output = run(&mut extract(None, "invoice.json")).await;
    let job_id = assert_no_server(&output, &program);
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.answers.as_deref(), Some("hybrid"));
    assert_eq!(job.status, sift_store::JobStatus::Failed);
}
