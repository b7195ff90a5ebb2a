//! The CF'17 table's command line: [`Options`], a `clap` argument struct
//! with the flags every table shares ([`CommonArgs`]), the suite's own, the
//! two other modes (`--sweep`, `--calibrate [DIR]`) and the hidden
//! arguments of the child processes. `prescient-bench cf17` flattens it
//! into its subcommand.
//!
//! Every child is `EXE cf17 ...` ([`SUBCOMMAND`] first): the suite's
//! `cf17 --child PROGRAM RUNNER THREADS --size SIZE --reps N`
//! ([`ChildSpec::args`]) and the sweep's `cf17 --sweep-child PROGRAM
//! THREADS REPS SIZE`; the `cf17` alias accepts and ignores that leading
//! word.

use std::path::PathBuf;
use std::time::Duration;

use super::runner::Runner;
use crate::cf17::workloads::{known_name, NAMES};
use crate::cf17::Size;
use crate::cli::{self, CommonArgs};

pub use crate::cf17::SUBCOMMAND;
/// The default JSON path.
pub const DEFAULT_JSON: &str = "target/cf17/cf17.json";
/// The default directory of the plots.
pub const DEFAULT_PLOTS: &str = "target/cf17";
/// The programs `--test-size` runs unless `--only` says otherwise: the
/// cheapest, one of them without a chili version, so that every row and
/// section appears (`--size test` alone keeps every program).
pub const TEST_PROGRAMS: [&str; 3] = ["fib", "delannoy", "floorplan"];

/// The twelve CF'17 programs: analyzer-tuned parameters against the defaults, rayon and chili.
///
/// Runs the CF'17 suite: every program x runner x thread count in its own
/// child process (one warm-up run, then N timed and verified runs inside
/// one pool entry). Prints per program the median and fastest time, T/Tseq,
/// the speedup over the runner's one-thread time, Tdef/T (the speedup over
/// Prescient with default parameters: > 1 is faster), the peak RSS and
/// Prescient's counters; then per thread count the geometric mean over the
/// programs of the speedup of tuned over default (T_default / T_tuned), of
/// cf17 over default, the peak-RSS ratio tuned/default and the speedup of
/// tuned over rayon. Writes JSON (default target/cf17/cf17.json) and three
/// SVG plots (speedup.svg, tuned_vs_default.svg, memory.svg).
///
/// Programs: fib, nqueens, alignment, delannoy, fft, sort, strassen,
/// knapsack, uts, floorplan, health, sparselu. Runners: seq, default
/// (Params::DEFAULT), tuned (the program's analysed PARAMS), cf17 (CF'17's
/// decision trees on the analysis), rayon, chili.
///
/// --quick: the quick inputs (sequential runs of about 20-300 ms) and 3
/// timed runs each; without it, the inputs of the CF'17 paper (Table 2) and
/// 5 timed runs. --test-size: the test inputs, one timed run, and only fib,
/// delannoy and floorplan unless --only says otherwise.
///
/// Other modes: --sweep runs every program under every queue policy x
/// queue capacity {2,4,8,16,32,128} x dependency buckets
/// {97,1021,64567,256019} x stack size {analysed, 8 MiB}, one child process
/// per program and thread count, and writes one JSON file per program into
/// --out DIR (it takes --threads, --reps (default 3), --only and --size
/// (default quick; --quick or --test-size: test)). --calibrate, with an
/// optional DIR, derives and validates the decision trees from the sweep in
/// DIR (default: the one stored in the repository).
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The flags every table shares.
    #[command(flatten)]
    pub common: CommonArgs,
    /// The paper's inputs (the default).
    #[arg(long, conflicts_with_all = ["quick", "test_size"])]
    pub paper: bool,
    /// The input size: test, quick or paper.
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub size: Option<Size>,
    /// Timed runs per configuration (default 5 at the paper's size, 3 with
    /// --quick, 1 with --test-size).
    #[arg(long, value_name = "N", value_parser = parse_reps)]
    pub reps: Option<usize>,
    /// Comma-separated subset of the programs.
    #[arg(long, value_name = "PROGRAMS", value_delimiter = ',', value_parser = known_name)]
    pub only: Vec<&'static str>,
    /// Comma-separated subset of the runners: seq, default, tuned, cf17,
    /// rayon, chili.
    #[arg(long, value_name = "RUNNERS", value_delimiter = ',', value_parser = parse_runner)]
    pub runners: Vec<Runner>,
    /// Where to write the SVG plots (default target/cf17/).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Kill a child that runs longer (default 300 with --quick or
    /// --test-size, 1800 otherwise).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
    /// Run the parameter sweep instead of the suite.
    #[arg(long, conflicts_with_all = ["calibrate", "plots", "runners"])]
    pub sweep: bool,
    /// Where --sweep writes its JSON files (default target/cf17/sweep).
    #[arg(long, value_name = "DIR", requires = "sweep")]
    pub out: Option<PathBuf>,
    /// Derive and validate the decision trees from the sweep in DIR
    /// (default: the sweep stored in the repository) instead of running the
    /// suite.
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    pub calibrate: Option<Option<PathBuf>>,
    /// Hidden: measure one configuration as a child process.
    #[arg(
        long,
        hide = true,
        num_args = 3,
        value_names = ["PROGRAM", "RUNNER", "THREADS"],
        conflicts_with_all = ["sweep", "calibrate", "sweep_child"]
    )]
    pub child: Option<Vec<String>>,
    /// Hidden: measure one program of the sweep at one thread count.
    #[arg(
        long,
        hide = true,
        num_args = 4,
        value_names = ["PROGRAM", "THREADS", "REPS", "SIZE"],
        conflicts_with_all = ["sweep", "calibrate"]
    )]
    pub sweep_child: Option<Vec<String>>,
}

fn parse_size(name: &str) -> Result<Size, String> {
    Size::parse(name).ok_or_else(|| format!("unknown size `{name}` (test, quick, paper)"))
}

fn parse_reps(s: &str) -> Result<usize, String> {
    s.parse()
        .ok()
        .filter(|&n| n > 0)
        .ok_or_else(|| format!("`{s}`: not a number >= 1"))
}

fn parse_runner(name: &str) -> Result<Runner, String> {
    Runner::parse(name).ok_or_else(|| {
        format!(
            "unknown runner `{name}` (one of {})",
            Runner::ALL.map(Runner::name).join(", ")
        )
    })
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("bad timeout `{s}` (seconds, > 0)"))
}

/// What the options ask for, resolved ([`Options::command`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Run the suite as the parent.
    Run(Settings),
    /// Measure one configuration (hidden: `--child PROGRAM RUNNER THREADS
    /// --size SIZE --reps N`).
    Child(ChildSpec),
    /// Run the parameter sweep (`--sweep`).
    Sweep(crate::cf17::sweep::SweepOptions),
    /// Measure one program of the sweep (hidden: `--sweep-child PROGRAM
    /// THREADS REPS SIZE`).
    SweepChild {
        /// The program.
        program: &'static str,
        /// The worker count.
        threads: usize,
        /// Timed runs per point.
        reps: usize,
        /// The input size.
        size: Size,
    },
    /// Derive the decision trees from a sweep (`--calibrate [DIR]`; `None`:
    /// the stored one).
    Calibrate(Option<PathBuf>),
}

/// One configuration, as a child measures it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChildSpec {
    /// The program's name (one of [`NAMES`]).
    pub program: &'static str,
    /// The runner.
    pub runner: Runner,
    /// The threads of its pool.
    pub threads: usize,
    /// The input size.
    pub size: Size,
    /// The timed runs.
    pub reps: usize,
}

impl ChildSpec {
    /// The arguments (after the executable) that make it measure this
    /// configuration: `cf17 --child PROGRAM RUNNER THREADS --size SIZE
    /// --reps N`.
    pub fn args(&self) -> Vec<String> {
        vec![
            SUBCOMMAND.to_string(),
            "--child".to_string(),
            self.program.to_string(),
            self.runner.name().to_string(),
            self.threads.to_string(),
            "--size".to_string(),
            self.size.name().to_string(),
            "--reps".to_string(),
            self.reps.to_string(),
        ]
    }
}

/// The parent's settings, resolved from [`Options`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The input size.
    pub size: Size,
    /// The thread counts, ascending, without duplicates.
    pub threads: Vec<usize>,
    /// Timed runs per configuration.
    pub reps: usize,
    /// The programs to run, in [`NAMES`] order.
    pub programs: Vec<&'static str>,
    /// The runners to run, in [`Runner::ALL`] order.
    pub runners: Vec<Runner>,
    /// Where to write the JSON.
    pub json: PathBuf,
    /// The directory of the SVG plots.
    pub plots: PathBuf,
    /// How long a child may run before it is killed.
    pub timeout: Duration,
}

impl Settings {
    /// The settings of a run at `size` with every default: every program
    /// and runner, the threads given, the default repetitions, JSON and
    /// plots.
    pub fn new(size: Size, threads: Vec<usize>) -> Settings {
        Settings {
            size,
            threads,
            reps: default_reps(size),
            programs: NAMES.to_vec(),
            runners: Runner::ALL.to_vec(),
            json: PathBuf::from(DEFAULT_JSON),
            plots: PathBuf::from(DEFAULT_PLOTS),
            timeout: default_timeout(size),
        }
    }

    /// The (runner, threads) pairs of one program, in order: the sequential
    /// reference first (once, at one thread), then per thread count every
    /// parallel runner.
    pub fn configurations(&self) -> Vec<(Runner, usize)> {
        let mut out = Vec::new();
        if self.runners.contains(&Runner::Seq) {
            out.push((Runner::Seq, 1));
        }
        for &threads in &self.threads {
            for &runner in self.runners.iter().filter(|r| r.is_parallel()) {
                out.push((runner, threads));
            }
        }
        out
    }

    /// The size as the shared JSON head records it.
    pub fn head_size(&self) -> cli::Size {
        match self.size {
            Size::Paper => cli::Size::Full,
            Size::Quick => cli::Size::Quick,
            Size::Test => cli::Size::Test,
        }
    }
}

/// The default number of timed runs: 5 at the paper's size, 3 at the
/// quick one, 1 at the test size.
pub const fn default_reps(size: Size) -> usize {
    match size {
        Size::Paper => 5,
        Size::Quick => 3,
        Size::Test => 1,
    }
}

/// The default child timeout: 30 minutes at the paper's size, 5 below.
pub const fn default_timeout(size: Size) -> Duration {
    match size {
        Size::Paper => Duration::from_secs(1800),
        Size::Quick | Size::Test => Duration::from_secs(300),
    }
}

/// The items of `all` that `wanted` names, in `all`'s order; all of them
/// if `wanted` is empty.
fn subset<T: Copy + PartialEq>(all: &[T], wanted: &[T]) -> Vec<T> {
    if wanted.is_empty() {
        return all.to_vec();
    }
    all.iter().copied().filter(|x| wanted.contains(x)).collect()
}

impl Options {
    /// The input size the flags ask for: `--size`, `--paper`, `--quick` or
    /// `--test-size` (which must agree), else `default`.
    ///
    /// # Errors
    /// If two of them name different sizes.
    pub fn input_size(&self, default: Size) -> Result<Option<Size>, String> {
        let common = match self.common.size() {
            cli::Size::Full => None,
            cli::Size::Quick => Some(Size::Quick),
            cli::Size::Test => Some(Size::Test),
        };
        let mut size = None;
        for named in [self.size, self.paper.then_some(Size::Paper), common]
            .into_iter()
            .flatten()
        {
            match size {
                Some(old) if old != named => {
                    return Err(format!(
                        "conflicting sizes: {} and {}",
                        Size::name(old),
                        named.name()
                    ))
                }
                _ => size = Some(named),
            }
        }
        Ok(size.or(Some(default)))
    }

    /// What the options ask for: the suite, a child's measurement, the
    /// sweep, a sweep child or the calibration. A child ignores the thread
    /// list (and so an invalid `PRESCIENT_BENCH_THREADS`).
    ///
    /// # Errors
    /// The message of the first bad argument.
    pub fn command(&self) -> Result<Command, String> {
        if let Some(words) = &self.sweep_child {
            let [program, threads, reps, size] = words.as_slice() else {
                return Err("--sweep-child takes PROGRAM THREADS REPS SIZE".to_string());
            };
            return Ok(Command::SweepChild {
                program: known_name(program)?,
                threads: cli::parse_count(threads).map_err(|e| format!("--sweep-child: {e}"))?,
                reps: parse_reps(reps).map_err(|e| format!("--sweep-child: {e}"))?,
                size: parse_size(size)?,
            });
        }
        if let Some(dir) = &self.calibrate {
            return Ok(Command::Calibrate(dir.clone()));
        }
        if self.sweep {
            // The sweep's own default is the quick size; --quick and
            // --test-size both mean the test size there.
            let size = match (self.size, self.paper, self.common.size()) {
                (Some(size), _, _) => size,
                (None, true, _) => Size::Paper,
                (None, false, cli::Size::Full) => Size::Quick,
                (None, false, cli::Size::Quick | cli::Size::Test) => Size::Test,
            };
            return Ok(Command::Sweep(crate::cf17::sweep::SweepOptions {
                threads: self.common.threads()?,
                reps: self.reps.unwrap_or(crate::cf17::sweep::DEFAULT_REPS),
                programs: subset(&NAMES, &self.only),
                size,
                out: self
                    .out
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(crate::cf17::sweep::DEFAULT_OUT)),
            }));
        }
        let size = self.input_size(Size::Paper)?.unwrap_or(Size::Paper);
        let reps = self.reps.unwrap_or(default_reps(size));
        if let Some(words) = &self.child {
            let [program, runner, threads] = words.as_slice() else {
                return Err("--child takes PROGRAM RUNNER THREADS".to_string());
            };
            return Ok(Command::Child(ChildSpec {
                program: known_name(program)?,
                runner: parse_runner(runner)?,
                threads: cli::parse_count(threads).map_err(|e| format!("--child: {e}"))?,
                size,
                reps,
            }));
        }
        let programs = if self.only.is_empty() && self.common.test_size {
            TEST_PROGRAMS.to_vec()
        } else {
            subset(&NAMES, &self.only)
        };
        Ok(Command::Run(Settings {
            reps,
            programs,
            runners: subset(&Runner::ALL, &self.runners),
            json: self
                .common
                .json
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_JSON)),
            plots: self
                .plots
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_PLOTS)),
            timeout: self.timeout.unwrap_or(default_timeout(size)),
            ..Settings::new(size, self.common.threads()?)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The options parsed as `prescient-bench cf17` parses them.
    fn parse_words<'a>(words: impl IntoIterator<Item = &'a str>) -> Result<Command, String> {
        crate::cli::parse_words::<Options>("cf17", words)
            .map_err(|e| e.to_string())?
            .command()
    }

    fn parse(s: &str) -> Result<Command, String> {
        parse_words(s.split_whitespace())
    }

    fn run(s: &str) -> Settings {
        match parse(s) {
            Ok(Command::Run(settings)) => settings,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let o = run("--threads 1,2");
        assert_eq!(o, Settings::new(Size::Paper, vec![1, 2]));
        assert_eq!(o.reps, 5);
        assert_eq!(o.json, PathBuf::from("target/cf17/cf17.json"));
        assert_eq!(o.plots, PathBuf::from("target/cf17"));
        assert_eq!(o.programs, NAMES.to_vec());
        assert_eq!(o.timeout, Duration::from_secs(1800));
        let q = run("--quick --threads 1");
        assert_eq!((q.size, q.reps), (Size::Quick, 3));
        assert_eq!(q.timeout, Duration::from_secs(300));
        assert_eq!(q.head_size(), cli::Size::Quick);
        let t = run("--test-size --threads 1");
        assert_eq!((t.size, t.reps), (Size::Test, 1));
        assert_eq!(t.programs, TEST_PROGRAMS.to_vec());
        assert_eq!(run("--size test --threads 1").programs, NAMES.to_vec());
        assert_eq!(
            run("--test-size --only sort --threads 1").programs,
            ["sort"]
        );
        assert_eq!(run("--paper --threads 1").size, Size::Paper);
        assert_eq!(run("--size test --threads 1").size, Size::Test);
        assert_eq!(run("--quick --size=quick --threads 1").size, Size::Quick);
    }

    #[test]
    fn own_flags() {
        let o = run(
            "--quick --threads 2,1,4 --reps 7 --only fib --runners chili,tuned,seq \
                     --json a/b.json --plots=plots --timeout 1.5",
        );
        assert_eq!(o.threads, vec![1, 2, 4]);
        assert_eq!(o.reps, 7);
        assert_eq!(o.programs, vec!["fib"]);
        assert_eq!(o.runners, vec![Runner::Seq, Runner::Tuned, Runner::Chili]);
        assert_eq!(o.json, PathBuf::from("a/b.json"));
        assert_eq!(o.plots, PathBuf::from("plots"));
        assert_eq!(o.timeout, Duration::from_millis(1500));
        assert_eq!(
            o.configurations(),
            vec![
                (Runner::Seq, 1),
                (Runner::Tuned, 1),
                (Runner::Chili, 1),
                (Runner::Tuned, 2),
                (Runner::Chili, 2),
                (Runner::Tuned, 4),
                (Runner::Chili, 4),
            ]
        );
    }

    #[test]
    fn child_arguments_round_trip() {
        let spec = ChildSpec {
            program: "fib",
            runner: Runner::Cf17,
            threads: 3,
            size: Size::Test,
            reps: 2,
        };
        let args = spec.args();
        assert_eq!(args[0], SUBCOMMAND);
        assert_eq!(
            parse_words(args[1..].iter().map(String::as_str)),
            Ok(Command::Child(spec))
        );
        assert_eq!(
            parse("--child fib rayon 2 --quick"),
            Ok(Command::Child(ChildSpec {
                program: "fib",
                runner: Runner::Rayon,
                threads: 2,
                size: Size::Quick,
                reps: 3,
            }))
        );
        assert_eq!(
            parse("--sweep-child fib 2 3 quick"),
            Ok(Command::SweepChild {
                program: "fib",
                threads: 2,
                reps: 3,
                size: Size::Quick,
            })
        );
        assert!(parse("--sweep-child fib 2 3").is_err());
        assert!(parse("--sweep-child fib 0 3 quick").is_err());
    }

    #[test]
    fn modes() {
        let Ok(Command::Sweep(s)) = parse("--sweep --only fib --reps 2 --threads 1,2") else {
            panic!("not a sweep");
        };
        assert_eq!(s.programs, ["fib"]);
        assert_eq!((s.reps, s.size), (2, Size::Quick));
        assert_eq!(s.threads, [1, 2]);
        assert_eq!(s.out, PathBuf::from("target/cf17/sweep"));
        let Ok(Command::Sweep(s)) = parse("--sweep --quick --out /tmp/s --threads 1") else {
            panic!("not a sweep");
        };
        assert_eq!((s.size, s.reps), (Size::Test, 3));
        assert_eq!(s.out, PathBuf::from("/tmp/s"));
        assert!(parse("--sweep --only nope").is_err());
        assert!(parse("--out x").is_err(), "--out needs --sweep");
        assert_eq!(parse("--calibrate"), Ok(Command::Calibrate(None)));
        assert_eq!(
            parse("--calibrate /tmp/sweep"),
            Ok(Command::Calibrate(Some(PathBuf::from("/tmp/sweep"))))
        );
        assert!(parse("--calibrate --sweep").is_err());
    }

    #[test]
    fn errors() {
        let err = |s: &str| parse(s).unwrap_err();
        assert!(err("--only nope").contains("unknown program `nope`"));
        assert!(err("--runners seq,nope").contains("unknown runner `nope`"));
        assert!(err("--reps 0").contains("not a number >= 1"));
        assert!(err("--size huge").contains("unknown size `huge` (test, quick, paper)"));
        assert!(err("--quick --paper").contains("cannot be used with"));
        assert_eq!(
            err("--quick --size paper"),
            "conflicting sizes: paper and quick"
        );
        assert!(err("--timeout=-1").contains("bad timeout `-1`"));
        assert!(err("--child fib tuned").contains("3 values required"));
        assert!(err("--child fib tuned 0").contains("at least 1"));
        assert!(err("--bogus").contains("--bogus"));
        let help = crate::cli::parse_words::<Options>("cf17", ["--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        let text = help.to_string();
        for needle in [
            "--paper",
            "--reps <N>",
            "--plots <DIR>",
            "--only",
            "--sweep",
            "--calibrate",
            "T_default / T_tuned",
        ] {
            assert!(text.contains(needle), "{needle}: {text}");
        }
        assert!(!text.contains("--sweep-child"), "{text}");
    }
}
