//! `prescient-bench cf17`: the CF'17 suite ([`crate::cf17::workloads`])
//! under every runner, each program × runner × thread count in its own
//! child process ([`crate::harness`]); one table, one JSON file and three
//! SVG plots ([`report::write_plots`]). `--sweep` runs the parameter sweep
//! ([`crate::cf17::sweep`]), `--calibrate [DIR]` the tree learner
//! ([`crate::cf17::calibrate`]).
//!
//! ```text
//! cargo bench-run prescient-bench -- cf17 --quick --threads 1,2
//! ```
//!
//! # What runs
//!
//! The runners are listed in [`runner::RUNNERS`]: the sequential reference
//! (once per program, at one thread), Prescient under the default, the
//! analysed (`tuned`) and CF'17's parameters, rayon and chili (where the
//! program has such a version), then the C/C++ peers ([`crate::peers`]:
//! `omp-gcc`, `omp-llvm`, `tbb`; the same inputs and reps, each result
//! checked against the checksum of the Rust reference's, which the parent
//! computes once per program before the children run). The parent runs its own executable once per
//! configuration with the hidden arguments `cf17 --child PROGRAM RUNNER
//! THREADS --size SIZE --reps N`; the child builds the pool, prepares the
//! workload, and inside one entry into the pool makes one warm-up run and
//! `N` timed runs, each verified against the sequential reference, and
//! prints its record (the timed runs, its peak RSS, for Prescient every
//! counter summed over them, the program's input).
//!
//! # What it prints
//!
//! The machine, then per program a block headed by its input, its
//! sequential time and the three Prescient parameter sets; in it, per
//! thread count, one line per runner: `time` and `min` (median and fastest
//! of the timed runs), `T/Tseq`, `speedup` (the runner's own one-thread
//! time over this time), `Tdef/T` (Prescient-default's time at the same
//! thread count over this time: **> 1 means this runner is faster**; on the
//! `tuned` line it is CF'17's "speedup of tuned over default", Fig. 7),
//! `RSS` (the child's peak, MiB) and Prescient's counters per timed run
//! (`spawns`, `inlined`, `steals`, `susp`) and `stacks` (the most tasks
//! suspended at once on a worker). Then the summary: per thread count,
//! over the programs with both figures, the geometric mean, minimum and
//! maximum of `tuned/default` = `T_default / T_tuned`, `cf17/default`,
//! `RSS tuned/default` (peak RSS of tuned over default's: < 1, tuned uses
//! less; CF'17 Fig. 10) and `tuned/rayon` = `T_rayon / T_tuned`.
//!
//! # Samples and files
//!
//! One sample per measured configuration: the median of the timed runs
//! under the program with its input (`fib (n=35)`) and the runner's sample
//! name (`seq` is `sequential`, `tuned` is `prescient`, `default` is
//! `prescient-default`, `cf17` is `prescient-cf17`). Sizes: `--paper` (the
//! default; the head's `full`), `--quick` and `--test-size` (the test
//! inputs, one timed run, and only [`TEST_PROGRAMS`] unless `--only` says
//! otherwise); `--size test|quick|paper` names one too. The JSON
//! ([`report::Cf17Json`]) goes where `--json` says, else to `cf17/cf17.json`
//! in cargo's target folder; the plots where `--plots` says, else into
//! `cf17/` there.

pub mod child;
pub mod report;
pub mod runner;

use std::path::{Path, PathBuf};

use crate::cf17::workloads::{self, known_name, NAMES};
use crate::cf17::Size;
use crate::cli::{self, default_output, ChildArgs, CommonArgs};
use crate::harness::{table, Kind, Machine, Outcome, Runner};
use crate::peers::{self, Job};
pub use child::ChildSpec;
pub use report::Table;
pub use runner::{cf17_params, default_reps, head_size, params_text, Settings};

pub use crate::cf17::SUBCOMMAND;
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
/// tuned over rayon. Writes JSON (--json FILE, else cf17/cf17.json in
/// cargo's target folder) and three SVG plots (speedup.svg,
/// tuned_vs_default.svg, memory.svg; --plots DIR, else cf17/ there).
///
/// Programs: fib, nqueens, alignment, delannoy, fft, sort, strassen,
/// knapsack, uts, floorplan, health, sparselu. Runners: seq, default
/// (Params::DEFAULT), tuned (the program's analysed PARAMS), cf17 (CF'17's
/// decision trees on the analysis), rayon, chili, then every peer found.
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
    /// `--timeout` and the hidden `--child`.
    #[command(flatten)]
    pub children: ChildArgs,
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
    /// rayon, chili, and the peers found.
    #[arg(long, value_name = "RUNNERS", value_delimiter = ',')]
    pub runners: Vec<String>,
    /// Where to write the SVG plots (default: cf17/ in cargo's target
    /// folder).
    #[arg(long, value_name = "DIR")]
    pub plots: Option<PathBuf>,
    /// Run the parameter sweep instead of the suite.
    #[arg(long, conflicts_with_all = ["calibrate", "plots", "runners", "child"])]
    pub sweep: bool,
    /// Where --sweep writes its JSON files (default: cf17/sweep in cargo's
    /// target folder).
    #[arg(long, value_name = "DIR", requires = "sweep")]
    pub out: Option<PathBuf>,
    /// Derive and validate the decision trees from the sweep in DIR
    /// (default: the sweep stored in the repository) instead of running the
    /// suite.
    #[arg(long, value_name = "DIR", num_args = 0..=1, conflicts_with = "child")]
    pub calibrate: Option<Option<PathBuf>>,
    /// Hidden: measure one program of the sweep at one thread count.
    #[arg(
        long,
        hide = true,
        num_args = 4,
        value_names = ["PROGRAM", "THREADS", "REPS", "SIZE"],
        conflicts_with_all = ["sweep", "calibrate", "child"]
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

/// What the options ask for, resolved ([`Options::command`]).
#[derive(Clone, Debug, PartialEq)]
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

impl Options {
    /// The input size the flags ask for: `--size`, `--paper`, `--quick` or
    /// `--test-size` (which must agree), else `default`.
    ///
    /// # Errors
    /// If two of them name different sizes.
    pub fn input_size(&self, default: Size) -> Result<Size, String> {
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
                    let (old, new) = (Size::name(old), named.name());
                    return Err(format!("conflicting sizes: {old} and {new}"));
                }
                _ => size = Some(named),
            }
        }
        Ok(size.unwrap_or(default))
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
            let count = |e: String| format!("--sweep-child: {e}");
            return Ok(Command::SweepChild {
                program: known_name(program)?,
                threads: cli::parse_thread_count(threads).map_err(|e| count(e.to_string()))?,
                reps: parse_reps(reps).map_err(count)?,
                size: parse_size(size)?,
            });
        }
        if let Some(dir) = &self.calibrate {
            return Ok(Command::Calibrate(dir.clone()));
        }
        let only = |all: &[&'static str]| -> Vec<&'static str> {
            let mut programs = all.to_vec();
            if !self.only.is_empty() {
                programs.retain(|p| self.only.contains(p));
            }
            programs
        };
        if self.sweep {
            // The sweep's own default is the quick size; --quick and
            // --test-size both mean the test size there.
            let size = match (self.size, self.paper, self.common.size()) {
                (Some(size), _, _) => size,
                (None, true, _) => Size::Paper,
                (None, false, cli::Size::Full) => Size::Quick,
                (None, false, cli::Size::Quick | cli::Size::Test) => Size::Test,
            };
            let out = self.out.clone().or_else(|| default_output("cf17/sweep"));
            return Ok(Command::Sweep(crate::cf17::sweep::SweepOptions {
                threads: self.common.threads()?,
                reps: self.reps.unwrap_or(crate::cf17::sweep::DEFAULT_REPS),
                programs: only(&NAMES),
                size,
                out: out.unwrap_or_else(|| PathBuf::from("sweep")),
            }));
        }
        let size = self.input_size(Size::Paper)?;
        let reps = self.reps.unwrap_or(default_reps(size));
        if let Some((program, runner, threads)) = self.children.child_words()? {
            let runner = runner::RUNNERS
                .iter()
                .find(|r| r.0 == runner)
                .ok_or_else(|| format!("`{runner}` is not a runner of this executable"))?;
            return Ok(Command::Child(ChildSpec {
                program: known_name(&program)?,
                runner: runner.0.to_string(),
                threads,
                size,
                reps,
            }));
        }
        let mut settings = Settings::new(size, self.common.threads()?);
        if self.only.is_empty() && self.common.test_size {
            settings.plan.programs = TEST_PROGRAMS.to_vec();
        } else {
            settings.plan.programs = only(&NAMES);
        }
        settings.plan.runners = Runner::select(&settings.plan.runners, &self.runners)?;
        settings.plan.timeout = self.children.timeout.unwrap_or(settings.plan.timeout);
        settings.reps = reps;
        settings.json = self.common.json.clone().or(settings.json);
        settings.plots = self.plots.clone().or(settings.plots);
        Ok(Command::Run(settings))
    }
}

/// Runs what `options` ask for: the suite as the parent, the sweep, the
/// calibration, or a child. Returns the exit code (2 for bad options).
pub fn run(options: &Options) -> i32 {
    match options.command() {
        Ok(Command::Run(settings)) => match std::env::current_exe() {
            Ok(exe) => run_suite(&settings, &exe),
            Err(e) => {
                eprintln!("error: cannot find this executable: {e}");
                2
            }
        },
        Ok(Command::Child(spec)) => child::run_child(&spec),
        Ok(Command::Sweep(sweep)) => crate::cf17::sweep::run(&sweep),
        Ok(Command::SweepChild {
            program,
            threads,
            reps,
            size,
        }) => crate::cf17::sweep::child_main(program, threads, reps, size),
        Ok(Command::Calibrate(dir)) => crate::cf17::calibrate::run(dir.as_deref()),
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// Whether `program` has a version for `runner`: read from the program
/// prepared at [`Size::Test`] (cheap), so that the parent spawns no child
/// for a runner a program lacks. A program that fails to prepare is assumed
/// to have every runner (its children will say what is wrong).
pub fn has_runner(program: &str, runner: &str) -> bool {
    match (workloads::prepare(program, Size::Test), runner) {
        (Ok(w), "rayon") => w.rayon.is_some(),
        (Ok(w), "chili") => w.chili.is_some(),
        _ => true,
    }
}

/// Runs every configuration of `settings` as a child of `exe` (run as `exe
/// cf17 --child ...`, or a peer's), reporting progress on stderr; returns
/// the outcomes in the order run.
pub fn collect(settings: &Settings, exe: &Path) -> Vec<Outcome<&'static str>> {
    // The Rust reference's checksum of each program a peer runs, computed
    // here before any child runs (a failure fails the peers' rows).
    let jobs: Vec<(Job, Result<String, String>)> = settings
        .plan
        .programs
        .iter()
        .filter_map(|&name| {
            let available = |r: &Runner| matches!(r.kind, Kind::Peer(p) if p.executable().is_ok());
            settings.plan.runners.iter().find(|r| available(r))?;
            let mut job = peers::programs::cf17(name, settings.size).ok()?;
            job.plan.reps = settings.reps;
            cli::progress(format!(
                "{SUBCOMMAND}: {name}, the Rust reference for the peers"
            ));
            let expect = peers::programs::cf17_reference(&job);
            Some((job, expect))
        })
        .collect();
    settings.plan.measure(|c| match c.runner.kind {
        Kind::Peer(peer) => {
            let (job, expect) = jobs.iter().find(|(j, _)| j.label == c.program)?;
            let expect = match expect {
                Ok(checksum) => checksum.clone(),
                Err(e) => format!("(none: the Rust reference failed: {e})"),
            };
            peer.command(job, c.threads, Some(&expect))
        }
        _ if !has_runner(c.program, &c.runner.name) => None,
        _ => {
            let spec = ChildSpec {
                program: c.program,
                runner: c.runner.name.clone(),
                threads: c.threads,
                size: settings.size,
                reps: settings.reps,
            };
            Some(table::own(exe, spec.args()))
        }
    })
}

/// Runs the whole suite as the parent: the children ([`collect`]), then the
/// table, the summary, the JSON and the plots. Returns the exit code (1 if
/// any child failed or a file could not be written).
pub fn run_suite(settings: &Settings, exe: &Path) -> i32 {
    let plan = &settings.plan;
    let machine = Machine::detect();
    let list = crate::harness::write::join_list::<usize>;
    let runners: Vec<&str> = plan.runners.iter().map(|r| r.name.as_str()).collect();
    println!("{}\n", machine.describe());
    println!(
        "size: {}; reps: {} timed (+1 warm-up) per configuration; threads: {}; programs: {}; runners: {}\n",
        settings.size.name(),
        settings.reps,
        list(&plan.threads),
        plan.programs.join(","),
        runners.join(","),
    );
    let outcomes = collect(settings, exe);
    let table = Table::new(&outcomes);
    println!("{}", table.render(&plan.threads));
    println!("{}", table.render_summary(&plan.threads));
    let notes = peers::notes(&plan.runners, outcomes.iter().filter_map(Outcome::ran));
    println!("{}", peers::render_notes(&notes));

    let mut status = 0;
    let mut json = report::Cf17Json::new(&machine, settings, &table);
    json.head.peers = notes;
    if let Err(e) = cli::save_json(settings.json.as_deref(), &json) {
        eprintln!("error: {e}");
        status = 1;
    }
    if let Some(dir) = &settings.plots {
        match report::write_plots(&table, &plan.threads, dir) {
            Ok(paths) => paths
                .iter()
                .for_each(|p| println!("plot written to {}", p.display())),
            Err(e) => {
                eprintln!("error: plotting: {e}");
                status = 1;
            }
        }
    }
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    if failed > 0 {
        eprintln!("{failed} configuration(s) failed");
        status = 1;
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;

    // The options parsed as `prescient-bench cf17` parses them.
    fn parse(s: &str) -> Result<Command, String> {
        crate::cli::parse_words::<Options>("cf17", s.split_whitespace())
            .map_err(|e| e.to_string())?
            .command()
    }

    fn run(s: &str) -> Settings {
        match parse(s) {
            Ok(Command::Run(settings)) => settings,
            other => panic!("{s}: {other:?}"),
        }
    }

    #[test]
    fn sizes_and_defaults() {
        let o = run("--threads 1,2");
        assert_eq!(o, Settings::new(Size::Paper, vec![1, 2]));
        assert_eq!((o.reps, o.plan.programs.clone()), (5, NAMES.to_vec()));
        assert_eq!(o.json, default_output("cf17/cf17.json"));
        let q = run("--quick --threads 1");
        assert_eq!(
            (q.size, q.reps, q.plan.size),
            (Size::Quick, 3, cli::Size::Quick)
        );
        let t = run("--test-size --threads 1");
        assert_eq!(
            (t.size, t.reps, t.plan.programs.clone()),
            (Size::Test, 1, TEST_PROGRAMS.to_vec())
        );
        assert_eq!(run("--size test --threads 1").plan.programs, NAMES.to_vec());
        assert_eq!(
            run("--test-size --only sort --threads 1").plan.programs,
            ["sort"]
        );
        assert_eq!(run("--quick --size=quick --threads 1").size, Size::Quick);
        assert_eq!(
            parse("--quick --size paper"),
            Err("conflicting sizes: paper and quick".into())
        );
    }

    #[test]
    fn own_flags_and_children() {
        let o = run("--quick --threads 2,1,4 --reps 7 --only fib --runners chili,tuned,seq --json a/b.json --plots=plots --timeout 1.5");
        assert_eq!((o.plan.threads.clone(), o.reps), (vec![1, 2, 4], 7));
        let names: Vec<&str> = o.plan.runners.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["seq", "tuned", "chili"]);
        assert_eq!(
            (o.json, o.plots),
            (Some("a/b.json".into()), Some("plots".into()))
        );
        assert_eq!(o.plan.timeout, std::time::Duration::from_millis(1500));
        let spec = ChildSpec {
            program: "fib",
            runner: "cf17".into(),
            threads: 3,
            size: Size::Test,
            reps: 2,
        };
        assert_eq!(spec.args()[0], SUBCOMMAND);
        assert_eq!(parse(&spec.args()[1..].join(" ")), Ok(Command::Child(spec)));
        assert_eq!(
            parse("--sweep-child fib 2 3 quick"),
            Ok(Command::SweepChild {
                program: "fib",
                threads: 2,
                reps: 3,
                size: Size::Quick
            })
        );
        assert_eq!(
            parse("--calibrate /tmp/sweep"),
            Ok(Command::Calibrate(Some("/tmp/sweep".into())))
        );
    }

    #[test]
    fn errors_and_help() {
        let err = |s: &str| parse(s).unwrap_err();
        assert!(err("--only nope").contains("unknown program `nope`"));
        assert!(err("--runners seq,nope").contains("unknown runner `nope`"));
        assert!(err("--reps 0").contains("not a number >= 1"));
        assert!(err("--size huge").contains("unknown size `huge` (test, quick, paper)"));
        assert!(err("--quick --paper").contains("cannot be used with"));
        assert!(err("--timeout=-1").contains("bad timeout `-1`"));
        assert!(err("--child fib tuned").contains("3 values required"));
        assert!(err("--child fib tuned 0").contains("at least 1"));
        assert!(err("--child fib tuned 5000").contains("at most 4096"));
        assert!(err("--calibrate --sweep").contains("cannot be used with"));
        let help = crate::cli::parse_words::<Options>("cf17", ["--help"]).unwrap_err();
        let text = help.to_string();
        for needle in [
            "--paper",
            "--reps <N>",
            "--plots <DIR>",
            "--sweep",
            "--calibrate",
            "--test-size",
            "T_default / T_tuned",
        ] {
            assert!(text.contains(needle), "{needle}: {text}");
        }
        assert!(!text.contains("--sweep-child"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn failed_children_are_reported_and_the_run_goes_on() {
        let dir = std::env::temp_dir().join(format!("cf17-failing-{}", std::process::id()));
        let mut settings = Settings::new(Size::Test, vec![1, 2]);
        settings.plan.programs = vec!["fib"];
        settings
            .plan
            .runners
            .retain(|r| r.name == "seq" || r.name == "tuned");
        settings.json = Some(dir.join("cf17.json"));
        settings.plots = Some(dir.clone());
        // `false` exits 1 without a message; `echo` succeeds without a record.
        let outcomes = collect(&settings, Path::new("/bin/false"));
        assert_eq!(outcomes.len(), 3);
        assert!(outcomes.iter().all(|o| o
            .result
            .as_ref()
            .unwrap_err()
            .contains("without a message")));
        let echoed = collect(&settings, Path::new("/bin/echo"));
        assert!(echoed[0].result.as_ref().unwrap_err().contains("no record"));
        assert_eq!(run_suite(&settings, Path::new("/bin/false")), 1);
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("cf17.json")).unwrap()).unwrap();
        let results = v["results"].as_array().unwrap();
        assert!(results.len() == 3 && results.iter().all(|r| r["ok"] == false));
        assert!(v["samples"].as_array().unwrap().is_empty());
        assert!(dir.join("tuned_vs_default.svg").exists());
        let _ = std::fs::remove_dir_all(&dir);
        assert!(has_runner("fib", "chili") && !has_runner("nqueens", "chili"));
    }
}
