//! The `loops` table: a loop of independent work items, sequential vs
//! Prescient's `for_range` vs rayon, at each thread count. [`Options`]
//! documents what it prints; [`run`] prints it.
//!
//! The JSON (`--json FILE`) is a [`LoopsJson`]. Its `samples` hold, per
//! workload and grain (the program, e.g. `loop 1048576 x 50 ns, grain 64`
//! or `loop 190 x 1 ms, grain 1`), the best time of each runner at each
//! thread count: `sequential` (1 thread), `prescient` (the loop's
//! `#[task_program]` parameters, the table's `prescient-analysed`),
//! `prescient-default` (`Params::DEFAULT`), `prescient-pf` (PF, capacity 16),
//! and `rayon` (no C/C++ peer has this loop).

use crate::cli::{self, progress, CommonArgs, Size};
use crate::dataflow::{best_time, runtime};
use crate::harness::inproc::{contenders, rayon_pools, round_robin, LoopRow, LoopTable};
use crate::harness::load_average;
use crate::samples::{TableHead, PRESCIENT};
use prescient::tuning::QueuePolicy;
use prescient::{Params, Runtime};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};

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
    let pools = rayon_pools(&threads)?;
    let mut table = LoopTable::new(TABLE, size, &threads, reps, true);
    for w in &workloads {
        println!(
            "### {} workload: {} items of about {}\n",
            w.name,
            w.n,
            item_time(w.target_ns)
        );
        let mut notes = Vec::new();
        let out: Vec<AtomicU64> = (0..w.n).map(|_| AtomicU64::new(0)).collect();
        let reference: Vec<u64> = (0..w.n).map(|i| kernel::work(i, w.rounds)).collect();
        for &grain in &w.grains {
            let program = w.program(grain);
            progress(format!(
                "loops: {program}, threads {threads:?}, every runner"
            ));
            let out = &out;
            let parallel = move |_: &mut ()| kernel::run(out, grain, w.rounds);
            let rayon = move |_: &mut ()| {
                (0..w.n)
                    .into_par_iter()
                    .with_min_len(grain)
                    .for_each(|i| out[i].store(kernel::work(i, w.rounds), Ordering::Relaxed))
            };
            let forms = configs.map(|(name, _)| {
                let sample = if name == "prescient-analysed" {
                    PRESCIENT
                } else {
                    name
                };
                (name, sample, &parallel as &(dyn Fn(&mut ()) + Sync))
            });
            let sequential = move |_: &mut ()| {
                for (i, slot) in out.iter().enumerate() {
                    slot.store(kernel::work(i, w.rounds), Ordering::Relaxed);
                }
            };
            let list = contenders(sequential, &forms, &runtimes, &pools, &rayon);
            let best = round_robin(&list, &mut (), reps, |(), name| {
                check(out, &reference, name)
            });
            let per_item = best[0].best.as_secs_f64() * 1e9 / w.n as f64;
            notes.push(format!(
                "grain {grain}: the sequential loop took {per_item:.0} ns per item"
            ));
            let first = table.rows.len();
            // Counters cover the warm-up and the timed runs.
            table.add((w.name, &program), &list, &best, reps as u64 + 1, None);
            for row in &mut table.rows[first..] {
                (row.n, row.grain) = (Some(w.n), Some(grain));
            }
        }
        println!(
            "{}",
            std::mem::replace(&mut table.md, LoopTable::header(true)).text
        );
        for note in notes {
            println!("{note}\n");
        }
    }
    options.common.write_json(&LoopsJson {
        head: table.head,
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
        rows: table.rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use prescient::analysis::calibrated::VISIBLE_EFFORT_MIN;
    use prescient::analysis::Trees;

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
