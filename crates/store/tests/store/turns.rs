//! commit_turn: sequence numbers, spans, and all-or-nothing writes.

use serde_json::json;
use sift_store::{
    CallStatus, NewMessage, NewPendingTurn, PendingChange, PendingGuard, PendingToolCall, Role,
    Store, StoreError, TurnWrite,
};

use crate::{assistant, call, counts, fresh, session, user};

fn seqs(store: &Store, session_id: &str) -> Vec<i64> {
    store
        .messages(session_id)
        .unwrap()
        .iter()
        .map(|m| m.seq)
        .collect()
}

fn pending_of(ids: &[&str]) -> NewPendingTurn {
    NewPendingTurn {
        transcript: json!([{"role": "user", "parts": [{"type": "text", "text": "go"}]}]),
        state: json!({}),
        tool_calls: ids
            .iter()
            .map(|id| PendingToolCall {
                id: (*id).to_owned(),
                name: "lookup".into(),
                arguments: "{\"q\":1}".into(),
            })
            .collect(),
        approvals: vec![],
    }
}

#[test]
fn seqs_increase_without_gaps_across_commits_and_sessions() {
    let (_dir, store) = fresh("seqs");
    let a = session(&store);
    let b = session(&store);
    let mut expected_a = 0;
    let mut expected_b = 0;
    for round in 0..6usize {
        for (s, expected) in [(&a, &mut expected_a), (&b, &mut expected_b)] {
            let n = (round % 3) + usize::from(s.id == b.id);
            let messages: Vec<NewMessage> =
                (0..n).map(|i| user(&format!("r{round} m{i}"))).collect();
            let commit = store
                .commit_turn(TurnWrite {
                    messages,
                    call: Some(call("chat")),
                    ..TurnWrite::new(&s.id)
                })
                .unwrap();
            let got: Vec<i64> = commit.messages.iter().map(|m| m.seq).collect();
            let want: Vec<i64> = (*expected + 1..=*expected + n as i64).collect();
            assert_eq!(got, want);
            let committed_call = commit.call.unwrap();
            if n == 0 {
                assert_eq!(
                    (committed_call.first_seq, committed_call.last_seq),
                    (None, None)
                );
            } else {
                assert_eq!(
                    (committed_call.first_seq, committed_call.last_seq),
                    (Some(*expected + 1), Some(*expected + n as i64))
                );
            }
            assert_eq!(committed_call.session_id.as_deref(), Some(s.id.as_str()));
            *expected += n as i64;
        }
    }
    assert_eq!(expected_a, 6);
    assert_eq!(expected_b, 12);
    assert_eq!(seqs(&store, &a.id), (1..=6).collect::<Vec<_>>());
    assert_eq!(seqs(&store, &b.id), (1..=12).collect::<Vec<_>>());
    assert_eq!(store.last_seq(&a.id).unwrap(), 6);
    assert_eq!(store.last_seq(&b.id).unwrap(), 12);
    let texts: Vec<String> = store
        .messages(&a.id)
        .unwrap()
        .iter()
        .map(|m| m.parts[0]["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        texts,
        ["r1 m0", "r2 m0", "r2 m1", "r4 m0", "r5 m0", "r5 m1"]
    );
}

#[test]
fn concurrent_writers_on_one_file_never_collide() {
    let (dir, store) = fresh("concurrent");
    let s = session(&store);
    // Two handles on the file (two connections, as two processes have),
    // and clones of each shared between threads.
    let other = Store::open(dir.db()).unwrap();
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let store = if t % 2 == 0 {
                store.clone()
            } else {
                other.clone()
            };
            let id = s.id.clone();
            std::thread::spawn(move || {
                for i in 0..25 {
                    store
                        .commit_turn(TurnWrite {
                            messages: vec![user(&format!("t{t} {i}")), assistant("ok")],
                            call: Some(call("chat")),
                            ..TurnWrite::new(&id)
                        })
                        .unwrap();
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
    let messages = store.messages(&s.id).unwrap();
    assert_eq!(
        messages.iter().map(|m| m.seq).collect::<Vec<_>>(),
        (1..=200).collect::<Vec<_>>()
    );
    // Each call's span holds exactly its own pair.
    let calls = store.calls_in_session(&s.id).unwrap();
    assert_eq!(calls.len(), 100);
    for c in &calls {
        let (first, last) = (c.first_seq.unwrap(), c.last_seq.unwrap());
        assert_eq!(last - first, 1);
        assert_eq!(messages[(first - 1) as usize].role, Role::User);
        assert_eq!(messages[(last - 1) as usize].role, Role::Assistant);
    }
}

#[test]
fn a_bad_parent_id_writes_nothing() {
    let (dir, store) = fresh("bad-parent");
    let s = session(&store);
    let first = store
        .commit_turn(TurnWrite {
            messages: vec![user("one"), assistant("two")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let before = counts(&dir.db());
    assert_eq!(
        before,
        [
            ("sessions", 1),
            ("messages", 2),
            ("structured_calls", 0),
            ("pending_turns", 0),
            ("pending_tool_calls", 0),
            ("pending_approvals", 0),
        ]
    );

    let mut bad = call("planner");
    bad.parent_id = Some("call_does_not_exist".into());
    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("a"), assistant("b"), assistant("c")],
            call: Some(bad),
            pending: PendingChange::Set(pending_of(&["t1"])),
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::Sqlite(e) if e.to_string().contains("FOREIGN KEY constraint failed")),
        "{err:?}"
    );
    assert_eq!(counts(&dir.db()), before);
    assert_eq!(store.get_session(&s.id).unwrap().unwrap(), first.session);

    // The next commit carries on from seq 3: the failed one left no hole.
    let next = store
        .commit_turn(TurnWrite {
            messages: vec![user("three")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(next.messages[0].seq, 3);
    assert_eq!(seqs(&store, &s.id), vec![1, 2, 3]);
}

#[test]
fn a_duplicate_call_id_writes_nothing() {
    let (dir, store) = fresh("dup-call");
    let s = session(&store);
    let mut first = call("planner");
    first.id = Some("call_fixed".into());
    store
        .commit_turn(TurnWrite {
            messages: vec![user("q"), assistant("a")],
            call: Some(first.clone()),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let before = counts(&dir.db());
    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("q2"), assistant("a2"), assistant("a3")],
            call: Some(first.clone()),
            pending: PendingChange::Set(pending_of(&["t1", "t2"])),
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::Sqlite(e) if e.to_string().contains("UNIQUE constraint failed: structured_calls.id")),
        "{err:?}"
    );
    assert_eq!(counts(&dir.db()), before);
    assert_eq!(before[1], ("messages", 2));
    assert_eq!(before[2], ("structured_calls", 1));
    // A standalone call with that id fails the same way.
    let err = store.insert_standalone_call(first).unwrap_err();
    assert!(matches!(err, StoreError::Sqlite(_)), "{err:?}");
    assert_eq!(counts(&dir.db()), before);
}

#[test]
fn invalid_input_is_refused_before_writing() {
    let (dir, store) = fresh("invalid");
    let s = session(&store);
    let before = counts(&dir.db());

    let err = store
        .commit_turn(TurnWrite {
            messages: vec![
                user("fine"),
                NewMessage::new(Role::User, json!({"type": "text"})),
            ],
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: message 1: parts must be a JSON array"
    );

    let mut empty_kind = call("");
    empty_kind.status = CallStatus::Failed;
    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("fine")],
            call: Some(empty_kind),
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: a structured call needs a kind"
    );

    let mut huge = call("k");
    huge.input_tokens = u64::MAX;
    let err = store.insert_standalone_call(huge).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("invalid input: input_tokens {} is too large", u64::MAX)
    );

    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("fine")],
            pending: PendingChange::Set(pending_of(&[])),
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: a suspended turn must wait on at least one tool call or approval"
    );

    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("fine")],
            pending: PendingChange::Set(pending_of(&["x", "x"])),
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid input: pending tool call id \"x\" appears twice"
    );

    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("fine")],
            ..TurnWrite::new("ses_missing")
        })
        .unwrap_err();
    assert!(matches!(&err, StoreError::SessionNotFound(id) if id == "ses_missing"));
    assert_eq!(err.to_string(), "session ses_missing not found");

    assert_eq!(counts(&dir.db()), before);
    assert_eq!(before[0], ("sessions", 1));
    assert_eq!(before[1], ("messages", 0));
}

#[test]
fn the_pending_guard_is_checked_inside_the_transaction() {
    let (dir, store) = fresh("guard");
    let s = session(&store);
    // Suspend: the turn's messages stay in the pending transcript.
    let suspended = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Absent,
            pending: PendingChange::Set(pending_of(&["t1"])),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let first_id = suspended.pending.unwrap().id;
    assert!(first_id.starts_with("pnd_"), "{first_id}");
    let before = counts(&dir.db());

    // A new user message while calls are pending.
    let err = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Absent,
            messages: vec![user("new question")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    match &err {
        StoreError::PendingMismatch {
            session_id,
            expected,
            found,
        } => {
            assert_eq!(session_id, &s.id);
            assert_eq!(expected, &None);
            assert_eq!(found.as_deref(), Some(first_id.as_str()));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "the suspended turn of session {} changed: expected none, found {first_id}",
            s.id
        )
    );
    assert_eq!(counts(&dir.db()), before);

    // Resumed with the right id: writes and clears.
    let resumed = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Id(first_id.clone()),
            messages: vec![user("go"), assistant("done")],
            pending: PendingChange::Clear,
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(resumed.pending, None);
    assert_eq!(store.pending_turn(&s.id).unwrap(), None);

    // Suspended again: the old id no longer resumes it (no ABA).
    let again = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Absent,
            pending: PendingChange::Set(pending_of(&["t1"])),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let second_id = again.pending.unwrap().id;
    assert_ne!(second_id, first_id);
    let before = counts(&dir.db());
    let err = store
        .commit_turn(TurnWrite {
            guard: PendingGuard::Id(first_id.clone()),
            messages: vec![user("go"), assistant("done twice")],
            pending: PendingChange::Clear,
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    assert!(
        matches!(&err, StoreError::PendingMismatch { expected: Some(e), found: Some(f), .. } if e == &first_id && f == &second_id),
        "{err:?}"
    );
    assert_eq!(counts(&dir.db()), before);
    assert_eq!(seqs(&store, &s.id), vec![1, 2]);
}

#[test]
fn a_turn_with_nothing_but_a_call_records_no_span() {
    let (_dir, store) = fresh("no-span");
    let s = session(&store);
    let commit = store
        .commit_turn(TurnWrite {
            call: Some(call("compaction")),
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    let c = commit.call.unwrap();
    assert_eq!((c.first_seq, c.last_seq), (None, None));
    assert_eq!(c.session_id.as_deref(), Some(s.id.as_str()));
    assert!(commit.messages.is_empty());
    assert_eq!(store.get_call(&c.id).unwrap().unwrap(), c);
}

#[test]
fn a_write_blocked_by_another_process_times_out_cleanly_and_reads_go_on() {
    let (dir, store) = fresh("busy");
    let s = session(&store);
    store
        .commit_turn(TurnWrite {
            messages: vec![user("before")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    // Another process holds the write lock with a write in progress.
    let other = crate::raw(&dir.db());
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    other
        .execute(
            "INSERT INTO sessions (id, title, created_at, updated_at) VALUES ('ses_other', '', 0, 0)",
            [],
        )
        .unwrap();
    let before = counts(&dir.db());

    // Reads see the last commit at once (WAL).
    let started = std::time::Instant::now();
    assert_eq!(store.messages(&s.id).unwrap().len(), 1);
    assert_eq!(store.list_sessions().unwrap().len(), 1);
    assert!(started.elapsed() < std::time::Duration::from_secs(1));

    // A write waits the busy timeout, then fails without writing.
    let started = std::time::Instant::now();
    let err = store
        .commit_turn(TurnWrite {
            messages: vec![user("blocked")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap_err();
    let waited = started.elapsed();
    assert!(err.is_busy(), "{err:?}");
    assert!(waited >= sift_store::BUSY_TIMEOUT, "{waited:?}");
    assert!(!StoreError::SessionNotFound("x".into()).is_busy());
    other.execute_batch("ROLLBACK").unwrap();
    assert_eq!(counts(&dir.db()), before);
    assert_eq!(before[0], ("sessions", 1));
    assert_eq!(before[1], ("messages", 1));

    // Once the lock is free, writing works again and seqs carry on.
    let commit = store
        .commit_turn(TurnWrite {
            messages: vec![user("after")],
            ..TurnWrite::new(&s.id)
        })
        .unwrap();
    assert_eq!(commit.messages[0].seq, 2);
}
