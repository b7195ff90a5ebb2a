//! Criterion versions of the dataflow benchmarks (`prescient_benches::dataflow`):
//!
//! * `two_wave/{250,2500,25000,50000}`: the DAST paper's synthetic benchmark,
//!   two waves of 10,000 tasks;
//! * `cholesky`, `matmul`, `sparselu`: the blocked kernels with dependencies;
//! * `task_cost`: one empty task, dependent (`inout` chain) vs independent
//!   (no accesses), both deferred (throughput: per task);
//! * `buckets`: the dependency-table bucket sweep (97 / 1021 / 64567 /
//!   256019) on a workload with many live handles.
//!
//! A benchmark id is `<benchmark>[/<mode>]/<runner>/<threads>`:
//!
//! * `<benchmark>`: `two_wave/250`, `cholesky`, `task_cost`, `buckets`, ...;
//! * `<mode>`: the DAST mode of Prescient's runtime (`off`, `forced`,
//!   `adaptive`, `idle`; `prescient::tuning::DastMode`), absent for the sequential
//!   reference;
//! * `<runner>`: `seq` (the sequential reference, the runner `sequential`
//!   of the tables' JSON; `seq/1` in the benchmark's own group:
//!   `two_wave/250/seq/1`, `cholesky/seq/1`, ...), `prescient` (the dataflow
//!   version in a runtime with `Params::DEFAULT` under that mode: the runner
//!   `prescient-dast-<mode>`, and under `adaptive`, the default mode, the
//!   runtime as a user gets it, `prescient`), `independent` / `dependent`
//!   (`task_cost`: 20,000 empty tasks, all deferred) and `prescient-<B>`
//!   (`buckets`: all deferred, `B` dependency buckets);
//! * `<threads>`: the runtime's workers, from `PRESCIENT_BENCH_THREADS`
//!   (e.g. `1,2` or `all`; default 1 and 2, capped at the available
//!   parallelism; read by `prescient_benches::cli::env_threads`, as in
//!   `fork_join.rs`).
//!
//! The modes come from `PRESCIENT_BENCH_DAST` (e.g. `off,adaptive` or `all`;
//! default all four; read by `prescient_benches::cli::env_dast`), one group
//! per mode: `two_wave/250/off`, `cholesky/adaptive`, `task_cost/idle`,
//! `buckets/forced`. Every parallel result is checked against the reference
//! once before it is measured. Runtimes are built once per group and thread
//! count; a sample enters the runtime once per iteration (`Runtime::run`, a
//! few µs).
//!
//! After criterion's groups, one line per benchmark, mode and thread count
//! gives Prescient's time over the sequential one, e.g.
//! `ratio prescient/sequential: two-wave 250 at 2 threads = 0.83` (and
//! `ratio prescient-dast-off/sequential: ...` per mode), with the program
//! names of the `dataflow` table. Criterion keeps its estimates to itself
//! (they are only in its report files), so these ratios come from one more
//! run of each configuration timed here with `Instant`, after a warm-up run:
//! a quick cross-check, not criterion's statistics. They follow criterion's
//! filter (a plain substring of the ids above) and are skipped outside
//! `cargo bench` (`cargo test --benches`) and with `--list`.
//!
//! The coarse two-wave sizes take seconds per iteration: filter, e.g.
//! `cargo bench -p prescient-benches --bench dataflow -- two_wave/250/`, or
//! one mode: `-- /adaptive`.

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use prescient::tuning::DastMode;
use prescient::{Params, Runtime};
use prescient_benches::cli::{env_dast, env_threads};
use prescient_benches::dataflow::{
    cholesky, compare_exact, matmul, overhead, runtime, sparselu, two_wave, Kernel, DEFERRING,
};
use prescient_benches::samples::{PRESCIENT, SEQUENTIAL};
use prescient_benches::tables::dataflow::measure::two_wave_program;
use prescient_benches::tables::dataflow::runner;
use std::time::{Duration, Instant};

/// One runtime per thread count of `PRESCIENT_BENCH_THREADS`, with `params`
/// under `mode`.
fn runtimes(params: Params, mode: DastMode) -> Vec<(usize, Runtime)> {
    env_threads()
        .into_iter()
        .map(|t| (t, runtime(t, params.with_dast(mode))))
        .collect()
}

/// The group of benchmark `name` under `mode`: `name/mode`.
fn group_name(name: &str, mode: DastMode) -> String {
    format!("{name}/{}", mode.short_name())
}

fn two_wave(c: &mut Criterion) {
    let modes = env_dast();
    for size in two_wave::TASK_SIZES {
        let tasks = two_wave::NUM_TASKS;
        let name = format!("two_wave/{size}");
        let configure = |group: &mut criterion::BenchmarkGroup<'_, _>| {
            group.sample_size(10);
            if size > two_wave::OVERHEAD {
                group
                    .sampling_mode(SamplingMode::Flat)
                    .warm_up_time(Duration::from_secs(1))
                    .measurement_time(Duration::from_secs(10));
            }
        };
        let mut group = c.benchmark_group(&name);
        configure(&mut group);
        group.bench_function(BenchmarkId::new("seq", 1), |b| {
            b.iter(|| two_wave::sequential(tasks, size))
        });
        group.finish();
        let reference = two_wave::sequential(tasks, size);
        for &mode in &modes {
            let mut group = c.benchmark_group(group_name(&name, mode));
            configure(&mut group);
            for (threads, rt) in &runtimes(Params::DEFAULT, mode) {
                let result = rt.run(|| two_wave::dataflow(tasks, size));
                compare_exact(&result, &reference, "two_wave").unwrap();
                group.bench_function(BenchmarkId::new("prescient", threads), |b| {
                    b.iter(|| rt.run(|| two_wave::dataflow(tasks, size)))
                });
            }
            group.finish();
        }
    }
}

/// Benchmarks `kernel` on `input`: the sequential reference, then the
/// dataflow version under each mode at each thread count (checked once
/// first).
fn kernel<M: Clone + Send + Sync>(c: &mut Criterion, name: &str, input: M, kernel: &Kernel<M>) {
    let reference = kernel.reference(&input);
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500));
    group.bench_function(BenchmarkId::new("seq", 1), |b| {
        b.iter_batched_ref(
            || input.clone(),
            kernel.sequential,
            criterion::BatchSize::LargeInput,
        )
    });
    group.finish();
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name(name, mode));
        group
            .sample_size(10)
            .warm_up_time(Duration::from_millis(500));
        for (threads, rt) in &runtimes(Params::DEFAULT, mode) {
            kernel.run_checked(rt, &input, &reference).unwrap();
            group.bench_function(BenchmarkId::new("prescient", threads), |b| {
                b.iter_batched_ref(
                    || input.clone(),
                    |m| rt.run(|| (kernel.dataflow)(m)),
                    criterion::BatchSize::LargeInput,
                )
            });
        }
        group.finish();
    }
}

/// Tiles (blocks) per dimension and tile size of Cholesky, matmul and
/// SparseLU: the `dataflow` table's full sizes.
const CHOLESKY: (usize, usize) = (16, 64);
const MATMUL: (usize, usize) = (8, 64);
const SPARSELU: (usize, usize) = (30, 40);

fn kernels(c: &mut Criterion) {
    let ((cn, cb), (mn, mb), (sn, sb)) = (CHOLESKY, MATMUL, SPARSELU);
    kernel(
        c,
        "cholesky",
        cholesky::generate(cn, cb, 42),
        &cholesky::KERNEL,
    );
    kernel(c, "matmul", matmul::generate(mn, mb, 7), &matmul::KERNEL);
    kernel(c, "sparselu", sparselu::generate(sn, sb), &sparselu::KERNEL);
}

fn task_cost(c: &mut Criterion) {
    const TASKS: usize = 20_000;
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name("task_cost", mode));
        group
            .sample_size(20)
            .throughput(Throughput::Elements(TASKS as u64));
        for (threads, rt) in &runtimes(DEFERRING, mode) {
            // Both kinds are real deferred tasks: nothing runs inline.
            let before = rt.counters();
            assert_eq!(rt.run(|| overhead::empty_dependent(TASKS)), TASKS as u64);
            assert_eq!(rt.run(|| overhead::empty_independent(TASKS)), TASKS as u64);
            let delta = rt.counters().since(&before);
            assert_eq!(delta.inlined_spawns, 0, "a task ran inline: {delta:?}");
            group.bench_function(BenchmarkId::new("independent", threads), |b| {
                b.iter(|| rt.run(|| overhead::empty_independent(TASKS)))
            });
            group.bench_function(BenchmarkId::new("dependent", threads), |b| {
                b.iter(|| rt.run(|| overhead::empty_dependent(TASKS)))
            });
        }
        group.finish();
    }
}

/// The bucket sweep's live handles, rounds and work per task.
const BUCKET_SWEEP: (usize, usize, usize) = (20_000, 4, 50);

fn buckets(c: &mut Criterion) {
    let (handles, rounds, work) = BUCKET_SWEEP;
    let reference = overhead::many_handles_sequential(handles, rounds, work);
    let mut group = c.benchmark_group("buckets");
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("seq", 1), |b| {
        b.iter(|| overhead::many_handles_sequential(handles, rounds, work))
    });
    group.finish();
    for mode in env_dast() {
        let mut group = c.benchmark_group(group_name("buckets", mode));
        group.sample_size(10);
        for buckets in overhead::BUCKETS {
            for (threads, rt) in &runtimes(DEFERRING.with_dependency_buckets(buckets), mode) {
                let result = rt.run(|| overhead::many_handles(handles, rounds, work));
                compare_exact(&result, &reference, "many_handles").unwrap();
                group.bench_function(
                    BenchmarkId::new(format!("prescient-{buckets}"), threads),
                    |b| b.iter(|| rt.run(|| overhead::many_handles(handles, rounds, work))),
                );
            }
        }
        group.finish();
    }
}

/// Criterion's name filter, if `cargo bench` was given one: the first
/// argument that is neither a flag nor the value of one.
fn filter() -> Option<String> {
    const TAKES_VALUE: [&str; 17] = [
        "-c",
        "--color",
        "-s",
        "--save-baseline",
        "-b",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--warm-up-time",
        "--measurement-time",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--profile-time",
        "--output-format",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if TAKES_VALUE.contains(&arg.as_str()) {
            args.next();
        } else if !arg.starts_with('-') {
            return Some(arg);
        }
    }
    None
}

/// One more run of `run` after a warm-up, timed: `setup` prepares each
/// run's input outside the timing.
fn time_once<I>(mut setup: impl FnMut() -> I, mut run: impl FnMut(I)) -> Duration {
    run(setup());
    let input = setup();
    let start = Instant::now();
    run(input);
    start.elapsed()
}

/// What [`Ratios::print`] times: the benchmark's program name (as the
/// `dataflow` table names it), its criterion group and function, and the
/// runtime's parameters.
struct Target<'a> {
    program: &'a str,
    group: &'a str,
    function: &'a str,
    params: Params,
}

/// The ratio lines of one benchmark (see the file's documentation).
struct Ratios {
    /// Criterion's filter; a regular expression beyond a plain substring
    /// selects everything.
    filter: Option<String>,
    modes: Vec<DastMode>,
}

impl Ratios {
    /// Whether criterion measured `id` (its filter is a substring of it).
    fn wanted(&self, id: &str) -> bool {
        match &self.filter {
            None => true,
            Some(f) if f.contains(|c: char| "^$.*+?()[]{}|\\".contains(c)) => true,
            Some(f) => id.contains(f.as_str()),
        }
    }

    /// Times `seq` and, per mode and thread count that the filter selects
    /// (criterion id `<group>/<mode>/<function>/<threads>`), `par` in a
    /// runtime of `params` under that mode, and prints their ratios for
    /// `program`.
    fn print<I>(
        &self,
        target: Target<'_>,
        setup: impl Fn() -> I,
        seq: impl Fn(I),
        par: impl Fn(&Runtime, I),
    ) {
        let Target {
            program,
            group,
            function,
            params,
        } = target;
        let mut selected = Vec::new();
        for &mode in &self.modes {
            for threads in env_threads() {
                let id = format!("{group}/{}/{function}/{threads}", mode.short_name());
                if self.wanted(&id) {
                    selected.push((mode, threads));
                }
            }
        }
        if selected.is_empty() {
            return;
        }
        let seq = time_once(&setup, &seq).as_secs_f64();
        for (mode, threads) in selected {
            let rt = runtime(threads, params.with_dast(mode));
            let ratio = time_once(&setup, |input| par(&rt, input)).as_secs_f64() / seq;
            let mut runners = vec![runner(mode)];
            if mode == Params::DEFAULT.dast {
                runners.push(PRESCIENT.to_string());
            }
            let plural = if threads == 1 { "" } else { "s" };
            for r in runners {
                println!(
                    "ratio {r}/{SEQUENTIAL}: {program} at {threads} thread{plural} = {ratio:.2}"
                );
            }
        }
    }
}

/// The ratio lines: one more timed run of every configuration criterion
/// measured (see the file's documentation); `cargo bench` only.
fn ratios(_: &mut Criterion) {
    let args: Vec<String> = std::env::args().collect();
    if !args.iter().any(|a| a == "--bench") || args.iter().any(|a| a == "--list") {
        return;
    }
    let ratios = Ratios {
        filter: filter(),
        modes: env_dast(),
    };
    println!("\nPrescient over sequential: one more run of each, timed with Instant (not criterion's estimates)");
    for size in two_wave::TASK_SIZES {
        let tasks = two_wave::NUM_TASKS;
        let reference = two_wave::sequential(tasks, size);
        ratios.print(
            Target {
                program: &two_wave_program(size, tasks),
                group: &format!("two_wave/{size}"),
                function: "prescient",
                params: Params::DEFAULT,
            },
            || (),
            |()| {
                std::hint::black_box(two_wave::sequential(tasks, size));
            },
            |rt, ()| {
                let result = rt.run(|| two_wave::dataflow(tasks, size));
                compare_exact(&result, &reference, "two_wave").unwrap();
            },
        );
    }
    fn kernel_ratios<M: Clone + Send + Sync>(
        ratios: &Ratios,
        program: &str,
        name: &str,
        input: M,
        kernel: &Kernel<M>,
    ) {
        ratios.print(
            Target {
                program,
                group: name,
                function: "prescient",
                params: Params::DEFAULT,
            },
            || input.clone(),
            |mut m| (kernel.sequential)(&mut m),
            |rt, mut m| rt.run(|| (kernel.dataflow)(&mut m)),
        );
    }
    let (nb, bs) = CHOLESKY;
    kernel_ratios(
        &ratios,
        &format!("cholesky {}/{bs}", nb * bs),
        "cholesky",
        cholesky::generate(nb, bs, 42),
        &cholesky::KERNEL,
    );
    let (nb, bs) = MATMUL;
    kernel_ratios(
        &ratios,
        &format!("matmul {}/{bs}", nb * bs),
        "matmul",
        matmul::generate(nb, bs, 7),
        &matmul::KERNEL,
    );
    let (nb, bs) = SPARSELU;
    kernel_ratios(
        &ratios,
        &format!("sparselu {}/{bs}", nb * bs),
        "sparselu",
        sparselu::generate(nb, bs),
        &sparselu::KERNEL,
    );
    let (handles, rounds, work) = BUCKET_SWEEP;
    for buckets in overhead::BUCKETS {
        ratios.print(
            Target {
                program: &format!("bucket sweep {buckets} ({handles} handles x {rounds} rounds)"),
                group: "buckets",
                function: &format!("prescient-{buckets}"),
                params: DEFERRING.with_dependency_buckets(buckets),
            },
            || (),
            |()| {
                std::hint::black_box(overhead::many_handles_sequential(handles, rounds, work));
            },
            |rt, ()| {
                std::hint::black_box(rt.run(|| overhead::many_handles(handles, rounds, work)));
            },
        );
    }
}

criterion_group!(benches, two_wave, kernels, task_cost, buckets, ratios);
criterion_main!(benches);
