//! The side-by-side suite: every program × runner × thread count in its own
//! child process, one table, one JSON file.
//!
//! `prescient-bench fork-join` parses
//! [`Options`] and call [`run`]. The parent ([`run_suite`]) spawns its own
//! executable once per configuration with the hidden arguments `fork-join
//! --child PROGRAM RUNNER THREADS` ([`SUBCOMMAND`] first); the child ([`child`]) builds the pool once,
//! warms up, measures inside the pool (so that entering it is not counted),
//! checks every result and prints one `RESULT key=value …` line: the median
//! time per run, its peak RSS (`getrusage`), and for Prescient the
//! [`prescient::tuning::Counters`] of the measured runs. Because each
//! configuration is its own process, its peak RSS is its own. An `--child-idle
//! RUNNER THREADS` child measures the CPU time an idle pool burns in one
//! second.
//!
//! The parent then prints the machine, the table (time, `T/Tseq`, overhead per
//! join, speedup over the runner's own one-thread time, ratios to rayon and
//! chili at the same thread count, peak RSS, suspensions and steals per run),
//! a summary per runner and the idle CPU — each a Markdown table under a
//! `###` heading — and writes all of it as JSON
//! ([`report::ForkJoinJson`]).
//!
//! With `--competing N` the parent starts N busy processes
//! ([`crate::competing`]) before the first child and stops them after the
//! last, so that every child measures on CPUs it shares with them; the
//! header and the JSON say how many.
//!
//! # Samples
//!
//! The JSON's shared `samples` ([`crate::samples`]) hold one entry per
//! measured configuration: the median time of one run, in seconds, under
//! the program with its size — `fib(35)`, `tree 2^10`, `tree 2^24` (a
//! balanced tree of `2^k - 1` nodes; `fib(20)` and `tree 2^16` at
//! `--test-size`) — and the runner by the shared names:
//!
//! | suite runner (`--runners`) | sample runner |
//! |---|---|
//! | `seq` | `sequential` (threads 1) |
//! | `prescient-default` | `prescient` (the default parameters) |
//! | `prescient-never` | `prescient-never` |
//! | `prescient-def-c4` | `prescient-def-c4` |
//! | `prescient-pf-c4` | `prescient-pf-c4` |
//! | `rayon`, `chili` | `rayon`, `chili` |
//!
//! # Sizes
//!
//! Full (the default) and `--quick` run the same inputs (`--quick` takes
//! fewer samples); `--test-size` runs `fib(20)`, the 1K tree and a tree of
//! `2^16 - 1` nodes with minimal warm-up and samples, and idles pools for
//! a tenth of a second: every row and section in a few seconds.
//!
//! The pieces are public so that the criterion benches and the tests drive
//! the same code: [`Program`], [`Runner`], [`Work`] (a prepared input) and
//! [`Pool`] (a built runner that times runs inside itself).

pub mod child;
pub mod cli;
mod config;
pub mod machine;
mod pool;
pub mod profile;
pub mod report;
mod rusage;
mod work;

pub use cli::{Command, Options, Settings, SUBCOMMAND};
pub use config::{Plan, Program, Runner};
pub use pool::{median, Measurement, Pool};
pub use work::Work;

/// Runs what `options` ask for: the suite as the parent, a child's
/// measurement, or a profile. Returns the exit code (2 for bad options).
///
/// This and [`Options`] are all a command needs: `prescient-bench
/// fork-join` flattens [`Options`] into its subcommand and calls this; the
/// children are `current_exe fork-join --child ...`, so the executable must
/// dispatch the subcommand [`SUBCOMMAND`] to this function.
pub fn run(options: &Options) -> i32 {
    match options.command() {
        Ok(Command::Suite(settings)) => run_suite(&settings),
        Ok(Command::Child {
            program,
            runner,
            threads,
            size,
            layout,
        }) => child::run_child(program, runner, threads, size, layout),
        Ok(Command::Idle {
            runner,
            threads,
            size,
        }) => child::run_idle_child(runner, threads, size),
        Ok(Command::Profile(options)) => profile::run(&options),
        Err(message) => {
            eprintln!("error: {message}");
            2
        }
    }
}

/// Runs the whole suite as the parent: one child per configuration, then
/// the table, the summary, the idle CPU and the JSON. Returns the exit code
/// (1 if any child failed).
pub fn run_suite(settings: &Settings) -> i32 {
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => {
            eprintln!("error: cannot find the suite's own executable: {e}");
            return 2;
        }
    };
    run_suite_with(settings, &exe)
}

/// [`run_suite`] with the children run as `exe fork-join ...` (`exe` must
/// dispatch [`SUBCOMMAND`] to [`run`]).
pub fn run_suite_with(settings: &Settings, exe: &std::path::Path) -> i32 {
    let size = settings.size;
    let machine = machine::Machine::detect();
    println!(
        "{}\n{}\n",
        machine.describe(),
        crate::competing::describe(settings.competing)
    );
    println!(
        "size: {}; threads: {}; programs: {}; tree layout: {}\n",
        size.name(),
        cli::join_list(&settings.threads),
        cli::join_list(&settings.programs),
        settings.tree_layout
    );
    for program in &settings.programs {
        println!(
            "- {program}: {} ({} joins per run)",
            program.description(size),
            program.joins(size)
        );
    }
    println!();

    // Started here, in the parent, so that they run through every child's
    // measurement; dropped (killed and reaped) once the last child is done.
    if settings.competing > 0 {
        crate::cli::progress(format!(
            "{SUBCOMMAND}: starting {} competing busy process(es)",
            settings.competing
        ));
    }
    let competitors = match crate::competing::Competitors::start_with(exe, settings.competing) {
        Ok(competitors) => competitors,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };

    let configs = settings.configurations();
    let mut outcomes = Vec::with_capacity(configs.len());
    for (i, &(program, runner, threads)) in configs.iter().enumerate() {
        crate::cli::progress(format!(
            "{SUBCOMMAND}: [{}/{}] {} {runner} {threads} thread(s)",
            i + 1,
            configs.len(),
            program.label(size)
        ));
        let outcome = child::spawn_run(exe, program, runner, threads, settings);
        match &outcome.result {
            Ok(r) => eprintln!("  {}", report::format_ns(r.median_ns)),
            Err(e) => eprintln!("  FAILED: {e}"),
        }
        outcomes.push(outcome);
    }

    let mut idle = Vec::new();
    if settings.idle {
        let threads = settings.threads.iter().copied().max().unwrap_or(1);
        for runner in Runner::IDLE {
            crate::cli::progress(format!(
                "{SUBCOMMAND}: idle CPU of {runner} {threads} thread(s)"
            ));
            let outcome = child::spawn_idle(exe, runner, threads, settings);
            match &outcome.result {
                Ok(r) => eprintln!("  {:.1} ms CPU in {:.3} s", r.cpu_ns / 1e6, r.wall_ns / 1e9),
                Err(e) => eprintln!("  FAILED: {e}"),
            }
            idle.push(outcome);
        }
    }
    drop(competitors);

    let table = report::Table::new(&outcomes, size);
    println!("{}", table.render());
    println!("{}", table.render_summary(&settings.threads));
    if settings.idle {
        println!("{}", report::render_idle(&idle));
    }

    let json = report::ForkJoinJson::new(&machine, settings, &table, &idle);
    if let Some(dir) = settings.json.parent() {
        if !dir.as_os_str().is_empty() {
            let _ = std::fs::create_dir_all(dir);
        }
    }
    let text = serde_json::to_string_pretty(&json).expect("the JSON serializes") + "\n";
    match std::fs::write(&settings.json, text) {
        Ok(()) => println!("JSON written to {}", settings.json.display()),
        Err(e) => {
            eprintln!("error: writing {}: {e}", settings.json.display());
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
