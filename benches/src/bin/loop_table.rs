//! A loop of `n` independent work items, side by side: sequential,
//! Prescient's `for_range` (under the default parameters, under the
//! parameters `#[task_program]` chooses for the loop, and under `PF`) and
//! rayon's `(0..n).into_par_iter().with_min_len(grain).for_each(…)`, at each
//! thread count. Two workloads: fine (1M items of about 50 ns) and coarse
//! (190 items of about 1 ms); the work per item is calibrated on this machine
//! first. Every item writes its result to its own slot, and every parallel
//! result is checked against the sequential one. The runners of one row
//! group run round robin, one warm-up round and then `--reps` timed rounds,
//! and each keeps its best time: the machine may be shared, and a change in
//! its load then hits every runner alike (other processes only add time). The flags and the thread counts (`--threads`,
//! else `PRESCIENT_BENCH_THREADS`, else 1,2) follow the convention of every
//! benchmark binary (`prescient_benches::cli`).
//!
//! `cargo bench-run loop_table -- [--quick] [--threads LIST] [--reps N]`

use prescient::{Counters, Params, QueuePolicy, Runtime};
use prescient_benches::cli::{self, Parsed, THREADS_ENV};
use prescient_benches::dataflow::{best_time, runtime};
use prescient_benches::suite::machine::load_average;
use rayon::prelude::*;
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

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

/// The `--help` text.
fn usage() -> String {
    cli::usage(
        "loop_table [--quick] [--threads LIST] [--reps N]",
        "Runs a loop of independent work items (fine: 1M items of ~50 ns; coarse:
190 items of ~1 ms) sequentially, with Prescient's for_range and with rayon's
into_par_iter().with_min_len(grain).for_each, and prints one table; every
parallel result is checked against the sequential one.",
        "fewer repetitions and grain sizes",
        "  --reps N            timed repetitions per configuration (best of; default
                      5, quick 3)
",
    )
}

struct Options {
    quick: bool,
    threads: Vec<usize>,
    reps: usize,
}

/// The options of `args` (without the program name), `None` for `--help`.
fn parse_options(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut reps = 0;
    let parsed = cli::parse(args, available, |flag, args| {
        if flag != "--reps" {
            return Ok(false);
        }
        reps = args.positive(flag)?;
        Ok(true)
    })?;
    let Parsed::Run(common) = parsed else {
        return Ok(None);
    };
    let default_reps = if common.quick { 3 } else { 5 };
    Ok(Some(Options {
        quick: common.quick,
        threads: common.threads(env_threads, available)?,
        reps: if reps > 0 { reps } else { default_reps },
    }))
}

/// Nanoseconds per item of a sequential loop over items of `rounds` rounds
/// of [`kernel::work`], best of a few timings.
fn ns_per_item(rounds: u32) -> f64 {
    // About 2^22 rounds per timing, over 16 to 2^14 items.
    let items = ((1usize << 22) / rounds.max(1) as usize).clamp(16, 1 << 14);
    let out: Vec<AtomicU64> = (0..items).map(|_| AtomicU64::new(0)).collect();
    let time = best_time(5, || {
        for (i, slot) in out.iter().enumerate() {
            slot.store(kernel::work(i, black_box(rounds)), Ordering::Relaxed);
        }
    });
    time.as_secs_f64() * 1e9 / items as f64
}

/// Rounds of [`kernel::work`] per item that make a sequential loop take
/// about `ns` nanoseconds per item here. Consecutive items' chains overlap
/// in the processor, so the time per round depends on the rounds: one
/// correction step after a first guess.
fn rounds_for(ns: f64) -> u32 {
    let to_rounds = |r: f64| r.round().clamp(1.0, f64::from(u32::MAX)) as u32;
    let first = to_rounds(ns / (ns_per_item(100) / 100.0));
    to_rounds(f64::from(first) * ns / ns_per_item(first))
}

/// One workload: `n` items of `rounds` rounds each, at these grains.
struct Workload {
    name: &'static str,
    n: usize,
    rounds: u32,
    grains: Vec<usize>,
}

fn check(out: &[AtomicU64], reference: &[u64], what: &str) {
    for (i, (o, r)) in out.iter().zip(reference).enumerate() {
        let o = o.swap(0, Ordering::Relaxed);
        assert_eq!(o, *r, "{what}: item {i} is wrong");
    }
}

fn main() {
    let available = cli::available_threads();
    let env_threads = std::env::var(THREADS_ENV).ok();
    let parsed = parse_options(std::env::args().skip(1), env_threads.as_deref(), available);
    let Some(options) = cli::options_or_exit(parsed, &usage()) else {
        return;
    };
    let (threads, reps) = (options.threads.clone(), options.reps);
    let workloads = [
        Workload {
            name: "fine",
            n: 1 << 20,
            rounds: rounds_for(50.0),
            grains: if options.quick {
                vec![1, 1024]
            } else {
                vec![1, 64, 1024]
            },
        },
        Workload {
            name: "coarse",
            n: 190,
            rounds: rounds_for(1e6),
            grains: vec![1],
        },
    ];
    // The machine may be shared: say how busy it was.
    let load = load_average();
    println!(
        "# Prescient range loop vs rayon ({} mode, best of {reps} runs; {available} hardware \
         threads; thread counts {threads:?}; load average {load} at start)\n",
        if options.quick { "quick" } else { "full" },
    );
    println!(
        "runners: prescient-default = Params::DEFAULT (DEF, capacity 16); prescient-analysed = \
         the #[task_program] PARAMS of the loop ({}, capacity {}); prescient-pf = PF, capacity 16; \
         rayon = with_min_len(grain).for_each. /rayon: this runner's time over rayon's at the \
         same thread count.\n",
        kernel::PARAMS.queue_policy,
        kernel::PARAMS.queue_capacity,
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
                .expect("a rayon pool");
            (t, pool)
        })
        .collect();

    println!(
        "{:<8} {:>7} {:>6} {:<20} {:>4} {:>11} {:>7} {:>7} {:>11} {:>11}",
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
    for w in &workloads {
        let out: Vec<AtomicU64> = (0..w.n).map(|_| AtomicU64::new(0)).collect();
        let reference: Vec<u64> = (0..w.n).map(|i| kernel::work(i, w.rounds)).collect();
        for &grain in &w.grains {
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
            println!(
                "{:<8} {:>7} {:>6} {:<20} {:>4} {:>11} {:>7.2} {:>7} {:>11} {:>11}   ({per_item:.0} ns per item)",
                w.name, w.n, grain, "seq", "-", fmt(seq), 1.0, "-", "-", "-"
            );
            let mut order: Vec<usize> = (1..runners.len()).collect();
            order.sort_by_key(|&k| runners[k].threads);
            for k in order {
                let r = &runners[k];
                let rayon = (0..runners.len())
                    .find(|&o| runners[o].name == "rayon" && runners[o].threads == r.threads)
                    .map(|o| best[o]);
                let vs_rayon = match (r.name, rayon) {
                    ("rayon", _) | (_, None) => "-".to_string(),
                    (_, Some(rayon)) => {
                        format!("{:.2}", best[k].as_secs_f64() / rayon.as_secs_f64())
                    }
                };
                // Counters cover the warm-up and the timed runs.
                let runs = (reps + 1) as f64;
                let (steals, susp) = match (r.runtime, &before[k]) {
                    (Some(rt), Some(before)) => {
                        let c = rt.counters().since(before);
                        (
                            format!("{:.1}", c.steals as f64 / runs),
                            format!("{:.1}", c.suspensions as f64 / runs),
                        )
                    }
                    _ => ("-".to_string(), "-".to_string()),
                };
                println!(
                    "{:<8} {:>7} {:>6} {:<20} {:>4} {:>11} {:>7.2} {:>7} {:>11} {:>11}",
                    w.name,
                    w.n,
                    grain,
                    r.name,
                    r.threads,
                    fmt(best[k]),
                    best[k].as_secs_f64() / seq.as_secs_f64(),
                    vs_rayon,
                    steals,
                    susp
                );
            }
        }
        println!();
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

#[cfg(test)]
mod tests {
    use super::*;
    use prescient::analysis::calibrated::VISIBLE_EFFORT_MIN;
    use prescient::analysis::Trees;

    fn parse(s: &str, env: Option<&str>) -> Result<Option<Options>, String> {
        parse_options(s.split_whitespace().map(String::from), env, 4)
    }

    #[test]
    fn defaults_and_precedence() {
        let o = parse("", None).unwrap().unwrap();
        assert!(!o.quick);
        assert_eq!((o.threads, o.reps), (vec![1, 2], 5));
        let o = parse("--quick", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![1, 2, 4], 3));
        let o = parse("--threads=3 --reps 7", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![3], 7));
        assert!(parse("--help", None).unwrap().is_none());
        for bad in ["--reps 0", "--reps x", "--threads 0", "--bogus"] {
            assert!(parse(bad, None).is_err(), "{bad}");
        }
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

    #[test]
    fn usage_names_every_flag() {
        let text = usage();
        for flag in [
            "--quick",
            "--threads LIST",
            "--reps N",
            "--help",
            THREADS_ENV,
        ] {
            assert!(text.contains(flag), "{flag}");
        }
    }
}
