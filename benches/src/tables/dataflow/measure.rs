//! How the `dataflow` table measures: the sizes of each [`Size`], the
//! interleaved timing of the DAST modes ([`Bench::measure`]) and the
//! benchmarks' entries (two-wave, the kernels, the empty-task cost and the
//! bucket sweep; the last two print their own tables as they go).

use crate::cli::{progress, Size};
use crate::dataflow::{
    best_time, cholesky, compare_exact, matmul, overhead, runtime, sparselu, two_wave, Kernel,
    DEFERRING,
};
use crate::harness::Record;
use crate::peers::checksum;
use prescient::tuning::{Counters, DastMode};
use prescient::{Params, Runtime};
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// The workloads of one [`Size`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Timed rounds per configuration unless `--reps` says otherwise.
    pub reps: usize,
    /// Two-wave tasks per wave at each of `two_wave::TASK_SIZES`.
    pub two_wave_tasks: [usize; 4],
    /// Cholesky's tiles per dimension and tile size.
    pub cholesky: (usize, usize),
    /// Matmul's tiles per dimension and tile size.
    pub matmul: (usize, usize),
    /// SparseLU's blocks per dimension and block size.
    pub sparselu: (usize, usize),
    /// The empty-task cost's tasks in flight (one run's tasks).
    pub task_cost_in_flight: [usize; 2],
    /// Empty tasks per timing (small runs are repeated up to it).
    pub task_cost_per_timing: usize,
    /// The bucket sweep's live handles, rounds and work per task.
    pub buckets: (usize, usize, usize),
    /// The bucket counts swept.
    pub bucket_counts: Vec<usize>,
    /// The per-request cost's (`dast-stats`) two-wave tasks per wave (at
    /// task size 250) and dependent empty tasks.
    pub request_cost: (usize, usize),
}

impl Sizes {
    /// The workloads of `size`: full, quick (fewer two-wave tasks at the
    /// coarse task sizes, smaller kernels, buckets 97 and 64567 only) or
    /// test (a few tasks of each; every row and section).
    pub fn of(size: Size) -> Sizes {
        let full = Sizes {
            reps: 5,
            two_wave_tasks: [two_wave::NUM_TASKS; 4],
            cholesky: (16, 64),
            matmul: (8, 64),
            // Quick too: smaller BOTS-layout matrices diverge to NaN (no
            // pivoting).
            sparselu: (30, 40),
            task_cost_in_flight: [1_000, 20_000],
            task_cost_per_timing: 20_000,
            buckets: (20_000, 4, 50),
            bucket_counts: overhead::BUCKETS.to_vec(),
            request_cost: (two_wave::NUM_TASKS, 20_000),
        };
        match size {
            Size::Full => full,
            Size::Quick => Sizes {
                reps: 3,
                two_wave_tasks: two_wave::TASK_SIZES.map(|size| {
                    if size >= two_wave::FINE {
                        two_wave::NUM_TASKS / 5
                    } else {
                        two_wave::NUM_TASKS
                    }
                }),
                cholesky: (12, 48),
                matmul: (6, 64),
                buckets: (10_000, 4, 50),
                bucket_counts: vec![97, 64_567],
                ..full
            },
            Size::Test => Sizes {
                reps: 1,
                two_wave_tasks: [16; 4],
                cholesky: (4, 16),
                matmul: (3, 16),
                sparselu: (8, 8),
                task_cost_in_flight: [100, 1_000],
                task_cost_per_timing: 1_000,
                buckets: (200, 2, 20),
                bucket_counts: overhead::BUCKETS.to_vec(),
                request_cost: (16, 1_000),
            },
        }
    }
}

/// One mode's measurement at one thread count: the best round's time, and
/// the counters' change over all its `runs` (the warm-up included).
#[derive(Clone, Copy, Debug)]
pub struct Measured {
    /// The best round's time.
    pub time: Duration,
    /// The runtime's counters over the runs.
    pub delta: Counters,
    /// The runs `delta` covers.
    pub runs: u64,
}

/// One benchmark's measurements.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Its row label in the tables (`two_wave 10000x2 size 250`).
    pub label: String,
    /// Its program name in the samples (`two-wave 250`).
    pub program: String,
    /// The sequential reference's time, where the tables show one.
    pub seq: Option<Duration>,
    /// Tasks per timed run, where the samples are per task.
    pub tasks_per_run: Option<usize>,
    /// Whether its DAST counters are printed without `--counters`.
    pub counted_by_default: bool,
    /// Whether it runs under `Params::DEFAULT`, as a user's program would
    /// (then its default mode's samples are also Prescient's own); the task
    /// cost and the bucket sweep defer every spawn.
    pub default_params: bool,
    /// `measured[i][m]`: at the `i`-th thread count under the `m`-th mode.
    pub measured: Vec<Vec<Measured>>,
    /// The checksum of the sequential reference's result, which a C/C++
    /// peer's must have ([`crate::peers`]), where a peer runs this
    /// benchmark.
    pub expect: Option<String>,
    /// The peers' records: per peer and thread count, or why it failed.
    pub peers: Vec<(String, usize, Result<Record, String>)>,
}

/// What every measurement shares: the thread counts, the modes, the rounds.
#[derive(Clone, Debug)]
pub struct Bench {
    /// The thread counts, ascending.
    pub threads: Vec<usize>,
    /// The DAST modes, in table order.
    pub modes: Vec<DastMode>,
    /// Timed rounds per configuration.
    pub reps: usize,
}

impl Bench {
    /// The modes' short names joined by `/`, for progress lines.
    fn mode_list(&self) -> String {
        let names: Vec<&str> = self.modes.iter().map(|m| m.short_name()).collect();
        names.join("/")
    }

    /// The best of `reps` timings of the sequential `run`, after a warm-up
    /// (says so on stderr first).
    fn sequential(&self, program: &str, run: impl FnMut()) -> Duration {
        progress(format!("dataflow: {program}, sequential"));
        best_time(self.reps, run)
    }

    /// Times `run` under every mode at every thread count, interleaved: per
    /// thread count, one runtime per mode (`params` with that mode), one
    /// warm-up run each, then `reps` rounds that time every mode once, the
    /// first mode rotating. Every result is checked with `check` (outside
    /// the timing). Says on stderr what it measures (`program`, per thread
    /// count).
    ///
    /// # Panics
    /// If a result is wrong.
    pub fn measure<T: Send>(
        &self,
        program: &str,
        params: Params,
        run: impl Fn(&Runtime) -> T,
        check: impl Fn(&T) -> Result<(), String>,
    ) -> Vec<Vec<Measured>> {
        let modes = &self.modes;
        self.threads
            .iter()
            .map(|&threads| {
                progress(format!(
                    "dataflow: {program}, {threads} thread{}, {}",
                    if threads == 1 { "" } else { "s" },
                    self.mode_list()
                ));
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
                    .map(|((rt, before), time)| Measured {
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
    pub fn kernel<M: Clone + Send + Sync>(
        &self,
        kernel: &Kernel<M>,
        (label, program): (String, String),
        original: &M,
        checksum: fn(&M) -> String,
    ) -> Entry {
        let reference = kernel.reference(original);
        let expect = Some(checksum(&reference));
        // Every timed run starts from a copy of the input made into the
        // previous run's buffers (`clone_from`): a fresh clone per run timed
        // page faults on the Rust rows that the C/C++ peers' copies (into
        // memory malloc got back just before the clock) did not pay.
        let scratch = RefCell::new(original.clone());
        let seq = self.sequential(&program, || {
            let mut m = scratch.borrow_mut();
            m.clone_from(original);
            (kernel.sequential)(&mut m);
            std::hint::black_box(&*m);
        });
        let measured = self.measure(
            &program,
            Params::DEFAULT,
            |rt| {
                let mut m = scratch.borrow_mut();
                m.clone_from(original);
                let m: &mut M = &mut m;
                rt.run(|| (kernel.dataflow)(m));
            },
            |()| (kernel.check)(&scratch.borrow(), &reference),
        );
        Entry {
            label,
            program,
            seq: Some(seq),
            tasks_per_run: None,
            counted_by_default: false,
            default_params: true,
            measured,
            expect,
            peers: Vec::new(),
        }
    }

    /// Two-wave at each task size (default `Params`).
    pub fn two_wave(&self, sizes: &Sizes) -> Vec<Entry> {
        two_wave::TASK_SIZES
            .into_iter()
            .zip(sizes.two_wave_tasks)
            .map(|(size, tasks)| {
                let program = two_wave_program(size, tasks);
                let seq = self.sequential(&program, || {
                    std::hint::black_box(two_wave::sequential(tasks, size));
                });
                let reference = two_wave::sequential(tasks, size);
                let measured = self.measure(
                    &program,
                    Params::DEFAULT,
                    |rt| rt.run(|| two_wave::dataflow(tasks, size)),
                    |r| compare_exact(r, &reference, "two_wave"),
                );
                Entry {
                    label: format!("two_wave {tasks}x2 size {size}"),
                    program,
                    seq: Some(seq),
                    tasks_per_run: None,
                    counted_by_default: size == two_wave::OVERHEAD,
                    default_params: true,
                    measured,
                    expect: Some(checksum::of(&reference)),
                    peers: Vec::new(),
                }
            })
            .collect()
    }

    /// Blocked Cholesky.
    pub fn cholesky(&self, sizes: &Sizes) -> Entry {
        let (nb, bs) = sizes.cholesky;
        self.kernel(
            &cholesky::KERNEL,
            (
                format!("cholesky {nb}x{nb} tiles of {bs}"),
                format!("cholesky {}/{bs}", nb * bs),
            ),
            &cholesky::generate(nb, bs, 42),
            |m| checksum::of(&m.data),
        )
    }

    /// Blocked matrix multiply.
    pub fn matmul(&self, sizes: &Sizes) -> Entry {
        let (nb, bs) = sizes.matmul;
        self.kernel(
            &matmul::KERNEL,
            (
                format!("matmul {nb}x{nb} tiles of {bs}"),
                format!("matmul {}/{bs}", nb * bs),
            ),
            &matmul::generate(nb, bs, 7),
            |m| checksum::of(&m.c),
        )
    }

    /// BOTS SparseLU.
    pub fn sparselu(&self, sizes: &Sizes) -> Entry {
        let (nb, bs) = sizes.sparselu;
        let original = sparselu::generate(nb, bs);
        let tasks = sparselu::task_count(&original);
        self.kernel(
            &sparselu::KERNEL,
            (
                format!("sparselu {nb}x{nb} of {bs} ({tasks} t)"),
                format!("sparselu {}/{bs}", nb * bs),
            ),
            &original,
            checksum::of_sparselu,
        )
    }

    /// The empty-task cost: per tasks in flight and mode, ns per independent
    /// and per dependent task at each thread count (its table is printed as
    /// it goes). Returns its four entries (no sequential time).
    pub fn task_cost(&self, sizes: &Sizes) -> Vec<Entry> {
        task_cost_header(&self.threads, sizes.task_cost_per_timing);
        let mut entries = Vec::new();
        let mut inlined = 0;
        for tasks in sizes.task_cost_in_flight {
            // Repeat small runs so each timing covers the same tasks.
            let repeat = (sizes.task_cost_per_timing / tasks).max(1);
            let check = |counts: &Vec<u64>| match counts.iter().find(|&&c| c != tasks as u64) {
                None => Ok(()),
                Some(c) => Err(format!("{c} empty tasks ran, expected {tasks}")),
            };
            let program = |kind: &str| format!("empty {kind} task ({tasks} in flight)");
            let independent = self.measure(
                &program("independent"),
                DEFERRING,
                |rt| {
                    (0..repeat)
                        .map(|_| rt.run(|| overhead::empty_independent(tasks)))
                        .collect()
                },
                check,
            );
            let dependent = self.measure(
                &program("dependent"),
                DEFERRING,
                |rt| {
                    (0..repeat)
                        .map(|_| rt.run(|| overhead::empty_dependent(tasks)))
                        .collect()
                },
                check,
            );
            inlined += task_cost_rows(self, tasks, tasks * repeat, &independent, &dependent);
            for (kind, measured) in [("independent", independent), ("dependent", dependent)] {
                entries.push(Entry {
                    label: format!("task_cost {tasks} {kind}"),
                    program: program(kind),
                    seq: None,
                    tasks_per_run: Some(tasks * repeat),
                    counted_by_default: false,
                    default_params: false,
                    measured,
                    expect: None,
                    peers: Vec::new(),
                });
            }
        }
        if inlined > 0 {
            println!("\n(warning: {inlined} spawns ran inline: not every task was deferred)");
        }
        entries
    }

    /// The bucket sweep, per bucket count and mode (its table is printed as
    /// it goes).
    pub fn bucket_sweep(&self, sizes: &Sizes) -> Vec<Entry> {
        let (handles, rounds, work) = sizes.buckets;
        println!(
            "\n### Bucket sweep ({handles} handles x {rounds} rounds of inout tasks of {work} \
             iterations, all deferred)\n"
        );
        let seq_program = format!("bucket sweep ({handles} handles x {rounds} rounds)");
        let seq = self.sequential(&seq_program, || {
            std::hint::black_box(overhead::many_handles_sequential(handles, rounds, work));
        });
        let reference = overhead::many_handles_sequential(handles, rounds, work);
        header(&self.threads, "buckets");
        sizes
            .bucket_counts
            .iter()
            .map(|&buckets| {
                let program =
                    format!("bucket sweep {buckets} ({handles} handles x {rounds} rounds)");
                let measured = self.measure(
                    &program,
                    DEFERRING.with_dependency_buckets(buckets),
                    |rt| rt.run(|| overhead::many_handles(handles, rounds, work)),
                    |r| compare_exact(r, &reference, "many_handles"),
                );
                let entry = Entry {
                    label: format!("buckets {buckets}"),
                    program,
                    seq: Some(seq),
                    tasks_per_run: None,
                    counted_by_default: false,
                    default_params: false,
                    measured,
                    expect: None,
                    peers: Vec::new(),
                };
                rows(&entry, &self.modes);
                entry
            })
            .collect()
    }
}

/// The program name of two-wave at task size `size` with `tasks` tasks per
/// wave: `two-wave 250`, with the tasks when not the benchmark's 10,000
/// (`two-wave 25000 (2000 tasks per wave)`).
pub fn two_wave_program(size: usize, tasks: usize) -> String {
    if tasks == two_wave::NUM_TASKS {
        format!("two-wave {size}")
    } else {
        format!("two-wave {size} ({tasks} tasks per wave)")
    }
}

// The rows printed as the benchmarks are measured.

fn ms(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e3)
}

/// Width of the benchmark-name column.
pub const NAME: usize = 30;

/// The header of a table with a sequential column and, per thread count,
/// Prescient's time and its ratio to the sequential one.
pub fn header(threads: &[usize], first: &str) {
    let mut line = format!("| {first:<NAME$} | {:<8} | {:>9} |", "mode", "seq ms");
    let mut rule = format!("|{:-<w$}|{:-<10}|{:->10}:|", "", "", "", w = NAME + 2);
    for t in threads {
        line += &format!(" {:>9} | {:>5} |", format!("P{t} ms"), format!("P{t}/s"));
        rule += &format!("{:->10}:|{:->6}:|", "", "");
    }
    println!("{line}\n{rule}");
}

/// An entry's rows under [`header`]: one per mode, then one per peer.
pub fn rows(entry: &Entry, modes: &[DastMode]) {
    let seq = entry.seq.expect("a table with a sequential column");
    let cell = |t: Duration| {
        format!(
            " {:>9} | {:>5.2} |",
            ms(t),
            t.as_secs_f64() / seq.as_secs_f64()
        )
    };
    for (m, mode) in modes.iter().enumerate() {
        let mut line = format!(
            "| {:<NAME$} | {:<8} | {:>9} |",
            entry.label,
            mode.short_name(),
            ms(seq)
        );
        for measured in &entry.measured {
            line += &cell(measured[m].time);
        }
        println!("{line}");
    }
    let mut peers: Vec<&str> = entry.peers.iter().map(|p| p.0.as_str()).collect();
    peers.dedup();
    for peer in peers {
        let mut line = format!("| {:<NAME$} | {peer:<8} | {:>9} |", entry.label, ms(seq));
        for (_, _, record) in entry.peers.iter().filter(|p| p.0 == peer) {
            line += &record.as_ref().map_or_else(
                |e| format!(" FAILED: {e} | |"),
                |r| cell(Duration::from_nanos(r.min_ns() as u64)),
            );
        }
        println!("{line}");
    }
}

/// The heading and header of the empty-task cost table.
pub fn task_cost_header(threads: &[usize], per_timing: usize) {
    println!(
        "\n### Cost per empty task (all deferred: queue_capacity 2^16; ns per task; each timing \
         covers {per_timing} tasks)\n"
    );
    let mut line = format!("| {:>15} | {:<8} |", "tasks in flight", "mode");
    let mut rule = format!("|{:->16}:|{:-<10}|", "", "");
    for t in threads {
        line += &format!(
            " {:>10} | {:>10} |",
            format!("P{t} ind ns"),
            format!("P{t} dep ns")
        );
        rule += &format!("{:->11}:|{:->11}:|", "", "");
    }
    println!("{line}\n{rule}");
}

/// The empty-task cost's rows for `tasks` in flight (`per_timing` tasks per
/// timed run), one per mode; returns the spawns that ran inline.
pub fn task_cost_rows(
    bench: &Bench,
    tasks: usize,
    per_timing: usize,
    independent: &[Vec<Measured>],
    dependent: &[Vec<Measured>],
) -> u64 {
    let per_task = |d: Duration| d.as_secs_f64() * 1e9 / per_timing as f64;
    let mut inlined = 0;
    for (m, mode) in bench.modes.iter().enumerate() {
        let mut line = format!("| {tasks:>15} | {:<8} |", mode.short_name());
        for (ind, dep) in independent.iter().zip(dependent) {
            line += &format!(
                " {:>10.1} | {:>10.1} |",
                per_task(ind[m].time),
                per_task(dep[m].time)
            );
            inlined += ind[m].delta.inlined_spawns + dep[m].delta.inlined_spawns;
        }
        println!("{line}");
    }
    inlined
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes() {
        let full = Sizes::of(Size::Full);
        assert_eq!(full.two_wave_tasks, [10_000; 4]);
        let quick = Sizes::of(Size::Quick);
        assert_eq!(quick.two_wave_tasks, [10_000, 10_000, 2_000, 2_000]);
        assert_eq!(quick.bucket_counts, [97, 64_567]);
        let test = Sizes::of(Size::Test);
        assert_eq!(test.bucket_counts.len(), overhead::BUCKETS.len());
        assert_eq!(two_wave_program(250, 10_000), "two-wave 250");
        assert_eq!(
            two_wave_program(25_000, 2_000),
            "two-wave 25000 (2000 tasks per wave)"
        );
    }

    #[test]
    fn test_size_kernels_check() {
        // The test size's SparseLU must not diverge to NaN (an exact
        // comparison would fail), and every kernel must be non-trivial.
        let s = Sizes::of(Size::Test);
        let (nb, bs) = s.sparselu;
        let original = sparselu::generate(nb, bs);
        let reference = sparselu::KERNEL.reference(&original);
        assert!(reference.blocks.iter().all(|v| v.is_finite()));
        let rt = runtime(2, Params::DEFAULT);
        sparselu::KERNEL
            .run_checked(&rt, &original, &reference)
            .unwrap();
        let (nb, bs) = s.cholesky;
        let original = cholesky::generate(nb, bs, 42);
        let reference = cholesky::KERNEL.reference(&original);
        cholesky::KERNEL
            .run_checked(&rt, &original, &reference)
            .unwrap();
    }

    #[test]
    fn interleaved_measure_checks_every_mode() {
        let bench = Bench {
            threads: vec![1, 2],
            modes: DastMode::ALL.to_vec(),
            reps: 2,
        };
        let reference = two_wave::sequential(200, 20);
        let measured = bench.measure(
            "two-wave 20 (200 tasks per wave)",
            Params::DEFAULT,
            |rt| rt.run(|| two_wave::dataflow(200, 20)),
            |r| compare_exact(r, &reference, "two_wave"),
        );
        assert_eq!(measured.len(), 2);
        for per_mode in &measured {
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
            "one",
            Params::DEFAULT,
            |rt| rt.run(|| 1),
            |_| Err("no".to_string()),
        );
    }
}
