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

/// A workflow naming `provider: anthropic` at `address`, with no key of
/// its own.
fn anthropic_step(address: &str) -> String {
    format!(
        "steps:
  - id: ask
    action: chat.completion
    with:
      provider: anthropic
      model: test-model
      base_url: {address}
      prompt: Say hi.
"
    )
}

/// `sift run` with the anthropic key in the environment, the configuration
/// file `config` (a path that need not exist).
async fn run_with_key(scratch: &Scratch, config: &std::path::Path) -> serde_json::Value {
    let mut command = scratch.run_command("flow.yaml", &["--json"]);
    command
        .env("ANTHROPIC_API_KEY", "sk-ant-stored-secret")
        .env("SIFT_CONFIG", config);
    let output = crate::run(&mut command).await;
    let summary = crate::workflow_support::summary(&output);
    assert!(!stderr(&output).contains("sk-ant-stored-secret"));
    assert!(!stdout(&output).contains("sk-ant-stored-secret"));
    summary
}

#[tokio::test]
async fn a_stored_key_goes_only_to_its_providers_saved_address() {
    let server = server(Script::new().with("test-model", [Reply::text("hi").repeated()])).await;
    let scratch = Scratch::new("hostile-key");
    scratch.write("flow.yaml", &anthropic_step(&server.url()));
    // No provider saved: the anthropic key belongs to Anthropic's address.
    let summary = run_with_key(&scratch, &scratch.path("none.toml")).await;
    assert_eq!(summary["status"], "failed", "{summary}");
    assert_eq!(
        step(&summary, "ask")["error"],
        format!(
            "anthropic/test-model: no key for {}: a stored key goes only to its \
             provider's address; \
             name one with api_key_name",
            server.url()
        ),
        "{summary}"
    );
    assert!(server.requests().is_empty(), "a request was sent");

    // Saved at this address, the provider's key goes there.
    let config = scratch.write(
        "config.toml",
        &format!(
            "[[providers]]\nid = \"anthropic\"\nkind = \"anthropic\"\nbase_url = \"{}/\"\n",
            server.url()
        ),
    );
    let summary = run_with_key(&scratch, &config).await;
    assert_eq!(step(&summary, "ask")["status"], "succeeded", "{summary}");
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].header("x-api-key"),
        Some("sk-ant-stored-secret")
    );

    // Elsewhere, a key the step names itself goes where the step says.
    let named = anthropic_step(&server.url()) + "      api_key_name: STEP_KEY\n";
    scratch.write("flow.yaml", &named);
    let mut command = scratch.run_command("flow.yaml", &["--json"]);
    command
        .env("STEP_KEY", "sk-step-own")
        .env("ANTHROPIC_API_KEY", "sk-ant-stored-secret")
        .env("SIFT_CONFIG", scratch.path("none.toml"));
    let output = crate::run(&mut command).await;
    assert_exit(&output, 0);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].header("x-api-key"), Some("sk-step-own"));
    for request in &requests {
        assert_eq!(request.header("authorization"), None);
    }
}
