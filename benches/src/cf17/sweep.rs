//! The parameter sweep behind the calibrated decision trees: every CF'17
//! program under every queue policy × queue capacity × dependency buckets ×
//! stack commitment, at each thread count, stored as JSON with the host described.
//!
//! `cargo bench-run prescient-bench -- cf17 --sweep [--threads
//! LIST] [--reps N] [--only PROGRAMS] [--size test|quick|paper] [--out DIR]`
//! (the flags are parsed with the
//! table's, [`crate::tables::cf17::Options`]).
//!
//! The grid ([`Config::all`]) is the one the decision trees choose from:
//! the four [`QueuePolicy`]s × [`CAPACITIES`] × [`BUCKETS`] × the two
//! [`StackChoice`]s, every other field [`Params::DEFAULT`]'s — 192
//! configurations. A program whose analysis commits no stack (an unbounded
//! recursion) runs the 96 of one stack choice only (the two choices are the
//! same parameters). The default configuration (`DEF`, capacity 16, 97
//! buckets, no commitment) and CF'17's
//! choices are all points of the grid, so the sweep alone says how every
//! tree, fixed configuration and the default fare.
//!
//! Each (program, thread count) runs in its own child process
//! (`EXE cf17 --sweep-child PROGRAM THREADS REPS SIZE`, run by
//! [`crate::harness::child`]),
//! so that a configuration that crashes (a stack estimate too small is a
//! guard-page abort) loses only its own program and thread count, and so that
//! one program's memory does not stay around for the next. The child prepares
//! the workload once, times the sequential reference, then visits the
//! configurations in a fixed shuffled order (a slow minute of a shared machine
//! then lands on a mix of configurations instead of on one policy): per
//! configuration it builds a runtime, makes one warm-up run and `reps` timed
//! runs inside it, and prints the best and the median (one JSON line per
//! configuration, a [`Point`]). Every run's result is checked.
//!
//! The parent writes one file per program, `DIR/PROGRAM.json` ([`ProgramSweep`]),
//! and prints per program and thread count the best configuration, the
//! default's time and the time of CF'17's choice relative to it. The files are
//! what [`super::calibrate`] derives the trees from.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::harness::child::{self, Status, Stderr};
use crate::harness::record::steady_allocator;

use prescient::analysis::ProgramAnalysis;
use prescient::tuning::{QueuePolicy, DEFAULT_STACK_SIZE};
use prescient::{Params, Runtime};
use serde::{Deserialize, Serialize};

use super::{workloads, Size, Workload};
use crate::annotated;
use crate::harness::Machine;

/// The queue capacities of the grid.
pub const CAPACITIES: [usize; 6] = [2, 4, 8, 16, 32, 128];
/// The dependency-table bucket counts of the grid (primes, as CF'17's).
pub const BUCKETS: [usize; 4] = [97, 1021, 64567, 256019];
/// The timed runs per configuration unless `--reps` says otherwise.
pub const DEFAULT_REPS: usize = 3;
/// Where the files go unless `--out` says otherwise.
pub const DEFAULT_OUT: &str = "target/cf17/sweep";
/// The sweep stored in the repository (what the calibrated trees come from).
pub const STORED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/results/sweep");

/// Which stack commitment a configuration uses (every configuration has the
/// default 8 MiB stack reserve).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StackChoice {
    /// The commitment the program's analysis chose
    /// ([`ProgramAnalysis::committed_stack_size`]): pre-faulted, and what a
    /// recycled stack is trimmed back to.
    Analysed,
    /// The default's: no commitment (recorded as 8 MiB, the reserve, in the
    /// JSON files, whose `stack_bytes` names the point).
    Max,
}

/// A program's analysed stack in the sweep's terms: its commitment, or
/// [`DEFAULT_STACK_SIZE`] when the analysis committed none (the analysed
/// choice is then the default's, as in the files recorded when the estimate
/// was the stack's size and an unbounded one was 8 MiB).
pub fn analysed_stack(analysis: &ProgramAnalysis) -> usize {
    match analysis.committed_stack_size {
        0 => DEFAULT_STACK_SIZE,
        committed => committed,
    }
}

impl StackChoice {
    /// Both choices.
    pub const ALL: [StackChoice; 2] = [StackChoice::Analysed, StackChoice::Max];

    /// The name in tables and JSON.
    pub const fn name(self) -> &'static str {
        match self {
            StackChoice::Analysed => "analysed",
            StackChoice::Max => "8MiB",
        }
    }

    /// The point's stack bytes for a program whose analysed stack is
    /// `analysed` ([`analysed_stack`]): the commitment, or 8 MiB for none.
    pub const fn bytes(self, analysed: usize) -> usize {
        match self {
            StackChoice::Analysed => analysed,
            StackChoice::Max => DEFAULT_STACK_SIZE,
        }
    }
}

/// One point of the grid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// The queue policy.
    pub policy: QueuePolicy,
    /// The queue capacity.
    pub capacity: usize,
    /// The dependency-table buckets.
    pub buckets: usize,
    /// The stack size.
    pub stack: StackChoice,
}

impl Config {
    /// `Params::DEFAULT` as a grid point.
    pub const DEFAULT: Config = Config {
        policy: Params::DEFAULT.queue_policy,
        capacity: Params::DEFAULT.queue_capacity,
        buckets: Params::DEFAULT.dependency_buckets,
        stack: StackChoice::Max,
    };

    /// The whole grid: policy-major, then capacity, buckets, stack.
    pub fn all() -> Vec<Config> {
        let mut grid = Vec::with_capacity(192);
        for policy in QueuePolicy::ALL {
            for capacity in CAPACITIES {
                for buckets in BUCKETS {
                    for stack in StackChoice::ALL {
                        grid.push(Config {
                            policy,
                            capacity,
                            buckets,
                            stack,
                        });
                    }
                }
            }
        }
        grid
    }

    /// The grid point nearest to `params` chosen for a program whose
    /// analysed stack is `analysed`: the same policy, capacity and buckets,
    /// and [`StackChoice::Analysed`] unless the stack is 8 MiB and the
    /// analysis chose less. `None` if capacity or buckets are off the grid.
    pub fn of(params: Params, analysed: usize) -> Option<Config> {
        let on_grid = CAPACITIES.contains(&params.queue_capacity)
            && BUCKETS.contains(&params.dependency_buckets);
        on_grid.then_some(Config {
            policy: params.queue_policy,
            capacity: params.queue_capacity,
            buckets: params.dependency_buckets,
            stack: if params.committed_stack_size != 0 && params.committed_stack_size == analysed {
                StackChoice::Analysed
            } else {
                StackChoice::Max
            },
        })
    }

    /// The runtime parameters of this point for a program whose analysed
    /// stack is `analysed` ([`analysed_stack`]).
    pub const fn params(&self, analysed: usize) -> Params {
        let base = Params::DEFAULT
            .with_queue_policy(self.policy)
            .with_queue_capacity(self.capacity)
            .with_dependency_buckets(self.buckets);
        match self.stack {
            StackChoice::Analysed if analysed != DEFAULT_STACK_SIZE => {
                base.with_committed_stack_size(analysed)
            }
            StackChoice::Analysed | StackChoice::Max => base,
        }
    }
}

impl std::fmt::Display for Config {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{}/{}",
            self.policy,
            self.capacity,
            self.buckets,
            self.stack.name()
        )
    }
}

/// One measured point: a configuration's times at one thread count.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    /// The worker count.
    pub threads: usize,
    /// The queue policy (by its short name in the files: `DEF`, `PF`, ...).
    #[serde(with = "policy_name")]
    pub policy: QueuePolicy,
    /// The queue capacity.
    pub capacity: usize,
    /// The dependency-table buckets.
    pub buckets: usize,
    /// The stack size in bytes (`stack` in the files).
    #[serde(rename = "stack")]
    pub stack_bytes: usize,
    /// The best of the timed runs, in seconds.
    pub best_s: f64,
    /// Their median, in seconds.
    pub median_s: f64,
}

/// A [`QueuePolicy`] in the sweep files: its short name.
mod policy_name {
    use prescient::tuning::QueuePolicy;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(policy: &QueuePolicy, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(policy.short_name())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<QueuePolicy, D::Error> {
        let name = String::deserialize(d)?;
        QueuePolicy::ALL
            .into_iter()
            .find(|q| q.short_name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown policy `{name}`")))
    }
}

/// The analysis features of a sweep file (`"analysis"`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
struct AnalysisFile {
    rho: u32,
    lambda: u32,
    effort: u64,
    stack_size: usize,
}

/// The layout of a sweep file; [`ProgramSweep`] converts to and from it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct SweepFile {
    program: String,
    input: String,
    size: String,
    reps: usize,
    machine: Machine,
    analysis: AnalysisFile,
    seq_s: f64,
    points: Vec<Point>,
}

impl From<ProgramSweep> for SweepFile {
    fn from(s: ProgramSweep) -> SweepFile {
        SweepFile {
            program: s.program,
            input: s.input,
            size: s.size,
            reps: s.reps,
            machine: s.machine,
            analysis: AnalysisFile {
                rho: s.rho,
                lambda: s.lambda,
                effort: s.effort,
                stack_size: s.stack_size,
            },
            seq_s: s.seq_s,
            points: s.points,
        }
    }
}

impl From<SweepFile> for ProgramSweep {
    fn from(f: SweepFile) -> ProgramSweep {
        ProgramSweep {
            program: f.program,
            input: f.input,
            size: f.size,
            reps: f.reps,
            machine: f.machine,
            rho: f.analysis.rho,
            lambda: f.analysis.lambda,
            effort: f.analysis.effort,
            stack_size: f.analysis.stack_size,
            seq_s: f.seq_s,
            points: f.points,
        }
    }
}

/// One program's sweep: what a `DIR/PROGRAM.json` file holds (its layout
/// nests the analysis features under `"analysis"` and names a point's
/// stack bytes `"stack"` and its policy by its short name).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "SweepFile", into = "SweepFile")]
pub struct ProgramSweep {
    /// The program's name.
    pub program: String,
    /// Its input, for humans.
    pub input: String,
    /// The [`Size`] name.
    pub size: String,
    /// Timed runs per point.
    pub reps: usize,
    /// The machine it ran on.
    pub machine: Machine,
    /// The analysis features: ρ.
    pub rho: u32,
    /// λ.
    pub lambda: u32,
    /// The aggregated effort.
    pub effort: u64,
    /// The analysed stack size in bytes.
    pub stack_size: usize,
    /// The sequential reference's best time, in seconds.
    pub seq_s: f64,
    /// Every measured point.
    pub points: Vec<Point>,
}

impl ProgramSweep {
    /// The thread counts measured, ascending.
    pub fn threads(&self) -> Vec<usize> {
        let mut threads: Vec<usize> = self.points.iter().map(|p| p.threads).collect();
        threads.sort_unstable();
        threads.dedup();
        threads
    }

    /// The best time of `config` at `threads`, if measured.
    pub fn time(&self, config: Config, threads: usize) -> Option<f64> {
        let stack_bytes = config.stack.bytes(self.stack_size);
        self.points
            .iter()
            .find(|p| {
                p.threads == threads
                    && p.policy == config.policy
                    && p.capacity == config.capacity
                    && p.buckets == config.buckets
                    && p.stack_bytes == stack_bytes
            })
            .map(|p| p.best_s)
    }

    /// The distinct configurations of this program: the grid, less the
    /// [`StackChoice::Analysed`] points when the analysed stack is 8 MiB (they
    /// are the [`StackChoice::Max`] ones).
    pub fn configs(&self) -> Vec<Config> {
        distinct_configs(self.stack_size)
    }

    /// The time of `config`'s policy, capacity and stack at `threads`, pooled
    /// over the bucket counts: the median of the [`BUCKETS`] points (the
    /// mean of the middle two of four). No program of the suite creates a
    /// dataflow task, so the bucket count changes nothing the runtime does,
    /// and its four points are four samples of one configuration.
    pub fn pooled_time(&self, config: Config, threads: usize) -> Option<f64> {
        let mut times: Vec<f64> = BUCKETS
            .iter()
            .filter_map(|&buckets| self.time(Config { buckets, ..config }, threads))
            .collect();
        if times.is_empty() {
            return None;
        }
        times.sort_by(f64::total_cmp);
        let mid = times.len() / 2;
        Some(if times.len().is_multiple_of(2) {
            (times[mid - 1] + times[mid]) / 2.0
        } else {
            times[mid]
        })
    }

    /// The fastest configuration at `threads` by [`pooled_time`](Self::pooled_time),
    /// with the default bucket count, and its pooled time.
    pub fn pooled_best(&self, threads: usize) -> Option<(Config, f64)> {
        self.configs()
            .into_iter()
            .filter(|c| c.buckets == Config::DEFAULT.buckets)
            .filter_map(|c| self.pooled_time(c, threads).map(|t| (c, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The fastest measured configuration at `threads` and its time.
    pub fn best(&self, threads: usize) -> Option<(Config, f64)> {
        self.configs()
            .into_iter()
            .filter_map(|c| self.time(c, threads).map(|t| (c, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1))
    }

    /// The file as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a sweep serializes") + "\n"
    }

    /// Reads a file written by [`to_json`](Self::to_json) (or by the
    /// hand-written JSON before it: the layout is the same).
    ///
    /// # Errors
    /// A message naming the field that is missing or malformed.
    pub fn from_json(text: &str) -> Result<ProgramSweep, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }
}

/// Reads every `*.json` sweep file in `dir`, in [`workloads::NAMES`] order.
///
/// # Errors
/// If the directory cannot be read or a file does not parse.
pub fn read_dir(dir: &Path) -> Result<Vec<ProgramSweep>, String> {
    let mut sweeps = Vec::new();
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.extension().is_some_and(|e| e == "json") {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            sweeps.push(
                ProgramSweep::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?,
            );
        }
    }
    let order = |name: &str| workloads::NAMES.iter().position(|n| *n == name);
    sweeps.sort_by_key(|s| (order(&s.program), s.program.clone()));
    Ok(sweeps)
}

/// The grid less the [`StackChoice::Analysed`] points when `analysed_stack`
/// is 8 MiB, in grid order.
pub fn distinct_configs(analysed_stack: usize) -> Vec<Config> {
    Config::all()
        .into_iter()
        .filter(|c| c.stack == StackChoice::Max || analysed_stack != DEFAULT_STACK_SIZE)
        .collect()
}

/// The configurations a program's child measures: the grid, less the
/// [`StackChoice::Analysed`] points when the analysed stack is 8 MiB, in a
/// fixed shuffled order.
pub fn child_order(analysis: &ProgramAnalysis) -> Vec<Config> {
    let mut grid = distinct_configs(analysed_stack(analysis));
    // A fixed Fisher–Yates shuffle (splitmix64 from a constant seed).
    let mut state: u64 = 0x5eed_cf17;
    for i in (1..grid.len()).rev() {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        grid.swap(i, (z % (i as u64 + 1)) as usize);
    }
    grid
}

/// The best and the median of `times`, in seconds.
fn best_and_median(times: &mut [Duration]) -> (f64, f64) {
    times.sort_unstable();
    let best = times.first().copied().unwrap_or_default();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    (best.as_secs_f64(), median.as_secs_f64())
}

/// Runs one workload `1 + reps` times with `run` and returns the timed runs
/// (the first is the warm-up, checked but not returned).
///
/// # Errors
/// The first run's check error, the warm-up's included; no run follows it.
pub fn timed_runs(
    reps: usize,
    mut run: impl FnMut() -> super::Timed,
) -> Result<Vec<Duration>, String> {
    let mut times = Vec::with_capacity(reps);
    for i in 0..=reps {
        let (time, checked) = run();
        checked?;
        if i > 0 {
            times.push(time);
        }
    }
    Ok(times)
}

/// A line of a sweep child's stdout: the sequential time and the input,
/// then one [`Point`] per configuration, each one JSON object.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum ChildLine {
    Point(Point),
    Seq { seq_s: f64, input: String },
}

impl ChildLine {
    fn print(&self) {
        println!(
            "{}",
            serde_json::to_string(self).expect("a line serializes")
        );
    }
}

/// The child: measures `program` at `threads` over the grid and prints the
/// sequential line and one point per configuration. Returns the exit code.
pub fn child_main(program: &str, threads: usize, reps: usize, size: Size) -> i32 {
    steady_allocator();
    match child(program, threads, reps, size) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {program} at {threads} threads: {e}");
            1
        }
    }
}

fn child(program: &str, threads: usize, reps: usize, size: Size) -> Result<(), String> {
    let annotated = annotated::find(program)?;
    let work: Workload = workloads::prepare(program, size)?;
    let (seq_s, _) = best_and_median(&mut timed_runs(reps, || (work.seq)())?);
    ChildLine::Seq {
        seq_s,
        input: work.input.clone(),
    }
    .print();
    for config in child_order(&annotated.analysis) {
        let analysed = analysed_stack(&annotated.analysis);
        let params = config.params(analysed);
        let runtime = Runtime::builder()
            .params(params)
            .num_workers(threads)
            .build()
            .map_err(|e| format!("building the runtime for {config}: {e}"))?;
        let mut times = runtime
            .run(|| timed_runs(reps, || (work.prescient)()))
            .map_err(|e| format!("{config}: {e}"))?;
        drop(runtime);
        let (best_s, median_s) = best_and_median(&mut times);
        ChildLine::Point(Point {
            threads,
            policy: config.policy,
            capacity: config.capacity,
            buckets: config.buckets,
            stack_bytes: config.stack.bytes(analysed),
            best_s,
            median_s,
        })
        .print();
    }
    Ok(())
}

/// What `--sweep` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SweepOptions {
    /// The thread counts.
    pub threads: Vec<usize>,
    /// Timed runs per point.
    pub reps: usize,
    /// The programs, in order.
    pub programs: Vec<&'static str>,
    /// The input size.
    pub size: Size,
    /// Where the files go.
    pub out: PathBuf,
}

/// `cf17 --sweep …`: the parent. Returns the exit code.
pub fn run(options: &SweepOptions) -> i32 {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find this executable: {e}");
            return 1;
        }
    };
    if let Err(e) = std::fs::create_dir_all(&options.out) {
        eprintln!("error: {}: {e}", options.out.display());
        return 1;
    }
    let machine = Machine::detect();
    println!("{}", machine.describe());
    println!(
        "sweep: {} size, {} timed runs per configuration, threads {:?}, into {}",
        options.size.name(),
        options.reps,
        options.threads,
        options.out.display()
    );
    let mut failed = false;
    for &program in &options.programs {
        crate::cli::progress(format!("cf17 sweep: {program}"));
        match sweep_program(&exe, program, options, &machine) {
            Ok(sweep) => {
                print!("{}", summary(&sweep));
                let path = options.out.join(format!("{program}.json"));
                if let Err(e) = std::fs::write(&path, sweep.to_json()) {
                    eprintln!("error: {}: {e}", path.display());
                    failed = true;
                }
            }
            Err(e) => {
                eprintln!("error: {program}: {e}");
                failed = true;
            }
        }
    }
    i32::from(failed)
}

/// Runs one child per thread count for `program` and gathers its points.
fn sweep_program(
    exe: &Path,
    program: &'static str,
    options: &SweepOptions,
    machine: &Machine,
) -> Result<ProgramSweep, String> {
    let analysis = annotated::find(program)?.analysis;
    let mut sweep = ProgramSweep {
        program: program.to_string(),
        input: String::new(),
        size: options.size.name().to_string(),
        reps: options.reps,
        machine: machine.clone(),
        rho: analysis.rho,
        lambda: analysis.lambda,
        effort: analysis.effort,
        stack_size: analysed_stack(&analysis),
        seq_s: f64::INFINITY,
        points: Vec::new(),
    };
    for &threads in &options.threads {
        let mut command = Command::new(exe);
        command.args([super::SUBCOMMAND, "--sweep-child", program]);
        command.args([threads.to_string(), options.reps.to_string()]);
        command.arg(options.size.name());
        let finished = child::run(&mut command, Duration::MAX, Stderr::Inherit);
        if finished.status != Status::Done {
            let status = finished.status.describe();
            return Err(format!("the child at {threads} threads {status}"));
        }
        for line in finished.stdout.lines().filter(|l| l.starts_with('{')) {
            match serde_json::from_str(line).map_err(|e| format!("`{line}`: {e}"))? {
                ChildLine::Seq { seq_s, input } => {
                    sweep.seq_s = sweep.seq_s.min(seq_s);
                    sweep.input = input;
                }
                ChildLine::Point(point) => sweep.points.push(point),
            }
        }
    }
    Ok(sweep)
}

/// Per thread count: the best configuration, the default's and CF'17's
/// choice's times over the best.
pub fn summary(sweep: &ProgramSweep) -> String {
    let mut out = String::new();
    let cf17 = annotated::find(&sweep.program).ok().and_then(|p| {
        Config::of(
            p.analysis.params(prescient::analysis::Trees::Cf17),
            analysed_stack(&p.analysis),
        )
    });
    let _ = writeln!(
        out,
        "{} ({}): seq {:.2} ms, {} points",
        sweep.program,
        sweep.input,
        sweep.seq_s * 1e3,
        sweep.points.len()
    );
    for threads in sweep.threads() {
        let Some((best, best_s)) = sweep.best(threads) else {
            continue;
        };
        let rel = |c: Option<Config>| {
            c.and_then(|c| sweep.time(c, threads))
                .map_or_else(|| "-".to_string(), |t| format!("{:.2}", t / best_s))
        };
        let _ = writeln!(
            out,
            "  {threads:>3} threads: best {best} {:.2} ms (T/Tseq {:.2}); default/best {}; cf17/best {}",
            best_s * 1e3,
            best_s / sweep.seq_s,
            rel(Some(Config::DEFAULT)),
            rel(cf17),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_has_every_combination_once_and_holds_the_default() {
        let grid = Config::all();
        assert_eq!(grid.len(), 4 * 6 * 4 * 2);
        let unique: std::collections::HashSet<Config> = grid.iter().copied().collect();
        assert_eq!(unique.len(), grid.len());
        assert!(grid.contains(&Config::DEFAULT));
        assert_eq!(Config::DEFAULT.params(1 << 15), Params::DEFAULT);
    }

    #[test]
    fn a_program_with_an_8_mib_analysed_stack_measures_half_the_grid() {
        let fib = annotated::find("fib").unwrap();
        let order = child_order(&fib.analysis);
        if analysed_stack(&fib.analysis) == DEFAULT_STACK_SIZE {
            assert_eq!(order.len(), 96);
        }
        let mut sorted = order.clone();
        sorted.dedup();
        assert_eq!(sorted.len(), order.len());
    }

    #[test]
    fn json_round_trips() {
        let sweep = ProgramSweep {
            program: "fib".into(),
            input: "n=30".into(),
            size: "quick".into(),
            reps: 3,
            machine: Machine::detect(),
            rho: 2,
            lambda: 0,
            effort: 7,
            stack_size: DEFAULT_STACK_SIZE,
            seq_s: 0.5,
            points: vec![Point {
                threads: 2,
                policy: QueuePolicy::InsertFrontStealBack,
                capacity: 4,
                buckets: 97,
                stack_bytes: DEFAULT_STACK_SIZE,
                best_s: 0.25,
                median_s: 0.5,
            }],
        };
        let back = ProgramSweep::from_json(&sweep.to_json()).unwrap();
        assert_eq!(back.points, sweep.points);
        assert_eq!((back.rho, back.seq_s), (2, 0.5));
        let pf4 = Config {
            policy: QueuePolicy::InsertFrontStealBack,
            capacity: 4,
            buckets: 97,
            stack: StackChoice::Max,
        };
        assert_eq!(back.time(pf4, 2), Some(0.25));
        assert_eq!(back.time(pf4, 1), None);
        assert_eq!(back.best(2), Some((pf4, 0.25)));
    }

    #[test]
    fn child_lines_parse() {
        let point = r#"{"threads":4,"policy":"BF","capacity":8,"buckets":1021,"stack":32768,"best_s":0.5,"median_s":0.75}"#;
        let Ok(ChildLine::Point(p)) = serde_json::from_str(point) else {
            panic!("not a point");
        };
        assert_eq!(p.policy, QueuePolicy::InsertBackStealFront);
        assert_eq!(
            (p.threads, p.capacity, p.buckets, p.stack_bytes),
            (4, 8, 1021, 32768)
        );
        let seq = serde_json::from_str(r#"{"seq_s":0.5,"input":"n=5"}"#);
        assert!(matches!(seq, Ok(ChildLine::Seq { seq_s: 0.5, .. })));
        assert!(serde_json::from_str::<ChildLine>(r#"{"policy":"XX"}"#).is_err());
    }

    #[test]
    fn the_stored_sweep_loads_and_round_trips() {
        let sweeps = read_dir(Path::new(STORED)).unwrap();
        assert_eq!(sweeps.len(), workloads::NAMES.len());
        for sweep in &sweeps {
            assert!(!sweep.points.is_empty(), "{}", sweep.program);
            assert!(sweep.machine.threads >= 1);
            let back = ProgramSweep::from_json(&sweep.to_json()).unwrap();
            assert_eq!(&back, sweep);
        }
        // The file layout: the analysis nested, a point's stack as `stack`
        // and its policy by its short name.
        let v: serde_json::Value = serde_json::from_str(&sweeps[0].to_json()).unwrap();
        assert!(v["analysis"]["rho"].is_u64());
        assert!(v["points"][0]["stack"].is_u64());
        assert!(v["points"][0]["policy"].is_string());
        assert!(v["machine"]["cpu"].is_string());
        assert!(ProgramSweep::from_json("{}").is_err());
    }
}
