//! The `loops` table: a loop of independent work items, sequential vs
//! Prescient's `for_range` vs rayon, at each thread count. [`Options`]
//! documents what it prints; [`run`] prints it.
//!
//! The JSON (`--json FILE`) is a [`LoopsJson`]. Its `samples` hold, per
//! workload and grain (the program, e.g. `loop 1048576 x 50 ns, grain 64`
//! or `loop 190 x 1 ms, grain 1`), the best time of each runner at each
//! thread count: `sequential` (1 thread), `prescient` (the loop's
//! `#[task_program]` parameters, the table's `prescient-analysed`),
//! `prescient-default` (`Params::DEFAULT`), `prescient-pf` (PF, capacity 16)
//! and `rayon`.

use crate::cli::{self, progress, CommonArgs, Size};
use crate::dataflow::{best_time, runtime};
use crate::harness::load_average;
use crate::samples::{Sample, TableHead, PRESCIENT, SEQUENTIAL};
use prescient::{Counters, Params, QueuePolicy, Runtime};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The table's name: its subcommand and the `table` of its JSON.
pub const TABLE: &str = "loops";

/// The loop kernel, analysed: a program whose only parallelism is one
/// `for_range` (ρ = 0, λ = 1). CF'17's trees would give it `DEF`, capacity
/// 128 (loop parallelism); `PARAMS` are the calibrated trees' choice, `BF`,
/// capacity 32 (effort below 7667: fine or opaque tasks, BF/32).
#[prescient::task_program]
mod kernel {
    use prescient::for_range;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// One work item: `rounds` rounds of a dependent multiply-xorshift chain.
    pub fn work(i: usize, rounds: u32) -> u64 {
        let mut x = i as u64 | 1;
        for _ in 0..rounds {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            x ^= x >> 29;
        }
        x
    }

    /// `out[i] = work(i, rounds)` for every `i`, in parallel by pieces of at
    /// most `grain` items.
    pub fn run(out: &[AtomicU64], grain: usize, rounds: u32) {
        for_range(0..out.len(), grain, |i| {
            out[i].store(work(i, rounds), Ordering::Relaxed);
        });
    }
}

/// A loop of independent work items: sequential vs Prescient's for_range vs
/// rayon.
///
/// Runs a loop of `n` independent work items side by side: sequential,
/// Prescient's `for_range` (under the default parameters, under the
/// parameters `#[task_program]` chooses for the loop, and under PF) and
/// rayon's `(0..n).into_par_iter().with_min_len(grain).for_each(...)`, at
/// each thread count, and prints one table per workload. Two workloads: fine
/// (1M items of about 50 ns) and coarse (190 items of about 1 ms); the work
/// per item is calibrated on this machine first. Every item writes its
/// result to its own slot, and every parallel result is checked against the
/// sequential one.
///
/// The runners of one row group run round robin, one warm-up round and then
/// --reps timed rounds, and each keeps its best time: the machine may be
/// shared, and a change in its load then hits every runner alike (other
/// processes only add time). --quick runs fewer repetitions and grain sizes.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// Timed repetitions per configuration, best of (default 5; quick 3;
    /// test size 1).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub reps: Option<u64>,
}

impl Options {
    /// Timed repetitions: `--reps`, else the size's default.
    pub fn reps(&self) -> usize {
        match self.reps {
            Some(reps) => reps as usize,
            None => Sizes::of(self.common.size()).reps,
        }
    }
}

/// The JSON of the table (`--json FILE`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LoopsJson {
    /// The shared head: table, machine, size, thread counts and samples.
    #[serde(flatten)]
    pub head: TableHead,
    /// Timed rounds per configuration (each time is the best round).
    pub reps: usize,
    /// The one-minute load average at the start.
    pub load_average: String,
    /// The loop's `#[task_program]` parameters (`prescient-analysed`).
    pub analysed_params: String,
    /// The workloads.
    pub workloads: Vec<WorkloadJson>,
    /// Every row of the tables.
    pub rows: Vec<LoopRow>,
}

/// One workload of [`LoopsJson`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadJson {
    /// `fine` or `coarse`.
    pub name: String,
    /// Items.
    pub n: usize,
    /// Rounds of the work function per item (calibrated).
    pub rounds: u32,
    /// The time per item aimed at, in nanoseconds.
    pub target_ns: f64,
    /// The grains measured.
    pub grains: Vec<usize>,
}

/// One row of the tables: one runner at one thread count on one workload
/// and grain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LoopRow {
    /// The workload (`fine`, `coarse`).
    pub workload: String,
    /// Its program name in the samples.
    pub program: String,
    /// Items.
    pub n: usize,
    /// The grain.
    pub grain: usize,
    /// The runner as the table names it (`seq`, `prescient-default`,
    /// `prescient-analysed`, `prescient-pf`, `rayon`).
    pub runner: String,
    /// Threads (1 for `seq`).
    pub threads: usize,
    /// The best time, in seconds.
    pub seconds: f64,
    /// Over the sequential time.
    pub vs_sequential: f64,
    /// Over rayon's at the same thread count (Prescient's runners only).
    pub vs_rayon: Option<f64>,
    /// Steals per run (Prescient's runners only).
    pub steals_per_run: Option<f64>,
    /// Suspensions per run (Prescient's runners only).
    pub suspensions_per_run: Option<f64>,
}

/// The workloads and repetitions of one [`Size`].
#[derive(Clone, Debug, PartialEq)]
pub struct Sizes {
    /// Timed rounds unless `--reps` says otherwise.
    pub reps: usize,
    /// Rounds of the work function per calibration timing.
    pub calibration_rounds: usize,
    /// The fine workload's items, time per item (ns) and grains.
    pub fine: (usize, f64, Vec<usize>),
    /// The coarse workload's items, time per item (ns) and grains.
    pub coarse: (usize, f64, Vec<usize>),
}

impl Sizes {
    /// The workloads of `size`: full, quick (fewer repetitions and grains)
    /// or test (a few thousand fine items and eight coarse ones of 20 µs;
    /// every grain and runner).
    pub fn of(size: Size) -> Sizes {
        match size {
            Size::Full => Sizes {
                reps: 5,
                calibration_rounds: 1 << 22,
                fine: (1 << 20, 50.0, vec![1, 64, 1024]),
                coarse: (190, 1e6, vec![1]),
            },
            Size::Quick => Sizes {
                reps: 3,
                fine: (1 << 20, 50.0, vec![1, 1024]),
                ..Sizes::of(Size::Full)
            },
            Size::Test => Sizes {
                reps: 1,
                calibration_rounds: 1 << 16,
                fine: (1 << 12, 50.0, vec![1, 64, 1024]),
                coarse: (8, 2e4, vec![1]),
            },
        }
    }
}

/// Nanoseconds per item of a sequential loop over items of `rounds` rounds
/// of `kernel::work`, best of a few timings of about `budget` rounds.
fn ns_per_item(rounds: u32, budget: usize) -> f64 {
    let items = (budget / rounds.max(1) as usize).clamp(16, 1 << 14);
    let out: Vec<AtomicU64> = (0..items).map(|_| AtomicU64::new(0)).collect();
    let time = best_time(5, || {
        for (i, slot) in out.iter().enumerate() {
            slot.store(kernel::work(i, black_box(rounds)), Ordering::Relaxed);
        }
    });
    time.as_secs_f64() * 1e9 / items as f64
}

/// Rounds of `kernel::work` per item that make a sequential loop take
/// about `ns` nanoseconds per item here. Consecutive items' chains overlap
/// in the processor, so the time per round depends on the rounds: one
/// correction step after a first guess.
fn rounds_for(ns: f64, budget: usize) -> u32 {
    let to_rounds = |r: f64| r.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    let first = to_rounds(ns / (ns_per_item(100, budget) / 100.0));
    to_rounds(f64::from(first) * ns / ns_per_item(first, budget))
}

/// One workload: `n` items of `rounds` rounds each, at these grains.
struct Workload {
    name: &'static str,
    n: usize,
    target_ns: f64,
    rounds: u32,
    grains: Vec<usize>,
}

impl Workload {
    /// The program name at `grain`: `loop 1048576 x 50 ns, grain 64`.
    fn program(&self, grain: usize) -> String {
        format!(
            "loop {} x {}, grain {grain}",
            self.n,
            item_time(self.target_ns)
        )
    }
}

/// `50 ns`, `20 us`, `1 ms`.
fn item_time(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{} us", ns / 1e3)
    } else {
        format!("{ns} ns")
    }
}

fn check(out: &[AtomicU64], reference: &[u64], what: &str) {
    for (i, (o, r)) in out.iter().zip(reference).enumerate() {
        let o = o.swap(0, Ordering::Relaxed);
        assert_eq!(o, *r, "{what}: item {i} is wrong");
    }
}

/// One runner of a table row group.
struct Runner<'a> {
    name: &'a str,
    /// 0 for the sequential loop.
    threads: usize,
    /// Prescient's runtime, for its counters.
    runtime: Option<&'a Runtime>,
    /// One run of the loop.
    run: Box<dyn Fn() + 'a>,
}

fn fmt(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// The runner name in the samples of a runner of the table.
fn sample_runner(name: &str) -> &str {
    match name {
        "seq" => SEQUENTIAL,
        "prescient-analysed" => PRESCIENT,
        other => other,
    }
}

/// Runs the table (see [`Options`]).
///
/// # Errors
/// A bad thread list in the environment, or a JSON file that cannot be
/// written.
///
/// # Panics
/// If a parallel result differs from the sequential one.
pub fn run(options: &Options) -> Result<(), String> {
    let size = options.common.size();
    let sizes = Sizes::of(size);
    let threads = options.common.threads()?;
    let reps = options.reps();
    progress("loops: calibrating the work per item");
    let workload = |name, (n, target_ns, grains): (usize, f64, Vec<usize>)| Workload {
        name,
        n,
        target_ns,
        rounds: rounds_for(target_ns, sizes.calibration_rounds),
        grains,
    };
    let workloads = [
        workload("fine", sizes.fine.clone()),
        workload("coarse", sizes.coarse.clone()),
    ];
    // The machine may be shared: say how busy it was.
    let load = load_average();
    println!(
        "### Prescient range loop vs rayon ({} size, best of {reps} runs; {} hardware \
         threads; thread counts {threads:?}; load average {load} at start)\n",
        size.name(),
        cli::available_threads(),
    );
    let analysed = format!(
        "{}, capacity {}",
        kernel::PARAMS.queue_policy,
        kernel::PARAMS.queue_capacity
    );
    println!(
        "runners: prescient-default = Params::DEFAULT (DEF, capacity 16); prescient-analysed = \
         the #[task_program] PARAMS of the loop ({analysed}); prescient-pf = PF, capacity 16; \
         rayon = with_min_len(grain).for_each. /rayon: this runner's time over rayon's at the \
         same thread count.\n",
    );
    let configs: [(&str, Params); 3] = [
        ("prescient-default", Params::DEFAULT),
        ("prescient-analysed", kernel::PARAMS),
        (
            "prescient-pf",
            Params::DEFAULT.with_queue_policy(QueuePolicy::InsertFrontStealBack),
        ),
    ];
    let runtimes: Vec<(&str, usize, Runtime)> = configs
        .iter()
        .flat_map(|&(name, params)| threads.iter().map(move |&t| (name, t, runtime(t, params))))
        .collect();
    let pools: Vec<(usize, rayon::ThreadPool)> = threads
        .iter()
        .map(|&t| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| format!("a rayon pool of {t} threads: {e}"))?;
            Ok((t, pool))
        })
        .collect::<Result<_, String>>()?;

    let mut head = TableHead::new(TABLE, size, &threads);
    let mut rows = Vec::new();
    for w in &workloads {
        println!(
            "### {} workload: {} items of about {}\n",
            w.name,
            w.n,
            item_time(w.target_ns)
        );
        println!(
            "| {:<8} | {:>7} | {:>6} | {:<20} | {:>4} | {:>11} | {:>7} | {:>7} | {:>11} | {:>11} |",
            "workload",
            "n",
            "grain",
            "runner",
            "thr",
            "time",
            "T/Tseq",
            "/rayon",
            "steals/run",
            "susp/run"
        );
        println!(
            "|{:-<10}|{:->8}:|{:->7}:|{:-<22}|{:->5}:|{:->12}:|{:->8}:|{:->8}:|{:->12}:|{:->12}:|",
            "", "", "", "", "", "", "", "", "", ""
        );
        let mut notes = Vec::new();
        let out: Vec<AtomicU64> = (0..w.n).map(|_| AtomicU64::new(0)).collect();
        let reference: Vec<u64> = (0..w.n).map(|i| kernel::work(i, w.rounds)).collect();
        for &grain in &w.grains {
            let program = w.program(grain);
            progress(format!(
                "loops: {program}, threads {threads:?}, every runner"
            ));
            // Every runner: its name, thread count and one timed run (which
            // checks its result). They are timed round robin, `reps` rounds
            // after a warm-up round, so that a change in the machine's load
            // hits them alike; each keeps its best time.
            let mut runners: Vec<Runner<'_>> = vec![Runner {
                name: "seq",
                threads: 0,
                runtime: None,
                run: Box::new(|| {
                    for (i, slot) in out.iter().enumerate() {
                        slot.store(kernel::work(i, w.rounds), Ordering::Relaxed);
                    }
                }),
            }];
            for (name, t, rt) in &runtimes {
                let out = &out;
                runners.push(Runner {
                    name,
                    threads: *t,
                    runtime: Some(rt),
                    run: Box::new(move || rt.run(|| kernel::run(out, grain, w.rounds))),
                });
            }
            for (t, pool) in &pools {
                let out = &out;
                runners.push(Runner {
                    name: "rayon",
                    threads: *t,
                    runtime: None,
                    run: Box::new(move || {
                        pool.install(|| {
                            (0..w.n).into_par_iter().with_min_len(grain).for_each(|i| {
                                out[i].store(kernel::work(i, w.rounds), Ordering::Relaxed)
                            })
                        })
                    }),
                });
            }
            let before: Vec<Option<Counters>> = runners
                .iter()
                .map(|r| r.runtime.map(Runtime::counters))
                .collect();
            let mut best = vec![Duration::MAX; runners.len()];
            for round in 0..=reps {
                for (k, r) in runners.iter().enumerate() {
                    let start = Instant::now();
                    (r.run)();
                    let time = start.elapsed();
                    check(&out, &reference, r.name);
                    if round > 0 {
                        best[k] = best[k].min(time);
                    }
                }
            }
            let seq = best[0];
            let per_item = seq.as_secs_f64() * 1e9 / w.n as f64;
            notes.push(format!(
                "grain {grain}: the sequential loop took {per_item:.0} ns per item"
            ));
            let row = |runner: &str, threads: usize, time: Duration| LoopRow {
                workload: w.name.to_string(),
                program: program.clone(),
                n: w.n,
                grain,
                runner: runner.to_string(),
                threads,
                seconds: time.as_secs_f64(),
                vs_sequential: time.as_secs_f64() / seq.as_secs_f64(),
                vs_rayon: None,
                steals_per_run: None,
                suspensions_per_run: None,
            };
            println!(
                "| {:<8} | {:>7} | {:>6} | {:<20} | {:>4} | {:>11} | {:>7.2} | {:>7} | {:>11} | {:>11} |",
                w.name, w.n, grain, "seq", "-", fmt(seq), 1.0, "-", "-", "-"
            );
            head.samples
                .push(Sample::new(&program, SEQUENTIAL, 1, seq.as_secs_f64()));
            rows.push(row("seq", 1, seq));
            let mut order: Vec<usize> = (1..runners.len()).collect();
            order.sort_by_key(|&k| runners[k].threads);
            for k in order {
                let r = &runners[k];
                let mut json = row(r.name, r.threads, best[k]);
                let rayon = (0..runners.len())
                    .find(|&o| runners[o].name == "rayon" && runners[o].threads == r.threads)
                    .map(|o| best[o]);
                let vs_rayon = match (r.name, rayon) {
                    ("rayon", _) | (_, None) => "-".to_string(),
                    (_, Some(rayon)) => {
                        let ratio = best[k].as_secs_f64() / rayon.as_secs_f64();
                        json.vs_rayon = Some(ratio);
                        format!("{ratio:.2}")
                    }
                };
                // Counters cover the warm-up and the timed runs.
                let runs = (reps + 1) as f64;
                let (steals, susp) = match (r.runtime, &before[k]) {
                    (Some(rt), Some(before)) => {
                        let c = rt.counters().since(before);
                        let (steals, susp) = (c.steals as f64 / runs, c.suspensions as f64 / runs);
                        json.steals_per_run = Some(steals);
                        json.suspensions_per_run = Some(susp);
                        (format!("{steals:.1}"), format!("{susp:.1}"))
                    }
                    _ => ("-".to_string(), "-".to_string()),
                };
                println!(
                    "| {:<8} | {:>7} | {:>6} | {:<20} | {:>4} | {:>11} | {:>7.2} | {:>7} | {:>11} | {:>11} |",
                    w.name,
                    w.n,
                    grain,
                    r.name,
                    r.threads,
                    fmt(best[k]),
                    json.vs_sequential,
                    vs_rayon,
                    steals,
                    susp
                );
                head.samples.push(Sample::new(
                    &program,
                    sample_runner(r.name),
                    r.threads,
                    best[k].as_secs_f64(),
                ));
                rows.push(json);
            }
        }
        println!();
        for note in notes {
            println!("{note}\n");
        }
    }
    if options.common.json.is_some() {
        options.common.write_json(&LoopsJson {
            head,
            reps,
            load_average: load,
            analysed_params: analysed,
            workloads: workloads
                .iter()
                .map(|w| WorkloadJson {
                    name: w.name.to_string(),
                    n: w.n,
                    rounds: w.rounds,
                    target_ns: w.target_ns,
                    grains: w.grains.clone(),
                })
                .collect(),
            rows,
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::samples::RAYON;
    use prescient::analysis::calibrated::VISIBLE_EFFORT_MIN;
    use prescient::analysis::Trees;

    fn parse(s: &str) -> Result<Options, clap::Error> {
        crate::cli::parse_words("loops", s.split_whitespace())
    }

    #[test]
    fn flags() {
        let o = parse("").unwrap();
        assert_eq!((o.common.size(), o.reps()), (Size::Full, 5));
        let o = parse("--quick --threads 3,1").unwrap();
        assert_eq!((o.common.size(), o.reps()), (Size::Quick, 3));
        assert_eq!(o.common.threads(), Ok(vec![1, 3]));
        let o = parse("--test-size --reps=7 --json out.json").unwrap();
        assert_eq!((o.common.size(), o.reps()), (Size::Test, 7));
        assert!(o.common.json.is_some());
        for bad in ["--reps 0", "--reps x", "--reps", "--threads 0", "--bogus"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn names() {
        assert_eq!(item_time(50.0), "50 ns");
        assert_eq!(item_time(2e4), "20 us");
        assert_eq!(item_time(1e6), "1 ms");
        let w = Workload {
            name: "fine",
            n: 1 << 20,
            target_ns: 50.0,
            rounds: 3,
            grains: vec![64],
        };
        assert_eq!(w.program(64), "loop 1048576 x 50 ns, grain 64");
        assert_eq!(sample_runner("seq"), "sequential");
        assert_eq!(sample_runner("prescient-analysed"), "prescient");
        assert_eq!(sample_runner("rayon"), RAYON);
        assert_eq!(sample_runner("prescient-pf"), "prescient-pf");
    }

    #[test]
    fn json_round_trips() {
        let mut head = TableHead::new(TABLE, Size::Test, &[1, 2]);
        head.samples
            .push(Sample::new("loop 8 x 20 us, grain 1", PRESCIENT, 2, 1e-4));
        let row = LoopRow {
            workload: "coarse".into(),
            program: "loop 8 x 20 us, grain 1".into(),
            n: 8,
            grain: 1,
            runner: "prescient-analysed".into(),
            threads: 2,
            seconds: 1e-4,
            vs_sequential: 0.6,
            vs_rayon: Some(0.9),
            steals_per_run: Some(1.5),
            suspensions_per_run: None,
        };
        let json = LoopsJson {
            head,
            reps: 1,
            load_average: "0.5".into(),
            analysed_params: "BF, capacity 32".into(),
            workloads: vec![WorkloadJson {
                name: "coarse".into(),
                n: 8,
                rounds: 100,
                target_ns: 2e4,
                grains: vec![1],
            }],
            rows: vec![row],
        };
        let text = serde_json::to_string(&json).unwrap();
        assert!(text.contains("\"table\":\"loops\"") && text.contains("\"samples\""));
        let back: LoopsJson = serde_json::from_str(&text).unwrap();
        assert_eq!(back.head.samples, json.head.samples);
        assert_eq!(back.rows, json.rows);
        assert_eq!(back.workloads, json.workloads);
    }

    #[test]
    fn the_kernel_is_loop_parallelism() {
        assert_eq!(kernel::ANALYSIS.rho, 0);
        assert_eq!(kernel::ANALYSIS.lambda, 1);
        // CF'17's trees: ρ = 0, λ > 0 is loop parallelism, capacity 128.
        let a = kernel::ANALYSIS;
        let cf17 = a.params(Trees::Cf17);
        assert_eq!(cf17.queue_capacity, 128);
        assert_eq!(cf17.queue_policy, QueuePolicy::InsertBackStealBack);
        // The calibrated trees (`PARAMS`): effort < 7667: fine or opaque
        // tasks, BF/32; ρ = 0: 97 buckets.
        assert_eq!(kernel::PARAMS, a.params(Trees::DEFAULT));
        assert!(a.effort < VISIBLE_EFFORT_MIN, "{a}");
        assert_eq!(
            kernel::PARAMS.queue_policy,
            QueuePolicy::InsertBackStealFront
        );
        assert_eq!(kernel::PARAMS.queue_capacity, 32);
        assert_eq!(kernel::PARAMS.dependency_buckets, 97);
        let out: Vec<AtomicU64> = (0..100).map(|_| AtomicU64::new(0)).collect();
        kernel::run(&out, 7, 3);
        let reference: Vec<u64> = (0..100).map(|i| kernel::work(i, 3)).collect();
        check(&out, &reference, "kernel");
    }
}
