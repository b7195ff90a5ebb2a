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
//! A benchmark id is `<benchmark>[/<mode>]/<runner>/<threads>`:
//!
//! * `<benchmark>`: `two_wave/250`, `cholesky`, `task_cost`, `buckets`, ...;
//! * `<mode>`: the DAST mode of Prescient's runtime (`off`, `forced`,
//!   `adaptive`, `idle`; `prescient::tuning::DastMode`), absent for the sequential
//!   reference;
//! * `<runner>`: `seq` (the sequential reference, the runner `sequential`
//!   of the tables' JSON; `seq/1` in the benchmark's own group:
//!   `two_wave/250/seq/1`, `cholesky/seq/1`, ...), `prescient` (the dataflow
//!   version in a runtime with `Params::DEFAULT` under that mode: the runner
//!   `prescient-dast-<mode>`, and under `adaptive`, the default mode, the
//!   runtime as a user gets it, `prescient`), `independent` / `dependent`
//!   (`task_cost`: 20,000 empty tasks, all deferred) and `prescient-<B>`
//!   (`buckets`: all deferred, `B` dependency buckets);
//! * `<threads>`: the runtime's workers, from `PRESCIENT_BENCH_THREADS`
//!   (e.g. `1,2` or `all`; default 1 and 2, capped at the available
//!   parallelism; read by `prescient_benches::cli::env_threads`, as in
//!   `fork_join.rs`).
//!
//! The modes come from `PRESCIENT_BENCH_DAST` (e.g. `off,adaptive` or `all`;
//! default all four; read by `prescient_benches::cli::env_dast`), one group
//! per mode: `two_wave/250/off`, `cholesky/adaptive`, `task_cost/idle`,
//! `buckets/forced`. Every parallel result is checked against the reference
//! once before it is measured. Runtimes are built once per group and thread
//! count; a sample enters the runtime once per iteration (`Runtime::run`, a
//! few µs).
//!
//! The ratios to the sequential reference are the `dataflow` table's
//! (`prescient-bench dataflow`), with the same sizes
//! (`prescient_benches::tables::dataflow::measure::Sizes`, full).
//!
//! The coarse two-wave sizes take seconds per iteration: filter, e.g.
//! `cargo bench -p prescient-benches --bench dataflow -- two_wave/250/`, or
//! one mode: `-- /adaptive`.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use prescient::tuning::DastMode;
use prescient::{Params, Runtime};
use prescient_benches::cli::Size;
use prescient_benches::cli::{env_dast, env_threads};
use prescient_benches::dataflow::{
    cholesky, compare_exact, matmul, overhead, runtime, sparselu, two_wave, Kernel, DEFERRING,
};
use prescient_benches::tables::dataflow::measure::Sizes;
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
    let sizes = Sizes::of(Size::Full);
    let ((cn, cb), (mn, mb), (sn, sb)) = (sizes.cholesky, sizes.matmul, sizes.sparselu);
    kernel(
        c,
        "cholesky",
        cholesky::generate(cn, cb, 42),
        &cholesky::KERNEL,
    );
    kernel(c, "matmul", matmul::generate(mn, mb, 7), &matmul::KERNEL);
    kernel(c, "sparselu", sparselu::generate(sn, sb), &sparselu::KERNEL);
}

fn task_cost(c: &mut Criterion) {
    let tasks = Sizes::of(Size::Full).task_cost_per_timing;
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name("task_cost", mode));
        group
            .sample_size(20)
            .throughput(Throughput::Elements(tasks as u64));
        for (threads, rt) in &runtimes(DEFERRING, mode) {
            // Both kinds are real deferred tasks: nothing runs inline.
            let before = rt.counters();
            assert_eq!(rt.run(|| overhead::empty_dependent(tasks)), tasks as u64);
            assert_eq!(rt.run(|| overhead::empty_independent(tasks)), tasks as u64);
            let delta = rt.counters().since(&before);
            assert_eq!(delta.inlined_spawns, 0, "a task ran inline: {delta:?}");
            group.bench_function(BenchmarkId::new("independent", threads), |b| {
                b.iter(|| rt.run(|| overhead::empty_independent(tasks)))
            });
            group.bench_function(BenchmarkId::new("dependent", threads), |b| {
                b.iter(|| rt.run(|| overhead::empty_dependent(tasks)))
            });
        }
        group.finish();
    }
}

fn buckets(c: &mut Criterion) {
    let (handles, rounds, work) = Sizes::of(Size::Full).buckets;
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
