//! Workflows against hostile input: a value read from a document reaches a
//! later command as a shell variable, never as its text; a DAG that runs
//! itself is refused before it runs.

use serde_json::json;
use sift_scripted_server::{Reply, Script};

use crate::workflow_support::{Scratch, assert_exit, server, step};
use crate::{stderr, stdout};

/// An invoice's vendor, written to break out of double quotes and run `touch`.
const VENDOR: &str = r#"ACME"; touch $TMPDIR/pwned; echo ""#;

#[tokio::test]
async fn a_vendor_read_from_an_invoice_names_a_folder_and_runs_nothing() {
    let server = server(Script::new().with(
        "test-model",
        [Reply::tool_call("respond", json!({"vendor": VENDOR}))],
    ))
    .await;
    let scratch = Scratch::new("hostile-vendor");
    scratch.write(
        "invoice.txt",
        &format!("INVOICE 2041\nVendor: {VENDOR}\nTotal: 12.50 EUR\n"),
    );
    // `TMPDIR` is the scratch folder: an injected `touch` would leave
    // `pwned` beside the workflow file.
    let yaml = format!(
        "env:
  - TMPDIR: {}
steps:
  - id: read
    action: chat.completion
    with:
      provider: local
      model: test-model
      base_url: BASE_URL
      prompt: Who is the vendor of this invoice?
      files: invoice.txt
    output_schema:
      type: object
      properties:
        vendor: {{type: string}}
      required: [vendor]
  - id: file
    depends: read
    run: mkdir -p \"out/${{steps.read.outputs.vendor}}\"
",
        scratch.dir.display()
    );
    let file = scratch.flow(&yaml, Some(&server));
    let (output, summary) = scratch.run_json(file, &[]).await;
    assert_exit(&output, 0);
    assert_eq!(step(&summary, "file")["status"], "succeeded", "{summary}");
    assert!(!scratch.path("pwned").exists(), "the vendor's text ran");
    // `mkdir -p` made the value's path: its `/` ends the first folder.
    let first = scratch.path("out").join(r#"ACME"; touch $TMPDIR"#);
    let names = |dir: &std::path::Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect()
    };
    assert_eq!(names(&scratch.path("out")), [r#"ACME"; touch $TMPDIR"#]);
    assert_eq!(names(&first), [r#"pwned; echo ""#]);
    assert!(scratch.path("out").join(VENDOR).is_dir());
}

#[tokio::test]
async fn a_dag_that_runs_itself_is_refused_and_not_run() {
    for (name, yaml, cycle) in [
        (
            "self",
            "name: loop
steps:
  - run: echo ran >> ran.txt
  - action: dag.run
    with:
      dag: loop
",
            "loop -> loop",
        ),
        (
            "pair",
            "steps:
  - run: echo ran >> ran.txt
  - action: dag.run
    with: {dag: ping}
---
name: ping
steps:
  - action: dag.run
    with: {dag: pong}
---
name: pong
steps:
  - action: dag.run
    with: {dag: ping}
",
            "ping -> pong -> ping",
        ),
    ] {
        let scratch = Scratch::new(&format!("dag-run-cycle-{name}"));
        let file = scratch.flow(yaml, None);
        let expected =
            format!("Validation failed for flow.yaml\n- cyclic dag.run detected: {cycle}\n");
        let output = scratch.validate(file).await;
        assert_eq!(
            (output.status.code(), stdout(&output), stderr(&output)),
            (Some(1), String::new(), expected.clone()),
            "{name}"
        );
        let output = scratch.run(file, &[]).await;
        assert_eq!(
            (output.status.code(), stderr(&output)),
            (Some(1), expected),
            "{name}"
        );
        assert!(!scratch.path("ran.txt").exists(), "{name} ran");
    }
}
