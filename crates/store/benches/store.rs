//! The store on a real file (WAL, synchronous=NORMAL) in the temp folder:
//! committing turns, and reading a 10,000-message session back.
#![allow(clippy::unwrap_used)]
#![allow(clippy::print_stderr)] // the file size of the 10,000-message session, for the report

use std::path::PathBuf;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use sift_store::{CallStatus, NewMessage, NewSession, NewStructuredCall, Role, Store, TurnWrite};

/// A folder removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let path = std::env::temp_dir().join(format!(
            "sift-store-bench-{name}-{}-{}",
            std::process::id(),
            sift_store::now_ms()
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The messages of one typical tool-using turn: a question, an assistant
/// message with a tool call, a tool result of about 1.5 kB, and an answer.
fn turn_messages(i: usize) -> Vec<NewMessage> {
    vec![
        NewMessage::text(
            Role::User,
            format!(
                "Question {i}: what is the total of the invoice in the attached file? Please be precise."
            ),
        ),
        NewMessage::new(
            Role::Assistant,
            json!([
                {"type": "text", "text": "Let me read the file."},
                {"type": "tool_call", "id": format!("call_{i}"), "name": "read_document",
                 "arguments": "{\"path\":\"invoices/2024-03.pdf\",\"pages\":[1,2]}"}
            ]),
        ),
        NewMessage::new(
            Role::Tool,
            json!([{"type": "tool_result", "call_id": format!("call_{i}"),
                    "content": "Line item, quantity, unit price, amount. ".repeat(36), "is_error": false}]),
        ),
        NewMessage::text(
            Role::Assistant,
            format!("The total of invoice {i} is 1,234.56 EUR, due on 2024-04-30."),
        )
        .with_metadata(json!({"usage": {"input_tokens": 812, "output_tokens": 41}})),
    ]
}

fn structured_call(i: usize) -> NewStructuredCall {
    let mut call = NewStructuredCall::new(
        "invoice",
        CallStatus::Completed,
        json!({"prompt": format!("Extract invoice {i}")}),
    );
    call.output = Some(json!({"total": 1234.56, "currency": "EUR", "due": "2024-04-30"}));
    call.input_tokens = 812;
    call.output_tokens = 41;
    call.system_prompt = Some("Extract the invoice.".into());
    call.engine_type = Some("openai".into());
    call
}

fn commit_turn(c: &mut Criterion) {
    let dir = TempDir::new("commit");
    let store = Store::open(dir.0.join("sift.db")).unwrap();
    let session = store.create_session(NewSession::default()).unwrap();
    let mut group = c.benchmark_group("commit_turn");
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function("4_messages_and_a_call", |b| {
        b.iter(|| {
            i += 1;
            store
                .commit_turn(TurnWrite {
                    messages: turn_messages(i),
                    call: Some(structured_call(i)),
                    ..TurnWrite::new(&session.id)
                })
                .unwrap()
        });
    });
    group.finish();
}

/// A file holding one session of `turns * 4` messages.
fn session_of(turns: usize) -> (TempDir, Store, String) {
    let dir = TempDir::new("read");
    let store = Store::open(dir.0.join("sift.db")).unwrap();
    let session = store.create_session(NewSession::default()).unwrap();
    // Written 100 turns (400 messages) per commit to set up quickly.
    for batch in 0..turns.div_ceil(100) {
        let messages = (batch * 100..turns.min(batch * 100 + 100))
            .flat_map(turn_messages)
            .collect();
        store
            .commit_turn(TurnWrite {
                messages,
                ..TurnWrite::new(&session.id)
            })
            .unwrap();
    }
    assert_eq!(store.last_seq(&session.id).unwrap(), 4 * turns as i64);
    (dir, store, session.id)
}

fn read_session(c: &mut Criterion) {
    let mut group = c.benchmark_group("read_session");
    for messages in [1_000usize, 10_000] {
        let (dir, store, id) = session_of(messages / 4);
        let db = dir.0.join("sift.db");
        let bytes = std::fs::metadata(&db).unwrap().len()
            + std::fs::metadata(db.with_extension("db-wal"))
                .map(|m| m.len())
                .unwrap_or(0);
        eprintln!("{messages}-message session: {bytes} bytes on disk (db + wal)");
        group.throughput(Throughput::Elements(messages as u64));
        group.bench_with_input(BenchmarkId::new("messages", messages), &id, |b, id| {
            b.iter(|| {
                let read = store.messages(id).unwrap();
                assert_eq!(read.len(), messages);
                read
            });
        });
        if messages == 10_000 {
            group.throughput(Throughput::Elements(100));
            group.bench_with_input(
                BenchmarkId::new("messages_page_100_at_the_end", messages),
                &id,
                |b, id| {
                    b.iter(|| {
                        let page = store.messages_page(id, messages as i64 - 100, 100).unwrap();
                        assert_eq!(page.len(), 100);
                        page
                    });
                },
            );
            group.throughput(Throughput::Elements(messages as u64));
            group.bench_function(BenchmarkId::new("search_messages", messages), |b| {
                b.iter(|| {
                    let hits = store.search_messages("invoice 2499 is", 10).unwrap();
                    assert_eq!(hits.len(), 1);
                    hits
                });
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = commit_turn, read_session
}
criterion_main!(benches);
