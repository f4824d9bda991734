//! Per-step overhead of the executor: a 1,000-step DAG of `true` commands,
//! beside the same 1,000 `sh -c true` processes spawned directly with the
//! same concurrency. The difference is what the executor adds per step
//! (scheduling, interpolation, capture, events). Figures in docs/BENCHMARKS.md.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use sift_workflow::{DirectConnector, RunOptions, Runtime, StepStatus, load, run};
use tokio::task::JoinSet;

const STEPS: usize = 1000;
/// The executor's default `max_active_steps`.
const CONCURRENCY: usize = 16;

fn independent() -> String {
    let mut yaml = String::from("steps:\n");
    for i in 0..STEPS {
        yaml.push_str(&format!("  - id: s{i}\n    run: 'true'\n"));
    }
    yaml
}

fn chain() -> String {
    let mut yaml = String::from("steps:\n  - id: s0\n    run: 'true'\n");
    for i in 1..STEPS {
        yaml.push_str(&format!(
            "  - id: s{i}\n    depends: s{}\n    run: 'true'\n",
            i - 1
        ));
    }
    yaml
}

fn runtime(yaml: &str) -> Arc<Runtime> {
    Arc::new(Runtime {
        workflow: load(yaml).unwrap(),
        base_dir: std::env::temp_dir(),
        connector: Arc::new(DirectConnector),
        read_options: Default::default(),
        file_gate: Default::default(),
    })
}

async fn run_dag(runtime: Arc<Runtime>) {
    let record = run(runtime, RunOptions::default(), Arc::new(|_| {}))
        .await
        .unwrap();
    assert!(
        record
            .steps
            .iter()
            .all(|s| s.status == StepStatus::Succeeded)
    );
}

/// The floor: the same processes with no executor around them, their
/// output captured as the executor captures it.
async fn bare_processes(concurrency: usize) {
    let permits = Arc::new(tokio::sync::Semaphore::new(concurrency));
    let mut set = JoinSet::new();
    for _ in 0..STEPS {
        let permit = permits.clone().acquire_owned().await.unwrap();
        set.spawn(async move {
            let output = tokio::process::Command::new("sh")
                .args(["-c", "true"])
                .stdin(std::process::Stdio::null())
                .output()
                .await
                .unwrap();
            assert!(output.status.success());
            drop(permit);
        });
    }
    while set.join_next().await.is_some() {}
}

fn executor(c: &mut Criterion) {
    let tokio = tokio::runtime::Runtime::new().unwrap();
    let independent = runtime(&independent());
    let chain = runtime(&chain());
    let mut group = c.benchmark_group("workflow_1000_true_steps");
    group.sample_size(10);
    group.bench_function("executor_independent", |b| {
        b.iter(|| tokio.block_on(run_dag(independent.clone())));
    });
    group.bench_function("bare_processes_16_at_once", |b| {
        b.iter(|| tokio.block_on(bare_processes(CONCURRENCY)));
    });
    group.bench_function("executor_chain", |b| {
        b.iter(|| tokio.block_on(run_dag(chain.clone())));
    });
    group.bench_function("bare_processes_1_at_once", |b| {
        b.iter(|| tokio.block_on(bare_processes(1)));
    });
    group.finish();
}

criterion_group!(benches, executor);
criterion_main!(benches);
