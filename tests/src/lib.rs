//! Shared helpers of the Prescient integration and stress tests — the
//! runtime's tests live in this package's `tests/` (with the trybuild cases
//! under `tests/ui_params/` and `tests/ui_dataflow/`), and use only these:
//! the one seeded PRNG of the tests ([`XorShift64`]) with its seeds from the
//! environment and the soak size, a watchdog that turns a hung runtime into a
//! failing test, the configuration matrix (policy × capacity × workers) and
//! runtime builders, [`per_dast_mode!`] (one test per DAST mode of a test
//! function), panic-message helpers that keep expected panics off
//! stderr, and readers of `/proc/self/task` (thread names, scheduler states,
//! CPU time, affinity).

#![deny(missing_docs)]

use prescient::tuning::{DastMode, QueuePolicy};
use prescient::{Params, Runtime};
use std::any::Any;
use std::sync::{mpsc, Mutex, MutexGuard, Once, PoisonError};
use std::time::{Duration, Instant};

/// For each named function `fn name(mode: DastMode)` of the calling test
/// file, a module `name` with one `#[test]` per [`DastMode`] — `off`,
/// `forced`, `adaptive`, `idle_workers` — that calls it with that mode, so
/// that a failure names the test and the mode (`name::forced`), and one mode
/// can be run alone (`cargo test name::forced`). A function left out of the
/// list is dead code, which clippy (`-D warnings`) rejects.
///
/// ```ignore
/// fn chains_finish(mode: DastMode) { /* ... */ }
/// prescient_tests::per_dast_mode!(chains_finish);
/// ```
#[macro_export]
macro_rules! per_dast_mode {
    ($($name:ident),+ $(,)?) => {
        $(
            mod $name {
                #[test]
                fn off() {
                    super::$name(::prescient::tuning::DastMode::Off);
                }

                #[test]
                fn forced() {
                    super::$name(::prescient::tuning::DastMode::Forced);
                }

                #[test]
                fn adaptive() {
                    super::$name(::prescient::tuning::DastMode::Adaptive);
                }

                #[test]
                fn idle_workers() {
                    super::$name(::prescient::tuning::DastMode::IdleWorkers);
                }
            }
        )+
    };
}

/// The modes [`per_dast_mode!`] generates a test for, in its order (a unit
/// test checks that they are all of [`DastMode::ALL`]).
pub const PER_DAST_MODE: [DastMode; 4] = [
    DastMode::Off,
    DastMode::Forced,
    DastMode::Adaptive,
    DastMode::IdleWorkers,
];

/// A small seeded PRNG (xorshift64*), so that a failing random test can be
/// replayed from the seed it prints.
#[derive(Clone, Debug)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// A generator for `seed` (any value; zero is remapped).
    pub fn new(seed: u64) -> XorShift64 {
        XorShift64 {
            state: if seed == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                seed
            },
        }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A value in `0 .. n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A position in `0 .. len` (`len > 0`), e.g. into a slice.
    pub fn index(&mut self, len: usize) -> usize {
        self.below(len as u64) as usize
    }

    /// `true` with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// Parses a seed as the tests print them: decimal, or hexadecimal after
/// `0x` (white space around it is ignored).
pub fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// The seed in the environment variable `var`, if it is set.
///
/// # Panics
/// If it is set but not a seed ([`parse_seed`]).
fn env_seed(var: &str) -> Option<u64> {
    let value = std::env::var(var).ok()?;
    Some(parse_seed(&value).unwrap_or_else(|| panic!("{var}={value:?} is not a u64")))
}

/// The seed of a random test: the environment variable `var` if set (to
/// replay a failure), else one derived from the clock. Printed either way.
pub fn seed_from_env(var: &str) -> u64 {
    let seed = env_seed(var).unwrap_or_else(|| {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        now.as_nanos() as u64 ^ (u64::from(std::process::id()) << 32)
    });
    eprintln!("seed: {seed} (replay with {var}={seed})");
    seed
}

/// The seed of a deterministic random test: the environment variable `var`
/// if set (to replay a failure or try other programs), else `default`.
/// Printed either way.
pub fn seed_from_env_or(var: &str, default: u64) -> u64 {
    let seed = env_seed(var).unwrap_or(default);
    eprintln!("seed: {seed:#x} (replay with {var}={seed:#x})");
    seed
}

/// The name the test harness knows a test by: `module`, the
/// `module_path!()` of the test's module, without its first segment (the
/// crate, i.e. the test binary), then `name`. A test that re-runs itself
/// alone in a child process (`--exact`) passes this, so that it finds itself
/// whichever module of a consolidated test binary it sits in.
///
/// ```ignore
/// let exact = prescient_tests::test_path(module_path!(), "my_test");
/// ```
pub fn test_path(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}

/// Taken by each test that runs an oversubscribed (32-worker) dataflow
/// runtime, so that the test harness's threads run those one at a time: two
/// at once starve each other (idle workers that drain the DAST queues do not
/// park while a queue holds a request). One lock for every module of a test
/// binary; taken also after a test that held it failed.
pub fn one_big_runtime_at_a_time() -> MutexGuard<'static, ()> {
    static BIG_RUNTIMES: Mutex<()> = Mutex::new(());
    BIG_RUNTIMES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The number of random programs of a long soak test: the environment
/// variable `PRESCIENT_SOAK_PROGRAMS` if it is a number, but at least 1000.
pub fn soak_programs() -> usize {
    std::env::var("PRESCIENT_SOAK_PROGRAMS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(1000)
        .max(1000)
}

/// Runs `f` on the calling thread; if it has not returned (or unwound) within
/// `limit`, prints `what` (which should name the test and its seed) and exits
/// the process with status 1. A hung runtime cannot be cancelled, so a hang
/// must end the process, not just this test.
pub fn watchdog<R>(what: &str, limit: Duration, f: impl FnOnce() -> R) -> R {
    watchdog_diag(what, limit, String::new, f)
}

/// [`watchdog`] that also prints `diagnose()` (e.g. the runtime's counters)
/// when it fires.
pub fn watchdog_diag<R>(
    what: &str,
    limit: Duration,
    diagnose: impl Fn() -> String + Sync,
    f: impl FnOnce() -> R,
) -> R {
    std::thread::scope(|scope| {
        let (done, wait) = mpsc::channel::<()>();
        let diagnose = &diagnose;
        std::thread::Builder::new()
            .name("watchdog".into())
            .spawn_scoped(scope, move || {
                if let Err(mpsc::RecvTimeoutError::Timeout) = wait.recv_timeout(limit) {
                    eprintln!(
                        "WATCHDOG: `{what}` did not finish within {limit:?}: hang (lost wake-up or deadlock?) {}",
                        diagnose()
                    );
                    std::process::exit(1);
                }
            })
            .expect("spawn watchdog");
        // Dropping the sender (also on unwind) disconnects the channel: the
        // watchdog then returns without firing.
        let _disarm = done;
        f()
    })
}

/// The queue capacities the matrix tests use.
pub const CAPACITIES: [usize; 4] = [1, 4, 16, 128];
/// The worker counts the matrix tests use (16 on 2 cores oversubscribes on
/// purpose: it finds lost wake-ups).
pub const WORKERS: [usize; 3] = [1, 2, 16];

/// One runtime configuration of the matrix.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// The queue policy.
    pub policy: QueuePolicy,
    /// The queue capacity.
    pub capacity: usize,
    /// The number of workers.
    pub workers: usize,
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "policy={} capacity={} workers={}",
            self.policy, self.capacity, self.workers
        )
    }
}

impl Config {
    /// The params of this configuration, with `stack_size` bytes of stack.
    pub fn params(&self, stack_size: usize) -> Params {
        Params::DEFAULT
            .with_queue_policy(self.policy)
            .with_queue_capacity(self.capacity)
            .with_stack_size(stack_size)
    }

    /// A runtime of this configuration (1 MiB task stacks).
    pub fn runtime(&self) -> Runtime {
        Runtime::builder()
            .params(self.params(1 << 20))
            .num_workers(self.workers)
            .build()
            .unwrap_or_else(|e| panic!("{self}: build failed: {e}"))
    }
}

/// A runtime of `workers` workers with `params`.
///
/// # Panics
/// If it cannot be built.
pub fn runtime_with(workers: usize, params: Params) -> Runtime {
    Runtime::builder()
        .params(params)
        .num_workers(workers)
        .build()
        .unwrap_or_else(|e| panic!("{workers} workers, {params:?}: build failed: {e}"))
}

/// A runtime of `policy`, `capacity` and `workers` with 256 KiB task stacks
/// (enough for the small trees of the tests, small enough to map many).
pub fn small_stack_runtime(policy: QueuePolicy, capacity: usize, workers: usize) -> Runtime {
    small_stack_runtime_dast(policy, capacity, workers, Params::DEFAULT.dast)
}

/// [`small_stack_runtime`] with the DAST mode `dast`.
pub fn small_stack_runtime_dast(
    policy: QueuePolicy,
    capacity: usize,
    workers: usize,
    dast: DastMode,
) -> Runtime {
    let config = Config {
        policy,
        capacity,
        workers,
    };
    Runtime::builder()
        .params(config.params(256 << 10).with_dast(dast))
        .num_workers(workers)
        .build()
        .unwrap_or_else(|e| panic!("{config} dast={dast}: build failed: {e}"))
}

/// Every policy × capacity × worker count.
pub fn matrix() -> Vec<Config> {
    let mut configs = Vec::new();
    for policy in QueuePolicy::ALL {
        for capacity in CAPACITIES {
            for workers in WORKERS {
                configs.push(Config {
                    policy,
                    capacity,
                    workers,
                });
            }
        }
    }
    configs
}

/// One thread of this process as `/proc/self/task/<tid>` shows it.
#[derive(Clone, Debug)]
pub struct ThreadInfo {
    /// The kernel thread id.
    pub tid: u32,
    /// The thread name (`comm`, at most 15 bytes).
    pub name: String,
    /// The scheduler state letter (`R` running, `S` sleeping, `D`, `T`, ...).
    pub state: char,
    /// User + system CPU time in clock ticks.
    pub cpu_ticks: u64,
    /// `Cpus_allowed_list` of `/proc/self/task/<tid>/status`.
    pub cpus_allowed: String,
}

/// Every thread of this process (Linux only; empty elsewhere).
pub fn threads() -> Vec<ThreadInfo> {
    let mut out = Vec::new();
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else {
        return out;
    };
    for entry in dir.flatten() {
        let Ok(tid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let path = entry.path();
        // A thread may exit between the listing and the reads: skip it.
        let Ok(name) = std::fs::read_to_string(path.join("comm")) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
            continue;
        };
        let Ok(status) = std::fs::read_to_string(path.join("status")) else {
            continue;
        };
        // The fields after the ")" that closes the name: state is field 3,
        // utime and stime are fields 14 and 15.
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        let state = fields.first().and_then(|s| s.chars().next()).unwrap_or('?');
        let utime: u64 = fields.get(11).and_then(|s| s.parse().ok()).unwrap_or(0);
        let stime: u64 = fields.get(12).and_then(|s| s.parse().ok()).unwrap_or(0);
        let cpus_allowed = status
            .lines()
            .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
            .unwrap_or("")
            .trim()
            .to_owned();
        out.push(ThreadInfo {
            tid,
            name: name.trim_end().to_owned(),
            state,
            cpu_ticks: utime + stime,
            cpus_allowed,
        });
    }
    out
}

/// The threads of this process whose name starts with `prefix`.
pub fn threads_named(prefix: &str) -> Vec<ThreadInfo> {
    threads()
        .into_iter()
        .filter(|t| t.name.starts_with(prefix))
        .collect()
}

/// Parses a Linux CPU list such as `0-3,8,10-11`.
pub fn parse_cpu_list(list: &str) -> Vec<usize> {
    let mut cpus = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.parse().unwrap(), b.parse().unwrap());
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().unwrap()),
        }
    }
    cpus
}

/// For each address, the mapping (start, end) of `/proc/self/maps` that
/// contains it (one read of the maps file for all of them).
///
/// Adjacent anonymous mappings with the same permissions are merged by the
/// kernel, so a mapping may be larger than the `mmap` that created it; two
/// task stacks are never merged, because each has a `PROT_NONE` guard page.
pub fn mappings_of(addrs: &[usize]) -> Vec<Option<(usize, usize)>> {
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let ranges: Vec<(usize, usize)> = maps
        .lines()
        .filter_map(|line| {
            let (a, b) = line.split_whitespace().next()?.split_once('-')?;
            Some((
                usize::from_str_radix(a, 16).ok()?,
                usize::from_str_radix(b, 16).ok()?,
            ))
        })
        .collect();
    addrs
        .iter()
        .map(|&addr| {
            ranges
                .iter()
                .copied()
                .find(|&(a, b)| (a..b).contains(&addr))
        })
        .collect()
}

/// The sequential Fibonacci number, the reference for the parallel ones.
pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

/// Fibonacci with a `join` at every level, the parallel workload of several
/// tests (compare with [`fib_seq`]).
pub fn fib_join(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(|| fib_join(n - 1), || fib_join(n - 2));
    a + b
}

/// A runtime whose worker threads are named `{prefix}{index}` (so a test can
/// find them in `/proc`), with `policy` and 128 KiB task stacks.
pub fn named_runtime(policy: QueuePolicy, workers: usize, prefix: &'static str) -> Runtime {
    Runtime::builder()
        .params(
            Params::DEFAULT
                .with_queue_policy(policy)
                .with_stack_size(128 << 10),
        )
        .num_workers(workers)
        .thread_name(move |i| format!("{prefix}{i}"))
        .build()
        .unwrap()
}

/// Busy-waits (without sleeping the thread) for `d`.
pub fn spin_for(d: Duration) {
    let start = std::time::Instant::now();
    while start.elapsed() < d {
        std::hint::spin_loop();
    }
}

/// Keeps expected panics — those whose message starts with `expected` — off
/// stderr (other panics still print, through the default hook).
pub fn quiet_expected_panics() {
    quiet_panics_containing(&[]);
}

/// [`quiet_expected_panics`], and also keeps off stderr the panics whose
/// message contains one of `fragments`: the runtime's own messages that a
/// test provokes on purpose. The hook is installed once per test binary
/// (tests run in parallel: swapping hooks per test would race), and the
/// fragments of every call add up.
pub fn quiet_panics_containing(fragments: &[&'static str]) {
    static QUIET: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    static ONCE: Once = Once::new();
    let quiet = || QUIET.lock().unwrap_or_else(PoisonError::into_inner);
    quiet().extend_from_slice(fragments);
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let expected = message_of(info.payload()).is_some_and(|m| {
                m.starts_with("expected") || quiet().iter().any(|f| m.contains(f))
            });
            if !expected {
                default(info);
            }
        }));
    });
}

/// The text of a panic payload (`&str` or `String`), if it has one.
pub fn message_of(payload: &(dyn Any + Send)) -> Option<&str> {
    payload
        .downcast_ref::<&'static str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
}

/// The text of a panic payload, or `<non-string payload>`.
pub fn message(payload: Box<dyn Any + Send>) -> String {
    message_of(&*payload)
        .unwrap_or("<non-string payload>")
        .to_owned()
}

/// The threads named `prefix*`, once there are exactly `n` of them (waits up
/// to 10 s).
pub fn workers_of(prefix: &str, n: usize) -> Vec<ThreadInfo> {
    poll_threads(prefix, Duration::from_secs(10), |threads| {
        threads.len() == n
    })
    .unwrap_or_else(|threads| panic!("expected {n} threads named {prefix}*: {threads:?}"))
}

/// Waits (up to `limit`) until no thread named `prefix*` is left: a dropped
/// runtime's workers are gone. `what` names the case in the failure.
pub fn assert_threads_gone(prefix: &str, limit: Duration, what: &str) {
    if let Err(left) = poll_threads(prefix, limit, <[ThreadInfo]>::is_empty) {
        panic!("{what}: threads named {prefix}* left behind: {left:?}");
    }
}

/// Polls the threads named `prefix*` every millisecond until `done` holds
/// for them (`Ok` with them) or `limit` has passed (`Err` with the last
/// ones seen).
fn poll_threads(
    prefix: &str,
    limit: Duration,
    done: impl Fn(&[ThreadInfo]) -> bool,
) -> Result<Vec<ThreadInfo>, Vec<ThreadInfo>> {
    let deadline = Instant::now() + limit;
    loop {
        let threads = threads_named(prefix);
        if done(&threads) {
            return Ok(threads);
        }
        if Instant::now() >= deadline {
            return Err(threads);
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits (up to 5 s) until every worker sleeps, then checks that over the
/// next 100 ms they use (almost) no CPU time.
pub fn assert_parked(prefix: &str, n: usize, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let threads = workers_of(prefix, n);
        if threads.iter().all(|t| t.state == 'S') {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: workers never all parked: {:?}",
            threads
                .iter()
                .map(|t| (&t.name, t.state))
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let before = workers_of(prefix, n);
    std::thread::sleep(Duration::from_millis(100));
    let after = workers_of(prefix, n);
    let ticks: u64 = after.iter().map(|t| t.cpu_ticks).sum::<u64>()
        - before.iter().map(|t| t.cpu_ticks).sum::<u64>();
    // Clock ticks are 10 ms: one spinning worker would take ~10 per 100 ms.
    assert!(
        ticks <= 2,
        "{what}: idle workers used {ticks} ticks of CPU in 100 ms"
    );
}

/// A runtime built from an annotated program's `PARAMS` on `workers`
/// workers, checked to commit the stack its `ANALYSIS` aggregated (the
/// reserve, how deep a task may go, is `PARAMS.stack_size`; a task that went
/// past it would abort the test process with the runtime's overflow
/// message).
pub fn analysed_runtime(
    params: Params,
    analysis: &prescient::analysis::ProgramAnalysis,
    workers: usize,
) -> Runtime {
    let rt = Runtime::builder()
        .params(params)
        .num_workers(workers)
        .build()
        .expect("the analysed parameters are valid");
    assert_eq!(rt.num_workers(), workers);
    assert_eq!(rt.params(), params);
    assert_eq!(
        rt.params().committed_stack_size,
        analysis.committed_stack_size,
        "{}: the runtime commits the analysed stack",
        analysis.module
    );
    rt
}

/// The aggregation invariants every annotated program satisfies: the stack
/// commitment is the largest context estimate rounded up to 4 KiB pages
/// (none when unbounded), the reserve the default, `PARAMS` is what the default (calibrated) decision trees give
/// for `ANALYSIS`, and both CF'17's and the calibrated trees follow their
/// rules.
pub fn check_aggregation(name: &str, params: Params, a: &prescient::analysis::ProgramAnalysis) {
    use prescient::analysis;
    let largest = a.contexts.iter().map(|c| c.stack).max().unwrap_or(0);
    assert_eq!(
        a.stack_estimate, largest,
        "{name}: stack is the maximum\n{a}"
    );
    assert_eq!(
        a.committed_stack_size,
        analysis::committed_stack_size(largest),
        "{name}\n{a}"
    );
    if largest >= analysis::UNBOUNDED_STACK_ESTIMATE
        || largest < prescient::tuning::MIN_STACK_SIZE as u64
    {
        // Unbounded, or below the smallest commitment: none.
        assert_eq!(a.committed_stack_size, 0, "{name}\n{a}");
    } else {
        // The estimate in whole pages, at most the cap.
        assert_eq!(a.committed_stack_size % 4096, 0, "{name}\n{a}");
        let committed = a.committed_stack_size as u64;
        assert!(
            committed >= a.stack_estimate.min(analysis::MAX_ANALYSED_COMMITMENT)
                && committed <= analysis::MAX_ANALYSED_COMMITMENT,
            "{name}\n{a}"
        );
    }
    assert_eq!(
        params.committed_stack_size, a.committed_stack_size,
        "{name}: PARAMS.committed_stack_size\n{a}"
    );
    assert_eq!(
        params,
        a.params(analysis::Trees::DEFAULT),
        "{name}: PARAMS is decide(&ANALYSIS)\n{a}"
    );
    assert_eq!(params.validate(), Ok(()), "{name}");
    // CF'17's trees, rule by rule, on the aggregated features.
    let cf17 = a.params(analysis::Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        analysis::cf17::queue_policy(a.rho, a.effort),
        "{name}\n{a}"
    );
    assert_eq!(
        cf17.queue_capacity,
        analysis::cf17::queue_capacity(a.rho, a.lambda, a.effort),
        "{name}\n{a}"
    );
    assert_eq!(
        cf17.dependency_buckets,
        analysis::cf17::dependency_buckets(a.rho),
        "{name}\n{a}"
    );
    assert_eq!(
        cf17.committed_stack_size, a.committed_stack_size,
        "{name}\n{a}"
    );
    assert_eq!(cf17.stack_size, params.stack_size, "{name}\n{a}");
    // The calibrated trees (`PARAMS`), rule by rule.
    use analysis::calibrated;
    assert_eq!(params, a.params(analysis::Trees::Calibrated), "{name}\n{a}");
    assert_eq!(
        params.queue_policy,
        calibrated::queue_policy(a.rho, a.lambda, a.effort),
        "{name}\n{a}"
    );
    assert_eq!(
        params.queue_capacity,
        calibrated::queue_capacity(a.rho, a.lambda, a.effort),
        "{name}\n{a}"
    );
    assert_eq!(
        params.dependency_buckets,
        calibrated::dependency_buckets(a.rho),
        "{name}\n{a}"
    );
    assert_eq!(params.pinning, Params::DEFAULT.pinning, "{name}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_is_deterministic_and_spreads() {
        let mut a = XorShift64::new(42);
        let mut b = XorShift64::new(42);
        let xs: Vec<u64> = (0..100).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..100).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
        let mut c = XorShift64::new(7);
        let mut seen = [0u32; 10];
        for _ in 0..10_000 {
            seen[c.below(10) as usize] += 1;
        }
        assert!(seen.iter().all(|&n| (800..1200).contains(&n)), "{seen:?}");
    }

    #[test]
    fn seeds_parse() {
        assert_eq!(parse_seed("42"), Some(42));
        assert_eq!(parse_seed(" 0x5EED "), Some(0x5eed));
        assert_eq!(parse_seed("0xffffffffffffffff"), Some(u64::MAX));
        assert_eq!(parse_seed("-1"), None);
        assert_eq!(parse_seed("0x"), None);
        assert_eq!(parse_seed("seed"), None);
        let mut rng = XorShift64::new(1);
        assert!((0..1000).all(|_| rng.index(3) < 3));
    }

    #[test]
    fn per_dast_mode_covers_every_mode() {
        // A new mode must be added to `per_dast_mode!` and `PER_DAST_MODE`.
        assert_eq!(PER_DAST_MODE, DastMode::ALL);
    }

    #[test]
    fn cpu_lists_parse() {
        assert_eq!(parse_cpu_list("0-3,8,10-11\n"), vec![0, 1, 2, 3, 8, 10, 11]);
        assert_eq!(parse_cpu_list("5"), vec![5]);
    }

    #[test]
    fn this_thread_is_listed() {
        let all = threads();
        assert!(!all.is_empty());
        assert!(all.iter().all(|t| t.state != '?'));
    }
}

/// The README's Rust snippets, compiled and run as this crate's doc tests
/// (`cargo test -p prescient-tests --doc`): the first program and the
/// dataflow round trip must work as a reader copies them.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeSnippets;
