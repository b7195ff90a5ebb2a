//! The `cf17` binary's command line: the shared flags and thread list of
//! every benchmark binary ([`crate::cli`]) plus its own flags and the hidden
//! ones of its child processes.

use std::path::PathBuf;
use std::time::Duration;

use super::runner::Runner;
use crate::cf17::workloads::{known_name, NAMES};
use crate::cf17::Size;
use crate::cli::{self, Parsed};

/// The default JSON path.
pub const DEFAULT_JSON: &str = "target/cf17/cf17.json";
/// The default directory of the plots.
pub const DEFAULT_PLOTS: &str = "target/cf17";

/// The usage text of the `cf17` binary (its shared flags are those of every
/// benchmark binary: [`crate::cli::usage`]).
pub fn usage() -> String {
    cli::usage(
        "cf17 [--quick | --paper | --size SIZE] [--threads LIST] [--reps N]
            [--only PROGRAMS] [--runners RUNNERS] [--json PATH] [--plots DIR]
            [--timeout SECONDS]",
        &format!(
            "Runs the CF'17 suite: every program x runner x thread count in its own child
process (one warm-up run, then N timed and verified runs inside one pool
entry). Prints per program the median and fastest time, T/Tseq, the speedup
over the runner's one-thread time, Tdef/T (the speedup over Prescient with
default parameters: > 1 is faster), the peak RSS and Prescient's counters;
then per thread count the geometric mean over the programs of the speedup of
tuned over default (T_default / T_tuned), of cf17 over default, the peak-RSS
ratio tuned/default and the speedup of tuned over rayon. Writes JSON and three
SVG plots (speedup.svg, tuned_vs_default.svg, memory.svg).

Programs: {}.
Runners: seq, default (Params::DEFAULT), tuned (the program's analysed
PARAMS), cf17 (CF'17's decision trees on the analysis), rayon, chili.",
            NAMES.join(", ")
        ),
        "the quick inputs (sequential runs of about 20-300 ms)
                      and 3 timed runs each; without it, the inputs of the
                      CF'17 paper (Table 2) and 5 timed runs",
        "  --paper             the paper's inputs (the default)
  --size SIZE         test, quick or paper
  --reps N            timed runs per configuration (default 5, 3 with --quick)
  --only PROGRAMS     comma-separated subset of the programs
  --runners RUNNERS   comma-separated subset of the runners
  --json PATH         where to write the JSON (default target/cf17/cf17.json)
  --plots DIR         where to write the SVG plots (default target/cf17/)
  --timeout SECONDS   kill a child that runs longer (default 300 with
                      --quick, 1800 otherwise)
",
    )
}

/// What the `cf17` binary was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// Print the [`usage`].
    Help,
    /// Run the suite as the parent.
    Run(Options),
    /// Measure one configuration (hidden: `--child PROGRAM RUNNER THREADS
    /// --size SIZE --reps N`).
    Child(ChildSpec),
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
    /// The hidden arguments that make the binary measure this configuration.
    pub fn args(&self) -> Vec<String> {
        vec![
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

/// The parent's options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
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

impl Options {
    /// The options of a run at `size` with every default: every program and
    /// runner, the threads given, the default repetitions, JSON and plots.
    pub fn new(size: Size, threads: Vec<usize>) -> Options {
        Options {
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
}

/// The default number of timed runs: 5 at the paper's size, 3 below.
pub const fn default_reps(size: Size) -> usize {
    match size {
        Size::Paper => 5,
        Size::Quick | Size::Test => 3,
    }
}

/// The default child timeout: 30 minutes at the paper's size, 5 below.
pub const fn default_timeout(size: Size) -> Duration {
    match size {
        Size::Paper => Duration::from_secs(1800),
        Size::Quick | Size::Test => Duration::from_secs(300),
    }
}

fn runner(name: &str) -> Result<Runner, String> {
    Runner::parse(name).ok_or_else(|| format!("unknown runner `{name}`"))
}

/// Parses a comma-separated list with `parse`, returning the items of `all`
/// it names, in `all`'s order.
fn parse_list<T: Copy + PartialEq>(
    spec: &str,
    all: &[T],
    parse: fn(&str) -> Result<T, String>,
    what: &str,
) -> Result<Vec<T>, String> {
    let mut wanted = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        wanted.push(parse(part)?);
    }
    if wanted.is_empty() {
        return Err(format!("empty {what} list"));
    }
    Ok(all.iter().copied().filter(|x| wanted.contains(x)).collect())
}

/// Parses the arguments (without the program name) by the convention of
/// every benchmark binary ([`crate::cli::parse`]). `env_threads` is the
/// value of [`THREADS_ENV`](crate::cli::THREADS_ENV), `max_threads` the
/// available parallelism.
///
/// # Errors
/// The message of the first bad argument.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    env_threads: Option<&str>,
    max_threads: usize,
) -> Result<Command, String> {
    let mut size = None;
    let mut reps = None;
    let mut programs = NAMES.to_vec();
    let mut runners = Runner::ALL.to_vec();
    let mut json = PathBuf::from(DEFAULT_JSON);
    let mut plots = PathBuf::from(DEFAULT_PLOTS);
    let mut timeout = None;
    let mut child = None;

    let mut set_size = |new: Size| -> Result<(), String> {
        match size {
            Some(old) if old != new => Err(format!(
                "conflicting sizes: {} and {}",
                Size::name(old),
                new.name()
            )),
            _ => {
                size = Some(new);
                Ok(())
            }
        }
    };
    let parsed = cli::parse(args, max_threads, |flag, args| {
        match flag {
            "--paper" => set_size(Size::Paper)?,
            "--size" => {
                let name = args.value(flag)?;
                set_size(
                    Size::parse(&name)
                        .ok_or_else(|| format!("unknown size `{name}` (test, quick, paper)"))?,
                )?;
            }
            "--reps" => reps = Some(args.positive(flag)?),
            "--only" => programs = parse_list(&args.value(flag)?, &NAMES, known_name, "program")?,
            "--runners" => {
                runners = parse_list(&args.value(flag)?, &Runner::ALL, runner, "runner")?
            }
            "--json" => json = PathBuf::from(args.value(flag)?),
            "--plots" => plots = PathBuf::from(args.value(flag)?),
            "--timeout" => {
                let s = args.value(flag)?;
                let secs = s
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s > 0.0)
                    .ok_or_else(|| format!("bad timeout `{s}`"))?;
                timeout = Some(Duration::from_secs_f64(secs));
            }
            "--child" => {
                let p = known_name(&args.value(flag)?)?;
                let r = runner(&args.positional(flag)?)?;
                let t = cli::parse_count(&args.positional(flag)?)
                    .map_err(|e| format!("{flag}: {e}"))?;
                child = Some((p, r, t));
            }
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    let common = match parsed {
        Parsed::Help => return Ok(Command::Help),
        Parsed::Run(common) => common,
    };
    if common.quick {
        set_size(Size::Quick)?;
    }
    let size = size.unwrap_or(Size::Paper);
    let reps = reps.unwrap_or(default_reps(size));
    if let Some((program, runner, threads)) = child {
        return Ok(Command::Child(ChildSpec {
            program,
            runner,
            threads,
            size,
            reps,
        }));
    }
    Ok(Command::Run(Options {
        size,
        threads: common.threads(env_threads, max_threads)?,
        reps,
        programs,
        runners,
        json,
        plots,
        timeout: timeout.unwrap_or(default_timeout(size)),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn run(s: &str) -> Options {
        match parse(args(s), None, 4) {
            Ok(Command::Run(options)) => options,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let o = run("");
        assert_eq!(o, Options::new(Size::Paper, vec![1, 2]));
        assert_eq!(o.reps, 5);
        assert_eq!(o.json, PathBuf::from("target/cf17/cf17.json"));
        assert_eq!(o.plots, PathBuf::from("target/cf17"));
        assert_eq!(o.programs, NAMES.to_vec());
        assert_eq!(o.timeout, Duration::from_secs(1800));
        let q = run("--quick");
        assert_eq!((q.size, q.reps), (Size::Quick, 3));
        assert_eq!(q.timeout, Duration::from_secs(300));
        assert_eq!(run("--paper").size, Size::Paper);
        assert_eq!(run("--size test").size, Size::Test);
        assert_eq!(run("--quick --size=quick").size, Size::Quick);
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
    fn threads_from_the_environment() {
        let o = match parse(args("--quick"), Some("1,3"), 4) {
            Ok(Command::Run(o)) => o,
            other => panic!("{other:?}"),
        };
        assert_eq!(o.threads, vec![1, 3]);
        let o = match parse(args("--threads 2"), Some("1,3"), 4) {
            Ok(Command::Run(o)) => o,
            other => panic!("{other:?}"),
        };
        assert_eq!(o.threads, vec![2]);
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
        assert_eq!(parse(spec.args(), None, 4), Ok(Command::Child(spec)));
        assert_eq!(
            parse(args("--child fib rayon 2 --quick"), None, 4),
            Ok(Command::Child(ChildSpec {
                program: "fib",
                runner: Runner::Rayon,
                threads: 2,
                size: Size::Quick,
                reps: 3,
            }))
        );
    }

    #[test]
    fn errors() {
        let err = |s: &str| parse(args(s), None, 4).unwrap_err();
        assert!(err("--only nope").starts_with("unknown program `nope`"));
        assert_eq!(err("--runners seq,nope"), "unknown runner `nope`");
        assert_eq!(err("--runners ,"), "empty runner list");
        assert_eq!(err("--reps 0"), "--reps \"0\": not a number >= 1");
        assert_eq!(
            err("--size huge"),
            "unknown size `huge` (test, quick, paper)"
        );
        assert_eq!(err("--quick --paper"), "conflicting sizes: paper and quick");
        assert_eq!(err("--timeout -1"), "bad timeout `-1`");
        assert_eq!(err("--child fib tuned"), "--child needs a value");
        assert!(err("--child fib tuned 0").contains("at least 1"));
        assert_eq!(err("--bogus"), "unknown argument `--bogus`");
        assert_eq!(parse(args("--help --bogus"), None, 4), Ok(Command::Help));
    }

    #[test]
    fn usage_names_everything() {
        let text = usage();
        for needle in [
            "--paper",
            "--reps N",
            "--plots DIR",
            "--only",
            "fib",
            "T_default / T_tuned",
        ] {
            assert!(text.contains(needle), "{needle}");
        }
    }
}
