//! SSE decoding, and what our client adds to a request, measured against
//! the scripted server on loopback beside a bare reqwest call to the same
//! server. Figures and the machine are in docs/BENCHMARKS.md.
#![allow(clippy::unwrap_used)]

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;
use sift_llm::sse::SseDecoder;
use sift_llm::{ChatRequest, Client, ClientConfig, Message, ProviderKind};
use sift_scripted_server::{Reply, Script, ScriptedServer};

/// An OpenAI-style stream of `n` content chunks, as a server sends it.
fn openai_stream(n: usize) -> Vec<u8> {
    let mut body = String::new();
    for i in 0..n {
        let chunk = json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": {"content": format!("tok{i} é ")}, "finish_reason": null}],
        });
        body.push_str(&format!("data: {chunk}\n\n"));
        if i % 50 == 0 {
            body.push_str(": keep-alive\n\n");
        }
    }
    body.push_str("data: [DONE]\n\n");
    body.into_bytes()
}

fn sse_decoding(c: &mut Criterion) {
    let body = openai_stream(1000);
    let mut group = c.benchmark_group("sse_decode");
    group.throughput(Throughput::Bytes(body.len() as u64));
    for chunk_size in [7usize, 1024, 16 * 1024] {
        group.bench_with_input(
            BenchmarkId::new("1000_events", chunk_size),
            &chunk_size,
            |b, &size| {
                b.iter(|| {
                    let mut decoder = SseDecoder::new();
                    let mut events = Vec::with_capacity(1100);
                    for chunk in body.chunks(size) {
                        decoder.feed(chunk, &mut events);
                    }
                    decoder.finish(&mut events);
                    assert_eq!(events.len(), 1001);
                    events
                });
            },
        );
    }
    group.finish();
}

fn client_overhead(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let long_text = "word ".repeat(2000);
    let script = Script::new()
        .with(
            "short",
            [Reply::text("Hello there, this is a short answer.")
                .usage(10, 8)
                .repeated()],
        )
        .with(
            "long",
            [Reply::text(long_text.clone())
                .chunk_chars(5)
                .usage(10, 2000)
                .repeated()],
        );
    let server = runtime.block_on(ScriptedServer::start(script)).unwrap();
    let client = Client::new(ClientConfig::new(
        ProviderKind::OpenAi,
        server.openai_base_url(),
    ))
    .unwrap();
    let raw = reqwest::Client::new();
    let url = format!("{}/chat/completions", server.openai_base_url());
    let short = ChatRequest::new(
        "short",
        vec![Message::system("Be brief."), Message::user("Say hello.")],
    );
    let long = ChatRequest::new("long", vec![Message::user("Say many words.")]);

    let mut group = c.benchmark_group("request");
    group.bench_function("sift_complete_short", |b| {
        b.iter(|| runtime.block_on(client.complete(&short)).unwrap());
    });
    group.bench_function("bare_reqwest_short", |b| {
        let body = json!({"model": "short", "messages": [
            {"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say hello."}]});
        b.iter(|| {
            runtime.block_on(async {
                let response = raw.post(&url).json(&body).send().await.unwrap();
                let value: serde_json::Value = response.json().await.unwrap();
                assert!(value["choices"][0]["message"]["content"].is_string());
            });
        });
    });
    group.throughput(Throughput::Elements(2001));
    group.bench_function("sift_stream_2000_deltas", |b| {
        b.iter(|| {
            let mut pieces = 0usize;
            let response = runtime
                .block_on(client.stream(&long, &mut |_| pieces += 1))
                .unwrap();
            assert_eq!(response.message.text_content().len(), long_text.len());
            pieces
        });
    });
    group.bench_function("bare_reqwest_stream_2000_chunks", |b| {
        let body = json!({"model": "long", "stream": true, "messages": [{"role": "user", "content": "Say many words."}]});
        b.iter(|| {
            runtime.block_on(async {
                let mut response = raw.post(&url).json(&body).send().await.unwrap();
                let mut bytes = 0usize;
                while let Some(chunk) = response.chunk().await.unwrap() {
                    bytes += chunk.len();
                }
                assert!(bytes > long_text.len());
                bytes
            })
        });
    });
    group.finish();
    drop(server);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(4));
    targets = sse_decoding, client_overhead
}
criterion_main!(benches);
