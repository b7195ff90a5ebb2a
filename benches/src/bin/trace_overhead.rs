//! What the critical-path profiler costs: fib under a runtime without
//! tracing, under one built with `trace(true)` but not recording, and
//! recording (`Runtime::profile`); then one profile of a program with
//! millions of tasks, to show how long recording, assembling and analysing
//! take and how much memory a strand costs.
//!
//! `cargo bench-run trace_overhead --features trace -- [--quick] [--threads LIST] [--reps N] [--fib N] [--big N]`
//!
//! Per thread count and inlining policy (`adaptive`, the default, and
//! `never`, under which every published join is a task), three runtimes of
//! that many workers run `fib(--fib)` (default 35, quick 30) through
//! `join`: *plain* (built without `trace`), *enabled* (built with
//! `trace(true)`, runs with `run`) and *profiled* (the same runtime, runs
//! with `profile`; its time is the recorded run's, `TraceStats::run_ns`,
//! without the assembly and analysis afterwards). After a warm-up run each,
//! `--reps` rounds (default 7, quick 3) run the three in turn; the table
//! gives each median and the ratios to *plain*, with the strands a profile
//! recorded. That the hooks cost nothing when the `trace` feature is off
//! is shown by the suite built with and without the feature.
//!
//! Then `--big N` (default 32, quick 27; 0 skips it) profiles a fib whose
//! every level spawns its first call as a scope task (`Inlining::Never`,
//! queue capacity 1024: every spawn becomes a task) on the largest thread
//! count, and prints the strands and edges, the time to record, assemble
//! and analyse, the buffers' bytes per strand, and the assembled DAG's.
//!
//! Thread counts: `--threads`, else `PRESCIENT_BENCH_THREADS`, else 1,2
//! (`prescient_benches::cli`).

use prescient::profile::Dag;
use prescient::{Inlining, Params, Runtime};
use prescient_benches::cli::{self, Parsed};
use prescient_benches::programs::fib::{fib_prescient, fib_seq};
use prescient_benches::suite::machine::Machine;
use prescient_benches::suite::median;
use std::hint::black_box;
use std::time::Instant;

struct Options {
    quick: bool,
    threads: Vec<usize>,
    reps: usize,
    fib: u64,
    big: u64,
}

fn usage() -> String {
    cli::usage(
        "trace_overhead [--quick] [--threads LIST] [--reps N] [--fib N] [--big N]",
        "Times fib under a runtime without tracing, one built with trace(true) but
not recording, and one recording (Runtime::profile); then profiles a program
of millions of tasks and prints the recording's size, memory and timings.",
        "fib(30), 3 rounds, --big 27",
        "  --reps N            rounds of the three runtimes (default 7)
  --fib N             the fib argument timed (default 35)
  --big N             the spawn-per-level fib to profile at scale (default 32;
                      0 skips it)
",
    )
}

fn parse_options(
    args: Vec<String>,
    env_threads: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut reps = None;
    let mut fib = None;
    let mut big = None;
    let parsed = cli::parse(args, available, |flag, args| {
        match flag {
            "--reps" => reps = Some(args.positive(flag)?),
            "--fib" => fib = Some(args.positive(flag)? as u64),
            "--big" => {
                let value = args.value(flag)?;
                big = Some(
                    value
                        .parse::<u64>()
                        .map_err(|_| format!("--big: `{value}` is not a whole number"))?,
                );
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let Parsed::Run(common) = parsed else {
        return Ok(None);
    };
    let quick = common.quick;
    Ok(Some(Options {
        quick,
        threads: common.threads(env_threads, available)?,
        reps: reps.unwrap_or(if quick { 3 } else { 7 }),
        fib: fib.unwrap_or(if quick { 30 } else { 35 }),
        big: big.unwrap_or(if quick { 27 } else { 32 }),
    }))
}

fn build(threads: usize, params: Params, trace: bool) -> Runtime {
    Runtime::builder()
        .num_workers(threads)
        .params(params)
        .trace(trace)
        .build()
        .expect("a valid runtime")
}

fn millis(ns: f64) -> f64 {
    ns / 1e6
}

/// Each level spawns its first call as a scope task and runs the second.
fn fib_tasks(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut first = 0;
    let second = prescient::scope(|s| {
        s.spawn(|_| first = fib_tasks(black_box(n - 1)));
        fib_tasks(black_box(n - 2))
    });
    first + second
}

fn overhead_table(options: &Options) {
    let expected = fib_seq(options.fib);
    println!(
        "| threads | inlining | plain ms | enabled / plain | profiled / plain | strands | \
         recorded bytes / strand |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    for &threads in &options.threads {
        for inlining in [Inlining::Adaptive, Inlining::Never] {
            let params = Params::DEFAULT.with_inlining(inlining);
            let plain = build(threads, params, false);
            let traced = build(threads, params, true);
            let n = options.fib;
            let check = |value: u64| assert_eq!(value, expected, "fib({n}) went wrong");
            // `Copy` (it holds only `n`): each run below gets its own copy.
            let job = move || fib_prescient(black_box(n));
            check(plain.run(job));
            check(traced.run(job));
            check(traced.profile(job).expect("profiling works").into_result());
            let (mut plain_ns, mut enabled_ns, mut profiled_ns) = (vec![], vec![], vec![]);
            let mut strands = 0;
            let mut bytes_per_strand = 0.0;
            for _ in 0..options.reps {
                let start = Instant::now();
                check(plain.run(job));
                plain_ns.push(start.elapsed().as_nanos() as f64);
                let start = Instant::now();
                check(traced.run(job));
                enabled_ns.push(start.elapsed().as_nanos() as f64);
                let profile = traced.profile(job).expect("profiling works");
                let stats = profile.stats();
                profiled_ns.push(stats.run_ns as f64);
                strands = stats.strands;
                bytes_per_strand = stats.recorded_bytes as f64 / stats.strands.max(1) as f64;
                check(profile.into_result());
            }
            let (plain_ms, enabled_ms, profiled_ms) =
                (median(&plain_ns), median(&enabled_ns), median(&profiled_ns));
            println!(
                "| {threads} | {} | {:.1} | {:.3} | {:.3} | {strands} | {bytes_per_strand:.0} |",
                inlining.short_name(),
                millis(plain_ms),
                enabled_ms / plain_ms,
                profiled_ms / plain_ms,
            );
        }
    }
}

/// Strands to reserve per worker for `fib_tasks(n)`: about four per task,
/// `fib(n + 1)` tasks, spread over the workers (a quarter more for
/// imbalance).
fn trace_capacity(n: u64, threads: usize) -> usize {
    (fib_seq(n + 1) as usize * 4 / threads) * 5 / 4
}

fn big_profile(options: &Options) {
    let threads = *options
        .threads
        .iter()
        .max()
        .expect("at least one thread count");
    let n = options.big;
    let params = Params::DEFAULT
        .with_inlining(Inlining::Never)
        .with_queue_capacity(1024);
    let runtime = Runtime::builder()
        .num_workers(threads)
        .params(params)
        .trace(prescient::profile::Tracing::Reserve(trace_capacity(
            n, threads,
        )))
        .build()
        .expect("a valid runtime");
    let expected = fib_seq(n);
    // Warm-up (stacks mapped, pages touched), then the untraced time.
    assert_eq!(runtime.run(|| fib_tasks(n)), expected);
    let start = Instant::now();
    assert_eq!(runtime.run(|| fib_tasks(n)), expected);
    let untraced = start.elapsed().as_secs_f64();
    let profile = runtime.profile(|| fib_tasks(n)).expect("profiling works");
    assert_eq!(*profile.result(), expected);
    let stats = profile.stats();
    let dag: &Dag = profile.dag();
    let dag_bytes = std::mem::size_of_val(dag.strands()) + std::mem::size_of_val(dag.edges());
    println!(
        "\nfib_tasks({n}) on {threads} workers (a scope task per level, inlining never): \
         {} strands, {} edges, {} tasks\n\
         recorded in {:.2} s (untraced: {:.2} s), assembled in {:.2} s, analysed in {:.2} s\n\
         recorded: {:.0} MB, {:.1} bytes per strand ({:.0} MB of buffers); assembled DAG: {:.1} bytes per strand \
         (strands and edges; its indexes add 8 bytes per strand and 4 per edge)\n\
         critical path: {} strands, {:.1}% work",
        stats.strands,
        stats.edges,
        dag.strands()
            .iter()
            .enumerate()
            .filter(|(i, s)| s.task as usize == *i)
            .count(),
        stats.run_ns as f64 / 1e9,
        untraced,
        stats.assemble_ns as f64 / 1e9,
        stats.analyze_ns as f64 / 1e9,
        stats.recorded_bytes as f64 / 1e6,
        stats.recorded_bytes as f64 / stats.strands as f64,
        stats.buffer_bytes as f64 / 1e6,
        dag_bytes as f64 / stats.strands as f64,
        profile.analysis().critical_path.steps.len(),
        100.0 * profile.analysis().critical_path.work as f64
            / profile.analysis().critical_path.length.max(1) as f64,
    );
}

fn main() {
    let Some(options) = cli::options_from_command_line(parse_options, &usage()) else {
        return;
    };
    println!(
        "# The critical-path profiler's cost ({} mode; threads {:?})\n# {}\n# fib({}) through \
         join; medians of {} rounds of plain (no tracing), enabled (trace(true), not \
         recording), profiled (recording; the run's own time).\n",
        if options.quick { "quick" } else { "full" },
        options.threads,
        Machine::detect().describe(),
        options.fib,
        options.reps,
    );
    overhead_table(&options);
    if options.big > 0 {
        big_profile(&options);
    }
}
