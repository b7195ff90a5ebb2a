//! Runs the dataflow benchmarks quickly, side by side, and prints a table:
//! the DAST two-wave benchmark, blocked Cholesky, matmul and SparseLU
//! (sequential vs Prescient at each thread count), the cost of an empty
//! dependent vs independent task, and the dependency-table bucket sweep.
//! Every parallel result is checked against the sequential reference. Times
//! are the best of `--reps` runs after one warm-up run (the machine may be
//! shared: other processes only add time). The flags and the thread counts
//! (`--threads`, else `PRESCIENT_BENCH_THREADS`, else 1,2) follow the
//! convention of every benchmark binary (`prescient_benches::cli`).
//!
//! `cargo run --release -p prescient-benches --bin dataflow_table -- [--quick] [--threads LIST] [--reps N]`

use prescient::{Params, Runtime};
use prescient_benches::cli::{self, Parsed, THREADS_ENV};
use prescient_benches::dataflow::{
    best_time, cholesky, compare_exact, matmul, overhead, runtime, sparselu, two_wave, Kernel,
    DEFERRING,
};
use std::time::Duration;

/// The `--help` text.
fn usage() -> String {
    cli::usage(
        "dataflow_table [--quick] [--threads LIST] [--reps N] [--only SECTIONS]",
        "Runs the dataflow benchmarks side by side (sequential vs Prescient at each
thread count) and prints their tables; every parallel result is checked
against the sequential one.",
        "fewer two-wave tasks at the coarse sizes and smaller kernels",
        "  --reps N            timed repetitions per configuration (best of; default
                      5, quick 3)
  --only SECTIONS     comma-separated subset of: two_wave, cholesky, matmul,
                      sparselu, task_cost, buckets (default: all)
",
    )
}

struct Options {
    quick: bool,
    threads: Vec<usize>,
    reps: usize,
    only: Option<Vec<String>>,
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

/// The options of `args` (without the program name), `None` for `--help`.
fn parse_options(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    available: usize,
) -> Result<Option<Options>, String> {
    let mut reps = 0;
    let mut only = None;
    let parsed = cli::parse(args, available, |flag, args| {
        match flag {
            "--reps" => {
                reps = args.positive(flag)?;
            }
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
        reps: if reps > 0 {
            reps
        } else if common.quick {
            3
        } else {
            5
        },
        only,
    }))
}

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// One row: the sequential time, then per thread count Prescient's time and
/// its ratio to the sequential one.
fn row(name: &str, seq: Duration, parallel: &[(usize, Duration)]) -> String {
    let mut line = format!("| {name:<28} | {:>9} |", ms(seq));
    for &(_, t) in parallel {
        line += &format!(
            " {:>9} | {:>5.2} |",
            ms(t),
            t.as_secs_f64() / seq.as_secs_f64()
        );
    }
    line
}

fn header(threads: &[usize], first: &str) {
    let mut line = format!("| {first:<28} | {:>9} |", "seq ms");
    let mut rule = format!("|{:-<30}|{:->11}|", "", "");
    for t in threads {
        line += &format!(" {:>9} | {:>5} |", format!("P{t} ms"), format!("P{t}/s"));
        rule += &format!("{:->11}|{:->7}|", "", "");
    }
    println!("{line}\n{rule}");
}

/// Times `parallel` in each runtime (best of `reps`), checking the last
/// result with `check`.
fn measure<T: Send>(
    runtimes: &[(usize, Runtime)],
    reps: usize,
    parallel: impl Fn() -> T + Sync,
    check: impl Fn(&T) -> Result<(), String>,
) -> Vec<(usize, Duration)> {
    runtimes
        .iter()
        .map(|(threads, rt)| {
            let mut last = None;
            let time = best_time(reps, || last = Some(rt.run(&parallel)));
            if let Err(e) = check(last.as_ref().expect("ran")) {
                panic!("Prescient on {threads} threads gave a wrong result: {e}");
            }
            (*threads, time)
        })
        .collect()
}

fn main() {
    let available = cli::available_threads();
    let env_threads = std::env::var(THREADS_ENV).ok();
    let parsed = parse_options(std::env::args().skip(1), env_threads.as_deref(), available);
    let Some(options) = cli::options_or_exit(parsed, &usage()) else {
        return;
    };
    let threads = options.threads.clone();
    let reps = options.reps;
    println!(
        "# Prescient dataflow benchmarks ({} mode, best of {reps} runs; {available} hardware threads; \
         thread counts {threads:?})\n",
        if options.quick { "quick" } else { "full" }
    );
    let default_runtimes: Vec<(usize, Runtime)> = threads
        .iter()
        .map(|&t| (t, runtime(t, Params::DEFAULT)))
        .collect();

    // (a) two-wave, and the kernels (b)-(d), default Params.
    if ["two_wave", "cholesky", "matmul", "sparselu"]
        .iter()
        .any(|s| options.wants(s))
    {
        println!("## Kernels (default Params: DEF, capacity 16, 97 buckets); ratio = T / T_seq\n");
        header(&threads, "benchmark");
    }
    for size in two_wave::TASK_SIZES
        .into_iter()
        .filter(|_| options.wants("two_wave"))
    {
        let tasks = if options.quick && size > two_wave::OVERHEAD {
            two_wave::NUM_TASKS / 5
        } else {
            two_wave::NUM_TASKS
        };
        let seq = best_time(reps, || {
            std::hint::black_box(two_wave::sequential(tasks, size));
        });
        let reference = two_wave::sequential(tasks, size);
        let parallel = measure(
            &default_runtimes,
            reps,
            || two_wave::dataflow(tasks, size),
            |r| compare_exact(r, &reference, "two_wave"),
        );
        println!(
            "{}",
            row(&format!("two_wave {tasks}x2 size {size}"), seq, &parallel)
        );
    }
    if options.wants("cholesky") {
        let (nb, bs) = if options.quick { (12, 48) } else { (16, 64) };
        let original = cholesky::generate(nb, bs, 42);
        let label = format!("cholesky {nb}x{nb} tiles of {bs}");
        println!(
            "{}",
            kernel_row(
                &cholesky::KERNEL,
                &label,
                &original,
                &default_runtimes,
                reps
            )
        );
    }
    if options.wants("matmul") {
        let (nb, bs) = if options.quick { (6, 64) } else { (8, 64) };
        let original = matmul::generate(nb, bs, 7);
        let label = format!("matmul {nb}x{nb} tiles of {bs}");
        println!(
            "{}",
            kernel_row(&matmul::KERNEL, &label, &original, &default_runtimes, reps)
        );
    }
    if options.wants("sparselu") {
        // Quick mode too: smaller BOTS-layout matrices diverge to NaN (no pivoting).
        let (nb, bs) = (30, 40);
        let original = sparselu::generate(nb, bs);
        let tasks = sparselu::task_count(&original);
        let label = format!("sparselu {nb}x{nb} of {bs} ({tasks} t)");
        println!(
            "{}",
            kernel_row(
                &sparselu::KERNEL,
                &label,
                &original,
                &default_runtimes,
                reps
            )
        );
    }
    drop(default_runtimes);

    // (e) cost per empty task, all deferred.
    if options.wants("task_cost") {
        task_cost(&threads, reps);
    }
    // (f) bucket sweep.
    if options.wants("buckets") {
        bucket_sweep(&threads, reps, options.quick);
    }
}

fn task_cost(threads: &[usize], reps: usize) {
    println!("\n## Cost per empty task (all deferred: queue_capacity 2^16; ns per task)\n");
    println!("| tasks in flight | threads | independent ns | dependent ns | dependent / independent | inlined |");
    println!("|----------------:|--------:|---------------:|-------------:|------------------------:|--------:|");
    for tasks in [1_000, 20_000] {
        for &t in threads {
            let rt = runtime(t, DEFERRING);
            let before = rt.counters();
            // Repeat small runs so each timing covers about 20,000 tasks.
            let repeat = 20_000 / tasks;
            let independent = best_time(reps, || {
                for _ in 0..repeat {
                    assert_eq!(rt.run(|| overhead::empty_independent(tasks)), tasks as u64);
                }
            });
            let dependent = best_time(reps, || {
                for _ in 0..repeat {
                    assert_eq!(rt.run(|| overhead::empty_dependent(tasks)), tasks as u64);
                }
            });
            let delta = rt.counters().since(&before);
            let per = |d: Duration| d.as_secs_f64() * 1e9 / (tasks * repeat) as f64;
            println!(
                "| {tasks:>15} | {t:>7} | {:>14.1} | {:>12.1} | {:>23.2} | {:>7} |",
                per(independent),
                per(dependent),
                per(dependent) / per(independent),
                delta.inlined_spawns
            );
        }
    }
}

fn bucket_sweep(threads: &[usize], reps: usize, quick: bool) {
    let (handles, rounds, work) = if quick {
        (10_000, 4, 50)
    } else {
        (20_000, 4, 50)
    };
    println!("\n## Bucket sweep ({handles} handles x {rounds} rounds of inout tasks of {work} iterations, all deferred)\n");
    let seq = best_time(reps, || {
        std::hint::black_box(overhead::many_handles_sequential(handles, rounds, work));
    });
    let reference = overhead::many_handles_sequential(handles, rounds, work);
    header(threads, "buckets");
    for buckets in overhead::BUCKETS {
        let runtimes: Vec<(usize, Runtime)> = threads
            .iter()
            .map(|&t| (t, runtime(t, DEFERRING.with_dependency_buckets(buckets))))
            .collect();
        let parallel = measure(
            &runtimes,
            reps,
            || overhead::many_handles(handles, rounds, work),
            |r| compare_exact(r, &reference, "many_handles"),
        );
        println!("{}", row(&format!("{buckets}"), seq, &parallel));
    }
}

/// Times a kernel's sequential version and its dataflow version on each
/// runtime (checking every parallel result against the sequential one) and
/// formats the table row.
fn kernel_row<M: Clone + Send + Sync>(
    kernel: &Kernel<M>,
    label: &str,
    original: &M,
    runtimes: &[(usize, Runtime)],
    reps: usize,
) -> String {
    let reference = kernel.reference(original);
    let seq = best_time(reps, || {
        std::hint::black_box(kernel.reference(original));
    });
    let parallel = measure(
        runtimes,
        reps,
        || {
            let mut m = original.clone();
            (kernel.dataflow)(&mut m);
            m
        },
        |m| (kernel.check)(m, &reference),
    );
    row(label, seq, &parallel)
}
#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str, env: Option<&str>) -> Result<Option<Options>, String> {
        parse_options(s.split_whitespace().map(String::from), env, 4)
    }

    #[test]
    fn defaults_and_precedence() {
        let o = parse("", None).unwrap().unwrap();
        assert!(!o.quick && o.only.is_none());
        assert_eq!((o.threads, o.reps), (vec![1, 2], 5));
        let o = parse("--quick", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![1, 2, 4], 3));
        let o = parse("--threads=3 --reps 7", Some("all")).unwrap().unwrap();
        assert_eq!((o.threads, o.reps), (vec![3], 7));
        assert!(parse("--help", None).unwrap().is_none());
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
            "--reps N",
            "--only SECTIONS",
            "--help",
            THREADS_ENV,
        ] {
            assert!(text.contains(flag), "{flag}");
        }
    }
}
