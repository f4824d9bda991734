//! Context building on long sessions: the time should grow linearly with
//! the number of messages. Figures in docs/BENCHMARKS.md.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use sift_engine::{ContextSettings, EngineContext, build_context};
use sift_llm::{Message, Part, Role, ToolCall};

/// A session of `n` messages: user turns, assistant tool calls, and tool
/// results of which every third is large (2,000 characters).
fn session(n: usize) -> Vec<Message> {
    let mut messages = vec![Message::system("You are Sift.")];
    let mut i = 0;
    while messages.len() < n {
        messages.push(Message::user(format!(
            "Question {i}: what does page {i} say?"
        )));
        messages.push(Message {
            role: Role::Assistant,
            parts: vec![Part::ToolCall(ToolCall::new(
                format!("c{i}"),
                "read_page",
                &json!({"page": i}),
            ))],
        });
        let content = if i % 3 == 0 {
            "x".repeat(2000)
        } else {
            format!("page {i}: short")
        };
        messages.push(Message::tool_result(format!("c{i}"), content, false));
        messages.push(Message::assistant(format!("Page {i} is about item {i}.")));
        i += 1;
    }
    messages.truncate(n);
    messages
}

fn context_building(c: &mut Criterion) {
    let settings = ContextSettings::default();
    let engine = EngineContext::new(128_000);
    let mut group = c.benchmark_group("build_context");
    for n in [1_000usize, 10_000, 40_000] {
        let messages = session(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &messages, |b, messages| {
            b.iter(|| build_context(messages, &settings, &engine));
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = context_building
}
criterion_main!(benches);
