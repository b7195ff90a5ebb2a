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
//! After each group, one plain line per thread count gives each parallel
//! runner's time over the sequential one:
//! `ratio fib(35) at 2 threads: prescient/sequential 0.61, ...`. Criterion
//! does not hand its estimates back to the bench, so these come from one
//! extra short timing of each runner (about 0.2 s, [`ratio_lines`]) made
//! after the group with `Pool::time`, the same timing criterion's
//! iterations use; they are skipped under `--test`/`--list` and for a group
//! the command line's filter leaves out.

use std::time::Duration;

use std::time::Instant;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode};
use prescient_benches::cli::env_threads;
use prescient_benches::programs::tree::Layout;
use prescient_benches::tables::fork_join::programs::RUNNERS;
use prescient_benches::tables::fork_join::{Pool, Program, Work};

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
            let pool = Pool::build(runner, threads).unwrap_or_else(|e| panic!("{e}"));
            group.bench_function(BenchmarkId::new(runner, threads), |b| {
                b.iter_custom(|iters| pool.time(&work, iters))
            });
        }
    }
    group.finish();
    if wants_ratios(program) {
        for line in ratio_lines(program, &work) {
            println!("{line}");
        }
    }
    // Freeing a 16M-node tree takes a while and is not what we measure.
    std::mem::forget(work);
}

/// Whether to time the ratio lines of `program`: not under `--test` or
/// `--list`, nor when the command line's filter names another program.
fn wants_ratios(program: Program) -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "--test" || a == "--list") {
        return false;
    }
    let filters: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    filters.is_empty()
        || filters
            .iter()
            .any(|f| f.contains(program.name()) || program.name().contains(f.as_str()))
}

/// The program as the ratio lines name it (`fib(35)`, `tree1k`).
fn program_label(program: Program) -> String {
    match program {
        Program::Fib => format!("fib({})", prescient_benches::programs::fib::SUITE_N),
        other => other.name().to_string(),
    }
}

/// The table's parallel runners: the name, the ratio lines' name (the
/// shared sample name: `prescient` for `prescient-default`), parameters.
fn parallel() -> impl Iterator<Item = (&'static str, &'static str, Option<prescient::Params>)> {
    RUNNERS.into_iter().filter(|r| r.0 != "seq")
}

/// The mean time of one run of `work` on `pool` over about `budget`.
fn mean_run(pool: &Pool, work: &Work, budget: Duration) -> Duration {
    let one = pool.time(work, 1).max(Duration::from_nanos(1));
    let iters = (budget.as_nanos() / one.as_nanos()).clamp(1, 100_000) as u64;
    pool.time(work, iters) / iters as u32
}

/// One line per thread count: each parallel runner's time over the
/// sequential one, from a short timing of each (criterion does not return
/// its estimates), e.g. `ratio fib(35) at 2 threads: prescient/sequential
/// 0.61, ..., rayon/sequential 0.74, chili/sequential 0.58`.
fn ratio_lines(program: Program, work: &Work) -> Vec<String> {
    let budget = Duration::from_millis(200);
    let start = Instant::now();
    let seq = mean_run(&Pool::Seq, work, budget);
    let mut lines = Vec::new();
    for threads in env_threads() {
        let mut cells = Vec::new();
        for (runner, label, _) in parallel() {
            let pool = Pool::build(runner, threads).unwrap_or_else(|e| panic!("{e}"));
            let time = mean_run(&pool, work, budget);
            cells.push(format!(
                "{label}/sequential {:.2}",
                time.as_secs_f64() / seq.as_secs_f64()
            ));
        }
        lines.push(format!(
            "ratio {} at {threads} thread{}: {}",
            program_label(program),
            if threads == 1 { "" } else { "s" },
            cells.join(", ")
        ));
    }
    lines.push(format!(
        "(ratios of one short timing per runner after the group, {:.1} s in all)",
        start.elapsed().as_secs_f64()
    ));
    lines
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
