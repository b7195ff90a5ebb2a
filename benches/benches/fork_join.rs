//! Criterion versions of the suite's fork–join programs: `fib(35)` and the
//! 1K- and 16M-node tree sums, each as the sequential reference, Prescient
//! (default `Params`, `DEF` with capacity 4, `PF` with capacity 4), rayon and
//! chili, at the thread counts of `PRESCIENT_BENCH_THREADS` (e.g. `1,2` or
//! `all`; default 1 and 2, capped at the available parallelism; the syntax of
//! the binaries' `--threads`, read by `prescient_benches::cli::env_threads`:
//! `cargo bench` keeps the command line for its filter).
//!
//! As in the suite, each pool is built once and the runs are timed inside it
//! (`Pool::time` enters the pool once per sample and times the iterations
//! there), so entering a pool is not counted. Sample sizes are small so that
//! `cargo bench -p prescient-benches` finishes in a few minutes on two cores;
//! pass a filter to run one group, e.g. `cargo bench -p prescient-benches --
//! tree1k`.
//!
//! Benchmark ids are `PROGRAM/RUNNER/THREADS`: the group is the program
//! (`fib`, `tree1k`, `tree16m`), the function the runner and the parameter
//! its worker threads. Runners: `seq` (the sequential reference, 1
//! thread), `prescient-default` (`Params::DEFAULT`: the runtime as a user
//! gets it, `prescient` in the ratio lines), `prescient-never` (the default
//! parameters with task inlining off), `prescient-def-c4` (`DEF`, queue
//! capacity 4), `prescient-pf-c4` (`PF`, queue capacity 4), `rayon`
//! (`rayon::join` in `ThreadPool::install`) and `chili` (`Scope::join`).
//!
//! The ratios to the sequential reference are the fork-join table's
//! (`prescient-bench fork-join`).

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use prescient_benches::cli::env_threads;
use prescient_benches::programs::tree::Layout;
use prescient_benches::tables::fork_join::programs::RUNNERS;
use prescient_benches::tables::fork_join::{self, Pool, Program};

fn bench_program(c: &mut Criterion, program: Program) {
    let work = program.prepare(Layout::DEFAULT, prescient_benches::cli::Size::Full);
    let mut group = c.benchmark_group(program.name());
    group.sample_size(10);
    match program {
        Program::Fib | Program::Tree16m => {
            group
                .sampling_mode(SamplingMode::Flat)
                .warm_up_time(Duration::from_secs(1))
                .measurement_time(Duration::from_secs(3));
        }
        Program::Tree1k => {
            group
                .warm_up_time(Duration::from_millis(500))
                .measurement_time(Duration::from_secs(1));
        }
    }
    let seq = Pool::Seq;
    group.bench_function(BenchmarkId::new("seq", 1), |b| {
        b.iter_custom(|iters| seq.time(&work, iters))
    });
    for threads in env_threads() {
        for (runner, _, _) in parallel() {
            let pool = fork_join::pool::build(runner, threads).unwrap_or_else(|e| panic!("{e}"));
            group.bench_function(BenchmarkId::new(runner, threads), |b| {
                b.iter_custom(|iters| pool.time(&work, iters))
            });
        }
    }
    group.finish();
    // Freeing a 16M-node tree takes a while and is not what we measure.
    std::mem::forget(work);
}

/// The table's parallel runners.
fn parallel() -> impl Iterator<Item = (&'static str, &'static str, Option<prescient::Params>)> {
    RUNNERS.into_iter().filter(|r| r.0 != "seq")
}

fn fib(c: &mut Criterion) {
    bench_program(c, Program::Fib);
}

fn tree1k(c: &mut Criterion) {
    bench_program(c, Program::Tree1k);
}

fn tree16m(c: &mut Criterion) {
    bench_program(c, Program::Tree16m);
}

criterion_group!(benches, fib, tree1k, tree16m);
criterion_main!(benches);
