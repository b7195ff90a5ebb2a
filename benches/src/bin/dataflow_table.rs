//! Runs the dataflow benchmarks quickly, side by side, under each DAST mode
//! (`prescient::DastMode`: `off`, `forced`, `adaptive`, `idle`), and prints
//! tables: the DAST two-wave benchmark (task sizes 250, 2,500, 25,000 and
//! 50,000), blocked Cholesky, matmul and SparseLU (sequential vs Prescient
//! at each thread count, one row per mode), the cost of an empty dependent
//! vs independent task per mode, the dependency-table bucket sweep per mode,
//! the DAST counters per run (what each mode did: requests pushed vs run
//! inline, who executed the pushed ones; of two-wave at task size 250, or
//! of every benchmark with `--counters`), and last a summary: each mode's
//! time relative to `off` for every benchmark and thread count, with the
//! geometric mean of those ratios per mode and thread count. Built with
//! `--features dast-stats`, it also prints each mode's per-request cost
//! (harmonic mean ns of `new` / `done` / `delete`, inline and queued: the
//! DAST paper's Fig. 7) and graph-lock acquisition time (its Fig. 8).
//!
//! The modes are measured side by side in one process, interleaved: for each
//! benchmark and thread count there is one runtime per mode; each is warmed
//! up once, then every round times each mode once (the first mode of a round
//! rotates), for `--reps` rounds, and a mode's time is its best round. A slow
//! phase of the machine (it may be shared: other processes only add time)
//! thus touches all modes alike. Every parallel result is checked against the
//! sequential reference. The flags and the thread counts (`--threads`, else
//! `PRESCIENT_BENCH_THREADS`, else 1,2) follow the convention of every
//! benchmark binary (`prescient_benches::cli`); the modes come from `--dast`,
//! else `PRESCIENT_BENCH_DAST`, else all four.
//!
//! `cargo bench-run dataflow_table -- [--quick] [--threads LIST] [--dast LIST] [--reps N] [--only SECTIONS] [--counters]`

use prescient::{Counters, DastMode, Params, Runtime};
use prescient_benches::cf17::calibrate::geomean;
use prescient_benches::cli::{self, Parsed, DAST_ENV, THREADS_ENV};
use prescient_benches::dataflow::{
    best_time, cholesky, compare_exact, matmul, overhead, runtime, sparselu, two_wave, Kernel,
    DEFERRING,
};
use std::time::{Duration, Instant};

/// The `--help` text.
fn usage() -> String {
    cli::usage(
        "dataflow_table [--quick] [--threads LIST] [--dast LIST] [--reps N] [--only SECTIONS] [--counters]",
        "Runs the dataflow benchmarks side by side (sequential vs Prescient at each
thread count, under each DAST mode, the modes interleaved) and prints their
tables, the DAST counters and each mode's time relative to `off`; every
parallel result is checked against the sequential one.",
        "fewer two-wave tasks at the coarse sizes, smaller
                      kernels, buckets 97 and 64567 only",
        &format!(
            "  --dast LIST         the DAST modes to measure: comma-separated names (off,
                      forced, adaptive, idle; each once) or `all`; else the
                      variable {DAST_ENV} (same syntax), else all
                      four. Rows follow that order; `off` is the summary's
                      baseline
  --reps N            timed rounds per configuration (best of; default 5,
                      quick 3)
  --only SECTIONS     comma-separated subset of: two_wave, cholesky, matmul,
                      sparselu, task_cost, buckets (default: all)
  --counters          print the DAST counters of every benchmark (default:
                      two-wave at task size 250 only)
"
        ),
    )
}

struct Options {
    quick: bool,
    threads: Vec<usize>,
    dast: Vec<DastMode>,
    reps: usize,
    only: Option<Vec<String>>,
    counters: bool,
}

const SECTIONS: [&str; 6] = [
    "two_wave",
    "cholesky",
    "matmul",
    "sparselu",
    "task_cost",
    "buckets",
];

impl Options {
    fn wants(&self, section: &str) -> bool {
        self.only
            .as_ref()
            .is_none_or(|only| only.iter().any(|s| s == section))
    }
}

/// The options of `args` (without the program name), `None` for `--help`;
/// `env_threads` and `env_dast` are the values of [`THREADS_ENV`] and
/// [`DAST_ENV`].
fn parse_options(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    env_dast: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut reps = 0;
    let mut only = None;
    let mut dast = None;
    let mut counters = false;
    let parsed = cli::parse(args, available, |flag, args| {
        match flag {
            "--reps" => {
                reps = args.positive(flag)?;
            }
            "--dast" => {
                let value = args.value(flag)?;
                dast = Some(cli::parse_dast(&value).map_err(|e| format!("--dast {value:?}: {e}"))?);
            }
            "--counters" => counters = true,
            "--only" => {
                let value = args.value(flag)?;
                let list: Vec<String> = value.split(',').map(|s| s.trim().to_string()).collect();
                if let Some(bad) = list.iter().find(|s| !SECTIONS.contains(&s.as_str())) {
                    return Err(format!("unknown section {bad:?}"));
                }
                only = Some(list);
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let Parsed::Run(common) = parsed else {
        return Ok(None);
    };
    Ok(Some(Options {
        quick: common.quick,
        threads: common.threads(env_threads, available)?,
        dast: cli::resolve_dast(dast.as_deref(), env_dast)?,
        reps: if reps > 0 {
            reps
        } else if common.quick {
            3
        } else {
            5
        },
        only,
        counters,
    }))
}

/// One mode's measurement at one thread count: the best round's time, and
/// the counters' change over all its `runs` (the warm-up included).
#[derive(Clone, Copy, Debug)]
struct Sample {
    time: Duration,
    delta: Counters,
    runs: u64,
}

/// One benchmark's measurements: `samples[i][m]` at the `i`-th thread count
/// under the `m`-th mode, and the sequential reference's time where the
/// tables show one.
struct Entry {
    name: String,
    seq: Option<Duration>,
    samples: Vec<Vec<Sample>>,
}

/// What every measurement shares: the thread counts, the modes, the rounds.
struct Bench {
    threads: Vec<usize>,
    modes: Vec<DastMode>,
    reps: usize,
}

impl Bench {
    /// Times `run` under every mode at every thread count, interleaved (see
    /// the file's documentation): per thread count, one runtime per mode
    /// (`params` with that mode), one warm-up run each, then `reps` rounds
    /// that time every mode once, the first mode rotating. Every result is
    /// checked with `check` (outside the timing).
    ///
    /// # Panics
    /// If a result is wrong.
    fn measure<T: Send>(
        &self,
        params: Params,
        run: impl Fn(&Runtime) -> T,
        check: impl Fn(&T) -> Result<(), String>,
    ) -> Vec<Vec<Sample>> {
        let modes = &self.modes;
        self.threads
            .iter()
            .map(|&threads| {
                let runtimes: Vec<Runtime> = modes
                    .iter()
                    .map(|&mode| runtime(threads, params.with_dast(mode)))
                    .collect();
                let checked = |m: usize, result: T| {
                    if let Err(e) = check(&result) {
                        panic!(
                            "Prescient ({}) on {threads} threads gave a wrong result: {e}",
                            modes[m]
                        );
                    }
                };
                let before: Vec<Counters> = runtimes.iter().map(Runtime::counters).collect();
                for (m, rt) in runtimes.iter().enumerate() {
                    checked(m, run(rt));
                }
                let mut best = vec![Duration::MAX; modes.len()];
                for round in 0..self.reps.max(1) {
                    for k in 0..modes.len() {
                        let m = (round + k) % modes.len();
                        let start = Instant::now();
                        let result = run(&runtimes[m]);
                        best[m] = best[m].min(start.elapsed());
                        checked(m, result);
                    }
                }
                runtimes
                    .iter()
                    .zip(before)
                    .zip(best)
                    .map(|((rt, before), time)| Sample {
                        time,
                        delta: rt.counters().since(&before),
                        runs: self.reps.max(1) as u64 + 1,
                    })
                    .collect()
            })
            .collect()
    }

    /// Measures `kernel` on `original` (default `Params`): its sequential
    /// reference, and its dataflow version under every mode and thread
    /// count, each result checked against the reference's.
    fn kernel<M: Clone + Send + Sync>(
        &self,
        kernel: &Kernel<M>,
        label: &str,
        original: &M,
    ) -> Entry {
        let reference = kernel.reference(original);
        let seq = best_time(self.reps, || {
            std::hint::black_box(kernel.reference(original));
        });
        let samples = self.measure(
            Params::DEFAULT,
            |rt| {
                rt.run(|| {
                    let mut m = original.clone();
                    (kernel.dataflow)(&mut m);
                    m
                })
            },
            |m| (kernel.check)(m, &reference),
        );
        Entry {
            name: label.to_string(),
            seq: Some(seq),
            samples,
        }
    }
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// Width of the benchmark-name column.
const NAME: usize = 30;

/// The header of a table with a sequential column and, per thread count,
/// Prescient's time and its ratio to the sequential one.
fn header(threads: &[usize], first: &str) {
    let mut line = format!("| {first:<NAME$} | {:<8} | {:>9} |", "mode", "seq ms");
    let mut rule = format!("|{:-<w$}|{:-<10}|{:->11}|", "", "", "", w = NAME + 2);
    for t in threads {
        line += &format!(" {:>9} | {:>5} |", format!("P{t} ms"), format!("P{t}/s"));
        rule += &format!("{:->11}|{:->7}|", "", "");
    }
    println!("{line}\n{rule}");
}

/// An entry's rows under [`header`]: one per mode.
fn print_rows(entry: &Entry, modes: &[DastMode]) {
    let seq = entry.seq.expect("a table with a sequential column");
    for (m, mode) in modes.iter().enumerate() {
        let mut line = format!(
            "| {:<NAME$} | {:<8} | {:>9} |",
            entry.name,
            mode.short_name(),
            ms(seq)
        );
        for samples in &entry.samples {
            let t = samples[m].time;
            line += &format!(
                " {:>9} | {:>5.2} |",
                ms(t),
                t.as_secs_f64() / seq.as_secs_f64()
            );
        }
        println!("{line}");
    }
}

fn main() {
    let started = Instant::now();
    let available = cli::available_threads();
    let env_threads = std::env::var(THREADS_ENV).ok();
    let env_dast = std::env::var(DAST_ENV).ok();
    let parsed = parse_options(
        std::env::args().skip(1),
        env_threads.as_deref(),
        env_dast.as_deref(),
        available,
    );
    let Some(options) = cli::options_or_exit(parsed, &usage()) else {
        return;
    };
    let bench = Bench {
        threads: options.threads.clone(),
        modes: options.dast.clone(),
        reps: options.reps,
    };
    let (threads, modes, reps) = (&bench.threads, &bench.modes, bench.reps);
    let mode_names: Vec<&str> = modes.iter().map(|m| m.short_name()).collect();
    println!(
        "# Prescient dataflow benchmarks ({} mode, best of {reps} interleaved rounds; \
         {available} hardware threads; thread counts {threads:?}; DAST modes {mode_names:?})\n",
        if options.quick { "quick" } else { "full" }
    );
    let mut entries: Vec<Entry> = Vec::new();
    // Names of the entries whose counters are printed.
    let mut counted: Vec<String> = Vec::new();

    // (a) two-wave, and the kernels (b)-(d), default Params.
    if ["two_wave", "cholesky", "matmul", "sparselu"]
        .iter()
        .any(|s| options.wants(s))
    {
        println!(
            "## Kernels (default Params: DEF, capacity 16, 97 buckets; one row per DAST mode); \
             ratio = T / T_seq\n"
        );
        header(threads, "benchmark");
    }
    for size in two_wave::TASK_SIZES
        .into_iter()
        .filter(|_| options.wants("two_wave"))
    {
        let tasks = if options.quick && size >= two_wave::FINE {
            two_wave::NUM_TASKS / 5
        } else {
            two_wave::NUM_TASKS
        };
        let seq = best_time(reps, || {
            std::hint::black_box(two_wave::sequential(tasks, size));
        });
        let reference = two_wave::sequential(tasks, size);
        let samples = bench.measure(
            Params::DEFAULT,
            |rt| rt.run(|| two_wave::dataflow(tasks, size)),
            |r| compare_exact(r, &reference, "two_wave"),
        );
        let entry = Entry {
            name: format!("two_wave {tasks}x2 size {size}"),
            seq: Some(seq),
            samples,
        };
        print_rows(&entry, modes);
        if size == two_wave::OVERHEAD {
            counted.push(entry.name.clone());
        }
        entries.push(entry);
    }
    if options.wants("cholesky") {
        let (nb, bs) = if options.quick { (12, 48) } else { (16, 64) };
        let original = cholesky::generate(nb, bs, 42);
        let entry = bench.kernel(
            &cholesky::KERNEL,
            &format!("cholesky {nb}x{nb} tiles of {bs}"),
            &original,
        );
        print_rows(&entry, modes);
        entries.push(entry);
    }
    if options.wants("matmul") {
        let (nb, bs) = if options.quick { (6, 64) } else { (8, 64) };
        let original = matmul::generate(nb, bs, 7);
        let entry = bench.kernel(
            &matmul::KERNEL,
            &format!("matmul {nb}x{nb} tiles of {bs}"),
            &original,
        );
        print_rows(&entry, modes);
        entries.push(entry);
    }
    if options.wants("sparselu") {
        // Quick mode too: smaller BOTS-layout matrices diverge to NaN (no pivoting).
        let (nb, bs) = (30, 40);
        let original = sparselu::generate(nb, bs);
        let tasks = sparselu::task_count(&original);
        let entry = bench.kernel(
            &sparselu::KERNEL,
            &format!("sparselu {nb}x{nb} of {bs} ({tasks} t)"),
            &original,
        );
        print_rows(&entry, modes);
        entries.push(entry);
    }

    // (e) cost per empty task, all deferred.
    if options.wants("task_cost") {
        entries.extend(task_cost(&bench));
    }
    // (f) bucket sweep.
    if options.wants("buckets") {
        entries.extend(bucket_sweep(&bench, options.quick));
    }

    // (g) per-request cost and lock acquisition, with `dast-stats`.
    #[cfg(feature = "dast-stats")]
    if options.wants("task_cost") || options.wants("two_wave") {
        request_cost(&bench);
    }

    if options.counters {
        counted = entries.iter().map(|e| e.name.clone()).collect();
    }
    print_counters(&bench, entries.iter().filter(|e| counted.contains(&e.name)));
    print_summary(&bench, &entries);
    println!("\n(finished in {:.1} s)", started.elapsed().as_secs_f64());
}

/// With the `dast-stats` feature: per thread count and mode, the harmonic
/// mean execution time of each request kind by executor (the DAST paper's
/// Fig. 7) and the graph-lock acquisition time (its Fig. 8), over one run of
/// two-wave at task size 250 and one of 20,000 dependent empty tasks, all
/// deferred (so that every task makes its three requests).
#[cfg(feature = "dast-stats")]
fn request_cost(bench: &Bench) {
    use prescient::dataflow::{DastStats, Timing};
    println!(
        "\n## Per-request cost (harmonic mean ns; count in parentheses) and graph-lock \
         acquisition (dast-stats build: every timing adds two clock reads)\n"
    );
    println!(
        "| workload | P | mode | new inline | new queued | done inline | done queued | \
         delete inline | delete queued | lock hmean | lock mean | lock max |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let cell = |t: &Timing| {
        if t.count == 0 {
            "-".to_string()
        } else {
            format!("{:.0} ({})", t.harmonic_mean_ns, t.count)
        }
    };
    type Workload = (&'static str, fn() -> u64);
    let workloads: [Workload; 2] = [
        ("two_wave 10000x2 size 250", || {
            two_wave::dataflow(two_wave::NUM_TASKS, two_wave::OVERHEAD).len() as u64
        }),
        ("20000 dependent empty", || {
            overhead::empty_dependent(20_000)
        }),
    ];
    for (name, work) in workloads {
        for &threads in &bench.threads {
            for &mode in &bench.modes {
                let rt = runtime(threads, DEFERRING.with_dast(mode));
                rt.run(work);
                let before = DastStats::snapshot();
                std::hint::black_box(rt.run(work));
                let s = DastStats::snapshot().since(&before);
                println!(
                    "| {name} | {threads} | {mode} | {} | {} | {} | {} | {} | {} | {:.0} | {:.0} | {} |",
                    cell(&s.new_inline),
                    cell(&s.new_queued),
                    cell(&s.done_inline),
                    cell(&s.done_queued),
                    cell(&s.delete_inline),
                    cell(&s.delete_queued),
                    s.lock_acquisition.harmonic_mean_ns,
                    s.lock_acquisition.mean_ns(),
                    s.lock_acquisition.max_ns,
                );
            }
        }
    }
}

/// The empty-task cost: per tasks in flight and mode, ns per independent and
/// per dependent task at each thread count. Returns its four entries (no
/// sequential time).
fn task_cost(bench: &Bench) -> Vec<Entry> {
    let threads = &bench.threads;
    println!("\n## Cost per empty task (all deferred: queue_capacity 2^16; ns per task)\n");
    let mut line = format!("| {:>15} | {:<8} |", "tasks in flight", "mode");
    let mut rule = format!("|{:->17}|{:-<10}|", "", "");
    for t in threads {
        line += &format!(
            " {:>10} | {:>10} |",
            format!("P{t} ind ns"),
            format!("P{t} dep ns")
        );
        rule += &format!("{:->12}|{:->12}|", "", "");
    }
    println!("{line}\n{rule}");
    let mut entries = Vec::new();
    let mut inlined = 0;
    for tasks in [1_000, 20_000] {
        // Repeat small runs so each timing covers about 20,000 tasks.
        let repeat = 20_000 / tasks;
        let per_task = |d: Duration| d.as_secs_f64() * 1e9 / (tasks * repeat) as f64;
        let check = |counts: &Vec<u64>| match counts.iter().find(|&&c| c != tasks as u64) {
            None => Ok(()),
            Some(c) => Err(format!("{c} empty tasks ran, expected {tasks}")),
        };
        let independent = bench.measure(
            DEFERRING,
            |rt| {
                (0..repeat)
                    .map(|_| rt.run(|| overhead::empty_independent(tasks)))
                    .collect()
            },
            check,
        );
        let dependent = bench.measure(
            DEFERRING,
            |rt| {
                (0..repeat)
                    .map(|_| rt.run(|| overhead::empty_dependent(tasks)))
                    .collect()
            },
            check,
        );
        for (m, mode) in bench.modes.iter().enumerate() {
            let mut line = format!("| {tasks:>15} | {:<8} |", mode.short_name());
            for (ind, dep) in independent.iter().zip(&dependent) {
                line += &format!(
                    " {:>10.1} | {:>10.1} |",
                    per_task(ind[m].time),
                    per_task(dep[m].time)
                );
                inlined += ind[m].delta.inlined_spawns + dep[m].delta.inlined_spawns;
            }
            println!("{line}");
        }
        for (kind, samples) in [("independent", independent), ("dependent", dependent)] {
            entries.push(Entry {
                name: format!("task_cost {tasks} {kind}"),
                seq: None,
                samples,
            });
        }
    }
    if inlined > 0 {
        println!("\n(warning: {inlined} spawns ran inline: not every task was deferred)");
    }
    entries
}

/// The bucket sweep, per bucket count and mode (quick: 97 and 64,567 only).
fn bucket_sweep(bench: &Bench, quick: bool) -> Vec<Entry> {
    let (handles, rounds, work) = if quick {
        (10_000, 4, 50)
    } else {
        (20_000, 4, 50)
    };
    println!("\n## Bucket sweep ({handles} handles x {rounds} rounds of inout tasks of {work} iterations, all deferred)\n");
    let seq = best_time(bench.reps, || {
        std::hint::black_box(overhead::many_handles_sequential(handles, rounds, work));
    });
    let reference = overhead::many_handles_sequential(handles, rounds, work);
    header(&bench.threads, "buckets");
    overhead::BUCKETS
        .into_iter()
        .filter(|&b| !quick || b == 97 || b == 64_567)
        .map(|buckets| {
            let samples = bench.measure(
                DEFERRING.with_dependency_buckets(buckets),
                |rt| rt.run(|| overhead::many_handles(handles, rounds, work)),
                |r| compare_exact(r, &reference, "many_handles"),
            );
            let entry = Entry {
                name: format!("buckets {buckets}"),
                seq: Some(seq),
                samples,
            };
            print_rows(&entry, &bench.modes);
            entry
        })
        .collect()
}

/// The DAST counters of `entries`, per run (the change over a mode's runs
/// divided by their number): new / done / delete requests pushed to the
/// manager's queues vs executed inline, pushed requests executed by the
/// manager thread vs by workers, and done-bound doublings.
fn print_counters<'a>(bench: &Bench, entries: impl Iterator<Item = &'a Entry>) {
    let mut entries = entries.peekable();
    if entries.peek().is_none() {
        return;
    }
    println!(
        "\n## DAST counters per timed run (a task_cost run: 20,000 tasks): requests pushed to \
         the DAST queues vs executed inline, pushed ones executed by the manager thread vs by \
         workers; tasks run inline at submission without a graph entry make no request\n"
    );
    let columns = [
        "new push",
        "new inl",
        "done push",
        "done inl",
        "del push",
        "del inl",
        "by mgr",
        "by wrk",
        "doublings",
    ];
    let mut line = format!("| {:<NAME$} | {:>3} | {:<8} |", "benchmark", "P", "mode");
    let mut rule = format!("|{:-<w$}|{:->5}|{:-<10}|", "", "", "", w = NAME + 2);
    for c in columns {
        line += &format!(" {c:>9} |");
        rule += &format!("{:->11}|", "");
    }
    println!("{line}\n{rule}");
    for entry in entries {
        for (t, samples) in bench.threads.iter().zip(&entry.samples) {
            for (mode, s) in bench.modes.iter().zip(samples) {
                let d = &s.delta;
                let mut line = format!(
                    "| {:<NAME$} | {t:>3} | {:<8} |",
                    entry.name,
                    mode.short_name()
                );
                for value in [
                    d.dast_new_pushed,
                    d.dast_new_inline,
                    d.dast_done_pushed,
                    d.dast_done_inline,
                    d.dast_delete_pushed,
                    d.dast_delete_inline,
                    d.dast_executed_by_manager,
                    d.dast_executed_by_workers,
                    d.dast_bound_doublings,
                ] {
                    line += &format!(" {:>9.0} |", value as f64 / s.runs as f64);
                }
                println!("{line}");
            }
        }
    }
}

/// Each mode's time relative to `off`, per benchmark and thread count, and
/// the geometric mean of those ratios per mode and thread count.
fn print_summary(bench: &Bench, entries: &[Entry]) {
    if entries.is_empty() {
        return;
    }
    println!("\n## DAST modes relative to off: T_mode / T_off (< 1: faster than off)\n");
    let Some(off) = bench.modes.iter().position(|&m| m == DastMode::Off) else {
        println!("(no summary: `off`, the baseline, is not among the measured modes)");
        return;
    };
    let others: Vec<usize> = (0..bench.modes.len()).filter(|&m| m != off).collect();
    if others.is_empty() {
        println!("(no summary: only `off` was measured)");
        return;
    }
    let mut line = format!("| {:<NAME$} | {:<8} |", "benchmark", "mode");
    let mut rule = format!("|{:-<w$}|{:-<10}|", "", "", w = NAME + 2);
    for t in &bench.threads {
        line += &format!(" {:>6} |", format!("P{t}"));
        rule += &format!("{:->8}|", "");
    }
    println!("{line}\n{rule}");
    let ratio = |entry: &Entry, i: usize, m: usize| {
        entry.samples[i][m].time.as_secs_f64() / entry.samples[i][off].time.as_secs_f64()
    };
    for entry in entries {
        for &m in &others {
            let mut line = format!(
                "| {:<NAME$} | {:<8} |",
                entry.name,
                bench.modes[m].short_name()
            );
            for i in 0..bench.threads.len() {
                line += &format!(" {:>6.2} |", ratio(entry, i, m));
            }
            println!("{line}");
        }
    }
    for &m in &others {
        let mut line = format!(
            "| {:<NAME$} | {:<8} |",
            format!("geomean ({} benchmarks)", entries.len()),
            bench.modes[m].short_name()
        );
        for i in 0..bench.threads.len() {
            let ratios: Vec<f64> = entries.iter().map(|e| ratio(e, i, m)).collect();
            line += &format!(" {:>6.2} |", geomean(&ratios));
        }
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_env(
        s: &str,
        env: Option<&str>,
        env_dast: Option<&str>,
    ) -> Result<Option<Options>, String> {
        parse_options(s.split_whitespace().map(String::from), env, env_dast, 4)
    }

    fn parse(s: &str, env: Option<&str>) -> Result<Option<Options>, String> {
        parse_env(s, env, None)
    }

    #[test]
    fn defaults_and_precedence() {
        let o = parse("", None).unwrap().unwrap();
        assert!(!o.quick && o.only.is_none() && !o.counters);
        assert_eq!((o.threads, o.reps), (vec![1, 2], 5));
        assert_eq!(o.dast, DastMode::ALL);
        let o = parse("--quick", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![1, 2, 4], 3));
        let o = parse("--threads=3 --reps 7", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![3], 7));
        assert!(parse("--help", None).unwrap().is_none());
    }

    #[test]
    fn dast_modes_flag_and_variable() {
        use DastMode::*;
        let modes = |s: &str, env: Option<&str>| parse_env(s, None, env).unwrap().unwrap().dast;
        assert_eq!(modes("--dast adaptive,off", None), [Off, Adaptive]);
        assert_eq!(modes("--dast=idle", Some("forced")), [IdleWorkers]);
        assert_eq!(modes("", Some("forced, off")), [Off, Forced]);
        assert_eq!(modes("", Some("all")), DastMode::ALL);
        assert_eq!(modes("", Some(" ")), DastMode::ALL);
        // The command line wins even over an invalid variable.
        assert_eq!(modes("--dast off", Some("nope")), [Off]);
        assert!(parse_env("", None, Some("nope")).is_err());
        for bad in [
            "--dast",
            "--dast nope",
            "--dast off,off",
            "--dast off,",
            "--counters=1",
        ] {
            assert!(parse(bad, None).is_err(), "{bad}");
        }
        assert!(parse("--counters", None).unwrap().unwrap().counters);
    }

    #[test]
    fn sections_and_errors() {
        let o = parse("--only matmul,buckets", None).unwrap().unwrap();
        assert!(o.wants("matmul") && o.wants("buckets") && !o.wants("cholesky"));
        for bad in [
            "--only nope",
            "--reps 0",
            "--reps x",
            "--reps",
            "--threads 0",
            "--threads 2,2",
            "--bogus",
        ] {
            assert!(parse(bad, None).is_err(), "{bad}");
        }
        assert!(parse("", Some("1,,2")).is_err());
    }

    #[test]
    fn usage_names_every_flag() {
        let text = usage();
        for flag in [
            "--quick",
            "--threads LIST",
            "--dast LIST",
            "--reps N",
            "--only SECTIONS",
            "--counters",
            "--help",
            THREADS_ENV,
            DAST_ENV,
        ] {
            assert!(text.contains(flag), "{flag}");
        }
    }

    #[test]
    fn interleaved_measure_checks_every_mode() {
        let bench = Bench {
            threads: vec![1, 2],
            modes: DastMode::ALL.to_vec(),
            reps: 2,
        };
        let reference = two_wave::sequential(200, 20);
        let samples = bench.measure(
            Params::DEFAULT,
            |rt| rt.run(|| two_wave::dataflow(200, 20)),
            |r| compare_exact(r, &reference, "two_wave"),
        );
        assert_eq!(samples.len(), 2);
        for per_mode in &samples {
            assert_eq!(per_mode.len(), 4);
            for (mode, s) in DastMode::ALL.iter().zip(per_mode) {
                assert_eq!(s.runs, 3);
                assert!(s.time < Duration::MAX);
                let d = &s.delta;
                // Every registered task (those run inline at submission
                // without a graph entry are not) made its three requests.
                let new = d.dast_new_pushed + d.dast_new_inline;
                assert!(new > 0 && new <= 3 * 400, "{mode}: {d:?}");
                assert_eq!(d.dast_done_pushed + d.dast_done_inline, new, "{mode}");
                assert_eq!(d.dast_delete_pushed + d.dast_delete_inline, new, "{mode}");
                match mode {
                    DastMode::Off => assert_eq!(
                        d.dast_new_pushed + d.dast_done_pushed + d.dast_delete_pushed,
                        0
                    ),
                    DastMode::Forced => assert_eq!(
                        d.dast_new_inline + d.dast_done_inline + d.dast_delete_inline,
                        0
                    ),
                    _ => {}
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "gave a wrong result")]
    fn measure_panics_on_a_wrong_result() {
        let bench = Bench {
            threads: vec![1],
            modes: vec![DastMode::Off],
            reps: 1,
        };
        bench.measure(
            Params::DEFAULT,
            |rt| rt.run(|| 1),
            |_| Err("no".to_string()),
        );
    }
}
