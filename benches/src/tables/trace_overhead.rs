//! The `trace-overhead` table (with the `trace` feature): what the
//! critical-path profiler costs. [`Options`] documents what it prints;
//! [`run`] prints it.
//!
//! The JSON (`--json FILE`) is a [`TraceOverheadJson`]. Its `samples` hold
//! the median time of `fib(N)` (the program, e.g. `fib(35)`) per thread
//! count under the runners `prescient` (built without tracing),
//! `prescient-trace-enabled` (built with `trace(true)`, not recording) and
//! `prescient-trace-profiled` (recording; the run's own time), all under
//! the default inlining policy, and the same three under `Inlining::Never`
//! as `prescient-never`, `prescient-never-trace-enabled` and
//! `prescient-never-trace-profiled`.

use crate::cli::{progress, CommonArgs, Size};
use crate::harness::record::median;
use crate::harness::Machine;
use crate::programs::fib::{fib_prescient, fib_seq};
use crate::samples::{Sample, TableHead, PRESCIENT};
use prescient::profile::Dag;
use prescient::tuning::Inlining;
use prescient::{Params, Runtime};
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::time::Instant;

/// The table's name: its subcommand and the `table` of its JSON.
pub const TABLE: &str = "trace-overhead";

/// What the critical-path profiler costs: fib untraced, traced and
/// profiled, then one profile at scale.
///
/// Times fib under a runtime without tracing, one built with trace(true) but
/// not recording, and one recording (Runtime::profile); then profiles a
/// program of millions of tasks and prints the recording's size, memory and
/// timings.
///
/// Per thread count and inlining policy (`adaptive`, the default, and
/// `never`, under which every published join is a task), three runtimes of
/// that many workers run fib(--fib) through `join`: plain (built without
/// `trace`), enabled (built with `trace(true)`, runs with `run`) and
/// profiled (the same runtime, runs with `profile`; its time is the recorded
/// run's, `TraceStats::run_ns`, without the assembly and analysis
/// afterwards). After a warm-up run each, --reps rounds run the three in
/// turn; the table gives each median and the ratios to plain, with the
/// strands a profile recorded. That the hooks cost nothing when the `trace`
/// feature is off is shown by the suite built with and without the feature.
///
/// Then --big N profiles a fib whose every level spawns its first call as a
/// scope task (`Inlining::Never`, queue capacity 1024: every spawn becomes a
/// task) on the largest thread count, and prints the strands and edges, the
/// time to record, assemble and analyse, the buffers' bytes per strand, and
/// the assembled DAG's. --quick: fib(30), 3 rounds, --big 27.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Rounds of the three runtimes, median of (default 7; quick 3; test
    /// size 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reps: Option<u64>,
    /// The fib argument timed (default 35; quick 30; test size 18).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub fib: Option<u64>,
    /// The spawn-per-level fib to profile at scale (default 32; quick 27;
    /// test size 12; 0 skips it).
    #[arg(long, value_name = "N")]
    pub big: Option<u64>,
}

/// The defaults of one [`Size`]: rounds, fib and big.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Rounds unless `--reps` says otherwise.
    pub reps: usize,
    /// `--fib`'s default.
    pub fib: u64,
    /// `--big`'s default.
    pub big: u64,
}

impl Sizes {
    /// The defaults of `size`.
    pub fn of(size: Size) -> Sizes {
        match size {
            Size::Full => Sizes {
                reps: 7,
                fib: 35,
                big: 32,
            },
            Size::Quick => Sizes {
                reps: 3,
                fib: 30,
                big: 27,
            },
            Size::Test => Sizes {
                reps: 1,
                fib: 18,
                big: 12,
            },
        }
    }
}

impl Options {
    /// The rounds, fib and big argument: the flags, else the size's
    /// defaults.
    pub fn sizes(&self) -> Sizes {
        let defaults = Sizes::of(self.common.size());
        Sizes {
            reps: self.reps.map_or(defaults.reps, |r| r as usize),
            fib: self.fib.unwrap_or(defaults.fib),
            big: self.big.unwrap_or(defaults.big),
        }
    }
}

/// The JSON of the table (`--json FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TraceOverheadJson {
    /// The shared head: table, machine, size, thread counts and samples.
    #[serde(flatten)]
    pub head: TableHead,
    /// Rounds (each time is the median).
    pub reps: usize,
    /// The fib argument timed.
    pub fib: u64,
    /// One row per thread count and inlining policy.
    pub rows: Vec<OverheadRow>,
    /// The profile at scale, unless `--big 0`.
    pub big: Option<BigProfile>,
}

/// One row of the overhead table.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct OverheadRow {
    /// Workers.
    pub threads: usize,
    /// The inlining policy's short name (`adaptive`, `never`).
    pub inlining: String,
    /// The median time without tracing, in seconds.
    pub plain_seconds: f64,
    /// The median time with `trace(true)`, not recording.
    pub enabled_seconds: f64,
    /// The median recorded run's time.
    pub profiled_seconds: f64,
    /// The strands the last profile recorded.
    pub strands: u64,
    /// Its recorded bytes per strand.
    pub recorded_bytes_per_strand: f64,
}

/// The profile at scale (`--big N`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BigProfile {
    /// The argument of the spawn-per-level fib.
    pub n: u64,
    /// Workers (the largest thread count).
    pub threads: usize,
    /// Strands recorded.
    pub strands: u64,
    /// Edges recorded.
    pub edges: u64,
    /// Tasks in the assembled DAG.
    pub tasks: usize,
    /// The recorded run's time, in seconds.
    pub record_seconds: f64,
    /// The same program untraced, in seconds.
    pub untraced_seconds: f64,
    /// Assembly, in seconds.
    pub assemble_seconds: f64,
    /// Analysis, in seconds.
    pub analyse_seconds: f64,
    /// Bytes recorded.
    pub recorded_bytes: u64,
    /// Bytes of the trace buffers.
    pub buffer_bytes: u64,
    /// The assembled DAG's bytes per strand (strands and edges).
    pub dag_bytes_per_strand: f64,
    /// Strands on the critical path.
    pub critical_path_strands: usize,
    /// The critical path's work over its length, in percent.
    pub critical_path_work_percent: f64,
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

/// The runners of the three runtimes under `inlining`: `prescient` (plus
/// `-never` for `Inlining::Never`), then `-trace-enabled` and
/// `-trace-profiled`.
fn runners(inlining: Inlining) -> [String; 3] {
    let base = match inlining {
        Inlining::Adaptive => PRESCIENT.to_string(),
        other => format!("{PRESCIENT}-{}", other.short_name()),
    };
    [
        base.clone(),
        format!("{base}-trace-enabled"),
        format!("{base}-trace-profiled"),
    ]
}

fn overhead_table(threads: &[usize], sizes: Sizes, samples: &mut Vec<Sample>) -> Vec<OverheadRow> {
    let expected = fib_seq(sizes.fib);
    let program = format!("fib({})", sizes.fib);
    println!(
        "| threads | inlining | plain ms | enabled / plain | profiled / plain | strands | \
         recorded bytes / strand |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    for &threads in threads {
        for inlining in [Inlining::Adaptive, Inlining::Never] {
            progress(format!(
                "trace-overhead: {program}, {threads} thread{}, inlining {}, plain/enabled/profiled",
                if threads == 1 { "" } else { "s" },
                inlining.short_name()
            ));
            let params = Params::DEFAULT.with_inlining(inlining);
            let plain = build(threads, params, false);
            let traced = build(threads, params, true);
            let n = sizes.fib;
            let check = |value: u64| assert_eq!(value, expected, "fib({n}) went wrong");
            // `Copy` (it holds only `n`): each run below gets its own copy.
            let job = move || fib_prescient(black_box(n));
            check(plain.run(job));
            check(traced.run(job));
            check(traced.profile(job).expect("profiling works").into_result());
            let (mut plain_ns, mut enabled_ns, mut profiled_ns) = (vec![], vec![], vec![]);
            let mut strands = 0;
            let mut bytes_per_strand = 0.0;
            for _ in 0..sizes.reps {
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
            for (runner, ns) in
                runners(inlining)
                    .into_iter()
                    .zip([plain_ms, enabled_ms, profiled_ms])
            {
                samples.push(Sample::new(&program, runner, threads, ns / 1e9));
            }
            rows.push(OverheadRow {
                threads,
                inlining: inlining.short_name().to_string(),
                plain_seconds: plain_ms / 1e9,
                enabled_seconds: enabled_ms / 1e9,
                profiled_seconds: profiled_ms / 1e9,
                strands: strands as u64,
                recorded_bytes_per_strand: bytes_per_strand,
            });
        }
    }
    rows
}

/// Strands to reserve per worker for `fib_tasks(n)`: about four per task,
/// `fib(n + 1)` tasks, spread over the workers (a quarter more for
/// imbalance).
fn trace_capacity(n: u64, threads: usize) -> usize {
    (fib_seq(n + 1) as usize * 4 / threads) * 5 / 4
}

fn big_profile(threads: &[usize], n: u64) -> BigProfile {
    let threads = *threads.iter().max().expect("at least one thread count");
    progress(format!(
        "trace-overhead: profiling fib_tasks({n}) on {threads} thread{}",
        if threads == 1 { "" } else { "s" }
    ));
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
    let critical_path = &profile.analysis().critical_path;
    let big = BigProfile {
        n,
        threads,
        strands: stats.strands as u64,
        edges: stats.edges as u64,
        tasks: dag
            .strands()
            .iter()
            .enumerate()
            .filter(|(i, s)| s.task as usize == *i)
            .count(),
        record_seconds: stats.run_ns as f64 / 1e9,
        untraced_seconds: untraced,
        assemble_seconds: stats.assemble_ns as f64 / 1e9,
        analyse_seconds: stats.analyze_ns as f64 / 1e9,
        recorded_bytes: stats.recorded_bytes as u64,
        buffer_bytes: stats.buffer_bytes as u64,
        dag_bytes_per_strand: dag_bytes as f64 / stats.strands as f64,
        critical_path_strands: critical_path.steps.len(),
        critical_path_work_percent: 100.0 * critical_path.work as f64
            / critical_path.length.max(1) as f64,
    };
    println!(
        "\n### Profiling fib_tasks({n}) on {threads} workers (a scope task per level, inlining \
         never)\n"
    );
    println!("| quantity | value |\n|---|---:|");
    let rows = [
        ("strands", big.strands.to_string()),
        ("edges", big.edges.to_string()),
        ("tasks", big.tasks.to_string()),
        ("recorded in", format!("{:.2} s", big.record_seconds)),
        ("untraced run", format!("{:.2} s", big.untraced_seconds)),
        ("assembled in", format!("{:.2} s", big.assemble_seconds)),
        ("analysed in", format!("{:.2} s", big.analyse_seconds)),
        (
            "recorded",
            format!("{:.0} MB", big.recorded_bytes as f64 / 1e6),
        ),
        (
            "recorded bytes per strand",
            format!("{:.1}", big.recorded_bytes as f64 / big.strands as f64),
        ),
        (
            "buffers",
            format!("{:.0} MB", big.buffer_bytes as f64 / 1e6),
        ),
        (
            "assembled DAG bytes per strand (strands and edges; its indexes add 8 bytes per \
             strand and 4 per edge)",
            format!("{:.1}", big.dag_bytes_per_strand),
        ),
        (
            "critical path",
            format!(
                "{} strands, {:.1}% work",
                big.critical_path_strands, big.critical_path_work_percent
            ),
        ),
    ];
    for (quantity, value) in rows {
        println!("| {quantity} | {value} |");
    }
    big
}

/// Runs the table (see [`Options`]).
///
/// # Errors
/// A bad thread list in the environment, or a JSON file that cannot be
/// written.
///
/// # Panics
/// If a run gives a wrong result or profiling fails.
pub fn run(options: &Options) -> Result<(), String> {
    let size = options.common.size();
    let sizes = options.sizes();
    let threads = options.common.threads()?;
    println!(
        "### The critical-path profiler's cost ({} size; threads {threads:?})\n\n{}\n\nfib({}) \
         through join; medians of {} rounds of plain (no tracing), enabled (trace(true), not \
         recording), profiled (recording; the run's own time).\n",
        size.name(),
        Machine::detect().describe(),
        sizes.fib,
        sizes.reps,
    );
    let mut head = TableHead::new(TABLE, size, &threads);
    let rows = overhead_table(&threads, sizes, &mut head.samples);
    let big = (sizes.big > 0).then(|| big_profile(&threads, sizes.big));
    options.common.write_json(&TraceOverheadJson {
        head,
        reps: sizes.reps,
        fib: sizes.fib,
        rows,
        big,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runner_names() {
        assert_eq!(
            runners(Inlining::Adaptive),
            [
                "prescient",
                "prescient-trace-enabled",
                "prescient-trace-profiled"
            ]
        );
        assert_eq!(
            runners(Inlining::Never)[2],
            "prescient-never-trace-profiled"
        );
    }

    #[test]
    fn a_small_table_runs() {
        let mut samples = Vec::new();
        let sizes = Sizes {
            reps: 1,
            fib: 10,
            big: 8,
        };
        let rows = overhead_table(&[1], sizes, &mut samples);
        assert_eq!(rows.len(), 2);
        assert_eq!(samples.len(), 6);
        let big = big_profile(&[1], 8);
        assert!(big.strands > 0 && big.tasks > 0);
    }
}
