use std::path::PathBuf;

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{NewSession, Store};

use crate::{run, sift, stderr, stdout};

/// A fresh database and schema file for one test.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let schema = json!({
            "type": "object",
            "properties": {"number": {"type": "string"}, "total": {"type": "number"}},
            "required": ["number", "total"],
        });
        std::fs::write(dir.join("invoice.json"), schema.to_string()).unwrap();
        Self { dir }
    }

    fn db(&self) -> String {
        self.dir.join("sift.db").display().to_string()
    }

    fn schema(&self) -> String {
        self.dir.join("invoice.json").display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn call_args<'a>(scratch: &'a Scratch, server: &'a ScriptedServer) -> Vec<String> {
    vec![
        "--db".into(),
        scratch.db(),
        "call".into(),
        "--schema".into(),
        scratch.schema(),
        "--kind".into(),
        "invoice".into(),
        "--provider".into(),
        "openai".into(),
        "--base-url".into(),
        server.openai_base_url(),
        "--model".into(),
        "m".into(),
    ]
}

fn json_line(text: &str) -> Value {
    assert!(
        text.ends_with('\n') && text.matches('\n').count() == 1,
        "not one line: {text:?}"
    );
    serde_json::from_str(text).unwrap()
}

#[tokio::test]
async fn a_completed_call_prints_its_answer_and_is_recorded() {
    let scratch = Scratch::new("completed");
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::tool_call("submit_output", json!({"total": 12.5, "number": "INV-7"}))
                    .usage(30, 8),
            ],
        ),
    )
    .await
    .unwrap();
    let mut args = call_args(&scratch, &server);
    args.extend(["--prompt".into(), "Invoice INV-7, 12.50".into()]);
    let output = run(sift().args(&args)).await;
    assert_eq!(stderr(&output), "");
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(stdout(&output), "{\"number\":\"INV-7\",\"total\":12.5}\n");
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([{"role": "user", "content": "Invoice INV-7, 12.50"}])
    );

    let list =
        run(sift().args(["--db", &scratch.db(), "calls", "list", "--kind", "invoice"])).await;
    let summary = json_line(&stdout(&list));
    let id = summary["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("call_"));
    assert_eq!(
        summary,
        json!({
            "id": id, "kind": "invoice", "status": "completed",
            "output": {"number": "INV-7", "total": 12.5},
            "error": null, "error_category": null,
            "tokens": {"input": 30, "output": 8},
            "parent": null, "session": null, "metadata": {},
        })
    );
    let shown = json_line(&stdout(
        &run(sift().args(["--db", &scratch.db(), "calls", "show", &id])).await,
    ));
    assert_eq!(shown["engine_type"], json!("openai"));
    assert_eq!(shown["request"]["model"], json!("m"));
    let transcript = shown["transcript"].as_array().unwrap();
    assert_eq!(transcript.len(), 3, "{transcript:?}");
    assert_eq!(transcript[0]["role"], json!("user"));
    assert_eq!(
        transcript[2],
        json!({"role": "tool", "parts": [{"type": "tool_result", "call_id": "call_1", "content": "Output accepted.", "is_error": false}]})
    );
}

#[tokio::test]
async fn failed_and_turn_limited_calls_exit_1_and_3() {
    let scratch = Scratch::new("failing");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::fault(401, r#"{"error":{"message":"bad key"}}"#),
            Reply::text("plain"),
            Reply::text("plain"),
        ],
    ))
    .await
    .unwrap();
    let mut args = call_args(&scratch, &server);
    args.extend(["--prompt".into(), "x".into(), "--json".into()]);
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(1));
    let summary = json_line(&stdout(&output));
    assert_eq!(
        (summary["status"].clone(), summary["error_category"].clone()),
        (json!("failed"), json!("auth"))
    );
    assert_eq!(
        stderr(&output),
        format!(
            "error (auth): call {} failed: HTTP 401: bad key\n",
            summary["id"].as_str().unwrap()
        )
    );

    let mut args = call_args(&scratch, &server);
    args.extend([
        "--prompt".into(),
        "x".into(),
        "--max-turns".into(),
        "2".into(),
    ]);
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(stdout(&output), "");
    assert!(
        stderr(&output).ends_with("is turn_limited: no valid output within 2 turns\n"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test]
async fn a_standalone_revision_replays_the_transcript_plus_the_correction() {
    let scratch = Scratch::new("revise");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::tool_call("submit_output", json!({"number": "INV-7", "total": 12.5})),
            Reply::tool_call("submit_output", json!({"number": "INV-7", "total": 15})),
        ],
    ))
    .await
    .unwrap();
    let mut args = call_args(&scratch, &server);
    args.extend(["--prompt".into(), "Invoice INV-7".into(), "--json".into()]);
    let first = json_line(&stdout(&run(sift().args(&args)).await));
    let parent = first["id"].as_str().unwrap();

    let output = run(sift().args([
        "--db",
        &scratch.db(),
        "revise",
        parent,
        "The total is 15.",
        "--json",
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "m",
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let revised = json_line(&stdout(&output));
    assert_eq!(revised["parent"], json!(parent));
    assert_eq!(revised["output"], json!({"number": "INV-7", "total": 15}));
    let replay = server.requests()[1].body["messages"].clone();
    assert_eq!(
        replay[0],
        json!({"role": "user", "content": "Invoice INV-7"})
    );
    assert_eq!(
        replay[2],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "Output accepted."})
    );
    assert_eq!(
        replay[3],
        json!({"role": "user", "content": "The total is 15."})
    );
    assert_eq!(replay.as_array().unwrap().len(), 4);
}

#[tokio::test]
async fn a_call_in_a_session_writes_its_turn_and_a_hidden_text_answer() {
    let scratch = Scratch::new("session");
    let store = Store::open(scratch.db()).unwrap();
    let session = store
        .create_session(NewSession {
            system_prompt: Some("You work for ACME.".into()),
            ..NewSession::default()
        })
        .unwrap();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::tool_call("submit_output", json!({"number": "A-1", "total": 1})),
            Reply::tool_call("submit_output", json!({"number": "A-2", "total": 2})),
        ],
    ))
    .await
    .unwrap();
    for prompt in ["first invoice", "second invoice"] {
        let mut args = call_args(&scratch, &server);
        args.extend([
            "--prompt".into(),
            prompt.into(),
            "--session".into(),
            session.id.clone(),
            "--system".into(),
            "Read invoices.".into(),
        ]);
        let output = run(sift().args(&args)).await;
        assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    }
    // The second turn sees the first (but not its hidden copy of the answer),
    // and both system prompts for this turn only.
    assert_eq!(
        server.requests()[1].body["messages"],
        json!([
            {"role": "system", "content": "You work for ACME.\n\nRead invoices."},
            {"role": "user", "content": "first invoice"},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "submit_output", "arguments": "{\"number\":\"A-1\",\"total\":1}"}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "Output accepted."},
            {"role": "user", "content": "second invoice"},
        ])
    );
    let messages = store.messages(&session.id).unwrap();
    assert_eq!(messages.len(), 8);
    assert!(messages[3].hidden && !messages[2].hidden);
    assert_eq!(
        messages[3].parts,
        json!([{"type": "text", "text": "{\"number\":\"A-1\",\"total\":1}"}])
    );
    let calls = store.calls_in_session(&session.id).unwrap();
    assert_eq!(calls.len(), 2);
    let spans: Vec<(Option<i64>, Option<i64>)> =
        calls.iter().map(|c| (c.first_seq, c.last_seq)).collect();
    assert!(
        spans.contains(&(Some(1), Some(4))) && spans.contains(&(Some(5), Some(8))),
        "{spans:?}"
    );
    assert!(calls.iter().all(|c| c.transcript.is_none()));
}

#[tokio::test]
async fn the_configuration_file_is_read_and_its_mistakes_named() {
    let scratch = Scratch::new("config");
    let config = scratch.dir.join("config.toml");
    std::fs::write(&config, "[context]\nTOOL_RESULTS_IN_CONTEXT = \"all\"\n").unwrap();
    let server = ScriptedServer::start(Script::new()).await.unwrap();
    let mut args = call_args(&scratch, &server);
    args.extend(["--prompt".into(), "x".into()]);
    let output = run(sift().args(&args).env("SIFT_CONFIG", &config)).await;
    assert_eq!(output.status.code(), Some(1));
    let message = stderr(&output);
    assert!(
        message.starts_with(&format!(
            "error (other): configuration: {}: ",
            config.display()
        )),
        "{message}"
    );
    assert!(message.contains("TOOL_RESULTS_IN_CONTEXT"), "{message}");
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_compaction_summary_stands_in_for_the_older_messages() {
    let scratch = Scratch::new("compact");
    let store = Store::open(scratch.db()).unwrap();
    let session = store.create_session(NewSession::default()).unwrap();
    let server = ScriptedServer::start(
        Script::new()
            .with(
                "m",
                [
                    Reply::tool_call("submit_output", json!({"number": "A-1", "total": 1})),
                    Reply::tool_call("submit_output", json!({"number": "A-2", "total": 2})),
                    Reply::tool_call("submit_output", json!({"number": "A-3", "total": 3})),
                ],
            )
            .with(
                "s",
                [Reply::tool_call(
                    "submit_output",
                    json!({"summary": "Invoice A-1 was read: total 1."}),
                )],
            ),
    )
    .await
    .unwrap();
    let turn = |prompt: &str| {
        let mut args = call_args(&scratch, &server);
        args.extend([
            "--prompt".into(),
            prompt.into(),
            "--session".into(),
            session.id.clone(),
        ]);
        args
    };
    for prompt in ["first invoice", "second invoice"] {
        assert_eq!(run(sift().args(turn(prompt))).await.status.code(), Some(0));
    }
    let output = run(sift().args([
        "--db",
        &scratch.db(),
        "session",
        "compact",
        &session.id,
        "--keep",
        "3",
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "s",
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summary = json_line(&stdout(&output));
    assert_eq!(summary["kind"], json!("compaction"));
    assert_eq!(summary["session"], json!(session.id));
    assert_eq!(summary["metadata"]["covers_through_seq"], json!(3));
    let asked = server.requests()[2].body["messages"].clone();
    assert_eq!(
        asked[1]["content"],
        json!(
            "[user] first invoice\n[assistant] calls submit_output({\"number\":\"A-1\",\"total\":1})\n[tool] result: Output accepted.\n"
        )
    );

    assert_eq!(
        run(sift().args(turn("third invoice"))).await.status.code(),
        Some(0)
    );
    let messages = server.requests()[3].body["messages"].clone();
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "Summary of the earlier part of this conversation, which is no longer shown:\nInvoice A-1 was read: total 1."})
    );
    assert_eq!(messages[1]["content"], json!("second invoice"));
    assert_eq!(messages.as_array().unwrap().len(), 5);
    // The stored messages stay: 3 turns of 4, the hidden answer copies included.
    assert_eq!(store.messages(&session.id).unwrap().len(), 12);
}

#[tokio::test]
async fn files_go_ahead_of_the_prompt_and_refused_ones_stop_the_call() {
    let scratch = Scratch::new("files");
    std::fs::write(
        scratch.dir.join("note.txt"),
        "Invoice INV-9\r\nTotal: 9.99 EUR\n",
    )
    .unwrap();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [Reply::tool_call(
            "submit_output",
            json!({"number": "INV-9", "total": 9.99}),
        )],
    ))
    .await
    .unwrap();
    let mut args = call_args(&scratch, &server);
    let note = scratch.dir.join("note.txt").display().to_string();
    args.extend(["--prompt".into(), "Read it.".into(), "--file".into(), note]);
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        server.requests()[0].body["messages"],
        json!([{"role": "user", "content": "<file name=\"note.txt\">\nInvoice INV-9\nTotal: 9.99 EUR\n</file>\n\nRead it."}])
    );

    let mut args = call_args(&scratch, &server);
    let missing = scratch.dir.join("missing.pdf").display().to_string();
    args.extend([
        "--prompt".into(),
        "Read it.".into(),
        "--file".into(),
        missing.clone(),
    ]);
    let output = run(sift().args(&args)).await;
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).starts_with("error (document): "),
        "{}",
        stderr(&output)
    );
    assert!(stderr(&output).contains(&missing), "{}", stderr(&output));
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn revising_a_call_in_a_session_adds_another_structured_turn() {
    let scratch = Scratch::new("revise-session");
    let store = Store::open(scratch.db()).unwrap();
    let session = store.create_session(NewSession::default()).unwrap();
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::tool_call("submit_output", json!({"number": "B-1", "total": 10})),
            Reply::tool_call("submit_output", json!({"number": "B-1", "total": 12})),
        ],
    ))
    .await
    .unwrap();
    let mut args = call_args(&scratch, &server);
    args.extend([
        "--prompt".into(),
        "invoice B-1".into(),
        "--session".into(),
        session.id.clone(),
        "--json".into(),
    ]);
    let first = json_line(&stdout(&run(sift().args(&args)).await));
    let parent = first["id"].as_str().unwrap();
    let output = run(sift().args([
        "--db",
        &scratch.db(),
        "revise",
        parent,
        "The total is 12.",
        "--json",
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "m",
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let revised = json_line(&stdout(&output));
    assert_eq!(
        (revised["parent"].clone(), revised["session"].clone()),
        (json!(parent), json!(session.id))
    );
    // The correction is the next user turn of the session, after the first call's turn.
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": "invoice B-1"})
    );
    assert_eq!(
        messages[3],
        json!({"role": "user", "content": "The total is 12."})
    );
    let calls = store.calls_in_session(&session.id).unwrap();
    assert_eq!(calls.len(), 2);
    let revision = calls
        .iter()
        .find(|c| c.parent_id.as_deref() == Some(parent))
        .unwrap();
    assert_eq!((revision.first_seq, revision.last_seq), (Some(5), Some(8)));
    assert_eq!(store.revisions(parent).unwrap().len(), 1);
}

#[tokio::test]
async fn the_schema_library_imports_versions_and_exports() {
    let scratch = Scratch::new("schemas");
    let db = scratch.db();
    // Not `invoice.json`: the new library already has its starter invoice.
    let bill = scratch.dir.join("bill.json").display().to_string();
    std::fs::copy(scratch.schema(), &bill).unwrap();
    let output = run(sift().args(["--db", &db, "schema", "import", &bill])).await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), "bill 1\n"),
        "{}",
        stderr(&output)
    );
    // The same schema again: no new version.
    let output = run(sift().args(["--db", &db, "schema", "import", &bill])).await;
    assert_eq!(stdout(&output), "bill 1\n");
    // A changed schema under another name, then under the same name.
    let changed = scratch.dir.join("v2.json");
    std::fs::write(
        &changed,
        json!({"type": "object", "properties": {"number": {"type": "string"}}}).to_string(),
    )
    .unwrap();
    let output = run(sift().args([
        "--db",
        &db,
        "schema",
        "import",
        &changed.display().to_string(),
        "--name",
        "bill",
    ]))
    .await;
    assert_eq!(stdout(&output), "bill 2\n");
    let list = run(sift().args(["--db", &db, "schema", "list"])).await;
    assert_eq!(
        stdout(&list),
        "bank_statement 1\nbill 2\ninvoice 1\npurchase_order 1\nreceipt 1\n"
    );

    let exported =
        run(sift().args(["--db", &db, "schema", "export", "bill", "--version", "1"])).await;
    let text = stdout(&exported);
    assert_eq!(
        serde_json::from_str::<Value>(&text).unwrap(),
        serde_json::from_str::<Value>(&std::fs::read_to_string(scratch.schema()).unwrap()).unwrap()
    );
    // Properties keep their order through the library.
    assert!(text.find("\"number\"").unwrap() < text.find("\"total\"").unwrap());

    // The answer-schema rules are checked before anything is saved.
    let bad = scratch.dir.join("bad.json");
    std::fs::write(
        &bad,
        json!({"type": "object", "properties": {}}).to_string(),
    )
    .unwrap();
    let output =
        run(sift().args(["--db", &db, "schema", "import", &bad.display().to_string()])).await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        stderr(&output),
        "error (other): invalid schema: the schema must list at least one property under \"properties\"\n"
    );
    let missing = run(sift().args(["--db", &db, "schema", "export", "nope"])).await;
    assert_eq!(
        (missing.status.code(), stderr(&missing).as_str()),
        (Some(1), "error (other): no schema nope\n")
    );
}
