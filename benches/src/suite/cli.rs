//! The suite's command line.

use std::path::PathBuf;
use std::time::Duration;

use super::{Program, Runner, THREADS_ENV};
use crate::programs::tree::Layout;

/// The usage text of the `suite` binary.
pub const USAGE: &str = "\
usage: suite [--quick] [--threads LIST] [--only PROGRAMS] [--runners RUNNERS]
             [--json PATH] [--no-idle] [--timeout SECONDS] [--tree-layout LAYOUT]

Runs every program x runner x thread count in its own child process and
prints a table of times, T/Tseq, overhead per join, speedups, ratios to rayon
and chili, peak RSS and Prescient's suspensions; then the idle CPU of each
runtime; then writes JSON.

  --quick             a few samples per configuration (the whole suite in
                      about a minute on two cores)
  --threads LIST      thread counts, e.g. 1,2,4 or `all` (1, 2, 4, ... up to
                      the available parallelism, which is included); default:
                      $PRESCIENT_BENCH_THREADS, else 1,2 capped at the
                      available parallelism
  --only PROGRAMS     comma-separated subset of: fib, tree1k, tree16m
  --runners RUNNERS   comma-separated subset of: seq, prescient-default,
                      prescient-def-c4, prescient-pf-c4, rayon, chili
  --json PATH         where to write the JSON (default target/prescient-suite.json)
  --no-idle           skip the idle-CPU measurement
  --timeout SECONDS   kill a child that runs longer (default 300 quick, 1800 full)
  --tree-layout LAYOUT  allocation order of the trees' nodes: level-order
                      (default; neutral between left- and right-first
                      traversals), pre-order (Spice's Zig builder) or
                      post-order (chili's and Spice's Rust builders)
";

/// What the `suite` binary was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Print [`USAGE`].
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
    /// Measure an idle pool's CPU time (hidden: `--child-idle RUNNER THREADS`).
    Idle {
        /// The runner whose pool idles.
        runner: Runner,
        /// The number of threads of its pool.
        threads: usize,
    },
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

/// Parses the thread list `spec` (`1,2,4` or `all`) given `max` available
/// threads. `all` is 1, 2, 4, … below `max`, then `max`. Explicit counts
/// above `max` are kept (oversubscription is allowed when asked for).
pub fn parse_threads(spec: &str, max: usize) -> Result<Vec<usize>, String> {
    let max = max.max(1);
    let mut threads = Vec::new();
    if spec.trim() == "all" {
        let mut t = 1;
        while t < max {
            threads.push(t);
            t *= 2;
        }
        threads.push(max);
    } else {
        for part in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            match part.parse::<usize>() {
                Ok(t) if t >= 1 => threads.push(t),
                _ => return Err(format!("bad thread count `{part}` in `{spec}`")),
            }
        }
    }
    threads.sort_unstable();
    threads.dedup();
    if threads.is_empty() {
        return Err(format!("empty thread list `{spec}`"));
    }
    Ok(threads)
}

/// The default thread list: 1 and 2, capped at `max`.
pub fn default_threads(max: usize) -> Vec<usize> {
    [1, 2].into_iter().filter(|&t| t <= max.max(1)).collect()
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

/// Parses the arguments (without the program name). `env_threads` is the
/// value of [`THREADS_ENV`], `max_threads` the available parallelism.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    max_threads: usize,
) -> Result<Command, String> {
    let mut args = args.into_iter();
    let mut quick = false;
    let mut threads = None;
    let mut json = PathBuf::from("target/prescient-suite.json");
    let mut programs = Program::ALL.to_vec();
    let mut runners = Runner::ALL.to_vec();
    let mut idle = true;
    let mut timeout = None;
    let mut child = None;
    let mut idle_child = None;
    let mut tree_layout = Layout::DEFAULT;

    fn value(args: &mut impl Iterator<Item = String>, flag: &str) -> Result<String, String> {
        args.next().ok_or_else(|| format!("{flag} needs a value"))
    }
    fn count(s: &str) -> Result<usize, String> {
        s.parse::<usize>()
            .ok()
            .filter(|&t| t >= 1)
            .ok_or_else(|| format!("bad thread count `{s}`"))
    }

    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut take = |name: &str| match &inline {
            Some(v) => Ok(v.clone()),
            None => value(&mut args, name),
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--quick" => quick = true,
            "--no-idle" => idle = false,
            "--threads" => threads = Some(parse_threads(&take("--threads")?, max_threads)?),
            "--json" => json = PathBuf::from(take("--json")?),
            "--only" => {
                programs = parse_list(&take("--only")?, &Program::ALL, Program::parse, "program")?;
            }
            "--runners" => {
                runners = parse_list(&take("--runners")?, &Runner::ALL, Runner::parse, "runner")?;
            }
            "--timeout" => {
                let s = take("--timeout")?;
                let secs = s
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("bad timeout `{s}`"))?;
                timeout = Some(Duration::from_secs_f64(secs));
            }
            "--tree-layout" => {
                let name = take("--tree-layout")?;
                tree_layout =
                    Layout::parse(&name).ok_or_else(|| format!("unknown tree layout `{name}`"))?;
            }
            "--child" => {
                let program = take("--child")?;
                let program = Program::parse(&program)
                    .ok_or_else(|| format!("unknown program `{program}`"))?;
                let runner = value(&mut args, "--child")?;
                let runner =
                    Runner::parse(&runner).ok_or_else(|| format!("unknown runner `{runner}`"))?;
                let threads = count(&value(&mut args, "--child")?)?;
                child = Some((program, runner, threads));
            }
            "--child-idle" => {
                let runner = take("--child-idle")?;
                let runner =
                    Runner::parse(&runner).ok_or_else(|| format!("unknown runner `{runner}`"))?;
                let threads = count(&value(&mut args, "--child-idle")?)?;
                idle_child = Some((runner, threads));
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }

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
    let threads = match (threads, env_threads.filter(|s| !s.trim().is_empty())) {
        (Some(t), _) => t,
        (None, Some(env)) => {
            parse_threads(env, max_threads).map_err(|e| format!("{THREADS_ENV}: {e}"))?
        }
        (None, None) => default_threads(max_threads),
    };
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
    fn thread_lists() {
        assert_eq!(parse_threads("1,2", 8).unwrap(), vec![1, 2]);
        assert_eq!(parse_threads(" 4, 1,2,2 ", 8).unwrap(), vec![1, 2, 4]);
        assert_eq!(parse_threads("all", 2).unwrap(), vec![1, 2]);
        assert_eq!(parse_threads("all", 1).unwrap(), vec![1]);
        assert_eq!(parse_threads("all", 6).unwrap(), vec![1, 2, 4, 6]);
        assert_eq!(
            parse_threads("all", 256).unwrap(),
            vec![1, 2, 4, 8, 16, 32, 64, 128, 256]
        );
        assert!(parse_threads("0", 4).is_err());
        assert!(parse_threads("x", 4).is_err());
        assert!(parse_threads("", 4).is_err());
        assert_eq!(default_threads(1), vec![1]);
        assert_eq!(default_threads(64), vec![1, 2]);
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
        assert!(parse(args(""), Some("zero"), 4).is_err());
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
    }
}
