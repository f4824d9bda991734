//! A crash loses no work: `sift` killed with SIGKILL during an extraction
//! job, a chat reply and a workflow run, each held by the scripted model
//! server mid-answer; then a workspace opened on the file (as the app or
//! the CLI does at its next start) finds the job interrupted, the reply
//! cut (with the message it answered) and the run's step interrupted;
//! the resume, the regenerated reply and the re-run complete, nothing is
//! stored twice, and `integrity_check` is ok.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use serde_json::json;
use sift_core::chat::sessions::list_sessions;
use sift_core::workflows::runs::stored_run;
use sift_core::{Workspace, WorkspaceOptions};
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{DocumentStatus, JobStatus, NewSession, Store};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

use crate::{run, sift, stderr, stdout};

/// Far above what any step needs; only a hung child reaches it.
const BOUND: Duration = Duration::from_secs(120);

struct Scratch {
    dir: PathBuf,
}

impl Scratch {
    fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "sift-cli-interrupted-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Self { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    fn db(&self) -> PathBuf {
        self.dir.join("sift.db")
    }

    /// A workspace on the file, as the next start of the app or the CLI
    /// opens it.
    fn reopen(&self) -> Workspace {
        Workspace::open(WorkspaceOptions::cli(Some(self.db()))).unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn raw(db: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(db).unwrap()
}

fn integrity(db: &Path) -> String {
    raw(db)
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap()
}

fn count(db: &Path, table: &str) -> i64 {
    raw(db)
        .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
}

/// Kills the child with SIGKILL (tokio's `start_kill` on Unix) and reaps it.
async fn kill_9(child: &mut tokio::process::Child) {
    child.start_kill().unwrap();
    let status = child.wait().await.unwrap();
    assert!(!status.success());
}

/// Waits until the server has received `n` requests (the held one among them).
async fn requests_reach(server: &ScriptedServer, n: usize) {
    tokio::time::timeout(BOUND, async {
        while server.requests().len() < n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the held request never came");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_extraction_is_interrupted_and_its_resume_completes_each_document_once() {
    let scratch = Scratch::new("extract");
    std::fs::write(
        scratch.dir.join("invoice.json"),
        r#"{"type": "object", "properties": {"number": {"type": "string"}}, "required": ["number"]}"#,
    )
    .unwrap();
    for i in 0..3 {
        std::fs::write(
            scratch.dir.join(format!("doc{i}.txt")),
            format!("document {i}\n"),
        )
        .unwrap();
    }
    let answer = Reply::tool_call("submit_output", json!({"number": "N"}));
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [answer.clone(), answer.clone().held("after-kill").repeated()],
    ))
    .await
    .unwrap();
    let url = server.openai_base_url();
    let db = scratch.path("sift.db");
    let schema = scratch.path("invoice.json");
    let docs = scratch.path("doc*.txt");
    let mut child = sift()
        .args([
            "--db",
            &db,
            "extract",
            "--schema",
            &schema,
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--model",
            "m",
            "--jobs",
            "1",
            &docs,
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next_line().await.unwrap().unwrap();
    let job_id = first.split(' ').nth(1).unwrap().to_owned();
    assert_eq!(first, format!("job {job_id} (3 documents)"));
    // The first document is answered; the second's request is held.
    requests_reach(&server, 2).await;
    kill_9(&mut child).await;

    let ws = scratch.reopen();
    let store = ws.store().unwrap();
    let job = store.get_extraction_job(&job_id).unwrap().unwrap();
    assert_eq!(job.status, JobStatus::Interrupted);
    let statuses: Vec<DocumentStatus> = store
        .extraction_documents(&job_id)
        .unwrap()
        .iter()
        .map(|d| d.status)
        .collect();
    assert_eq!(
        statuses,
        [
            DocumentStatus::Completed,
            DocumentStatus::Pending,
            DocumentStatus::Pending
        ]
    );
    assert_eq!(count(&scratch.db(), "structured_calls"), 1);
    assert_eq!(integrity(&scratch.db()), "ok");
    drop(ws);

    server.gate("after-kill").release();
    let output = run(sift().args([
        "--db",
        &db,
        "extract",
        "--resume",
        &job_id,
        "--provider",
        "openai",
        "--base-url",
        &url,
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let store = Store::open(scratch.db()).unwrap();
    assert_eq!(
        store.get_extraction_job(&job_id).unwrap().unwrap().status,
        JobStatus::Completed
    );
    let docs = store.extraction_documents(&job_id).unwrap();
    assert_eq!(docs.len(), 3);
    assert!(docs.iter().all(|d| d.status == DocumentStatus::Completed));
    // One call a document: the killed one was never stored.
    assert_eq!(count(&scratch.db(), "structured_calls"), 3);
    assert_eq!(count(&scratch.db(), "extraction_documents"), 3);
    assert_eq!(integrity(&scratch.db()), "ok");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_chat_reply_is_kept_cut_and_regenerating_it_stores_the_turn_once() {
    let scratch = Scratch::new("chat");
    let session = Store::open(scratch.db())
        .unwrap()
        .create_session(NewSession::default())
        .unwrap()
        .id;
    let server = ScriptedServer::start(
        Script::new().with(
            "m",
            [
                Reply::text("The total is 12.50 EUR.")
                    .chunk_chars(4)
                    .held_after_events("never", 4),
                Reply::text("The total is 12.50 EUR."),
            ],
        ),
    )
    .await
    .unwrap();
    let url = server.openai_base_url();
    let db = scratch.path("sift.db");
    let chat = |text: &str| {
        [
            "--db",
            &db,
            "chat",
            "--session",
            &session,
            text,
            "--provider",
            "openai",
            "--base-url",
            &url,
            "--model",
            "m",
        ]
        .map(str::to_owned)
    };
    let mut child = sift()
        .args(chat("What is the total?"))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // The reply is written before it is printed: once stdout shows the
    // text before the hold, the file holds it too.
    let mut out = child.stdout.take().unwrap();
    let mut printed = String::new();
    tokio::time::timeout(BOUND, async {
        let mut buf = [0u8; 64];
        while printed != "The total is" {
            let n = out.read(&mut buf).await.unwrap();
            assert!(n > 0, "sift ended early: {printed:?}");
            printed.push_str(std::str::from_utf8(&buf[..n]).unwrap());
        }
    })
    .await
    .expect("the reply never started");
    kill_9(&mut child).await;

    let ws = scratch.reopen();
    let view = list_sessions(&ws, "").unwrap().remove(0);
    let cut = view.cut_reply.unwrap();
    assert_eq!(
        (cut.prompt.as_str(), cut.reply.as_str()),
        ("What is the total?", "The total is")
    );
    assert_eq!(count(&scratch.db(), "messages"), 0);
    assert_eq!(integrity(&scratch.db()), "ok");
    drop(ws);

    // Regenerate: the same message sent again; the turn is stored once
    // and the cut reply is gone.
    let output = run(sift().args(chat(&cut.prompt))).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "The total is 12.50 EUR.\n");
    let store = Store::open(scratch.db()).unwrap();
    let rows: Vec<(String, String)> = store
        .messages(&session)
        .unwrap()
        .into_iter()
        .map(|m| {
            (
                format!("{:?}", m.role),
                m.parts[0]["text"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("User".to_owned(), "What is the total?".to_owned()),
            ("Assistant".to_owned(), "The total is 12.50 EUR.".to_owned())
        ]
    );
    assert_eq!(count(&scratch.db(), "chat_replies"), 0);
    assert_eq!(integrity(&scratch.db()), "ok");
}

const FLOW: &str = "steps:
  - name: fetch
    command: echo ACME-1
    output: NUMBER
  - name: summarise
    action: chat.completion
    with:
      provider: local
      model: m
      base_url: BASE_URL
      prompt: Summarise ${NUMBER}
";

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_run_has_its_step_interrupted_and_a_rerun_from_it_completes() {
    let scratch = Scratch::new("run");
    let server = ScriptedServer::start(Script::new().with(
        "m",
        [
            Reply::text("Held.").held("never"),
            Reply::text("Invoice ACME-1."),
        ],
    ))
    .await
    .unwrap();
    std::fs::write(
        scratch.dir.join("flow.yaml"),
        FLOW.replace("BASE_URL", &server.openai_base_url()),
    )
    .unwrap();
    let db = scratch.path("sift.db");
    let mut child = sift()
        .current_dir(&scratch.dir)
        .args(["--db", &db, "run", "flow.yaml"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    requests_reach(&server, 1).await;
    kill_9(&mut child).await;

    let ws = scratch.reopen();
    let run_id: String = raw(&scratch.db())
        .query_row("SELECT id FROM workflow_runs", [], |row| row.get(0))
        .unwrap();
    let view = stored_run(&ws, &run_id).unwrap();
    assert_eq!(view.status, "interrupted");
    let steps: Vec<(&str, &str)> = view
        .steps
        .iter()
        .map(|s| (s.name.as_str(), s.status.as_str()))
        .collect();
    assert_eq!(
        steps,
        [("fetch", "succeeded"), ("summarise", "interrupted")]
    );
    assert_eq!(integrity(&scratch.db()), "ok");
    drop(ws);

    // Re-run from the interrupted step: the step before it is reused.
    let output = run(sift().current_dir(&scratch.dir).args([
        "--db",
        &db,
        "run",
        "flow.yaml",
        "--from",
        "summarise",
        "--run",
        &run_id,
    ]))
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let rows: Vec<(String, String, i64)> = {
        let conn = raw(&scratch.db());
        let mut stmt = conn
            .prepare(
                "SELECT s.name, s.status, s.reused FROM workflow_steps s \
                 JOIN workflow_runs r ON r.id = s.run_id WHERE r.from_run = ?1 ORDER BY s.position",
            )
            .unwrap();
        stmt.query_map([&run_id], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    };
    assert_eq!(
        rows,
        [
            ("fetch".to_owned(), "succeeded".to_owned(), 1),
            ("summarise".to_owned(), "succeeded".to_owned(), 0)
        ]
    );
    // The request the kill cut, then the re-run's: the fetch ran once.
    assert_eq!(server.requests().len(), 2);
    assert_eq!(count(&scratch.db(), "workflow_runs"), 2);
    assert_eq!(integrity(&scratch.db()), "ok");
}
