//! Random dataflow programs leave the same values as a sequential run.
//!
//! Each program: tens of `u64` handles, hundreds of tasks with 0–4 accesses
//! of random modes (`in` accesses may name one handle twice), a few waits in
//! between that compare every value with the sequential state at that point,
//! and some tasks that do their writes through a nested dataflow scope. A
//! task mixes what it reads into a hash, records the hash, and writes hashes
//! of it: a task that reads a wrong version shows in its recorded hash (even
//! a read-only task), and a misordered write shows in the values. Task bodies
//! also check, with per-handle atomic counters, that no conflicting access is
//! live at the same time (exclusivity, not only the results).
//!
//! Runs on 1, 2 and 32 workers under all four queue policies, with queue
//! capacities 1 (most ready tasks run inline at submission) and 64, and
//! dependency tables of 1, 7 or 97 buckets: 528 programs in all, in the
//! default DAST mode. Then, per DAST mode (`per_dast_mode!`:
//! `random_programs_per_dast_mode_on_32_workers::off`, `::forced`, ...),
//! [`PROGRAMS_PER_MODE`] = 500 more programs on 32 workers (oversubscribed
//! on a small machine, so the manager thread and the workers park and are
//! woken all the time), spread over every policy × capacity {1, 64} ×
//! buckets {1, 7, 97}, each under a watchdog that names its seed.
//!
//! The per-mode programs are smaller ([`PER_MODE_SIZE`]: 50–100 tasks on
//! 4–12 handles, against 200–400 on 10–40): at full size the 2000 programs
//! of the four modes took from 17 s to 100 s in a debug build on 2 cores,
//! one test at a time, the spread being `Adaptive` and `IdleWorkers` (6 s to
//! 50 s each; `Off` 1 s, `Forced` 2–3 s). Idle workers that drain the DAST
//! queues — those two modes without a manager thread — do not park or yield
//! while any queue holds a request, even one that another, descheduled,
//! consumer holds, so on an oversubscribed host they burn the cores that
//! consumer needs. Smaller, they take about 20 s (`Adaptive` and
//! `IdleWorkers` 10 s each, `Forced` 1 s, `Off` 0.4 s). For the same reason
//! the tests that run programs run one at a time, and one at a time with
//! `dast`'s oversubscribed stress (each holds
//! [`one_big_runtime_at_a_time`]): two
//! 32-worker runtimes at once starve each other, the manager thread of one
//! included (`Forced`'s 500 full-size programs took 81 s beside the
//! `Adaptive` and `IdleWorkers` runs, 2–3 s alone).
//!
//! Every run prints its seed (shown when a test fails); set
//! `PRESCIENT_DATAFLOW_SEED` to change the base seed, e.g. to replay a
//! failing run. The long soaks (ignored; see the README) run
//! `PRESCIENT_SOAK_PROGRAMS` programs (at least 1000) of full size, in the
//! default mode and then per mode.

use prescient::dataflow::{Data, Dataflow};
use prescient::tuning::{DastMode, QueuePolicy};
use prescient::{dataflow, Params, Runtime};
use prescient_tests::{
    one_big_runtime_at_a_time, per_dast_mode, seed_from_env_or, soak_programs, watchdog_diag,
    XorShift64,
};
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

const DEFAULT_SEED: u64 = 0x5EED_DA7A_F10E;

/// The finaliser of SplitMix64, a bijective hash: derives each run's seed,
/// the initial values and the hashes the tasks record and write.
fn mix(mut x: u64) -> u64 {
    x ^= x >> 30;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 27;
    x = x.wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    In,
    Out,
    InOut,
}

#[derive(Clone, Debug)]
struct TaskSpec {
    index: u64,
    /// (handle, mode) in declaration order.
    accesses: Vec<(usize, Mode)>,
    /// Do the writes through a nested dataflow scope.
    nested: bool,
    /// Busy-work iterations, to vary timing.
    spin: u32,
}

enum Step {
    Task(TaskSpec),
    /// Wait, then compare every value with the sequential state.
    Check,
}

/// The access shapes a task may have (each shape is one closure type).
const SHAPES: &[&[Mode]] = {
    use Mode::*;
    &[
        &[],
        &[In],
        &[Out],
        &[InOut],
        &[In, In],
        &[In, Out],
        &[In, InOut],
        &[Out, In],
        &[Out, Out],
        &[Out, InOut],
        &[InOut, In],
        &[InOut, Out],
        &[InOut, InOut],
        &[In, In, InOut],
        &[In, Out, InOut],
        &[InOut, In, Out],
        &[In, In, In],
        &[Out, InOut, In],
        &[In, InOut, In, Out],
        &[InOut, In, In, In],
        &[Out, Out, In, InOut],
    ]
};

fn generate(seed: u64, handles: usize, tasks: usize) -> Vec<Step> {
    let mut rng = XorShift64::new(seed);
    let mut steps = Vec::new();
    for index in 0..tasks as u64 {
        if rng.chance(1) {
            steps.push(Step::Check);
        }
        let shape = SHAPES[rng.index(SHAPES.len())];
        let mut accesses: Vec<(usize, Mode)> = Vec::new();
        for &mode in shape {
            // A read may repeat an earlier read's handle; a write never
            // shares its handle with another access of the task.
            let handle = loop {
                let candidate = if mode == Mode::In && rng.chance(15) {
                    accesses
                        .iter()
                        .find(|&&(_, m)| m == Mode::In)
                        .map_or_else(|| rng.index(handles), |&(h, _)| h)
                } else {
                    rng.index(handles)
                };
                let clash = accesses
                    .iter()
                    .any(|&(h, m)| h == candidate && (m != Mode::In || mode != Mode::In));
                if !clash {
                    break candidate;
                }
            };
            accesses.push((handle, mode));
        }
        let writes = accesses.iter().any(|&(_, m)| m != Mode::In);
        steps.push(Step::Task(TaskSpec {
            index,
            accesses,
            nested: writes && rng.chance(10),
            spin: if rng.chance(20) {
                rng.below(300) as u32
            } else {
                0
            },
        }));
    }
    steps.push(Step::Check);
    steps
}

/// What a task body holds for one access.
enum Acc<'a> {
    R(&'a u64),
    W(&'a mut u64),
    O(&'a mut u64),
}

/// The hash a task writes: its index, then every value it reads, in order.
fn task_hash(index: u64, reads: impl Iterator<Item = u64>) -> u64 {
    reads.fold(mix(index ^ 0xABCD), |h, v| mix(h ^ v))
}

fn output(hash: u64, position: usize) -> u64 {
    mix(hash.wrapping_add(position as u64))
}

/// The sequential reference of one task; returns the hash it records.
fn apply_sequential(spec: &TaskSpec, values: &mut [u64]) -> u64 {
    let hash = task_hash(
        spec.index,
        spec.accesses
            .iter()
            .filter(|&&(_, m)| m != Mode::Out)
            .map(|&(h, _)| values[h]),
    );
    for (position, &(h, mode)) in spec.accesses.iter().enumerate() {
        if mode != Mode::In {
            values[h] = output(hash, position);
        }
    }
    hash
}

/// Per-handle access counters (readers count up, a writer sets -1) and the
/// hash each task recorded.
struct Checker {
    state: Vec<AtomicI64>,
    hashes: Vec<AtomicU64>,
    violations: Mutex<Vec<String>>,
}

impl Checker {
    fn new(handles: usize, tasks: usize) -> Checker {
        Checker {
            state: (0..handles).map(|_| AtomicI64::new(0)).collect(),
            hashes: (0..tasks).map(|_| AtomicU64::new(0)).collect(),
            violations: Mutex::new(Vec::new()),
        }
    }

    fn violation(&self, message: String) {
        self.violations.lock().unwrap().push(message);
    }

    fn enter(&self, spec: &TaskSpec) {
        for &(h, mode) in &spec.accesses {
            let state = &self.state[h];
            if mode == Mode::In {
                let previous = state.fetch_add(1, Ordering::SeqCst);
                if previous < 0 {
                    self.violation(format!(
                        "task {} reads handle {h} while it is written",
                        spec.index
                    ));
                }
            } else if let Err(current) =
                state.compare_exchange(0, -1, Ordering::SeqCst, Ordering::SeqCst)
            {
                self.violation(format!(
                    "task {} writes handle {h} while it is accessed (state {current})",
                    spec.index
                ));
            }
        }
    }

    fn leave(&self, spec: &TaskSpec) {
        for &(h, mode) in spec.accesses.iter().rev() {
            if mode == Mode::In {
                self.state[h].fetch_sub(1, Ordering::SeqCst);
            } else {
                self.state[h].store(0, Ordering::SeqCst);
            }
        }
    }
}

/// The dataflow version of one task body.
fn run_body(spec: &TaskSpec, accs: &mut [Acc<'_>], check: &Checker) {
    check.enter(spec);
    for i in 0..spec.spin {
        std::hint::black_box(i);
    }
    let hash = task_hash(
        spec.index,
        accs.iter().filter_map(|a| match a {
            Acc::R(v) => Some(**v),
            Acc::W(v) => Some(**v),
            Acc::O(_) => None,
        }),
    );
    check.hashes[spec.index as usize].store(hash, Ordering::Relaxed);
    if spec.nested {
        // Write through a nested scope, over handles made from our borrows.
        let outputs: Vec<(usize, &mut u64)> = accs
            .iter_mut()
            .enumerate()
            .filter_map(|(position, a)| match a {
                Acc::W(v) | Acc::O(v) => Some((position, &mut **v)),
                Acc::R(_) => None,
            })
            .collect();
        dataflow(|inner| {
            let handles: Vec<(usize, Data<'_, &mut u64>)> = outputs
                .into_iter()
                .map(|(position, v)| (position, inner.data(v)))
                .collect();
            for (position, handle) in &handles {
                let position = *position;
                inner.task(handle.out(), move |v: &mut &mut u64| {
                    **v = output(hash, position)
                });
            }
        });
    } else {
        for (position, a) in accs.iter_mut().enumerate() {
            if let Acc::W(v) | Acc::O(v) = a {
                **v = output(hash, position);
            }
        }
    }
    check.leave(spec);
}

/// Submits one task of the program.
fn submit<'df>(
    df: &'df Dataflow<'df, '_>,
    handles: &[Data<'df, u64>],
    spec: TaskSpec,
    check: &'df Checker,
) {
    macro_rules! token {
        (In, $h:expr) => {
            $h.read()
        };
        (Out, $h:expr) => {
            $h.out()
        };
        (InOut, $h:expr) => {
            $h.inout()
        };
    }
    macro_rules! acc {
        (In, $v:ident) => {
            Acc::R($v)
        };
        (Out, $v:ident) => {
            Acc::O($v)
        };
        (InOut, $v:ident) => {
            Acc::W($v)
        };
    }
    macro_rules! shapes {
        ($($mode:ident $var:ident $i:tt),*) => {{
            let tokens = ($(token!($mode, handles[spec.accesses[$i].0]),)*);
            df.task(tokens, move |($($var,)*)| {
                run_body(&spec, &mut [$(acc!($mode, $var)),*], check);
            });
        }};
    }
    use Mode::*;
    let modes: Vec<Mode> = spec.accesses.iter().map(|&(_, m)| m).collect();
    match modes.as_slice() {
        [] => df.task((), move |()| run_body(&spec, &mut [], check)),
        [In] => shapes!(In a 0),
        [Out] => shapes!(Out a 0),
        [InOut] => shapes!(InOut a 0),
        [In, In] => shapes!(In a 0, In b 1),
        [In, Out] => shapes!(In a 0, Out b 1),
        [In, InOut] => shapes!(In a 0, InOut b 1),
        [Out, In] => shapes!(Out a 0, In b 1),
        [Out, Out] => shapes!(Out a 0, Out b 1),
        [Out, InOut] => shapes!(Out a 0, InOut b 1),
        [InOut, In] => shapes!(InOut a 0, In b 1),
        [InOut, Out] => shapes!(InOut a 0, Out b 1),
        [InOut, InOut] => shapes!(InOut a 0, InOut b 1),
        [In, In, InOut] => shapes!(In a 0, In b 1, InOut c 2),
        [In, Out, InOut] => shapes!(In a 0, Out b 1, InOut c 2),
        [InOut, In, Out] => shapes!(InOut a 0, In b 1, Out c 2),
        [In, In, In] => shapes!(In a 0, In b 1, In c 2),
        [Out, InOut, In] => shapes!(Out a 0, InOut b 1, In c 2),
        [In, InOut, In, Out] => shapes!(In a 0, InOut b 1, In c 2, Out d 3),
        [InOut, In, In, In] => shapes!(InOut a 0, In b 1, In c 2, In d 3),
        [Out, Out, In, InOut] => shapes!(Out a 0, Out b 1, In c 2, InOut d 3),
        other => unreachable!("shape {other:?} is not in SHAPES"),
    }
}

/// Runs one random program on `runtime` and compares it with the sequential
/// run; returns an error message naming the seed on any difference.
fn run_program(runtime: &Runtime, seed: u64, label: &str) -> Result<(), String> {
    run_program_sized(runtime, seed, label, FULL_SIZE)
}

/// How large a random program is: `min + (0 ..= extra)` handles and tasks.
#[derive(Clone, Copy, Debug)]
struct Size {
    /// (min, extra) handles.
    handles: (usize, usize),
    /// (min, extra) tasks.
    tasks: (usize, usize),
}

/// The programs of the tests by worker count and of the soaks: 10–40
/// handles, 200–400 tasks.
const FULL_SIZE: Size = Size {
    handles: (10, 30),
    tasks: (200, 200),
};

/// The programs of the per-mode tests (see the module comment): 4–12
/// handles, 50–100 tasks — a quarter of the tasks, on fewer handles so that
/// they depend on each other about as densely.
const PER_MODE_SIZE: Size = Size {
    handles: (4, 8),
    tasks: (50, 50),
};

/// [`run_program`] with a program of `size`.
fn run_program_sized(runtime: &Runtime, seed: u64, label: &str, size: Size) -> Result<(), String> {
    let mut rng = XorShift64::new(seed ^ 0xC0FFEE);
    let handles = size.handles.0 + rng.index(size.handles.1 + 1);
    let tasks = size.tasks.0 + rng.index(size.tasks.1 + 1);
    let steps = generate(seed, handles, tasks);
    let initial: Vec<u64> = (0..handles as u64).map(|h| mix(seed ^ h)).collect();

    // The sequential reference, with the expected state at every check.
    let mut values = initial.clone();
    let mut expected_checks = Vec::new();
    let mut expected_hashes = Vec::new();
    for step in &steps {
        match step {
            Step::Task(spec) => expected_hashes.push(apply_sequential(spec, &mut values)),
            Step::Check => expected_checks.push(values.clone()),
        }
    }

    let check = Checker::new(handles, tasks);
    let observed_checks = runtime.run(|| {
        dataflow(|df| {
            let mut data: Vec<Data<'_, u64>> = initial.iter().map(|&v| df.data(v)).collect();
            let mut observed = Vec::new();
            for step in &steps {
                match step {
                    Step::Task(spec) => submit(df, &data, spec.clone(), &check),
                    Step::Check => {
                        df.wait();
                        observed.push(data.iter_mut().map(|d| *d.get_mut()).collect::<Vec<u64>>());
                    }
                }
            }
            observed
        })
    });

    let violations = std::mem::take(&mut *check.violations.lock().unwrap());
    if !violations.is_empty() {
        return Err(format!(
            "{label} seed {seed:#x}: exclusivity violated: {violations:?}"
        ));
    }
    let hashes: Vec<u64> = check
        .hashes
        .iter()
        .map(|h| h.load(Ordering::Relaxed))
        .collect();
    if let Some(task) = hashes
        .iter()
        .zip(&expected_hashes)
        .position(|(o, e)| o != e)
    {
        return Err(format!(
            "{label} seed {seed:#x}: task {task} read other values than in the sequential run"
        ));
    }
    for (n, (observed, expected)) in observed_checks.iter().zip(&expected_checks).enumerate() {
        if observed != expected {
            let first = observed
                .iter()
                .zip(expected)
                .position(|(o, e)| o != e)
                .unwrap();
            return Err(format!(
                "{label} seed {seed:#x}: values differ from the sequential run at check {n} \
                 ({} handles, {} tasks), first at handle {first}",
                handles, tasks
            ));
        }
    }
    Ok(())
}

const RUNS_PER_CONFIG: u64 = 22;

/// 3 worker counts x 4 policies x 2 capacities x 22 programs = 528 runs.
/// The runtime the random programs run on: `workers` workers, `params`, and
/// a live-stack cap of 64 (so that the cap's paths run too).
fn program_runtime(workers: usize, params: Params) -> Runtime {
    Runtime::builder()
        .num_workers(workers)
        .params(params)
        .max_live_stacks(64)
        .build()
        .unwrap()
}

fn stress(workers: usize) {
    stress_runs(workers, RUNS_PER_CONFIG);
}

/// `runs_per_config` random programs under each policy x capacity {1, 64},
/// on `workers` workers with a live-stack cap of 64 per worker.
fn stress_runs(workers: usize, runs_per_config: u64) {
    let _one = one_big_runtime_at_a_time();
    let base = seed_from_env_or("PRESCIENT_DATAFLOW_SEED", DEFAULT_SEED);
    let mut runs = 0;
    for (p, policy) in QueuePolicy::ALL.into_iter().enumerate() {
        for (c, capacity) in [1usize, 64].into_iter().enumerate() {
            let buckets = [1usize, 7, 97][(p + c + workers) % 3];
            let params = Params::DEFAULT
                .with_queue_policy(policy)
                .with_queue_capacity(capacity)
                .with_dependency_buckets(buckets);
            let runtime = program_runtime(workers, params);
            for run in 0..runs_per_config {
                let seed =
                    mix(base
                        ^ mix((workers as u64) << 32 | (p as u64) << 16 | (c as u64) << 8 | run));
                let label = format!(
                    "workers {workers} policy {policy} capacity {capacity} buckets {buckets} run {run}"
                );
                eprintln!("dataflow random: {label} seed {seed:#x}");
                if let Err(message) = run_program(&runtime, seed, &label) {
                    panic!("{message}\nreplay: PRESCIENT_DATAFLOW_SEED={base:#x} (this run's seed {seed:#x})");
                }
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 4 * 2 * runs_per_config);
}

/// The random programs of each per-mode test.
const PROGRAMS_PER_MODE: u64 = 500;

/// How long one program may take before the watchdog calls it a hang (a few
/// hundred milliseconds is usual in a debug build on 32 workers).
const PROGRAM_LIMIT: Duration = Duration::from_secs(120);

/// `programs` random programs of `size` on `workers` workers with the DAST `mode`,
/// spread over the 24 configurations policy × capacity {1, 64} × buckets
/// {1, 7, 97} (one runtime per configuration, built when its turn comes, with
/// a live-stack cap of 64 per worker), each under a watchdog. The seeds
/// differ from those of `stress_runs` and between the modes.
fn stress_mode(mode: DastMode, workers: usize, programs: u64, size: Size) {
    let _one = one_big_runtime_at_a_time();
    let base = seed_from_env_or("PRESCIENT_DATAFLOW_SEED", DEFAULT_SEED);
    let m = DastMode::ALL.iter().position(|&x| x == mode).unwrap() as u64;
    let mut configs = Vec::new();
    for (p, policy) in QueuePolicy::ALL.into_iter().enumerate() {
        for (c, capacity) in [1usize, 64].into_iter().enumerate() {
            for (b, buckets) in [1usize, 7, 97].into_iter().enumerate() {
                configs.push((p << 8 | c << 4 | b, policy, capacity, buckets));
            }
        }
    }
    let n = configs.len() as u64;
    let mut runs = 0;
    for (i, &(config, policy, capacity, buckets)) in configs.iter().enumerate() {
        // Program `k` runs on configuration `k % n`.
        let share = programs / n + u64::from((i as u64) < programs % n);
        if share == 0 {
            continue;
        }
        let params = Params::DEFAULT
            .with_queue_policy(policy)
            .with_queue_capacity(capacity)
            .with_dependency_buckets(buckets)
            .with_dast(mode);
        let runtime = program_runtime(workers, params);
        for run in 0..share {
            let seed =
                mix(base
                    ^ mix((m + 1) << 48 | (workers as u64) << 32 | (config as u64) << 16 | run));
            let label = format!(
                "dast {mode} workers {workers} policy {policy} capacity {capacity} \
                 buckets {buckets} run {run}"
            );
            eprintln!("dataflow random: {label} seed {seed:#x}");
            let outcome = watchdog_diag(
                &format!("{label} seed {seed:#x}"),
                PROGRAM_LIMIT,
                || format!("{:?}", runtime.counters()),
                || run_program_sized(&runtime, seed, &label, size),
            );
            if let Err(message) = outcome {
                panic!("{message}\nreplay: PRESCIENT_DATAFLOW_SEED={base:#x} (this run's seed {seed:#x})");
            }
            runs += 1;
        }
    }
    assert_eq!(runs, programs);
}

/// 500 random programs on 32 workers in `mode` (see the module comment).
fn random_programs_per_dast_mode_on_32_workers(mode: DastMode) {
    stress_mode(mode, 32, PROGRAMS_PER_MODE, PER_MODE_SIZE);
}
per_dast_mode!(random_programs_per_dast_mode_on_32_workers);

/// The long soak per DAST mode: at least 1000 random programs
/// (`PRESCIENT_SOAK_PROGRAMS` raises it) on 32 workers in each mode.
/// Ignored by default, like the soak below.
#[test]
#[ignore = "long soak: run with --ignored (see the README)"]
fn soak_random_programs_on_32_workers_per_dast_mode() {
    for mode in DastMode::ALL {
        stress_mode(mode, 32, soak_programs() as u64, FULL_SIZE);
    }
}

/// The long soak: at least 1000 random programs (`PRESCIENT_SOAK_PROGRAMS`
/// raises it) on 32 workers under every policy, oversubscribed on a small
/// machine. Ignored by default; the README gives the command.
#[test]
#[ignore = "long soak: run with --ignored (see the README)"]
fn soak_random_programs_on_32_workers() {
    stress_runs(32, (soak_programs() as u64).div_ceil(8));
}

#[test]
fn random_programs_match_the_sequential_run_on_1_worker() {
    stress(1);
}

#[test]
fn random_programs_match_the_sequential_run_on_2_workers() {
    stress(2);
}

#[test]
fn random_programs_match_the_sequential_run_on_32_workers() {
    stress(32);
}

/// The checker itself must be able to fail: running two adjacent
/// conflicting tasks (one of which reads) in the wrong order changes the
/// recorded hashes or the values.
#[test]
fn a_reordered_program_is_detected() {
    let steps = generate(7, 12, 300);
    let specs: Vec<&TaskSpec> = steps
        .iter()
        .filter_map(|s| match s {
            Step::Task(spec) => Some(spec),
            Step::Check => None,
        })
        .collect();
    let run = |order: &[&TaskSpec]| {
        let mut values = vec![1u64; 12];
        let mut hashes = vec![0u64; order.len()];
        for spec in order {
            hashes[spec.index as usize] = apply_sequential(spec, &mut values);
        }
        (values, hashes)
    };
    let conflict = |a: &TaskSpec, b: &TaskSpec| {
        a.accesses.iter().any(|&(h, m)| {
            b.accesses.iter().any(|&(g, n)| {
                h == g && (m != Mode::In || n != Mode::In) && (m != Mode::Out || n != Mode::Out)
            })
        })
    };
    let mut swapped = 0;
    for i in 0..specs.len() - 1 {
        if conflict(specs[i], specs[i + 1]) {
            let mut order = specs.clone();
            order.swap(i, i + 1);
            assert_ne!(
                run(&specs),
                run(&order),
                "swapping tasks {i} and {} went unnoticed",
                i + 1
            );
            swapped += 1;
        }
    }
    assert!(swapped > 10);
}
