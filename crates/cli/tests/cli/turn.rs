//! `sift session` and `sift turn` (seed 003): host-owned turns across
//! separate `sift` processes on one SIFT_DB file, so a suspended turn
//! survives a "restart"; exact stdout, and the stored rows through
//! `sift session show`.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use tokio::process::Command;

use crate::{run, sift, stderr, stdout};

/// A fresh database file (and room for JSON files) for one test.
struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("sift-cli-turn-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self { dir }
    }

    /// `sift` on this test's database, through `SIFT_DB`.
    fn sift(&self) -> Command {
        let mut command = sift();
        command.env("SIFT_DB", self.dir.join("sift.db"));
        command
    }

    fn file(&self, name: &str, value: &Value) -> String {
        let path = self.dir.join(name);
        std::fs::write(&path, value.to_string()).unwrap();
        path.display().to_string()
    }

    async fn new_session(&self, system: Option<&str>) -> String {
        let mut command = self.sift();
        command.args(["session", "new"]);
        if let Some(system) = system {
            command.args(["--system", system]);
        }
        let output = run(&mut command).await;
        assert_eq!(
            (output.status.code(), stderr(&output).as_str()),
            (Some(0), "")
        );
        let id = stdout(&output);
        assert!(id.starts_with("ses_") && id.ends_with('\n'), "{id:?}");
        id.trim_end().to_owned()
    }

    /// `sift session show`: each row without its id and time, which vary.
    async fn rows(&self, session: &str) -> Vec<Value> {
        let output = run(self.sift().args(["session", "show", session])).await;
        assert_eq!(
            (output.status.code(), stderr(&output).as_str()),
            (Some(0), "")
        );
        stdout(&output)
            .lines()
            .map(|line| {
                let mut row: Value = serde_json::from_str(line).unwrap();
                let row_map = row.as_object_mut().unwrap();
                assert!(
                    row_map
                        .remove("id")
                        .unwrap()
                        .as_str()
                        .unwrap()
                        .starts_with("msg_")
                );
                assert!(row_map.remove("created_at").unwrap().is_i64());
                assert_eq!(row_map.remove("session_id").unwrap(), json!(session));
                row
            })
            .collect()
    }

    /// `sift turn` on `session` against `server`, plus `args`.
    fn turn(&self, server: &ScriptedServer, session: &str, args: &[&str]) -> Command {
        let mut command = self.sift();
        command.args(["turn", "--session", session]);
        command.args([
            "--provider",
            "openai",
            "--base-url",
            &server.openai_base_url(),
        ]);
        command.args(["--model", "m"]);
        command.args(args);
        command
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script::new().with("m", replies))
        .await
        .unwrap()
}

fn weather_tools() -> Value {
    json!([{
        "name": "weather",
        "description": "The weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }])
}

fn row(seq: i64, role: &str, parts: Value) -> Value {
    json!({"seq": seq, "role": role, "parts": parts, "metadata": {}, "hidden": false})
}

fn text(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

fn weather_calls() -> Value {
    json!([
        {"type": "tool_call", "id": "call_1", "name": "weather", "arguments": "{\"city\":\"Oslo\"}"},
        {"type": "tool_call", "id": "call_2", "name": "weather", "arguments": "{\"city\":\"Rome\"}"},
    ])
}

const SUSPENDED: &str = r#"{"content":null,"pending":[{"arguments":{"city":"Oslo"},"id":"call_1","name":"weather"},{"arguments":{"city":"Rome"},"id":"call_2","name":"weather"}],"signals":[]}
"#;

/// Starts a turn that suspends on `weather` for Oslo and Rome.
async fn suspend(scratch: &Scratch, server: &ScriptedServer, session: &str) {
    let tools = scratch.file("tools.json", &weather_tools());
    let output = run(&mut scratch.turn(
        server,
        session,
        &["--message", "Weather in Oslo and Rome?", "--tools", &tools],
    ))
    .await;
    assert_eq!(stderr(&output), "");
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (Some(0), SUSPENDED)
    );
}

fn weather_reply() -> Reply {
    Reply::tool_call("weather", json!({"city": "Oslo"}))
        .and_tool_call("weather", json!({"city": "Rome"}))
}

#[tokio::test]
async fn a_turn_suspends_refuses_a_message_and_resumes_in_later_processes() {
    let scratch = Scratch::new("round-trip");
    let server = server(vec![
        weather_reply(),
        Reply::text("Oslo: rain. Rome: sun."),
        Reply::text("You're welcome."),
    ])
    .await;
    let session = scratch.new_session(Some("Be brief.")).await;
    suspend(&scratch, &server, &session).await;
    assert_eq!(
        server.requests()[0].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Oslo and Rome?"},
            ],
            "tools": [{"type": "function", "function": weather_tools()[0]}],
        })
    );
    // While suspended, the session holds nothing of the turn.
    assert_eq!(scratch.rows(&session).await, Vec::<Value>::new());

    // A new message is refused with the pending ids, and nothing is sent.
    let output = run(&mut scratch.turn(&server, &session, &["--message", "Hello?"])).await;
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output).as_str()
        ),
        (
            Some(1),
            "{\"error\":\"tool_results_required\",\"ids\":[\"call_1\",\"call_2\"]}\n",
            "error (tool_results_required): tool results are required first for: call_1, call_2\n"
        )
    );
    assert_eq!(server.requests().len(), 1);

    // The results, in another order, without --tools: the turn's tools are
    // advertised again.
    let results = scratch.file(
        "results.json",
        &json!([
            {"id": "call_2", "content": "sun"},
            {"id": "call_1", "content": "rain", "is_error": false},
        ]),
    );
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &results])).await;
    assert_eq!(stderr(&output), "");
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (
            Some(0),
            "{\"content\":\"Oslo: rain. Rome: sun.\",\"pending\":[],\"signals\":[]}\n"
        )
    );
    assert_eq!(
        server.requests()[1].body,
        json!({
            "model": "m",
            "messages": [
                {"role": "system", "content": "Be brief."},
                {"role": "user", "content": "Weather in Oslo and Rome?"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
                    {"id": "call_2", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Rome\"}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "rain"},
                {"role": "tool", "tool_call_id": "call_2", "content": "sun"},
            ],
            "tools": [{"type": "function", "function": weather_tools()[0]}],
        })
    );
    let turn_rows = vec![
        row(1, "system", text("Be brief.")),
        row(2, "user", text("Weather in Oslo and Rome?")),
        row(3, "assistant", weather_calls()),
        row(
            4,
            "tool",
            json!([
                {"type": "tool_result", "call_id": "call_1", "content": "rain", "is_error": false},
                {"type": "tool_result", "call_id": "call_2", "content": "sun", "is_error": false},
            ]),
        ),
        row(5, "assistant", text("Oslo: rain. Rome: sun.")),
    ];
    assert_eq!(scratch.rows(&session).await, turn_rows);

    // The next turn: the system prompt is not sent a second time.
    let output = run(&mut scratch.turn(&server, &session, &["--message", "Thanks"])).await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (
            Some(0),
            "{\"content\":\"You're welcome.\",\"pending\":[],\"signals\":[]}\n"
        )
    );
    let sent = server.requests()[2].body.clone();
    assert_eq!(sent.get("tools"), None);
    let messages = sent["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 7);
    assert_eq!(
        messages[0],
        json!({"role": "system", "content": "Be brief."})
    );
    assert_eq!(
        messages[5],
        json!({"role": "assistant", "content": "Oslo: rain. Rome: sun."})
    );
    assert_eq!(messages[6], json!({"role": "user", "content": "Thanks"}));
    let mut all_rows = turn_rows;
    all_rows.push(row(6, "user", text("Thanks")));
    all_rows.push(row(7, "assistant", text("You're welcome.")));
    assert_eq!(scratch.rows(&session).await, all_rows);

    // Results with nothing pending are refused.
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &results])).await;
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output).as_str()
        ),
        (
            Some(2),
            "",
            "error: no tool calls are pending, so there is nothing to take tool results for\n"
        )
    );
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn results_must_match_the_pending_ids_and_a_failed_call_writes_nothing() {
    let scratch = Scratch::new("mismatch");
    let server = server(vec![
        weather_reply(),
        Reply::fault(400, r#"{"error":{"message":"context too long"}}"#),
        Reply::text("Done."),
    ])
    .await;
    let session = scratch.new_session(None).await;
    suspend(&scratch, &server, &session).await;

    let cases = [
        (
            json!([{"id": "call_1", "content": "rain"}]),
            "error: tool results are missing for: call_2\n",
        ),
        (
            json!([{"id": "call_1", "content": "rain"}, {"id": "call_2", "content": "sun"}, {"id": "call_9", "content": "?"}]),
            "error: tool results for calls that are not pending: call_9 (pending: call_1, call_2)\n",
        ),
    ];
    for (results, expected) in cases {
        let file = scratch.file("results.json", &results);
        let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &file])).await;
        assert_eq!(
            (
                output.status.code(),
                stdout(&output).as_str(),
                stderr(&output).as_str()
            ),
            (Some(2), "", expected)
        );
    }
    assert_eq!(server.requests().len(), 1);

    let results = scratch.file(
        "results.json",
        &json!([{"id": "call_1", "content": "rain"}, {"id": "call_2", "content": "sun", "is_error": true}]),
    );
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &results])).await;
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output).as_str()
        ),
        (Some(1), "", "error (model): HTTP 400: context too long\n")
    );
    assert_eq!(scratch.rows(&session).await, Vec::<Value>::new());

    // Still suspended: the same results go again.
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &results])).await;
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (
            Some(0),
            "{\"content\":\"Done.\",\"pending\":[],\"signals\":[]}\n"
        )
    );
    let requests = server.requests();
    assert_eq!(requests[1].body, requests[2].body);
    // No system prompt: the session has none.
    assert_eq!(
        scratch.rows(&session).await,
        vec![
            row(1, "user", text("Weather in Oslo and Rome?")),
            row(2, "assistant", weather_calls()),
            row(
                3,
                "tool",
                json!([
                    {"type": "tool_result", "call_id": "call_1", "content": "rain", "is_error": false},
                    {"type": "tool_result", "call_id": "call_2", "content": "sun", "is_error": true},
                ]),
            ),
            row(4, "assistant", text("Done.")),
        ]
    );
}

/// Supplied results are kept before the model call they feed: after it
/// fails, an empty list sends the kept ones, and the request is the same.
#[tokio::test]
async fn results_are_kept_before_the_call_and_a_retry_reuses_them() {
    let scratch = Scratch::new("kept");
    let server = server(vec![
        weather_reply(),
        Reply::fault(400, r#"{"error":{"message":"context too long"}}"#),
        Reply::text("Done."),
    ])
    .await;
    let session = scratch.new_session(None).await;
    suspend(&scratch, &server, &session).await;
    let results = scratch.file(
        "results.json",
        &json!([{"id": "call_1", "content": "rain"}, {"id": "call_2", "content": "sun"}]),
    );
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &results])).await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(scratch.rows(&session).await, Vec::<Value>::new());

    let none = scratch.file("none.json", &json!([]));
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &none])).await;
    assert_eq!(stderr(&output), "");
    assert_eq!(
        (output.status.code(), stdout(&output).as_str()),
        (
            Some(0),
            "{\"content\":\"Done.\",\"pending\":[],\"signals\":[]}\n"
        )
    );
    let requests = server.requests();
    assert_eq!(requests[1].body, requests[2].body);
    assert_eq!(
        scratch.rows(&session).await[2],
        row(
            3,
            "tool",
            json!([
                {"type": "tool_result", "call_id": "call_1", "content": "rain", "is_error": false},
                {"type": "tool_result", "call_id": "call_2", "content": "sun", "is_error": false},
            ]),
        )
    );
}

#[tokio::test]
async fn two_processes_cannot_resume_one_turn_twice() {
    let scratch = Scratch::new("race");
    let server = server(vec![
        weather_reply(),
        // Held until the fast process has finished: the slow one's answer
        // comes after, however long the fast one takes.
        Reply::text("first, but slow").held("slow"),
        Reply::text("second, and fast"),
    ])
    .await;
    let session = scratch.new_session(None).await;
    suspend(&scratch, &server, &session).await;
    let results = scratch.file(
        "results.json",
        &json!([{"id": "call_1", "content": "rain"}, {"id": "call_2", "content": "sun"}]),
    );

    let mut slow = scratch.turn(&server, &session, &["--tool-results", &results]);
    let slow = tokio::spawn(async move { slow.output().await.unwrap() });
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while server.requests().len() < 2 {
        assert!(
            std::time::Instant::now() < deadline,
            "the slow process sent nothing in 60 s"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let fast = run(&mut scratch.turn(&server, &session, &["--tool-results", &results])).await;
    server.gate("slow").release();
    assert_eq!(
        (fast.status.code(), stdout(&fast).as_str()),
        (
            Some(0),
            "{\"content\":\"second, and fast\",\"pending\":[],\"signals\":[]}\n"
        )
    );
    let slow = slow.await.unwrap();
    assert_eq!(
        (slow.status.code(), stdout(&slow).as_str(), stderr(&slow).as_str()),
        (
            Some(2),
            "",
            format!(
                "error: the suspended turn of session {session} was resumed by another process meanwhile; nothing was written\n"
            )
            .as_str()
        )
    );
    let rows = scratch.rows(&session).await;
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[3], row(4, "assistant", text("second, and fast")));
}

#[tokio::test]
async fn bad_input_files_and_flags_are_usage_errors() {
    let scratch = Scratch::new("usage");
    let server = server(vec![]).await;
    let session = scratch.new_session(None).await;
    let missing = scratch.dir.join("missing.json").display().to_string();
    let not_a_list = scratch.file("tools.json", &json!({"name": "weather"}));
    let no_content = scratch.file("results.json", &json!([{"id": "call_1"}]));

    let output =
        run(&mut scratch.turn(&server, &session, &["--message", "hi", "--tools", &missing])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(&format!("error: cannot read the tools file {missing}: ")),
        "{}",
        stderr(&output)
    );
    let output = run(&mut scratch.turn(
        &server,
        &session,
        &["--message", "hi", "--tools", &not_a_list],
    ))
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(&format!(
            "error: the tools file {not_a_list} is not a JSON list of {{name, description, parameters}}: "
        )),
        "{}",
        stderr(&output)
    );
    let output = run(&mut scratch.turn(&server, &session, &["--tool-results", &no_content])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).starts_with(&format!(
            "error: the tool results file {no_content} is not a JSON list of {{id, content, is_error?}}: missing field `content`"
        )),
        "{}",
        stderr(&output)
    );
    // Exactly one of --message and --tool-results.
    for args in [
        &[][..],
        &["--message", "hi", "--tool-results", &no_content][..],
    ] {
        let output = run(&mut scratch.turn(&server, &session, args)).await;
        assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
        assert_eq!(stdout(&output), "");
    }
    assert!(server.requests().is_empty());
    assert_eq!(scratch.rows(&session).await, Vec::<Value>::new());
}

#[tokio::test]
async fn unknown_sessions_are_not_found() {
    let scratch = Scratch::new("unknown");
    let server = server(vec![]).await;
    let output = run(scratch.sift().args(["session", "show", "ses_nope"])).await;
    assert_eq!(
        (
            output.status.code(),
            stdout(&output).as_str(),
            stderr(&output).as_str()
        ),
        (Some(1), "", "error (other): session ses_nope not found\n")
    );
    let output = run(&mut scratch.turn(&server, "ses_nope", &["--message", "hi"])).await;
    assert_eq!(
        (output.status.code(), stderr(&output).as_str()),
        (Some(1), "error (other): session ses_nope not found\n")
    );
    assert!(server.requests().is_empty());
}

#[tokio::test]
async fn a_host_turn_after_a_chat_turn_still_sends_the_system_prompt_first() {
    let scratch = Scratch::new("after-chat");
    let server = ScriptedServer::start(
        Script::new().with("m", [Reply::text("hello"), Reply::text("again")]),
    )
    .await
    .unwrap();
    let created = run(scratch
        .sift()
        .args(["session", "new", "--system", "Be brief."]))
    .await;
    let id = stdout(&created).trim().to_owned();
    let model = [
        "--provider",
        "openai",
        "--base-url",
        &server.openai_base_url(),
        "--model",
        "m",
    ];
    let chat = run(scratch
        .sift()
        .args(["chat", "--session", &id, "hi"])
        .args(model))
    .await;
    assert_eq!(chat.status.code(), Some(0), "{}", stderr(&chat));
    let turn = run(scratch
        .sift()
        .args(["turn", "--session", &id, "--message", "and now?"])
        .args(model))
    .await;
    assert_eq!(turn.status.code(), Some(0), "{}", stderr(&turn));
    let messages = server.requests()[1].body["messages"].clone();
    assert_eq!(
        messages[0],
        json!({"role": "system", "content": "Be brief."})
    );
    assert_eq!(messages[1], json!({"role": "user", "content": "hi"}));
    assert_eq!(
        messages
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "system")
            .count(),
        1
    );
}
