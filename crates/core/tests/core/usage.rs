//! The Usage view over a database with every kind of work that spends
//! tokens: a chat turn, a structured call, an extraction job, an
//! evaluation and a workflow run. Its totals are the stored tokens'
//! sums, read here from each table with plain SQL.

use rusqlite::Connection;
use serde_json::json;
use sift_core::calls::{CallRequest, run_call};
use sift_core::chat::{ChatRequest, chat_turn};
use sift_core::extract::{NewJob, start_job};
use sift_core::usage::{UsageRequest, usage};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{NewSession, NewWorkflowRun, Store, StoredStep, now_ms};

use crate::{TempDir, selection};

fn sum(conn: &Connection, sql: &str) -> (i64, i64) {
    conn.query_row(sql, [], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
}

#[tokio::test]
async fn the_usage_totals_are_the_sums_of_every_kind_of_stored_tokens() {
    let dir = TempDir::new("usage");
    let store = Store::open(dir.db()).unwrap();
    let server = ScriptedServer::start(
        Script::new()
            .with("chat-model", [Reply::text("Hello.").usage(31, 7)])
            .with(
                "call-model",
                [Reply::tool_call("submit_output", json!({"n": 1})).usage(45, 9)],
            )
            .with(
                "job-model",
                [
                    Reply::tool_call("submit_output", json!({"n": 2})).usage(100, 20),
                    Reply::tool_call("submit_output", json!({"n": 3})).usage(110, 21),
                ],
            ),
    )
    .await
    .unwrap();
    let session = store
        .create_session(NewSession {
            title: String::new(),
            system_prompt: None,
            model_choice: None,
        })
        .unwrap();
    let mut events = |_| {};
    chat_turn(
        &store,
        &ChatRequest::new(&session.id, "Hi", selection(&server, &["chat-model"])),
        &mut events,
    )
    .await
    .unwrap();
    let schema =
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]});
    let mut call = CallRequest::new(selection(&server, &["call-model"]), "A number");
    call.kind = "call".into();
    call.schema = Some(schema.clone());
    run_call(&store, &call).await.unwrap();
    let ws = sift_core::Workspace::open(sift_core::WorkspaceOptions {
        config: Some(dir.0.join("config.toml")),
        db: Some(dir.db()),
        paths: sift_core::PathPolicy::Trusted,
        starter_schemas: false,
    })
    .unwrap();
    let files: Vec<_> = ["a.txt", "b.txt"]
        .iter()
        .map(|n| {
            let p = dir.0.join(n);
            std::fs::write(&p, "n\n").unwrap();
            p
        })
        .collect();
    let job = NewJob {
        schema_name: "n".into(),
        schema,
        prompt: None,
        files,
        selection: selection(&server, &["job-model"]),
        concurrency: 1,
        provider_id: None,
        ocr_languages: None,
        answers: None,
    };
    let (_, run) = start_job(&ws, job, |_| {}).unwrap();
    run.await.unwrap();
    let workflow = store
        .create_workflow_run(&NewWorkflowRun {
            file: "flow.yaml".into(),
            params: Vec::new(),
            from_run: None,
            from_step: None,
        })
        .unwrap();
    // A chat step on Anthropic's API, and one copied from an earlier run
    // (its tokens were spent there, so they are not counted again).
    for (position, name, reused) in [(0, "ask", false), (1, "copied", true)] {
        store
            .save_workflow_step(&StoredStep {
                run_id: workflow.id.clone(),
                position,
                name: name.into(),
                step_id: None,
                status: "succeeded".into(),
                stdout: String::new(),
                stderr: String::new(),
                outputs: json!({}),
                messages: json!([]),
                error: None,
                input_tokens: 70,
                output_tokens: 13,
                elapsed_ms: 5,
                reused,
                provider: Some("anthropic".into()),
                host: None,
                model: Some("claude-3-5-haiku-20241022".into()),
            })
            .unwrap();
    }

    let report = usage(
        &store,
        UsageRequest {
            from_ms: now_ms() - 3_600_000,
            to_ms: now_ms() + 3_600_000,
            utc_offset_minutes: 0,
        },
    )
    .unwrap();
    let conn = Connection::open(dir.db()).unwrap();
    let calls = sum(
        &conn,
        "SELECT sum(input_tokens), sum(output_tokens) FROM structured_calls",
    );
    let chats = sum(
        &conn,
        "SELECT sum(json_extract(metadata, '$.usage.input_tokens')), \
         sum(json_extract(metadata, '$.usage.output_tokens')) FROM messages",
    );
    let steps = sum(
        &conn,
        "SELECT sum(input_tokens), sum(output_tokens) FROM workflow_steps WHERE reused = 0",
    );
    assert_eq!((calls, chats, steps), ((255, 50), (31, 7), (70, 13)));
    assert_eq!(
        (report.input_tokens, report.output_tokens),
        (
            (calls.0 + chats.0 + steps.0) as u64,
            (calls.1 + chats.1 + steps.1) as u64
        )
    );
    let rows: Vec<_> = report
        .rows
        .iter()
        .map(|r| {
            (
                r.provider.as_str(),
                r.model.as_str(),
                r.kind.as_str(),
                r.count,
                r.input_tokens,
                r.output_tokens,
                r.cost,
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (
                "anthropic",
                "claude-3-5-haiku-20241022",
                "workflow step",
                1,
                70,
                13,
                Some(0.000108)
            ),
            (
                "openai",
                "call-model",
                "structured call",
                1,
                45,
                9,
                Some(0.0)
            ),
            ("openai", "chat-model", "chat", 1, 31, 7, Some(0.0)),
            ("openai", "job-model", "extraction", 2, 210, 41, Some(0.0)),
        ]
    );
    // 70 × $0.80 + 13 × $4 per million: the default price of Claude 3.5 Haiku.
    assert_eq!(
        (report.count, report.cost, report.unpriced_rows),
        (5, 0.000108, 0)
    );
    // A period that ends before it starts is refused.
    let refused = usage(
        &store,
        UsageRequest {
            from_ms: 10,
            to_ms: 10,
            utc_offset_minutes: 0,
        },
    )
    .unwrap_err();
    assert_eq!(refused.to_string(), "the period ends before it starts");
}
