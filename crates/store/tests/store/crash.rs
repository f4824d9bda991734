//! kill -9 during writes, repeated: the file stays intact and holds only
//! whole turns.
//!
//! The test re-runs its own binary as a child (`crash_child`, ignored in
//! normal runs) that commits turns in a loop as fast as it can: three
//! messages and a structured call each, tagged alike, with the pending
//! state set or cleared and now and then a standalone call. The parent
//! waits until the child is writing, lets it run a random while, and
//! SIGKILLs it; twenty times. Then it checks the file.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;
use sift_store::{
    NewMessage, NewPendingTurn, PendingChange, PendingToolCall, Role, Store, TurnWrite,
};

use crate::{TempDir, call, count, raw, session};

const CHILD_ENV: &str = "SIFT_STORE_CRASH_CHILD";
const ROUNDS: usize = 20;
const SESSIONS: usize = 3;

/// The child process of `kill_9_during_commits_leaves_only_whole_turns`:
/// it does nothing unless that test started it (so that a plain run, or
/// one with `--include-ignored`, passes over it).
#[test]
fn crash_child() {
    let Some(path) = std::env::var_os(CHILD_ENV) else {
        return;
    };
    let store = Store::open(&path).unwrap();
    let sessions = store.list_sessions().unwrap();
    assert_eq!(sessions.len(), SESSIONS);
    // Each turn revises the session's previous call, so parent ids are
    // checked on every write.
    let mut last_call: BTreeMap<String, Option<String>> = sessions
        .iter()
        .map(|s| {
            let calls = store.calls_in_session(&s.id).unwrap();
            (s.id.clone(), calls.last().map(|c| c.id.clone()))
        })
        .collect();
    let started = Instant::now();
    let mut i = 0usize;
    // Bounded, in case the parent dies without killing it.
    while started.elapsed() < Duration::from_secs(60) {
        let s = &sessions[i % SESSIONS];
        let tag = format!("{}-{i}", std::process::id());
        let meta = json!({ "tag": tag });
        let mut c = call("crash");
        c.metadata = meta.clone();
        c.parent_id = last_call[&s.id].clone();
        c.output = Some(json!({"i": i, "filler": "x".repeat(i % 700)}));
        let pending = if i.is_multiple_of(2) {
            PendingChange::Set(NewPendingTurn {
                transcript: json!([{"tag": tag}]),
                state: meta.clone(),
                tool_calls: vec![
                    PendingToolCall {
                        id: format!("{tag}-a"),
                        name: "a".into(),
                        arguments: "{}".into(),
                    },
                    PendingToolCall {
                        id: format!("{tag}-b"),
                        name: "b".into(),
                        arguments: "{}".into(),
                    },
                ],
                approvals: vec![],
            })
        } else {
            PendingChange::Clear
        };
        let commit = store
            .commit_turn(TurnWrite {
                messages: vec![
                    NewMessage::text(Role::User, format!("question {tag}"))
                        .with_metadata(meta.clone()),
                    NewMessage::text(Role::Assistant, format!("answer {tag}"))
                        .with_metadata(meta.clone()),
                    NewMessage::text(Role::Assistant, format!("copy {tag}"))
                        .with_metadata(meta.clone())
                        .hidden(),
                ],
                call: Some(c),
                pending,
                ..TurnWrite::new(&s.id)
            })
            .unwrap();
        last_call.insert(s.id.clone(), commit.call.map(|c| c.id));
        if i % 5 == 4 {
            let mut standalone = call("crash-standalone");
            standalone.transcript = Some(json!([{"tag": tag}]));
            store.insert_standalone_call(standalone).unwrap();
        }
        i += 1;
    }
}

/// Waits until the file holds more than `above` messages.
fn wait_for_messages(path: &Path, above: i64) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let n = raw(path)
            .query_row("SELECT COUNT(*) FROM messages", [], |row| {
                row.get::<_, i64>(0)
            })
            .unwrap_or(above);
        if n > above {
            return;
        }
        assert!(Instant::now() < deadline, "the child wrote nothing in 60 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

#[test]
fn kill_9_during_commits_leaves_only_whole_turns() {
    let dir = TempDir::new("crash");
    let db = dir.db();
    {
        let store = Store::open(&db).unwrap();
        for _ in 0..SESSIONS {
            session(&store);
        }
    }
    let exe = std::env::current_exe().unwrap();
    let mut rng = fastrand::Rng::new();
    let mut delays = Vec::new();
    for _ in 0..ROUNDS {
        let before = count(&db, "messages");
        let mut child = Command::new(&exe)
            .args([
                "--exact",
                "crash::crash_child",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD_ENV, &db)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        wait_for_messages(&db, before);
        let delay = rng.u64(0..=60);
        delays.push(delay);
        std::thread::sleep(Duration::from_millis(delay));
        child.kill().unwrap();
        let output = child.wait_with_output().unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt;
            assert_eq!(
                output.status.signal(),
                Some(9),
                "the child ended before the kill: {:?}\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
    }

    let conn = raw(&db);
    let integrity: Vec<String> = conn
        .prepare("PRAGMA integrity_check")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(integrity, vec!["ok".to_owned()]);
    let fk_violations: i64 = conn
        .query_row("SELECT COUNT(*) FROM pragma_foreign_key_check", [], |row| {
            row.get(0)
        })
        .unwrap();
    assert_eq!(fk_violations, 0);
    drop(conn);

    // The store recovers the file and reads it whole.
    let store = Store::open(&db).unwrap();
    let sessions = store.list_sessions().unwrap();
    assert_eq!(sessions.len(), SESSIONS);
    let mut total_turns = 0;
    for s in &sessions {
        let messages = store.messages(&s.id).unwrap();
        let n = messages.len();
        assert_eq!(n % 3, 0, "a partial turn in {}: {n} messages", s.id);
        assert_eq!(
            messages.iter().map(|m| m.seq).collect::<Vec<_>>(),
            (1..=n as i64).collect::<Vec<_>>(),
            "seqs of {} have a gap or a duplicate",
            s.id
        );
        let calls = store.calls_in_session(&s.id).unwrap();
        assert_eq!(calls.len() * 3, n, "calls and turns differ in {}", s.id);
        let mut previous: Option<String> = None;
        for (k, c) in calls.iter().enumerate() {
            let first = 3 * k as i64 + 1;
            assert_eq!(
                (c.first_seq, c.last_seq),
                (Some(first), Some(first + 2)),
                "span of call {}",
                c.id
            );
            let turn = &messages[3 * k..3 * k + 3];
            for m in turn {
                assert_eq!(m.metadata, c.metadata, "message {} vs call {}", m.seq, c.id);
            }
            assert_eq!(
                turn.iter().map(|m| (m.role, m.hidden)).collect::<Vec<_>>(),
                vec![
                    (Role::User, false),
                    (Role::Assistant, false),
                    (Role::Assistant, true)
                ]
            );
            assert_eq!(c.parent_id, previous, "parent of call {}", c.id);
            previous = Some(c.id.clone());
        }
        total_turns += calls.len();
        // A pending turn is whole: both of its tool calls, and from the
        // session's last turn (even turns set it, odd ones clear it).
        let pending = store.pending_turn(&s.id).unwrap();
        let last_tag = calls.last().map(|c| c.metadata["tag"].clone());
        let last_index = last_tag.as_ref().map(|tag| {
            let tag = tag.as_str().unwrap();
            tag.rsplit('-').next().unwrap().parse::<usize>().unwrap()
        });
        assert_eq!(
            pending.is_some(),
            last_index.is_some_and(|i| i.is_multiple_of(2)),
            "pending state of {} after turn {last_index:?}",
            s.id
        );
        if let Some(p) = pending {
            assert_eq!(p.tool_calls.len(), 2);
            assert_eq!(Some(p.state["tag"].clone()), last_tag);
            let tag = p.state["tag"].as_str().unwrap().to_owned();
            assert_eq!(
                p.pending_ids(),
                vec![format!("{tag}-a"), format!("{tag}-b")]
            );
        }
    }
    // Every round killed a child that had written at least one turn.
    assert!(
        total_turns >= ROUNDS,
        "{total_turns} turns in {ROUNDS} rounds"
    );
    assert_eq!(
        count(&db, "pending_tool_calls"),
        2 * count(&db, "pending_turns")
    );
    for c in store.list_calls(Some("crash-standalone")).unwrap() {
        assert_eq!(c.session_id, None);
        assert!(c.transcript.is_some());
    }

    // And it carries on from there.
    let s = &sessions[0];
    let next = store.last_seq(&s.id).unwrap() + 1;
    let commit = store
        .commit_turn(TurnWrite {
            messages: vec![NewMessage::text(Role::User, "after the crashes")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(commit.messages[0].seq, next);
    eprintln!("crash test: {total_turns} whole turns, kill delays (ms) {delays:?}");
}
