//! The fork-join suite's command line: [`Options`], a `clap` argument
//! struct with the flags every table shares ([`CommonArgs`]) plus the
//! suite's own and the hidden ones of its child processes. `prescient-bench
//! fork-join` flattens it into its subcommand.
//!
//! The parent re-executes its own executable once per configuration as
//! `EXE fork-join --child PROGRAM RUNNER THREADS ...` ([`Settings::child_args`]): the
//! first word is [`SUBCOMMAND`], so the children of `prescient-bench` (or of
//! any binary that dispatches the same subcommands) land in this table, and
//! the `suite` alias accepts and ignores that leading word.

use std::path::PathBuf;
use std::time::Duration;

use super::config::{Program, Runner};
use crate::cli::{self, CommonArgs, Size};
use crate::competing::CompetingArgs;
use crate::programs::tree::Layout;

/// The table's subcommand name: the `table` of its JSON and the first word
/// of its children's arguments.
pub const SUBCOMMAND: &str = "fork-join";
/// Where the JSON goes unless `--json` says otherwise.
pub const DEFAULT_JSON: &str = "target/prescient-suite.json";
/// Where `--profile` writes unless `--profile-dir` says otherwise.
pub const DEFAULT_PROFILE_DIR: &str = "target/profile";

/// Fork-join programs (fib, tree sums) against rayon, chili and sequential.
///
/// Runs every program x runner x thread count in its own child process and
/// prints a table of times, T/Tseq, overhead per join, speedups, ratios to
/// rayon and chili, peak RSS and Prescient's suspensions; then the idle CPU
/// of each runtime; then writes JSON (default target/prescient-suite.json).
///
/// Programs: fib (fib(35)), tree1k (a balanced tree of 1023 nodes), tree16m
/// (2^24 - 1 nodes). Runners: seq, prescient-default, prescient-never,
/// prescient-def-c4, prescient-pf-c4, rayon, chili.
///
/// With --competing N, N busy processes (one CPU spin loop each) share the
/// CPUs with every child while it measures.
///
/// With --profile, instead profiles one program under one Prescient runner
/// at each thread count with the critical-path profiler (needs the `trace`
/// feature: cargo bench-run prescient-bench --features trace -- fork-join --profile fib) and
/// writes its report, Chrome trace and SVG.
///
/// Thread counts come from --threads, else from the environment variable
/// PRESCIENT_BENCH_THREADS (same syntax), else 1,2 (capped at the available
/// parallelism); the command line wins.
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The flags every table shares (`--quick`: a few samples per
    /// configuration, the whole suite in about a minute on two cores).
    #[command(flatten)]
    pub common: CommonArgs,
    /// `--competing N`: busy processes beside the children.
    #[command(flatten)]
    pub competing: CompetingArgs,
    /// Comma-separated subset of the programs: fib, tree1k, tree16m.
    #[arg(long, value_name = "PROGRAMS", value_delimiter = ',')]
    pub only: Vec<Program>,
    /// Comma-separated subset of the runners: seq, prescient-default,
    /// prescient-never, prescient-def-c4, prescient-pf-c4, rayon, chili.
    #[arg(long, value_name = "RUNNERS", value_delimiter = ',')]
    pub runners: Vec<Runner>,
    /// Skip the idle-CPU measurement.
    #[arg(long)]
    pub no_idle: bool,
    /// Kill a child that runs longer (default 300 with --quick or
    /// --test-size, 1800 otherwise).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<Duration>,
    /// Allocation order of the trees' nodes: level-order (default; neutral
    /// between left- and right-first traversals), pre-order (Spice's Zig
    /// builder) or post-order (chili's and Spice's Rust builders).
    #[arg(long, value_name = "LAYOUT", value_parser = parse_layout)]
    pub tree_layout: Option<Layout>,
    /// Profile PROGRAM (fib, tree1k or tree16m) under the first Prescient
    /// runner of --runners (default prescient-default) instead of running
    /// the suite.
    #[arg(long, value_name = "PROGRAM", conflicts_with = "competing")]
    pub profile: Option<Program>,
    /// Where the profiles go (default target/profile): one folder
    /// PROGRAM-RUNNER-tTHREADS per thread count.
    #[arg(long, value_name = "DIR")]
    pub profile_dir: Option<PathBuf>,
    /// Hidden: measure one configuration as a child process.
    #[arg(
        long,
        hide = true,
        num_args = 3,
        value_names = ["PROGRAM", "RUNNER", "THREADS"],
        conflicts_with_all = ["child_idle", "profile"]
    )]
    pub child: Option<Vec<String>>,
    /// Hidden: measure the CPU time of an idle pool as a child process.
    #[arg(
        long,
        hide = true,
        num_args = 2,
        value_names = ["RUNNER", "THREADS"],
        conflicts_with = "profile"
    )]
    pub child_idle: Option<Vec<String>>,
}

fn parse_timeout(s: &str) -> Result<Duration, String> {
    s.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s > 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("bad timeout `{s}` (seconds, > 0)"))
}

fn parse_layout(name: &str) -> Result<Layout, String> {
    Layout::parse(name).ok_or_else(|| {
        format!("unknown tree layout `{name}` (level-order, pre-order or post-order)")
    })
}

/// What the options ask for, resolved ([`Options::command`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Run the suite as the parent.
    Suite(Settings),
    /// Measure one configuration (hidden: `--child PROGRAM RUNNER THREADS`).
    Child {
        /// The program to run.
        program: Program,
        /// The runner that runs it.
        runner: Runner,
        /// The number of threads of its pool.
        threads: usize,
        /// The size of the suite's run.
        size: Size,
        /// The allocation order of a tree's nodes.
        layout: Layout,
    },
    /// Profile one program (`--profile PROGRAM`).
    Profile(ProfileOptions),
    /// Measure an idle pool's CPU time (hidden: `--child-idle RUNNER THREADS`).
    Idle {
        /// The runner whose pool idles.
        runner: Runner,
        /// The number of threads of its pool.
        threads: usize,
        /// The size of the suite's run (the idle time shrinks at
        /// [`Size::Test`]).
        size: Size,
    },
}

/// What `--profile` profiles, and where the profiles go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProfileOptions {
    /// The program.
    pub program: Program,
    /// The Prescient runner whose parameters the runtime gets.
    pub runner: Runner,
    /// The thread counts, one profile each.
    pub threads: Vec<usize>,
    /// The input size.
    pub size: Size,
    /// The allocation order of a tree's nodes.
    pub layout: Layout,
    /// The folder that receives one folder per profile.
    pub dir: PathBuf,
}

/// The parent's settings, resolved from [`Options`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The size: full, `--quick` (few samples) or `--test-size`.
    pub size: Size,
    /// The thread counts, ascending, without duplicates.
    pub threads: Vec<usize>,
    /// Where to write the JSON.
    pub json: PathBuf,
    /// The programs to run, in the suite's order.
    pub programs: Vec<Program>,
    /// The runners to run, in the suite's order.
    pub runners: Vec<Runner>,
    /// Whether to measure the idle CPU.
    pub idle: bool,
    /// How long a child may run before it is killed.
    pub timeout: Duration,
    /// The allocation order of the trees' nodes.
    pub tree_layout: Layout,
    /// The competing busy processes that run while the children measure
    /// (`--competing`; see [`crate::competing`]).
    pub competing: usize,
}

impl Settings {
    /// The settings of a run at `size` on `threads` with every default.
    pub fn new(size: Size, threads: Vec<usize>) -> Settings {
        Settings {
            size,
            threads,
            json: PathBuf::from(DEFAULT_JSON),
            programs: Program::ALL.to_vec(),
            runners: Runner::ALL.to_vec(),
            idle: true,
            timeout: default_timeout(size),
            tree_layout: Layout::DEFAULT,
            competing: 0,
        }
    }

    /// Every configuration to run, in order: per program, the sequential
    /// reference first (once, at one thread), then per thread count every
    /// parallel runner.
    pub fn configurations(&self) -> Vec<(Program, Runner, usize)> {
        let mut out = Vec::new();
        for &program in &self.programs {
            if self.runners.contains(&Runner::Seq) {
                out.push((program, Runner::Seq, 1));
            }
            for &threads in &self.threads {
                for &runner in self.runners.iter().filter(|r| r.is_parallel()) {
                    out.push((program, runner, threads));
                }
            }
        }
        out
    }

    /// The child arguments (after the executable) that measure one
    /// configuration: `fork-join --child PROGRAM RUNNER THREADS [--quick |
    /// --test-size] --tree-layout LAYOUT`.
    pub fn child_args(&self, program: Program, runner: Runner, threads: usize) -> Vec<String> {
        let mut args = child_args(&["--child", program.name(), runner.name()], threads);
        args.extend(size_flag(self.size).map(String::from));
        args.push("--tree-layout".to_string());
        args.push(self.tree_layout.name().to_string());
        args
    }

    /// The child arguments that measure `runner`'s idle CPU at `threads`:
    /// `fork-join --child-idle RUNNER THREADS [--quick | --test-size]`.
    pub fn idle_args(&self, runner: Runner, threads: usize) -> Vec<String> {
        let mut args = child_args(&["--child-idle", runner.name()], threads);
        args.extend(size_flag(self.size).map(String::from));
        args
    }
}

/// `[SUBCOMMAND, words..., threads]` as owned strings.
fn child_args(words: &[&str], threads: usize) -> Vec<String> {
    std::iter::once(SUBCOMMAND)
        .chain(words.iter().copied())
        .map(String::from)
        .chain(std::iter::once(threads.to_string()))
        .collect()
}

/// The flag that gives a child the size, if not full.
pub fn size_flag(size: Size) -> Option<&'static str> {
    match size {
        Size::Full => None,
        Size::Quick => Some("--quick"),
        Size::Test => Some("--test-size"),
    }
}

/// The default child timeout: 30 minutes at full size, 5 below.
pub const fn default_timeout(size: Size) -> Duration {
    match size {
        Size::Full => Duration::from_secs(1800),
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

/// Joins displayable items with commas.
pub fn join_list<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

impl Options {
    /// What the options ask for: a child's measurement, a profile, or the
    /// suite. A child ignores the thread list (and so an invalid
    /// `PRESCIENT_BENCH_THREADS`).
    ///
    /// # Errors
    /// An invalid child argument or thread list from the environment, or a
    /// `--profile` without a Prescient runner.
    pub fn command(&self) -> Result<Command, String> {
        let size = self.common.size();
        let layout = self.tree_layout.unwrap_or(Layout::DEFAULT);
        let count = |flag: &str, s: &str| cli::parse_count(s).map_err(|e| format!("{flag}: {e}"));
        let runner = |s: &str| s.parse::<Runner>();
        if let Some(words) = &self.child {
            let [program, r, threads] = words.as_slice() else {
                return Err("--child takes PROGRAM RUNNER THREADS".to_string());
            };
            return Ok(Command::Child {
                program: program.parse()?,
                runner: runner(r)?,
                threads: count("--child", threads)?,
                size,
                layout,
            });
        }
        if let Some(words) = &self.child_idle {
            let [r, threads] = words.as_slice() else {
                return Err("--child-idle takes RUNNER THREADS".to_string());
            };
            return Ok(Command::Idle {
                runner: runner(r)?,
                threads: count("--child-idle", threads)?,
                size,
            });
        }
        let threads = self.common.threads()?;
        let runners = subset(&Runner::ALL, &self.runners);
        if let Some(program) = self.profile {
            let runner = runners
                .iter()
                .copied()
                .find(|r| r.params().is_some())
                .ok_or("--profile needs a Prescient runner in --runners")?;
            return Ok(Command::Profile(ProfileOptions {
                program,
                runner,
                threads,
                size,
                layout,
                dir: self
                    .profile_dir
                    .clone()
                    .unwrap_or_else(|| PathBuf::from(DEFAULT_PROFILE_DIR)),
            }));
        }
        Ok(Command::Suite(Settings {
            json: self
                .common
                .json
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_JSON)),
            programs: subset(&Program::ALL, &self.only),
            runners,
            idle: !self.no_idle,
            timeout: self.timeout.unwrap_or(default_timeout(size)),
            tree_layout: layout,
            competing: self.competing.competing,
            ..Settings::new(size, threads)
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The options parsed as `prescient-bench fork-join` parses them.
    fn parse(s: &str) -> Result<Command, String> {
        crate::cli::parse_words::<Options>("suite", s.split_whitespace())
            .map_err(|e| e.to_string())?
            .command()
    }

    fn suite(s: &str) -> Settings {
        match parse(s).unwrap() {
            Command::Suite(o) => o,
            other => panic!("not a suite command: {other:?}"),
        }
    }

    #[test]
    fn profile_takes_one_program_and_the_first_prescient_runner() {
        let parsed = parse("--profile tree1k --threads 1,4 --profile-dir /tmp/p");
        let Ok(Command::Profile(p)) = parsed else {
            panic!("not a profile command: {parsed:?}");
        };
        assert_eq!(p.program, Program::Tree1k);
        assert_eq!(p.runner, Runner::PrescientDefault);
        assert_eq!(p.threads, vec![1, 4]);
        assert_eq!(p.dir, PathBuf::from("/tmp/p"));
        let Ok(Command::Profile(p)) = parse("--profile fib --runners rayon,prescient-never") else {
            panic!("not a profile command");
        };
        assert_eq!(p.runner, Runner::PrescientNever);
        assert_eq!(p.dir, PathBuf::from("target/profile"));
        assert!(parse("--profile nope").is_err());
        assert!(parse("--profile fib --runners rayon").is_err());
    }

    #[test]
    fn defaults() {
        // The thread list comes from --threads here: the environment of a
        // test run may set PRESCIENT_BENCH_THREADS.
        let o = suite("--threads 1,2");
        assert_eq!(o, Settings::new(Size::Full, vec![1, 2]));
        assert!(o.idle);
        assert_eq!(o.json, PathBuf::from("target/prescient-suite.json"));
        assert_eq!(o.programs, Program::ALL.to_vec());
        assert_eq!(o.timeout, Duration::from_secs(1800));
        assert_eq!(o.tree_layout, Layout::LevelOrder);
        assert_eq!(o.competing, 0);
        assert_eq!(
            suite("--tree-layout post-order --threads 1").tree_layout,
            Layout::PostOrder
        );
        assert!(parse("--tree-layout sideways").is_err());
        assert_eq!(suite("--threads=2,1").threads, vec![1, 2]);
        assert!(parse("--threads 1,1").is_err());
        assert_eq!(suite("--test-size --threads 1").size, Size::Test);
        assert!(parse("--quick --test-size").is_err());
    }

    #[test]
    fn flags() {
        let o = suite(
            "--quick --only tree1k,fib --runners rayon,seq --json /tmp/x.json --no-idle \
             --timeout 5 --threads 1,2",
        );
        assert!(o.size == Size::Quick && !o.idle);
        assert_eq!(o.programs, vec![Program::Fib, Program::Tree1k]);
        assert_eq!(o.runners, vec![Runner::Seq, Runner::Rayon]);
        assert_eq!(o.json, PathBuf::from("/tmp/x.json"));
        assert_eq!(o.timeout, Duration::from_secs(5));
        assert_eq!(suite("--competing 3 --threads 1").competing, 3);
        assert!(parse("--competing -1").is_err());
        assert!(parse("--profile fib --competing 1").is_err());
        assert_eq!(
            o.configurations(),
            vec![
                (Program::Fib, Runner::Seq, 1),
                (Program::Fib, Runner::Rayon, 1),
                (Program::Fib, Runner::Rayon, 2),
                (Program::Tree1k, Runner::Seq, 1),
                (Program::Tree1k, Runner::Rayon, 1),
                (Program::Tree1k, Runner::Rayon, 2),
            ]
        );
        assert!(parse("--only nope").is_err());
        assert!(parse("--threads").is_err());
        assert!(parse("--bogus").is_err());
        assert!(parse("--timeout -1").is_err());
        let help = crate::cli::parse_words::<Options>("suite", ["--help"]).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        let text = help.to_string();
        for needle in [
            "--only",
            "--runners",
            "--no-idle",
            "--tree-layout",
            "--json",
            "--competing",
        ] {
            assert!(text.contains(needle), "{needle}: {text}");
        }
        assert!(!text.contains("--child"), "{text}");
    }

    #[test]
    fn child_commands_round_trip() {
        let mut settings = Settings::new(Size::Quick, vec![2]);
        settings.tree_layout = Layout::PostOrder;
        let args = settings.child_args(Program::Tree16m, Runner::PrescientPfCap4, 2);
        assert_eq!(args[0], SUBCOMMAND);
        // The child's words after the subcommand parse back.
        assert_eq!(
            parse(&args[1..].join(" ")).unwrap(),
            Command::Child {
                program: Program::Tree16m,
                runner: Runner::PrescientPfCap4,
                threads: 2,
                size: Size::Quick,
                layout: Layout::PostOrder,
            }
        );
        let test = Settings::new(Size::Test, vec![4]);
        let args = test.idle_args(Runner::Chili, 4);
        assert_eq!(
            parse(&args[1..].join(" ")).unwrap(),
            Command::Idle {
                runner: Runner::Chili,
                threads: 4,
                size: Size::Test,
            }
        );
        assert!(parse("--child fib rayon 0").is_err());
        assert!(parse("--child fib rayon").is_err());
        assert!(parse("--child fib nope 1").is_err());
    }
}
