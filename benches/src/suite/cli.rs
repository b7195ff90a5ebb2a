//! The suite's command line: the shared flags and thread list of every
//! benchmark binary ([`crate::cli`]) plus the suite's own flags and the
//! hidden ones of its child processes.

use std::path::PathBuf;
use std::time::Duration;

use super::config::{Program, Runner};
use crate::cli::{self, Args, Parsed};
use crate::programs::tree::Layout;

/// The usage text of the `suite` binary (its shared flags are those of
/// every benchmark binary: [`crate::cli::usage`]).
pub fn usage() -> String {
    cli::usage(
        "suite [--quick] [--threads LIST] [--only PROGRAMS] [--runners RUNNERS]
             [--json PATH] [--no-idle] [--timeout SECONDS] [--tree-layout LAYOUT]
       suite --profile PROGRAM [--runners RUNNER] [--threads LIST] [--profile-dir DIR]",
        "Runs every program x runner x thread count in its own child process and
prints a table of times, T/Tseq, overhead per join, speedups, ratios to rayon
and chili, peak RSS and Prescient's suspensions; then the idle CPU of each
runtime; then writes JSON. With --profile, instead profiles one program under
one Prescient runner at each thread count with the critical-path profiler
(needs the `trace` feature: cargo bench-run suite --features trace --
--profile fib) and writes its report, Chrome
trace and SVG.",
        "a few samples per configuration (the whole suite in
                      about a minute on two cores)",
        "  --only PROGRAMS     comma-separated subset of: fib, tree1k, tree16m
  --runners RUNNERS   comma-separated subset of: seq, prescient-default,
                      prescient-never, prescient-def-c4, prescient-pf-c4, rayon, chili
  --json PATH         where to write the JSON (default target/prescient-suite.json)
  --no-idle           skip the idle-CPU measurement
  --timeout SECONDS   kill a child that runs longer (default 300 quick, 1800 full)
  --tree-layout LAYOUT  allocation order of the trees' nodes: level-order
                      (default; neutral between left- and right-first
                      traversals), pre-order (Spice's Zig builder) or
                      post-order (chili's and Spice's Rust builders)
  --profile PROGRAM   profile PROGRAM (one of the above) under the first
                      Prescient runner of --runners (default
                      prescient-default) instead of running the suite
  --profile-dir DIR   where the profiles go (default target/profile): one
                      folder PROGRAM-RUNNER-tTHREADS per thread count
",
    )
}

/// What the `suite` binary was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Print the [`usage`].
    Help,
    /// Run the suite as the parent.
    Suite(Options),
    /// Measure one configuration (hidden: `--child PROGRAM RUNNER THREADS`).
    Child {
        /// The program to run.
        program: Program,
        /// The runner that runs it.
        runner: Runner,
        /// The number of threads of its pool.
        threads: usize,
        /// Whether the suite runs in quick mode.
        quick: bool,
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
    /// Smaller inputs (`--quick`).
    pub quick: bool,
    /// The allocation order of a tree's nodes.
    pub layout: Layout,
    /// The folder that receives one folder per profile.
    pub dir: PathBuf,
}

/// The parent's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// Few samples per configuration.
    pub quick: bool,
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
}

impl Options {
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
}

fn parse_list<T: Copy + PartialEq>(
    spec: &str,
    all: &[T],
    parse: fn(&str) -> Option<T>,
    what: &str,
) -> Result<Vec<T>, String> {
    let mut wanted = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        wanted.push(parse(part).ok_or_else(|| format!("unknown {what} `{part}`"))?);
    }
    if wanted.is_empty() {
        return Err(format!("empty {what} list"));
    }
    Ok(all.iter().copied().filter(|x| wanted.contains(x)).collect())
}

/// Joins displayable items with commas.
pub fn join_list<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Parses the arguments (without the program name) by the convention of
/// every benchmark binary ([`crate::cli::parse`]). `env_threads` is the
/// value of [`THREADS_ENV`](crate::cli::THREADS_ENV), `max_threads` the
/// available parallelism.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    max_threads: usize,
) -> Result<Command, String> {
    let mut json = PathBuf::from("target/prescient-suite.json");
    let mut programs = Program::ALL.to_vec();
    let mut runners = Runner::ALL.to_vec();
    let mut idle = true;
    let mut timeout = None;
    let mut child = None;
    let mut idle_child = None;
    let mut tree_layout = Layout::DEFAULT;
    let mut profile = None;
    let mut profile_dir = PathBuf::from("target/profile");

    fn runner(name: &str) -> Result<Runner, String> {
        Runner::parse(name).ok_or_else(|| format!("unknown runner `{name}`"))
    }
    fn count(args: &mut Args, flag: &str) -> Result<usize, String> {
        let s = args.positional(flag)?;
        cli::parse_count(&s).map_err(|e| format!("{flag}: {e}"))
    }

    let parsed = cli::parse(args, max_threads, |flag, args| {
        match flag {
            "--no-idle" => idle = false,
            "--json" => json = PathBuf::from(args.value(flag)?),
            "--only" => {
                programs =
                    parse_list(&args.value(flag)?, &Program::ALL, Program::parse, "program")?;
            }
            "--runners" => {
                runners = parse_list(&args.value(flag)?, &Runner::ALL, Runner::parse, "runner")?;
            }
            "--timeout" => {
                let s = args.value(flag)?;
                let secs = s
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("bad timeout `{s}`"))?;
                timeout = Some(Duration::from_secs_f64(secs));
            }
            "--tree-layout" => {
                let name = args.value(flag)?;
                tree_layout =
                    Layout::parse(&name).ok_or_else(|| format!("unknown tree layout `{name}`"))?;
            }
            "--child" => {
                let program = args.value(flag)?;
                let program = Program::parse(&program)
                    .ok_or_else(|| format!("unknown program `{program}`"))?;
                let runner = runner(&args.positional(flag)?)?;
                child = Some((program, runner, count(args, flag)?));
            }
            "--profile" => {
                let name = args.value(flag)?;
                profile =
                    Some(Program::parse(&name).ok_or_else(|| format!("unknown program `{name}`"))?);
            }
            "--profile-dir" => profile_dir = PathBuf::from(args.value(flag)?),
            "--child-idle" => {
                let runner = runner(&args.value(flag)?)?;
                idle_child = Some((runner, count(args, flag)?));
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let common = match parsed {
        Parsed::Help => return Ok(Command::Help),
        Parsed::Run(common) => common,
    };
    let quick = common.quick;

    if let Some((program, runner, threads)) = child {
        return Ok(Command::Child {
            program,
            runner,
            threads,
            quick,
            layout: tree_layout,
        });
    }
    if let Some((runner, threads)) = idle_child {
        return Ok(Command::Idle { runner, threads });
    }
    let threads = common.threads(env_threads, max_threads)?;
    if let Some(program) = profile {
        let runner = runners
            .iter()
            .copied()
            .find(|r| r.params().is_some())
            .ok_or("--profile needs a Prescient runner in --runners")?;
        return Ok(Command::Profile(ProfileOptions {
            program,
            runner,
            threads,
            quick,
            layout: tree_layout,
            dir: profile_dir,
        }));
    }
    let timeout = timeout.unwrap_or(Duration::from_secs(if quick { 300 } else { 1800 }));
    Ok(Command::Suite(Options {
        quick,
        threads,
        json,
        programs,
        runners,
        idle,
        timeout,
        tree_layout,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn suite(s: &str, env: Option<&str>, max: usize) -> Options {
        match parse(args(s), env, max).unwrap() {
            Command::Suite(o) => o,
            other => panic!("not a suite command: {other:?}"),
        }
    }

    #[test]
    fn profile_takes_one_program_and_the_first_prescient_runner() {
        let parsed = parse(
            args("--profile tree1k --threads 1,4 --profile-dir /tmp/p"),
            None,
            2,
        );
        let Ok(Command::Profile(p)) = parsed else {
            panic!("not a profile command: {parsed:?}");
        };
        assert_eq!(p.program, Program::Tree1k);
        assert_eq!(p.runner, Runner::PrescientDefault);
        assert_eq!(p.threads, vec![1, 4]);
        assert_eq!(p.dir, PathBuf::from("/tmp/p"));
        let Ok(Command::Profile(p)) = parse(
            args("--profile fib --runners rayon,prescient-never"),
            None,
            2,
        ) else {
            panic!("not a profile command");
        };
        assert_eq!(p.runner, Runner::PrescientNever);
        assert_eq!(p.dir, PathBuf::from("target/profile"));
        assert!(parse(args("--profile nope"), None, 2).is_err());
        assert!(parse(args("--profile fib --runners rayon"), None, 2).is_err());
    }

    #[test]
    fn defaults_and_precedence() {
        let o = suite("", None, 2);
        assert!(!o.quick && o.idle);
        assert_eq!(o.threads, vec![1, 2]);
        assert_eq!(o.json, PathBuf::from("target/prescient-suite.json"));
        assert_eq!(o.programs, Program::ALL.to_vec());
        assert_eq!(o.timeout, Duration::from_secs(1800));
        assert_eq!(o.tree_layout, Layout::LevelOrder);
        assert_eq!(
            suite("--tree-layout post-order", None, 2).tree_layout,
            Layout::PostOrder
        );
        assert!(parse(args("--tree-layout sideways"), None, 2).is_err());
        assert_eq!(suite("", Some("all"), 4).threads, vec![1, 2, 4]);
        assert_eq!(suite("--threads 1", Some("all"), 4).threads, vec![1]);
        assert_eq!(suite("--threads=2,1", None, 4).threads, vec![1, 2]);
        assert_eq!(suite("", None, 1).threads, vec![1]);
        assert!(parse(args(""), Some("zero"), 4).is_err());
        assert!(parse(args("--threads 1,1"), None, 4).is_err());
    }

    #[test]
    fn flags() {
        let o = suite(
            "--quick --only tree1k,fib --runners rayon,seq --json /tmp/x.json --no-idle --timeout 5",
            None,
            2,
        );
        assert!(o.quick && !o.idle);
        assert_eq!(o.programs, vec![Program::Fib, Program::Tree1k]);
        assert_eq!(o.runners, vec![Runner::Seq, Runner::Rayon]);
        assert_eq!(o.json, PathBuf::from("/tmp/x.json"));
        assert_eq!(o.timeout, Duration::from_secs(5));
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
        assert!(parse(args("--only nope"), None, 2).is_err());
        assert!(parse(args("--threads"), None, 2).is_err());
        assert!(parse(args("--bogus"), None, 2).is_err());
        assert_eq!(parse(args("--help"), None, 2).unwrap(), Command::Help);
    }

    #[test]
    fn child_commands() {
        assert_eq!(
            parse(args("--child tree16m prescient-pf-c4 2 --quick"), None, 2).unwrap(),
            Command::Child {
                program: Program::Tree16m,
                runner: Runner::PrescientPfCap4,
                threads: 2,
                quick: true,
                layout: Layout::LevelOrder,
            }
        );
        assert_eq!(
            parse(args("--child-idle chili 4"), None, 2).unwrap(),
            Command::Idle {
                runner: Runner::Chili,
                threads: 4
            }
        );
        assert!(parse(args("--child fib rayon 0"), None, 2).is_err());
        assert!(parse(args("--child fib rayon"), None, 2).is_err());
        // A child ignores the thread list of the environment.
        assert!(parse(args("--child-idle chili 4"), Some("zero"), 2).is_ok());
    }
}
