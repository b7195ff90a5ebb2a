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
mod config;
mod json;
pub mod machine;
mod pool;
pub mod profile;
pub mod report;
mod rusage;
mod work;

pub use cli::{Command, Options};
pub use config::{Plan, Program, Runner};
pub use pool::{median, Measurement, Pool};
pub use work::Work;

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
