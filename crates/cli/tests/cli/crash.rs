//! `kill -9` during structured calls in a session, again and again: the
//! database stays sound and holds only whole calls.

use std::collections::HashSet;
use std::time::Duration;

use serde_json::json;
use sift_scripted_server::{Reply, Script, ScriptedServer};
use sift_store::{NewSession, Store};

use crate::sift;

#[tokio::test(flavor = "multi_thread")]
async fn killing_sift_mid_call_leaves_no_partial_call_or_duplicate() {
    let dir = std::env::temp_dir().join(format!("sift-cli-crash-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("sift.db");
    let schema = dir.join("schema.json");
    std::fs::write(
        &schema,
        json!({"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
            .to_string(),
    )
    .unwrap();
    let store = Store::open(&db).unwrap();
    let session = store.create_session(NewSession::default()).unwrap();
    // Each answer takes a while, so kills land before, during and after it.
    let reply = Reply::tool_call("submit_output", json!({"n": 1}))
        .delay_ms(40)
        .repeated();
    let server = ScriptedServer::start(Script::new().with("m", [reply]))
        .await
        .unwrap();

    let mut completed_runs = 0;
    for round in 0..24u64 {
        let mut child = sift()
            .args([
                "--db",
                &db.display().to_string(),
                "call",
                "--schema",
                &schema.display().to_string(),
                "--prompt",
                &format!("round {round}"),
                "--session",
                &session.id,
                "--provider",
                "openai",
                "--base-url",
                &server.openai_base_url(),
                "--model",
                "m",
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kill at a different moment each round: 0 to 115 ms.
        tokio::time::sleep(Duration::from_millis((round * 37) % 120)).await;
        child.start_kill().unwrap();
        let status = child.wait().await.unwrap();
        if status.success() {
            completed_runs += 1;
        }
    }

    let connection = rusqlite::Connection::open(&db).unwrap();
    let check: String = connection
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    let messages = store.messages(&session.id).unwrap();
    let calls = store.calls_in_session(&session.id).unwrap();
    assert!(
        calls.len() >= completed_runs,
        "{} calls, {completed_runs} runs finished",
        calls.len()
    );
    // Whole calls only: four messages each (prompt, answer call, its result,
    // the hidden text copy), every one inside exactly one call's span.
    assert_eq!(
        messages.len(),
        4 * calls.len(),
        "{} messages for {} calls",
        messages.len(),
        calls.len()
    );
    let seqs: Vec<i64> = messages.iter().map(|m| m.seq).collect();
    assert_eq!(seqs, (1..=messages.len() as i64).collect::<Vec<_>>());
    let mut prompts = HashSet::new();
    for call in &calls {
        let (first, last) = (call.first_seq.unwrap(), call.last_seq.unwrap());
        assert_eq!(last - first, 3);
        let prompt = &messages[(first - 1) as usize].parts[0]["text"];
        assert!(
            prompts.insert(prompt.to_string()),
            "{prompt} was recorded twice"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
