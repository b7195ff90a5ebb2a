//! The `dataflow` table: the dataflow benchmarks ([`crate::dataflow`])
//! side by side under each DAST mode, checked against their sequential
//! references. [`Options`] documents what it prints; [`run`] prints it.
//!
//! * [`measure`] times the benchmarks (the modes interleaved, one runtime
//!   per mode and thread count) and holds the sizes of each [`Size`];
//! * [`print`](mod@print) writes the Markdown tables (kernels, task cost, bucket sweep,
//!   DAST counters, the summary relative to `off`, and with `dast-stats`
//!   the per-request cost).
//!
//! The JSON (`--json FILE`) is a [`DataflowJson`]. Its `samples` hold, per
//! benchmark, thread count and DAST mode, the best time as runner
//! `prescient-dast-<mode>` (`off`, `forced`, `adaptive`, `idle`), the
//! default mode's (`adaptive`, `Params::DEFAULT.dast`) also as `prescient`,
//! and the sequential reference as `sequential` (1 thread). The empty-task
//! costs are per-task samples (`Sample::per_task`) of the programs
//! `empty dependent task (N in flight)` and `empty independent task (N in
//! flight)`, under the same runners. The program names say the size (see
//! [`measure::Sizes`]): `two-wave 250`, `two-wave 25000 (2000 tasks per
//! wave)`, `cholesky 1024/64`, `matmul 512/64`, `sparselu 1200/40`,
//! `bucket sweep 97 (20000 handles x 4 rounds)`. Its `competing` is
//! `--competing N`: the busy processes ([`crate::competing`]) that ran
//! beside every measurement.
//!
//! The C/C++ peers ([`crate::peers`]: `omp-gcc`, `omp-llvm`, `tbb`,
//! `starpu`) run two-wave, Cholesky, matmul and SparseLU at the same sizes
//! and reps, each in a child process, their results checked against the
//! sequential reference's checksum: a peer's best time follows the modes'
//! rows in the kernels table, and is in each benchmark's `peers` and in
//! the samples under its name; the head's `peers` says what each peer is,
//! or why it was skipped.

pub mod measure;
pub mod print;

use crate::cli::{self, CommonArgs, Size};
use crate::competing::{self, CompetingArgs, Competitors};
use crate::harness::Record;
use crate::peers::{self, Job};
use crate::samples::{Sample, TableHead, PRESCIENT, SEQUENTIAL};
use measure::{Bench, Entry, Measured, Sizes};
use prescient::tuning::{Counters, DastMode};
use prescient::Params;
pub use print::ModeRatio;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// The table's name: its subcommand and the `table` of its JSON.
pub const TABLE: &str = "dataflow";

/// The dataflow benchmarks side by side under each DAST mode, checked
/// against their sequential references.
///
/// Runs the dataflow benchmarks side by side — sequential vs Prescient at
/// each thread count, under each DAST mode (`off`, `forced`, `adaptive`,
/// `idle`), the modes interleaved — and prints their tables: the DAST
/// two-wave benchmark (task sizes 250, 2,500, 25,000 and 50,000), blocked
/// Cholesky, matmul and SparseLU (one row per mode), the cost of an empty
/// dependent vs independent task per mode, the dependency-table bucket sweep
/// per mode, the DAST counters per run (what each mode did: requests pushed
/// vs run inline, who executed the pushed ones; of two-wave at task size 250,
/// or of every benchmark with --counters), and last each mode's time
/// relative to `off` for every benchmark and thread count, with the
/// geometric mean of those ratios. Built with the `dast-stats` feature, it
/// also prints each mode's per-request cost (harmonic mean ns of new / done
/// / delete, inline and queued: the DAST paper's Fig. 7) and the graph-lock
/// acquisition time (its Fig. 8).
///
/// For each benchmark and thread count there is one runtime per mode; each
/// is warmed up once, then every round times each mode once (the first mode
/// of a round rotates), for --reps rounds, and a mode's time is its best
/// round: a slow phase of a shared machine touches all modes alike. Every
/// parallel result is checked against the sequential reference.
///
/// With --competing N, N busy processes (one CPU spin loop each) share the
/// CPUs with every measurement.
///
/// --quick runs fewer two-wave tasks at the coarse task sizes, smaller
/// kernels and the buckets 97 and 64567 only. The DAST modes come from
/// --dast, else $PRESCIENT_BENCH_DAST (same syntax), else all four.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// `--competing N`: busy processes beside the measurements.
    #[command(flatten)]
    pub competing: CompetingArgs,
    /// The DAST modes to measure: comma-separated names (off, forced,
    /// adaptive, idle; each once) or `all`. Default: $PRESCIENT_BENCH_DAST,
    /// else all four. Rows follow that order; `off` is the summary's
    /// baseline.
    #[arg(long, value_name = "LIST")]
    pub dast: Option<DastList>,
    /// Timed rounds per configuration, best of (default 5; quick 3; test
    /// size 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reps: Option<u64>,
    /// Only these sections (comma-separated; default: all).
    #[arg(long, value_name = "SECTIONS", value_enum, value_delimiter = ',')]
    pub only: Option<Vec<Section>>,
    /// Print the DAST counters of every benchmark (default: two-wave at task
    /// size 250 only).
    #[arg(long)]
    pub counters: bool,
}

/// A list of DAST modes as `--dast` gives it (see [`cli::parse_dast`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DastList(pub Vec<DastMode>);

impl std::str::FromStr for DastList {
    type Err = String;

    fn from_str(spec: &str) -> Result<DastList, String> {
        cli::parse_dast(spec).map(DastList)
    }
}

/// A section of the table (`--only`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The two-wave benchmark at its four task sizes.
    #[value(name = "two_wave", alias = "two-wave")]
    TwoWave,
    /// Blocked Cholesky.
    #[value(name = "cholesky")]
    Cholesky,
    /// Blocked matrix multiply.
    #[value(name = "matmul")]
    Matmul,
    /// BOTS SparseLU.
    #[value(name = "sparselu")]
    Sparselu,
    /// The cost of an empty task, dependent vs independent.
    #[value(name = "task_cost", alias = "task-cost")]
    TaskCost,
    /// The dependency-table bucket sweep.
    #[value(name = "buckets")]
    Buckets,
}

impl Options {
    /// Whether `section` is to be measured (`--only`).
    pub fn wants(&self, section: Section) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.contains(&section))
    }

    /// The DAST modes to measure: `--dast`, else [`cli::DAST_ENV`], else
    /// all four.
    ///
    /// # Errors
    /// The variable's error.
    pub fn modes(&self) -> Result<Vec<DastMode>, String> {
        let env = std::env::var(cli::DAST_ENV).ok();
        cli::resolve_dast(self.dast.as_ref().map(|d| d.0.as_slice()), env.as_deref())
    }

    /// Timed rounds: `--reps`, else the size's default.
    pub fn reps(&self) -> usize {
        match self.reps {
            Some(reps) => reps as usize,
            None => Sizes::of(self.common.size()).reps,
        }
    }
}

/// The JSON of the table (`--json FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DataflowJson {
    /// The shared head: table, machine, size, thread counts and samples.
    #[serde(flatten)]
    pub head: TableHead,
    /// Timed rounds per configuration (each time is the best round).
    pub reps: usize,
    /// The DAST modes measured, by short name, in table order.
    pub modes: Vec<String>,
    /// Every benchmark (every row group of the tables).
    pub benchmarks: Vec<BenchmarkJson>,
    /// The summary: per mode other than `off` and thread count, the
    /// geometric mean over the benchmarks of `T_mode / T_off` (empty
    /// without `off`).
    pub relative_to_off: Vec<ModeRatio>,
}

/// One benchmark of [`DataflowJson`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkJson {
    /// Its row label in the tables (`two_wave 10000x2 size 250`).
    pub label: String,
    /// Its program name in the samples (`two-wave 250`).
    pub program: String,
    /// The sequential reference's best time, where it has one.
    pub sequential_seconds: Option<f64>,
    /// Tasks per timed run, for the empty-task costs (a run's time over
    /// this is the cost of one task).
    pub tasks_per_run: Option<usize>,
    /// Its measurements, per thread count and mode.
    pub runs: Vec<RunJson>,
    /// The peers' best times, per peer and thread count (absent: none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<PeerJson>,
}

/// One benchmark under one peer at one thread count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PeerJson {
    /// The peer's runner name.
    pub runner: String,
    /// Threads.
    pub threads: usize,
    /// The best timed run, in seconds (absent: it failed).
    pub seconds: Option<f64>,
    /// The peer's peak RSS, in KiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_rss_kib: Option<u64>,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One benchmark under one mode at one thread count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunJson {
    /// Worker threads.
    pub threads: usize,
    /// The DAST mode's short name.
    pub mode: String,
    /// The best round's time, in seconds.
    pub seconds: f64,
    /// The runs `counters` cover (the warm-up and every round).
    pub runs: u64,
    /// The runtime's counters over those runs (totals).
    pub counters: DastCounters,
}

/// The counters of [`RunJson`]: totals over its runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DastCounters {
    /// `new` requests pushed to the DAST queues.
    pub new_pushed: u64,
    /// `new` requests executed inline.
    pub new_inline: u64,
    /// `done` requests pushed.
    pub done_pushed: u64,
    /// `done` requests executed inline.
    pub done_inline: u64,
    /// `delete` requests pushed.
    pub delete_pushed: u64,
    /// `delete` requests executed inline.
    pub delete_inline: u64,
    /// Pushed requests executed by the manager thread.
    pub executed_by_manager: u64,
    /// Pushed requests executed by workers.
    pub executed_by_workers: u64,
    /// Done-bound doublings.
    pub bound_doublings: u64,
    /// Spawns run inline at submission (no graph entry).
    pub inlined_spawns: u64,
}

impl From<&Counters> for DastCounters {
    fn from(c: &Counters) -> DastCounters {
        DastCounters {
            new_pushed: c.dast_new_pushed,
            new_inline: c.dast_new_inline,
            done_pushed: c.dast_done_pushed,
            done_inline: c.dast_done_inline,
            delete_pushed: c.dast_delete_pushed,
            delete_inline: c.dast_delete_inline,
            executed_by_manager: c.dast_executed_by_manager,
            executed_by_workers: c.dast_executed_by_workers,
            bound_doublings: c.dast_bound_doublings,
            inlined_spawns: c.inlined_spawns,
        }
    }
}

/// Runs the table (see [`Options`]).
///
/// # Errors
/// A bad thread list or DAST list in the environment, or a JSON file that
/// cannot be written.
///
/// # Panics
/// If a parallel result differs from the sequential reference.
pub fn run(options: &Options) -> Result<(), String> {
    let started = Instant::now();
    let size = options.common.size();
    let sizes = Sizes::of(size);
    let bench = Bench {
        threads: options.common.threads()?,
        modes: options.modes()?,
        reps: options.reps(),
    };
    let (threads, modes, reps) = (&bench.threads, &bench.modes, bench.reps);
    let mode_names: Vec<&str> = modes.iter().map(|m| m.short_name()).collect();
    println!(
        "### Prescient dataflow benchmarks ({} size, best of {reps} interleaved rounds; \
         {} hardware threads; thread counts {threads:?}; DAST modes {mode_names:?})\n",
        size.name(),
        cli::available_threads(),
    );
    println!("{}\n", competing::describe(options.competing.competing));
    // Every measurement below runs beside them; they are killed and reaped
    // once the last one is done (or when a failed check unwinds).
    if options.competing.competing > 0 {
        cli::progress(format!(
            "{TABLE}: starting {} competing busy process(es)",
            options.competing.competing
        ));
    }
    let competitors = Competitors::start(options.competing.competing)?;
    let mut entries: Vec<Entry> = Vec::new();
    // Labels of the entries whose counters are printed.
    let mut counted: Vec<String> = Vec::new();

    // (a) two-wave, and the kernels (b)-(d), default Params.
    use Section::*;
    if [TwoWave, Cholesky, Matmul, Sparselu]
        .iter()
        .any(|&s| options.wants(s))
    {
        println!(
            "### Kernels (default Params: DEF, capacity 16, 97 buckets; one row per DAST mode); \
             ratio = T / T_seq\n"
        );
        measure::header(threads, "benchmark");
    }
    let mut kernels = Vec::new();
    if options.wants(TwoWave) {
        kernels.extend(bench.two_wave(&sizes));
    }
    if options.wants(Cholesky) {
        kernels.push(bench.cholesky(&sizes));
    }
    if options.wants(Matmul) {
        kernels.push(bench.matmul(&sizes));
    }
    if options.wants(Sparselu) {
        kernels.push(bench.sparselu(&sizes));
    }
    let peer_runners = peers::runners(TABLE);
    let kernels_empty = kernels.is_empty();
    for mut entry in kernels {
        let job = Job::of_row(TABLE, &entry.program, size, reps);
        if let (Some(job), Some(expect)) = (job, &entry.expect) {
            entry.peers = peers::measure(TABLE, size, &peer_runners, threads, &job, expect);
        }
        measure::rows(&entry, modes);
        if entry.counted_by_default {
            counted.push(entry.label.clone());
        }
        entries.push(entry);
    }
    let notes = peers::notes(&peer_runners, entries.iter().flat_map(peer_records));
    if !kernels_empty {
        println!("\n{}", peers::render_notes(&notes));
    }

    // (e) cost per empty task, all deferred.
    if options.wants(TaskCost) {
        entries.extend(bench.task_cost(&sizes));
    }
    // (f) bucket sweep.
    if options.wants(Buckets) {
        entries.extend(bench.bucket_sweep(&sizes));
    }

    // (g) per-request cost and lock acquisition, with `dast-stats`.
    #[cfg(feature = "dast-stats")]
    if options.wants(TaskCost) || options.wants(TwoWave) {
        print::request_cost(&bench, &sizes);
    }

    if options.counters {
        counted = entries.iter().map(|e| e.label.clone()).collect();
    }
    print::counters(
        &bench,
        entries.iter().filter(|e| counted.contains(&e.label)),
    );
    let relative_to_off = print::summary(&bench, &entries);
    drop(competitors);
    println!("\n(finished in {:.1} s)", started.elapsed().as_secs_f64());
    if options.common.json.is_some() {
        let mut json = to_json(
            &bench,
            size,
            options.competing.competing,
            &entries,
            relative_to_off,
        );
        json.head.peers = notes;
        options.common.write_json(&json)?;
    }
    match entries
        .iter()
        .flat_map(|e| &e.peers)
        .filter(|p| p.2.is_err())
        .count()
    {
        0 => Ok(()),
        n => Err(format!("{n} peer row(s) failed (see the table)")),
    }
}

/// The runner name of Prescient under `mode`: `prescient-dast-<mode>`.
pub fn runner(mode: DastMode) -> String {
    format!("{PRESCIENT}-dast-{}", mode.short_name())
}

/// The samples of `entry`: the sequential reference (if any), and per
/// thread count and mode its time (per task, where the entry counts tasks)
/// under [`runner`], the default mode's also under [`PRESCIENT`] where the
/// entry runs under the default parameters.
fn samples(entry: &Entry, threads: &[usize], modes: &[DastMode]) -> Vec<Sample> {
    let mut samples = Vec::new();
    if let Some(seq) = entry.seq {
        samples.push(Sample::new(
            &entry.program,
            SEQUENTIAL,
            1,
            seq.as_secs_f64(),
        ));
    }
    for (&t, per_mode) in threads.iter().zip(&entry.measured) {
        for (&mode, measured) in modes.iter().zip(per_mode) {
            let mut runners = vec![runner(mode)];
            if entry.default_params && mode == Params::DEFAULT.dast {
                runners.push(PRESCIENT.to_string());
            }
            for runner in runners {
                samples.push(match entry.tasks_per_run {
                    Some(tasks) => Sample::per_task(
                        &entry.program,
                        runner,
                        t,
                        measured.time.as_secs_f64() / tasks as f64,
                    ),
                    None => Sample::new(&entry.program, runner, t, measured.time.as_secs_f64()),
                });
            }
        }
    }
    samples
}

/// The peers' records of `entry`, by runner.
fn peer_records(entry: &Entry) -> impl Iterator<Item = (&str, &Record)> + Clone {
    fn ran((runner, _, r): &(String, usize, Result<Record, String>)) -> Option<(&str, &Record)> {
        Some((runner.as_str(), r.as_ref().ok()?))
    }
    entry.peers.iter().filter_map(ran)
}

/// The table's JSON, of a run at `size` beside `competing` busy processes.
fn to_json(
    bench: &Bench,
    size: Size,
    competing: usize,
    entries: &[Entry],
    relative_to_off: Vec<ModeRatio>,
) -> DataflowJson {
    let mut head = TableHead::new(TABLE, size, &bench.threads);
    head.competing = competing;
    let mut benchmarks = Vec::new();
    for entry in entries {
        head.samples
            .extend(samples(entry, &bench.threads, &bench.modes));
        let mut runs = Vec::new();
        for (&threads, per_mode) in bench.threads.iter().zip(&entry.measured) {
            for (&mode, m) in bench.modes.iter().zip(per_mode) {
                runs.push(run_json(threads, mode, m));
            }
        }
        let peers: Vec<PeerJson> = entry
            .peers
            .iter()
            .map(|(runner, threads, record)| PeerJson {
                runner: runner.clone(),
                threads: *threads,
                seconds: record.as_ref().ok().map(|r| r.min_ns() / 1e9),
                peak_rss_kib: record.as_ref().ok().and_then(|r| r.peak_rss_kib),
                error: record.as_ref().err().cloned(),
            })
            .collect();
        for peer in &peers {
            if let Some(seconds) = peer.seconds {
                let sample = Sample::new(&entry.program, &peer.runner, peer.threads, seconds);
                head.samples.push(sample);
            }
        }
        benchmarks.push(BenchmarkJson {
            label: entry.label.clone(),
            program: entry.program.clone(),
            sequential_seconds: entry.seq.map(|d| d.as_secs_f64()),
            tasks_per_run: entry.tasks_per_run,
            runs,
            peers,
        });
    }
    DataflowJson {
        head,
        reps: bench.reps,
        modes: bench
            .modes
            .iter()
            .map(|m| m.short_name().to_string())
            .collect(),
        benchmarks,
        relative_to_off,
    }
}

fn run_json(threads: usize, mode: DastMode, m: &Measured) -> RunJson {
    RunJson {
        threads,
        mode: mode.short_name().to_string(),
        seconds: m.time.as_secs_f64(),
        runs: m.runs,
        counters: DastCounters::from(&m.delta),
    }
}
