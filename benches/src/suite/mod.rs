//! The side-by-side suite: every program × runner × thread count in its own
//! child process, one table, one JSON file.
//!
//! The `suite` binary calls [`main`]. The parent ([`run_suite`]) spawns the
//! binary itself once per configuration with the hidden `--child PROGRAM
//! RUNNER THREADS` arguments; the child ([`child`]) builds the pool once,
//! warms up, measures inside the pool (so that entering it is not counted),
//! checks every result and prints one `RESULT key=value …` line: the median
//! time per run, its peak RSS (`getrusage`), and for Prescient the
//! [`prescient::Counters`] of the measured runs. Because each
//! configuration is its own process, its peak RSS is its own. An `--child-idle
//! RUNNER THREADS` child measures the CPU time an idle pool burns in one
//! second.
//!
//! The parent then prints the machine, the table (time, `T/Tseq`, overhead per
//! join, speedup over the runner's own one-thread time, ratios to rayon and
//! chili at the same thread count, peak RSS, suspensions and steals per run),
//! a summary per runner and the idle CPU, and writes all of it as JSON.
//!
//! The pieces are public so that the criterion benches and the tests drive
//! the same code: [`Program`], [`Runner`], [`Work`] (a prepared input) and
//! [`Pool`] (a built runner that times runs inside itself).

pub mod child;
pub mod cli;
pub mod machine;
pub mod profile;
pub mod report;

use std::fmt;
use std::hint::black_box;
use std::num::NonZeroUsize;
use std::time::{Duration, Instant};

use prescient::{Counters, Params, QueuePolicy};

use crate::programs::tree::Layout;
use crate::programs::{fib, tree};

pub use cli::{Command, Options};

/// A benchmark program of the suite, at its suite size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Program {
    /// `fib(35)` with a join at every level.
    Fib,
    /// The sum of a balanced binary tree of 1 023 nodes.
    Tree1k,
    /// The sum of a balanced binary tree of 16 777 215 nodes.
    Tree16m,
}

impl Program {
    /// Every program, in the suite's order.
    pub const ALL: [Program; 3] = [Program::Fib, Program::Tree1k, Program::Tree16m];

    /// The program's name on the command line, in tables and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Program::Fib => "fib",
            Program::Tree1k => "tree1k",
            Program::Tree16m => "tree16m",
        }
    }

    /// What the program computes, for humans.
    pub const fn description(self) -> &'static str {
        match self {
            Program::Fib => "fib(35), a join at every level",
            Program::Tree1k => "sum of a balanced binary tree of 1023 nodes",
            Program::Tree16m => "sum of a balanced binary tree of 16777215 nodes",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Program> {
        Program::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The joins one run makes, known analytically.
    pub const fn joins(self) -> u64 {
        match self {
            Program::Fib => fib::joins(fib::SUITE_N),
            Program::Tree1k => tree::joins(tree::NODES_1K),
            Program::Tree16m => tree::joins(tree::NODES_16M),
        }
    }

    /// Builds the program's input at its suite size, a tree in `layout`.
    pub fn prepare(self, layout: Layout) -> Work {
        match self {
            Program::Fib => Work::fib(fib::SUITE_N),
            Program::Tree1k => Work::tree(tree::NODES_1K, layout),
            Program::Tree16m => Work::tree(tree::NODES_16M, layout),
        }
    }

    /// How the child measures this program.
    pub const fn plan(self, quick: bool) -> Plan {
        let (warmup_ms, samples) = match (self, quick) {
            (Program::Fib, true) => (300, 5),
            (Program::Fib, false) => (1000, 15),
            (Program::Tree1k, true) => (300, 11),
            (Program::Tree1k, false) => (1000, 31),
            (Program::Tree16m, true) => (100, 3),
            (Program::Tree16m, false) => (1000, 10),
        };
        Plan {
            warmup: Duration::from_millis(warmup_ms),
            sample_target: Duration::from_millis(if quick { 5 } else { 20 }),
            samples,
        }
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Who runs a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Runner {
    /// The sequential reference, no runtime (measured once, at one thread).
    Seq,
    /// Prescient with [`Params::DEFAULT`] (`DEF`, capacity 16, adaptive
    /// inlining).
    PrescientDefault,
    /// Prescient with [`Params::DEFAULT`] but no inlining
    /// ([`Inlining::Never`](prescient::Inlining::Never)): what the default
    /// was before per-site inlining, and what inlining is measured against.
    PrescientNever,
    /// Prescient with `DEF` and capacity 4: what CF'17's decision tree
    /// chooses for fib (ρ = 2, tiny effort).
    PrescientDefCap4,
    /// Prescient with `PF` and capacity 4.
    PrescientPfCap4,
    /// rayon 1.12: `rayon::join` inside `ThreadPool::install`.
    Rayon,
    /// chili 0.2.1: `Scope::join` on a scope of the pool.
    Chili,
}

impl Runner {
    /// Every runner, in the suite's order.
    pub const ALL: [Runner; 7] = [
        Runner::Seq,
        Runner::PrescientDefault,
        Runner::PrescientNever,
        Runner::PrescientDefCap4,
        Runner::PrescientPfCap4,
        Runner::Rayon,
        Runner::Chili,
    ];

    /// The parameters of the four Prescient runners, in their order.
    pub const PRESCIENT_PARAMS: [Params; 4] = [
        Params::DEFAULT,
        Params::DEFAULT.with_inlining(prescient::Inlining::Never),
        Params::DEFAULT
            .with_queue_policy(QueuePolicy::InsertBackStealBack)
            .with_queue_capacity(4)
            .checked(),
        Params::DEFAULT
            .with_queue_policy(QueuePolicy::InsertFrontStealBack)
            .with_queue_capacity(4)
            .checked(),
    ];

    /// The runners whose idle CPU the suite measures.
    pub const IDLE: [Runner; 3] = [Runner::PrescientDefault, Runner::Rayon, Runner::Chili];

    /// The runner's name on the command line, in tables and in JSON.
    pub const fn name(self) -> &'static str {
        match self {
            Runner::Seq => "seq",
            Runner::PrescientDefault => "prescient-default",
            Runner::PrescientNever => "prescient-never",
            Runner::PrescientDefCap4 => "prescient-def-c4",
            Runner::PrescientPfCap4 => "prescient-pf-c4",
            Runner::Rayon => "rayon",
            Runner::Chili => "chili",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The Prescient parameters of this runner, `None` for the others.
    pub const fn params(self) -> Option<Params> {
        match self {
            Runner::PrescientDefault => Some(Runner::PRESCIENT_PARAMS[0]),
            Runner::PrescientNever => Some(Runner::PRESCIENT_PARAMS[1]),
            Runner::PrescientDefCap4 => Some(Runner::PRESCIENT_PARAMS[2]),
            Runner::PrescientPfCap4 => Some(Runner::PRESCIENT_PARAMS[3]),
            Runner::Seq | Runner::Rayon | Runner::Chili => None,
        }
    }

    /// Whether this runner uses threads (everything but [`Runner::Seq`]).
    pub const fn is_parallel(self) -> bool {
        !matches!(self, Runner::Seq)
    }
}

impl fmt::Display for Runner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A program's prepared input and its expected result.
#[derive(Debug)]
pub struct Work {
    input: Input,
    expected: u64,
}

#[derive(Debug)]
enum Input {
    Fib(u64),
    Tree(Box<tree::Node>),
}

impl Work {
    /// `fib(n)`.
    pub fn fib(n: u64) -> Work {
        Work {
            input: Input::Fib(n),
            expected: fib::expected(n),
        }
    }

    /// The sum of a balanced tree of `nodes` nodes, built here in `layout`.
    pub fn tree(nodes: u64, layout: Layout) -> Work {
        Work {
            input: Input::Tree(tree::Node::balanced_in(nodes, layout)),
            expected: tree::expected(nodes),
        }
    }

    /// The result every run must return.
    pub fn expected(&self) -> u64 {
        self.expected
    }

    /// One run of the sequential reference.
    pub fn run_seq(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_seq(black_box(*n)),
            Input::Tree(root) => tree::sum_seq(black_box(root)),
        }
    }

    /// One run with Prescient (inside a Prescient runtime, or on its global one).
    pub fn run_prescient(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_prescient(black_box(*n)),
            Input::Tree(root) => tree::sum_prescient(black_box(root)),
        }
    }

    /// One run with rayon (inside a rayon pool, or on its global one).
    pub fn run_rayon(&self) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_rayon(black_box(*n)),
            Input::Tree(root) => tree::sum_rayon(black_box(root)),
        }
    }

    /// One run with chili on `scope`.
    pub fn run_chili(&self, scope: &mut chili::Scope<'_>) -> u64 {
        match &self.input {
            Input::Fib(n) => fib::fib_chili(scope, black_box(*n)),
            Input::Tree(root) => tree::sum_chili(scope, black_box(root)),
        }
    }
}

/// How a child measures: warm up (and size the batches) for at least
/// `warmup`, then take `samples` timed batches, each of enough runs to last
/// at least `sample_target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The least warm-up time.
    pub warmup: Duration,
    /// The least duration of one timed batch (fib and the 16M tree take one
    /// run per batch; the 1K tree takes thousands).
    pub sample_target: Duration,
    /// The number of timed batches.
    pub samples: usize,
}

/// What [`Pool::measure`] found.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Runs per timed batch.
    pub batch: u64,
    /// Nanoseconds per run of each batch, in the order taken.
    pub per_run_ns: Vec<f64>,
    /// For Prescient: the counters accumulated over the timed batches
    /// (`live_stacks` and `peak_live_stacks` are the values after them).
    pub counters: Option<Counters>,
    /// The process CPU time (user + system, every thread) over the wall time
    /// of the timed batches: about the number of busy threads (spinning
    /// counts). Below 1 at one thread, the machine was busy with others.
    pub cpu_per_wall: f64,
}

impl Measurement {
    /// The number of timed runs.
    pub fn runs(&self) -> u64 {
        self.batch * self.per_run_ns.len() as u64
    }

    /// The median time per run, in nanoseconds.
    pub fn median_ns(&self) -> f64 {
        median(&self.per_run_ns)
    }
}

/// The median of `values` (the mean of the two middle ones for an even
/// count; NaN for none).
pub fn median(values: &[f64]) -> f64 {
    if values.is_empty() {
        return f64::NAN;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

/// A built runner: the thing a child builds once and measures inside.
pub enum Pool {
    /// No pool: the sequential reference runs on the calling thread.
    Seq,
    /// A Prescient runtime.
    Prescient(prescient::Runtime),
    /// A rayon thread pool.
    Rayon(rayon::ThreadPool),
    /// A chili thread pool (its scopes run on the calling thread, which
    /// counts as one of its `thread_count` threads).
    Chili(chili::ThreadPool),
}

impl fmt::Debug for Pool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Pool::Seq => "Pool::Seq",
            Pool::Prescient(_) => "Pool::Prescient",
            Pool::Rayon(_) => "Pool::Rayon",
            Pool::Chili(_) => "Pool::Chili",
        })
    }
}

impl Pool {
    /// Builds `runner` with `threads` threads (ignored by [`Runner::Seq`]).
    pub fn build(runner: Runner, threads: usize) -> Result<Pool, String> {
        let threads = threads.max(1);
        match runner {
            Runner::Seq => Ok(Pool::Seq),
            Runner::PrescientDefault
            | Runner::PrescientNever
            | Runner::PrescientDefCap4
            | Runner::PrescientPfCap4 => {
                let params = runner.params().expect("a Prescient runner has params");
                prescient::Runtime::builder()
                    .params(params)
                    .num_workers(threads)
                    .build()
                    .map(Pool::Prescient)
                    .map_err(|e| format!("building Prescient ({runner}, {threads} workers): {e}"))
            }
            Runner::Rayon => rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .map(Pool::Rayon)
                .map_err(|e| format!("building the rayon pool ({threads} threads): {e}")),
            Runner::Chili => Ok(Pool::Chili(chili::ThreadPool::with_config(chili::Config {
                thread_count: NonZeroUsize::new(threads),
                ..Default::default()
            }))),
        }
    }

    /// The runtime's counters, for Prescient.
    pub fn counters(&self) -> Option<Counters> {
        match self {
            Pool::Prescient(rt) => Some(rt.counters()),
            Pool::Seq | Pool::Rayon(_) | Pool::Chili(_) => None,
        }
    }

    /// Enters the pool once and calls `body` there with a function that
    /// makes one run of `work` with this pool's runner.
    fn enter<R: Send>(
        &self,
        work: &Work,
        body: impl FnOnce(&mut dyn FnMut() -> u64) -> R + Send,
    ) -> R {
        match self {
            Pool::Seq => body(&mut || work.run_seq()),
            Pool::Prescient(rt) => rt.run(|| body(&mut || work.run_prescient())),
            Pool::Rayon(pool) => pool.install(|| body(&mut || work.run_rayon())),
            Pool::Chili(pool) => {
                let mut scope = pool.scope();
                body(&mut || work.run_chili(&mut scope))
            }
        }
    }

    /// Enters the pool once and times `iters` runs of `work` inside it (the
    /// entry is not timed). Every result is checked.
    pub fn time(&self, work: &Work, iters: u64) -> Duration {
        let expected = work.expected();
        self.enter(work, |one| time_runs(one, expected, iters))
    }

    /// Warms up for at least `warmup` inside the pool, doubling the batch
    /// until one batch lasts at least `sample_target`; returns that batch size.
    pub fn calibrate(&self, work: &Work, warmup: Duration, sample_target: Duration) -> u64 {
        let expected = work.expected();
        self.enter(work, |one| {
            let start = Instant::now();
            let mut batch = 1u64;
            loop {
                let elapsed = time_runs(one, expected, batch);
                if elapsed < sample_target {
                    batch = batch.saturating_mul(2);
                } else if start.elapsed() >= warmup {
                    return batch;
                }
            }
        })
    }

    /// Warms up and sizes batches ([`calibrate`](Self::calibrate)), then
    /// times `plan.samples` batches in one entry into the pool, reading the
    /// counters around that entry.
    pub fn measure(&self, work: &Work, plan: &Plan) -> Measurement {
        let batch = self.calibrate(work, plan.warmup, plan.sample_target);
        let expected = work.expected();
        let before = self.counters();
        let cpu_before = child::cpu_time_ns();
        let wall_before = Instant::now();
        let per_run_ns = self.enter(work, |one| {
            (0..plan.samples.max(1))
                .map(|_| time_runs(one, expected, batch).as_nanos() as f64 / batch as f64)
                .collect::<Vec<f64>>()
        });
        let wall = wall_before.elapsed().as_nanos() as f64;
        let cpu = child::cpu_time_ns().saturating_sub(cpu_before) as f64;
        let counters = match (self.counters(), before) {
            (Some(after), Some(before)) => Some(after.since(&before)),
            _ => None,
        };
        Measurement {
            batch,
            per_run_ns,
            counters,
            cpu_per_wall: if wall > 0.0 { cpu / wall } else { f64::NAN },
        }
    }
}

/// Times `iters` calls of `one`, checking each result.
fn time_runs(one: &mut dyn FnMut() -> u64, expected: u64, iters: u64) -> Duration {
    let start = Instant::now();
    for _ in 0..iters {
        let result = one();
        if result != expected {
            wrong_result(result, expected);
        }
    }
    start.elapsed()
}

#[cold]
#[inline(never)]
fn wrong_result(result: u64, expected: u64) -> ! {
    panic!("wrong result: got {result}, expected {expected}");
}

/// The suite binary's entry point: parses `args` (without the program name)
/// and runs the suite, a child, or prints the usage. Returns the exit code.
pub fn main(args: impl IntoIterator<Item = String>) -> i32 {
    let max_threads = crate::cli::available_threads();
    let env_threads = std::env::var(crate::cli::THREADS_ENV).ok();
    match cli::parse(args, env_threads.as_deref(), max_threads) {
        Ok(Command::Help) => {
            print!("{}", cli::usage());
            0
        }
        Ok(Command::Suite(options)) => run_suite(&options),
        Ok(Command::Child {
            program,
            runner,
            threads,
            quick,
            layout,
        }) => child::run_child(program, runner, threads, quick, layout),
        Ok(Command::Idle { runner, threads }) => child::run_idle_child(runner, threads),
        Ok(Command::Profile(options)) => profile::run(&options),
        Err(message) => {
            eprintln!("error: {message}\n\n{}", cli::usage());
            2
        }
    }
}

/// Runs the whole suite as the parent: one child per configuration, then
/// the table, the summary, the idle CPU and the JSON. Returns the exit code
/// (1 if any child failed).
pub fn run_suite(options: &Options) -> i32 {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find the suite's own executable: {e}");
            return 2;
        }
    };
    let machine = machine::Machine::detect();
    println!("{}", machine.describe());
    println!(
        "mode: {}; threads: {}; programs: {}; tree layout: {}",
        if options.quick { "quick" } else { "full" },
        cli::join_list(&options.threads),
        cli::join_list(&options.programs),
        options.tree_layout
    );
    for program in &options.programs {
        println!(
            "  {program}: {} ({} joins per run)",
            program.description(),
            program.joins()
        );
    }
    println!();

    let configs = options.configurations();
    let mut outcomes = Vec::with_capacity(configs.len());
    for (i, &(program, runner, threads)) in configs.iter().enumerate() {
        eprint!(
            "[{:>2}/{}] {program} {runner} {threads} thread(s) ... ",
            i + 1,
            configs.len()
        );
        let outcome = child::spawn_run(&exe, program, runner, threads, options);
        match &outcome.result {
            Ok(r) => eprintln!("{}", report::format_ns(r.median_ns)),
            Err(e) => eprintln!("FAILED: {e}"),
        }
        outcomes.push(outcome);
    }

    let mut idle = Vec::new();
    if options.idle {
        let threads = options.threads.iter().copied().max().unwrap_or(1);
        for runner in Runner::IDLE {
            eprint!("[idle] {runner} {threads} thread(s) ... ");
            let outcome = child::spawn_idle(&exe, runner, threads, options);
            match &outcome.result {
                Ok(r) => eprintln!("{:.1} ms CPU in {:.3} s", r.cpu_ns / 1e6, r.wall_ns / 1e9),
                Err(e) => eprintln!("FAILED: {e}"),
            }
            idle.push(outcome);
        }
    }
    eprintln!();

    let table = report::Table::new(&outcomes);
    println!("{}", table.render());
    println!("{}", table.render_summary(&options.threads));
    if options.idle {
        println!("{}", report::render_idle(&idle));
    }

    let json = report::json(&machine, options, &table, &idle);
    if let Some(dir) = options.json.parent() {
        if !dir.as_os_str().is_empty() {
            let _ = std::fs::create_dir_all(dir);
        }
    }
    match std::fs::write(&options.json, json) {
        Ok(()) => println!("JSON written to {}", options.json.display()),
        Err(e) => {
            eprintln!("error: writing {}: {e}", options.json.display());
            return 1;
        }
    }
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count()
        + idle.iter().filter(|o| o.result.is_err()).count();
    if failed > 0 {
        eprintln!("{failed} configuration(s) failed");
        1
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Program::ALL {
            assert_eq!(Program::parse(p.name()), Some(p));
        }
        for r in Runner::ALL {
            assert_eq!(Runner::parse(r.name()), Some(r));
        }
        assert_eq!(Program::parse("nope"), None);
        assert_eq!(Runner::parse("nope"), None);
    }

    #[test]
    fn runner_params() {
        assert_eq!(Runner::PrescientDefault.params(), Some(Params::DEFAULT));
        let def4 = Runner::PrescientDefCap4.params().unwrap();
        assert_eq!(
            (def4.queue_policy, def4.queue_capacity),
            (QueuePolicy::InsertBackStealBack, 4)
        );
        let pf4 = Runner::PrescientPfCap4.params().unwrap();
        assert_eq!(
            (pf4.queue_policy, pf4.queue_capacity),
            (QueuePolicy::InsertFrontStealBack, 4)
        );
        assert_eq!(Runner::Rayon.params(), None);
        assert!(!Runner::Seq.is_parallel());
    }

    #[test]
    fn joins_are_analytic() {
        assert_eq!(Program::Fib.joins(), 14_930_351);
        assert_eq!(Program::Tree1k.joins(), 1023);
        assert_eq!(Program::Tree16m.joins(), 16_777_215);
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn every_pool_measures_small_work() {
        let plan = Plan {
            warmup: Duration::from_millis(1),
            sample_target: Duration::from_micros(100),
            samples: 3,
        };
        for runner in Runner::ALL {
            let pool = Pool::build(runner, 2).expect("pool builds");
            for work in [Work::fib(12), Work::tree(255, Layout::DEFAULT)] {
                let m = pool.measure(&work, &plan);
                assert_eq!(m.per_run_ns.len(), 3);
                assert!(m.batch >= 1);
                assert!(m.median_ns() > 0.0);
                assert_eq!(m.counters.is_some(), runner.params().is_some());
                assert!(pool.time(&work, 2) > Duration::ZERO);
            }
        }
    }
}
