//! Criterion versions of the dataflow benchmarks (`prescient_benches::dataflow`):
//!
//! * `two_wave/{250,2500,25000,50000}`: the DAST paper's synthetic benchmark,
//!   two waves of 10,000 tasks;
//! * `cholesky`, `matmul`, `sparselu`: the blocked kernels with dependencies;
//! * `task_cost`: one empty task, dependent (`inout` chain) vs independent
//!   (no accesses), both deferred (throughput: per task);
//! * `buckets`: the dependency-table bucket sweep (97 / 1021 / 64567 /
//!   256019) on a workload with many live handles.
//!
//! Each benchmark has the sequential reference in its own group (`seq/1` in
//! `two_wave/250`, `cholesky`, …, where there is one) and Prescient at the
//! thread counts of `PRESCIENT_BENCH_THREADS` (e.g. `1,2` or `all`; default 1
//! and 2, capped at the available parallelism; read by
//! `prescient_benches::cli::env_threads`, as in `fork_join.rs`) under each
//! DAST mode of `PRESCIENT_BENCH_DAST` (e.g. `off,adaptive` or `all`;
//! default all four; read by `prescient_benches::cli::env_dast`), in one
//! group per mode named after the benchmark's with the mode's short name
//! appended: `two_wave/250/off`, `cholesky/adaptive`, `task_cost/idle`,
//! `buckets/forced`. Every parallel result is checked against the reference
//! once before it is measured. Runtimes are built once per group and thread
//! count; a sample enters the runtime once per iteration (`Runtime::run`, a
//! few µs).
//!
//! The coarse two-wave sizes take seconds per iteration: filter, e.g.
//! `cargo bench -p prescient-benches --bench dataflow -- two_wave/250/`, or
//! one mode: `-- /adaptive`.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use prescient::{DastMode, Params, Runtime};
use prescient_benches::cli::{env_dast, env_threads};
use prescient_benches::dataflow::{
    cholesky, compare_exact, matmul, overhead, runtime, sparselu, two_wave, Kernel, DEFERRING,
};
use std::time::Duration;

/// One runtime per thread count of `PRESCIENT_BENCH_THREADS`, with `params`
/// under `mode`.
fn runtimes(params: Params, mode: DastMode) -> Vec<(usize, Runtime)> {
    env_threads()
        .into_iter()
        .map(|t| (t, runtime(t, params.with_dast(mode))))
        .collect()
}

/// The group of benchmark `name` under `mode`: `name/mode`.
fn group_name(name: &str, mode: DastMode) -> String {
    format!("{name}/{}", mode.short_name())
}

fn two_wave(c: &mut Criterion) {
    let modes = env_dast();
    for size in two_wave::TASK_SIZES {
        let tasks = two_wave::NUM_TASKS;
        let name = format!("two_wave/{size}");
        let configure = |group: &mut criterion::BenchmarkGroup<'_, _>| {
            group.sample_size(10);
            if size > two_wave::OVERHEAD {
                group
                    .sampling_mode(SamplingMode::Flat)
                    .warm_up_time(Duration::from_secs(1))
                    .measurement_time(Duration::from_secs(10));
            }
        };
        let mut group = c.benchmark_group(&name);
        configure(&mut group);
        group.bench_function(BenchmarkId::new("seq", 1), |b| {
            b.iter(|| two_wave::sequential(tasks, size))
        });
        group.finish();
        let reference = two_wave::sequential(tasks, size);
        for &mode in &modes {
            let mut group = c.benchmark_group(group_name(&name, mode));
            configure(&mut group);
            for (threads, rt) in &runtimes(Params::DEFAULT, mode) {
                let result = rt.run(|| two_wave::dataflow(tasks, size));
                compare_exact(&result, &reference, "two_wave").unwrap();
                group.bench_function(BenchmarkId::new("prescient", threads), |b| {
                    b.iter(|| rt.run(|| two_wave::dataflow(tasks, size)))
                });
            }
            group.finish();
        }
    }
}

/// Benchmarks `kernel` on `input`: the sequential reference, then the
/// dataflow version under each mode at each thread count (checked once
/// first).
fn kernel<M: Clone + Send + Sync>(c: &mut Criterion, name: &str, input: M, kernel: &Kernel<M>) {
    let reference = kernel.reference(&input);
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    group.bench_function(BenchmarkId::new("seq", 1), |b| {
        b.iter_batched_ref(
            || input.clone(),
            kernel.sequential,
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name(name, mode));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500));
        for (threads, rt) in &runtimes(Params::DEFAULT, mode) {
            kernel.run_checked(rt, &input, &reference).unwrap();
            group.bench_function(BenchmarkId::new("prescient", threads), |b| {
                b.iter_batched_ref(
                    || input.clone(),
                    |m| rt.run(|| (kernel.dataflow)(m)),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

fn kernels(c: &mut Criterion) {
    kernel(
        c,
        "cholesky",
        cholesky::generate(16, 64, 42),
        &cholesky::KERNEL,
    );
    kernel(c, "matmul", matmul::generate(8, 64, 7), &matmul::KERNEL);
    kernel(c, "sparselu", sparselu::generate(30, 40), &sparselu::KERNEL);
}

fn task_cost(c: &mut Criterion) {
    const TASKS: usize = 20_000;
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name("task_cost", mode));
        group
            .sample_size(20)
            .throughput(Throughput::Elements(TASKS as u64));
        for (threads, rt) in &runtimes(DEFERRING, mode) {
            // Both kinds are real deferred tasks: nothing runs inline.
            let before = rt.counters();
            assert_eq!(rt.run(|| overhead::empty_dependent(TASKS)), TASKS as u64);
            assert_eq!(rt.run(|| overhead::empty_independent(TASKS)), TASKS as u64);
            let delta = rt.counters().since(&before);
            assert_eq!(delta.inlined_spawns, 0, "a task ran inline: {delta:?}");
            group.bench_function(BenchmarkId::new("independent", threads), |b| {
                b.iter(|| rt.run(|| overhead::empty_independent(TASKS)))
            });
            group.bench_function(BenchmarkId::new("dependent", threads), |b| {
                b.iter(|| rt.run(|| overhead::empty_dependent(TASKS)))
            });
        }
        group.finish();
    }
}

fn buckets(c: &mut Criterion) {
    let (handles, rounds, work) = (20_000, 4, 50);
    let reference = overhead::many_handles_sequential(handles, rounds, work);
    let mut group = c.benchmark_group("buckets");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("seq", 1), |b| {
        b.iter(|| overhead::many_handles_sequential(handles, rounds, work))
    });
    group.finish();
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name("buckets", mode));
        group.sample_size(10);
        for buckets in overhead::BUCKETS {
            for (threads, rt) in &runtimes(DEFERRING.with_dependency_buckets(buckets), mode) {
                let result = rt.run(|| overhead::many_handles(handles, rounds, work));
                compare_exact(&result, &reference, "many_handles").unwrap();
                group.bench_function(
                    BenchmarkId::new(format!("prescient-{buckets}"), threads),
                    |b| b.iter(|| rt.run(|| overhead::many_handles(handles, rounds, work))),
                );
            }
        }
        group.finish();
    }
}

criterion_group!(benches, two_wave, kernels, task_cost, buckets);
criterion_main!(benches);
