//! `prescient-bench fork-join`: fine-grained fork-join programs, every
//! program × runner × thread count in its own child process
//! ([`crate::harness`]), one table, one JSON file.
//!
//! The parent runs its own executable once per configuration with the
//! hidden arguments `fork-join --child PROGRAM RUNNER THREADS`; the child
//! ([`child`]) builds the pool once, warms up, measures inside the pool (so
//! that entering it is not counted), checks every result and prints its
//! record: the time per run of each sample, its peak RSS and, for
//! Prescient, the [`prescient::tuning::Counters`] of the measured runs. An
//! `--child-idle RUNNER THREADS` child measures the CPU time an idle pool
//! burns in one second. A C/C++ peer ([`crate::peers`]) runs `fib N` or
//! `tree NODES` under the child's sampling plan (`--reps`, `--warmup-ms`,
//! `--batch-ms`), its result checked against the program's (`fib(n)`, the
//! tree's sum), and its `idle MS` program measures its idle CPU.
//!
//! The parent then prints the machine, the table (time, `T/Tseq`, overhead
//! per join, speedup over the runner's own one-thread time, ratios to rayon
//! and chili at the same thread count, peak RSS, suspensions and steals per
//! run), a summary per runner and the idle CPU, and writes all of it as
//! JSON ([`report::ForkJoinJson`]). With `--competing N` every child
//! measures beside N busy processes ([`crate::competing`]).
//!
//! # Samples
//!
//! One per measured configuration: the median time of one run, in seconds,
//! under the program with its size — `fib(35)`, `tree 2^10`, `tree 2^24` (a
//! balanced tree of `2^k - 1` nodes; `fib(20)` and `tree 2^16` at
//! `--test-size`) — and the runner by its sample name
//! ([`programs::RUNNERS`]: `seq` is `sequential`, `prescient-default` is
//! `prescient`, the others keep their names).
//!
//! # Sizes
//!
//! Full and `--quick` run the same inputs (`--quick` takes fewer samples);
//! `--test-size` runs `fib(20)`, the 1K tree and a tree of `2^16 - 1` nodes
//! with minimal warm-up and samples, and idles pools for a tenth of a
//! second.

pub mod child;
pub mod pool;
pub mod profile;
pub mod programs;
pub mod report;

use crate::cli::{self, default_output, CommonArgs, Size};
use crate::competing::{CompetingArgs, Competitors};
use crate::harness::{table, Kind, Machine, Outcome, Plan, Runner};
use crate::peers::{checksum, Job};
use crate::programs::tree::Layout;
pub use pool::{Measurement, Pool, Work};
pub use profile::ProfileOptions;
pub use programs::{IdleOutcome, Program, Sampling, Settings, DEFAULT_JSON, SUBCOMMAND};
use std::path::{Path, PathBuf};

/// Fork-join programs (fib, tree sums) against rayon, chili and sequential.
///
/// Runs every program x runner x thread count in its own child process and
/// prints a table of times, T/Tseq, overhead per join, speedups, ratios to
/// rayon and chili, peak RSS and Prescient's suspensions; then the idle CPU
/// of each runtime; then writes JSON (--json FILE, else
/// prescient-suite.json in cargo's target folder of the build).
///
/// Programs: fib (fib(35)), tree1k (a balanced tree of 1023 nodes), tree16m
/// (2^24 - 1 nodes). Runners: seq, prescient-default, prescient-never,
/// prescient-def-c4, prescient-pf-c4, rayon, chili, then the C/C++ peers
/// omp-gcc, omp-llvm and tbb (OpenMP tasks under GCC and LLVM, oneTBB;
/// skipped, with the line that installs them, where they were not built),
/// their results checked against the closed forms; the trees in the
/// default layout only.
///
/// With --competing N, N busy processes (one CPU spin loop each) share the
/// CPUs with every child while it measures.
///
/// With --profile, instead profiles one program under one Prescient runner
/// at each thread count with the critical-path profiler (needs the `trace`
/// feature: cargo bench-run prescient-bench --features trace -- fork-join
/// --profile fib) and writes its report, Chrome trace and SVG.
///
/// Thread counts come from --threads, else from the environment variable
/// PRESCIENT_BENCH_THREADS (same syntax), else 1,2 (capped at the available
/// parallelism); the command line wins.
#[derive(clap::Args, Clone, Debug)]
pub struct Options {
    /// The flags every table shares (`--quick`: a few samples per
    /// configuration, the whole table in about a minute on two cores).
    #[command(flatten)]
    pub common: CommonArgs,
    /// `--competing N`: busy processes beside the children.
    #[command(flatten)]
    pub competing: CompetingArgs,
    /// `--timeout` and the hidden `--child`.
    #[command(flatten)]
    pub children: cli::ChildArgs,
    /// Comma-separated subset of the programs: fib, tree1k, tree16m.
    #[arg(long, value_name = "PROGRAMS", value_delimiter = ',')]
    pub only: Vec<Program>,
    /// Comma-separated subset of the runners: seq, prescient-default,
    /// prescient-never, prescient-def-c4, prescient-pf-c4, rayon, chili, and
    /// the peers found.
    #[arg(long, value_name = "RUNNERS", value_delimiter = ',')]
    pub runners: Vec<String>,
    /// Skip the idle-CPU measurement.
    #[arg(long)]
    pub no_idle: bool,
    /// Allocation order of the trees' nodes: level-order (default; neutral
    /// between left- and right-first traversals), pre-order (Spice's Zig
    /// builder) or post-order (chili's and Spice's Rust builders).
    #[arg(long, value_name = "LAYOUT", value_parser = parse_layout)]
    pub tree_layout: Option<Layout>,
    /// Profile PROGRAM (fib, tree1k or tree16m) under the first Prescient
    /// runner of --runners (default prescient-default) instead of running
    /// the table.
    #[arg(long, value_name = "PROGRAM", conflicts_with = "competing")]
    pub profile: Option<Program>,
    /// Where the profiles go (default: profile/ in cargo's target folder):
    /// one folder PROGRAM-RUNNER-tTHREADS per thread count.
    #[arg(long, value_name = "DIR")]
    pub profile_dir: Option<PathBuf>,
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

fn parse_layout(name: &str) -> Result<Layout, String> {
    Layout::parse(name).ok_or_else(|| {
        format!("unknown tree layout `{name}` (level-order, pre-order or post-order)")
    })
}

/// What the options ask for, resolved ([`Options::command`]).
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Run the table as the parent.
    Table(Settings),
    /// Measure one configuration (hidden: `--child PROGRAM RUNNER THREADS`).
    Child {
        /// The program to run.
        program: Program,
        /// The runner that runs it (one of [`programs::RUNNERS`]).
        runner: String,
        /// The number of threads of its pool.
        threads: usize,
        /// The size of the table's run.
        size: Size,
        /// The allocation order of a tree's nodes.
        layout: Layout,
    },
    /// Profile one program (`--profile PROGRAM`).
    Profile(ProfileOptions),
    /// Measure an idle pool's CPU time (hidden: `--child-idle RUNNER THREADS`).
    Idle {
        /// The runner whose pool idles.
        runner: String,
        /// The number of threads of its pool.
        threads: usize,
        /// The size of the table's run (the idle time shrinks at
        /// [`Size::Test`]).
        size: Size,
    },
}

impl Options {
    /// What the options ask for: a child's measurement, a profile, or the
    /// table. A child ignores the thread list (and so an invalid
    /// `PRESCIENT_BENCH_THREADS`).
    ///
    /// # Errors
    /// An invalid child argument or thread list, or a `--profile` without
    /// a Prescient runner.
    pub fn command(&self) -> Result<Command, String> {
        let size = self.common.size();
        let layout = self.tree_layout.unwrap_or(Layout::DEFAULT);
        if let Some((program, runner, threads)) = self.children.child_words()? {
            return Ok(Command::Child {
                program: program.parse()?,
                runner: own_runner(&runner)?,
                threads,
                size,
                layout,
            });
        }
        if let Some(words) = &self.child_idle {
            let [runner, threads] = words.as_slice() else {
                return Err("--child-idle takes RUNNER THREADS".to_string());
            };
            return Ok(Command::Idle {
                runner: own_runner(runner)?,
                threads: cli::parse_thread_count(threads)
                    .map_err(|e| format!("--child-idle: {e}"))?,
                size,
            });
        }
        let threads = self.common.threads()?;
        let runners = Runner::select(&programs::runners(), &self.runners)?;
        if let Some(program) = self.profile {
            let runner = runners
                .iter()
                .find(|r| programs::params(&r.name).is_some())
                .ok_or("--profile needs a Prescient runner in --runners")?;
            return Ok(Command::Profile(ProfileOptions {
                program,
                runner: runner.name.clone(),
                threads,
                size,
                layout,
                dir: self
                    .profile_dir
                    .clone()
                    .or_else(|| default_output("profile"))
                    .unwrap_or_else(|| PathBuf::from("profile")),
            }));
        }
        let mut settings = Settings::new(size, threads);
        settings.plan.runners = runners;
        if !self.only.is_empty() {
            settings.plan.programs.retain(|p| self.only.contains(p));
        }
        settings.plan.timeout = self.children.timeout.unwrap_or(settings.plan.timeout);
        settings.json = self.common.json.clone().or(settings.json);
        settings.idle = !self.no_idle;
        settings.tree_layout = layout;
        settings.competing = self.competing.competing;
        Ok(Command::Table(settings))
    }
}

/// `name` if it is one of the table's own runners.
fn own_runner(name: &str) -> Result<String, String> {
    programs::RUNNERS
        .iter()
        .any(|r| r.0 == name)
        .then(|| name.to_string())
        .ok_or_else(|| format!("`{name}` is not a runner of this executable"))
}

/// Runs what `options` ask for: the table as the parent, a child's
/// measurement, or a profile. Returns the exit code (2 for bad options).
pub fn run(options: &Options) -> i32 {
    match options.command() {
        Ok(Command::Table(settings)) => match std::env::current_exe() {
            Ok(exe) => run_table(&settings, &exe),
            Err(e) => {
                eprintln!("error: cannot find this executable: {e}");
                2
            }
        },
        Ok(Command::Child {
            program,
            runner,
            threads,
            size,
            layout,
        }) => child::run_child(program, &runner, threads, size, layout),
        Ok(Command::Idle {
            runner,
            threads,
            size,
        }) => child::run_idle_child(&runner, threads, size),
        Ok(Command::Profile(options)) => profile::run(&options),
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// Runs the whole table as the parent, its children run as `exe fork-join
/// ...`: one child per configuration, then the table, the summary, the
/// idle CPU and the JSON. Returns the exit code (1 if any child failed).
pub fn run_table(settings: &Settings, exe: &Path) -> i32 {
    let plan = &settings.plan;
    let size = plan.size;
    let machine = Machine::detect();
    println!(
        "{}\n{}\n",
        machine.describe(),
        crate::competing::describe(settings.competing)
    );
    println!(
        "size: {}; threads: {}; programs: {}; tree layout: {}\n",
        size.name(),
        crate::harness::write::join_list(&plan.threads),
        crate::harness::write::join_list(&plan.programs),
        settings.tree_layout
    );
    for program in &plan.programs {
        println!(
            "- {program}: {} ({} joins per run)",
            program.description(size),
            program.joins(size)
        );
    }
    println!();

    // Started here, in the parent, so that they run through every child's
    // measurement; dropped (killed and reaped) once the last child is done.
    let competitors = match Competitors::start_with(exe, settings.competing) {
        Ok(competitors) => competitors,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    let outcomes = plan.measure(|c| match c.runner.kind {
        // The peers build their trees in the default layout only.
        Kind::Peer(_) if c.program != Program::Fib && settings.tree_layout != Layout::DEFAULT => {
            None
        }
        Kind::Peer(peer) => {
            let expect = checksum::of(&[c.program.expected(size)]);
            peer.command(&Job::fork_join(c.program, size), c.threads, Some(&expect))
        }
        _ => Some(table::own(
            exe,
            settings.child_args(c.program, &c.runner.name, c.threads),
        )),
    });
    let idle = if settings.idle {
        let threads = plan.threads.iter().copied().max().unwrap_or(1);
        let idle_plan = Plan {
            programs: vec!["idle"],
            runners: plan
                .runners
                .iter()
                .filter(|r| programs::IDLE.contains(&r.name.as_str()) || r.kind != Kind::Own)
                .filter(|r| r.kind != Kind::Sequential)
                .cloned()
                .collect(),
            threads: vec![threads],
            table: plan.table,
            size,
            timeout: plan.timeout,
        };
        idle_plan.measure(|c| {
            if let Kind::Peer(peer) = c.runner.kind {
                return peer.command(&Job::idle(child::idle_time(size)), c.threads, None);
            }
            let args = cli::child_args(
                SUBCOMMAND,
                "--child-idle",
                &[&c.runner.name],
                c.threads,
                size,
            );
            Some(table::own(exe, args))
        })
    } else {
        Vec::new()
    };
    drop(competitors);

    let rendered = report::Table::new(&outcomes, size);
    println!("{}", rendered.render());
    println!("{}", rendered.render_summary(&plan.threads));
    if settings.idle {
        println!("{}", report::render_idle(&idle));
    }
    let records =
        (outcomes.iter().filter_map(Outcome::ran)).chain(idle.iter().filter_map(Outcome::ran));
    let notes = crate::peers::notes(&plan.runners, records);
    println!("{}", crate::peers::render_notes(&notes));

    let mut json = report::ForkJoinJson::new(&machine, settings, &rendered, &idle);
    json.head.peers = notes;
    if let Err(e) = cli::save_json(settings.json.as_deref(), &json) {
        eprintln!("error: {e}");
        return 1;
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
