//! The `cf17` binary: the CF'17 suite ([`crate::cf17::workloads`]) under
//! every runner, each program × runner × thread count in its own child
//! process; one table, one JSON file and three SVG plots.
//!
//! ```text
//! cargo bench-run cf17 -- --quick --threads 1,2
//! ```
//!
//! # What runs
//!
//! The runners ([`Runner`]) are `seq` (the sequential reference, once per
//! program, at one thread), `default` (Prescient with
//! [`Params::DEFAULT`](prescient::Params::DEFAULT)), `tuned` (Prescient with
//! the program's analysed `PARAMS`, from [`crate::annotated::PROGRAMS`]),
//! `cf17` (Prescient with what CF'17's decision trees choose from the
//! analysis: [`cf17_params`]), `rayon` and `chili` (where the program has
//! such a version).
//!
//! The parent re-spawns its own executable once per configuration with the
//! hidden arguments `--child PROGRAM RUNNER THREADS --size SIZE --reps N`
//! ([`child`]). The child builds the pool with `THREADS` threads, prepares
//! the workload, and inside one entry into the pool makes one warm-up run
//! and `N` timed runs, each verified against the sequential reference. It
//! prints one line, `RESULT key=value … input=TEXT` (times in nanoseconds,
//! peak RSS in KiB, for Prescient every [`prescient::Counters`] field summed
//! over the timed runs; `input` is last and takes the rest of the line), or
//! `ERROR message` and exits 1 when a result is wrong. Because each
//! configuration is its own process, the peak RSS (`getrusage`) is its own:
//! input, pool and runs together.
//!
//! # What it prints
//!
//! The machine, then per program a block headed by its input, its
//! sequential time and the three Prescient parameter sets; in it, per thread
//! count, one line per runner:
//!
//! * `time`, `min`: the median and the fastest of the timed runs;
//! * `T/Tseq`: time over the sequential reference's (> 1: slower);
//! * `speedup`: the runner's own one-thread time over this time;
//! * `Tdef/T`: Prescient-default's time at the same thread count over this
//!   time — **the speedup of this runner over default; > 1 means this runner
//!   is faster** (on the `tuned` line it is CF'17's "speedup of tuned over
//!   default", Fig. 7);
//! * `RSS`: the child's peak resident set, MiB;
//! * Prescient's counters per timed run: tasks pushed to a deque (`spawns`),
//!   spawns run inline because the deque was full (`inlined`), `steals`,
//!   `susp`ensions, and the most tasks suspended at once on a worker
//!   (`stacks`, a peak, not per run).
//!
//! Then the summary: per thread count, over the programs with both figures,
//! the geometric mean, the minimum and the maximum of
//!
//! * `tuned/default` = `T_default / T_tuned` (> 1: tuned is faster),
//! * `cf17/default` = `T_default / T_cf17`,
//! * `RSS tuned/default` = peak RSS of tuned over default's (< 1: tuned uses
//!   less memory; CF'17 Fig. 10),
//! * `tuned/rayon` = `T_rayon / T_tuned` (> 1: tuned is faster than rayon).
//!
//! Every speedup ratio here is "time of the reference over time of the
//! subject", so that higher is better for the subject; the memory ratio is
//! the other way round (subject over reference), so lower is better.
//!
//! # Files
//!
//! The JSON (default `target/cf17/cf17.json`) holds the machine, the size,
//! the repetitions, the thread counts, the programs with their inputs and
//! parameter sets, one row per configuration (program, input, runner,
//! threads, params as text, `median_s`, `min_s`, the program's `seq_s`,
//! `peak_rss_kib`, counters, or the error), and the summary. The plots
//! (default directory `target/cf17/`, see [`crate::cf17::plots`]) are
//! `speedup.svg`, `tuned_vs_default.svg` and `memory.svg`.

pub mod child;
pub mod cli;
pub mod report;
pub(super) mod runner;

use std::path::Path;

use crate::cf17::workloads;
use crate::cf17::Size;
use crate::suite::machine::Machine;

pub use child::{ChildResult, Outcome};
pub use cli::{ChildSpec, Command, Options};
pub use report::Table;
pub use runner::{cf17_params, params_text, Runner};

/// The `cf17` binary's entry point: parses `args` (without the program
/// name) and runs the suite as the parent, a child, or prints the usage.
/// Returns the exit code.
///
/// Other modes of the binary (a `--sweep` over parameters) are dispatched
/// by the binary before this is called; this function is the default mode.
pub fn main(args: impl IntoIterator<Item = String>) -> i32 {
    let max_threads = crate::cli::available_threads();
    let env_threads = std::env::var(crate::cli::THREADS_ENV).ok();
    match cli::parse(args, env_threads.as_deref(), max_threads) {
        Ok(Command::Help) => {
            print!("{}", cli::usage());
            0
        }
        Ok(Command::Run(options)) => match std::env::current_exe() {
            Ok(exe) => run_suite(&options, &exe),
            Err(e) => {
                eprintln!("error: cannot find the cf17 binary's own executable: {e}");
                2
            }
        },
        Ok(Command::Child(spec)) => child::run_child(&spec),
        Err(message) => {
            eprintln!("error: {message}\n\n{}", cli::usage());
            2
        }
    }
}

/// Which of the optional runners (rayon, chili) each program has: read from
/// the program prepared at [`Size::Test`] (cheap), so that the parent spawns
/// no child for a runner a program lacks. A program that fails to prepare is
/// assumed to have both (its children will say what is wrong).
pub fn available_runners(program: &str) -> Vec<Runner> {
    let (rayon, chili) = match workloads::prepare(program, Size::Test) {
        Ok(w) => (w.rayon.is_some(), w.chili.is_some()),
        Err(_) => (true, true),
    };
    Runner::ALL
        .into_iter()
        .filter(|r| match r {
            Runner::Rayon => rayon,
            Runner::Chili => chili,
            _ => true,
        })
        .collect()
}

/// Runs every configuration of `options` as a child of `exe` (the `cf17`
/// binary itself), reporting progress on stderr; returns the outcomes in
/// the order run.
pub fn collect(options: &Options, exe: &Path) -> Vec<Outcome> {
    let mut configs = Vec::new();
    for &program in &options.programs {
        let available = available_runners(program);
        for (runner, threads) in options.configurations() {
            if available.contains(&runner) {
                configs.push((program, runner, threads));
            }
        }
    }
    let mut outcomes = Vec::with_capacity(configs.len());
    for (i, &(program, runner, threads)) in configs.iter().enumerate() {
        eprint!(
            "[{:>3}/{}] {program} {runner} {threads} thread(s) ... ",
            i + 1,
            configs.len()
        );
        let outcome = child::spawn(exe, program, runner, threads, options);
        match &outcome.result {
            Ok(r) => eprintln!("{}", crate::suite::report::format_ns(r.median_ns)),
            Err(e) => eprintln!("FAILED: {e}"),
        }
        outcomes.push(outcome);
    }
    outcomes
}

/// Runs the whole suite as the parent: the children ([`collect`]), then the
/// table, the summary, the JSON and the plots. Returns the exit code (1 if
/// any child failed or a file could not be written).
pub fn run_suite(options: &Options, exe: &Path) -> i32 {
    let machine = Machine::detect();
    println!("{}", machine.describe());
    println!(
        "size: {}; reps: {} timed (+1 warm-up) per configuration; threads: {}; programs: {}; runners: {}",
        options.size.name(),
        options.reps,
        crate::suite::cli::join_list(&options.threads),
        options.programs.join(","),
        crate::suite::cli::join_list(&options.runners),
    );
    println!();

    let outcomes = collect(options, exe);
    eprintln!();
    let table = Table::new(&outcomes);
    println!("{}", table.render(&options.threads));
    println!("{}", table.render_summary(&options.threads));

    let mut status = 0;
    let json = report::json(&machine, options, &table);
    match write_file(&options.json, &json) {
        Ok(()) => println!("JSON written to {}", options.json.display()),
        Err(e) => {
            eprintln!("error: {e}");
            status = 1;
        }
    }
    match crate::cf17::plots::write_all(&table, &options.threads, &options.plots) {
        Ok(paths) => {
            for path in paths {
                println!("plot written to {}", path.display());
            }
        }
        Err(e) => {
            eprintln!("error: plotting: {e}");
            status = 1;
        }
    }
    let failed = outcomes.iter().filter(|o| o.result.is_err()).count();
    if failed > 0 {
        eprintln!("{failed} configuration(s) failed");
        status = 1;
    }
    status
}

/// Writes `text` to `path`, creating its directory.
fn write_file(path: &Path, text: &str) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
        }
    }
    std::fs::write(path, text).map_err(|e| format!("writing {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn failed_children_are_reported_and_the_run_goes_on() {
        let dir = std::env::temp_dir().join(format!("cf17-failing-{}", std::process::id()));
        let mut options = Options::new(Size::Test, vec![1, 2]);
        options.programs = vec!["fib"];
        options.runners = vec![Runner::Seq, Runner::Tuned];
        options.json = dir.join("cf17.json");
        options.plots = dir.clone();
        // `false` exits 1 without a message; `echo` succeeds without a RESULT.
        let outcomes = collect(&options, Path::new("/bin/false"));
        assert_eq!(outcomes.len(), 3);
        for o in &outcomes {
            assert!(o.result.as_ref().unwrap_err().contains("without a message"));
        }
        let echoed = child::spawn(Path::new("/bin/echo"), "fib", Runner::Seq, 1, &options);
        assert!(echoed.result.unwrap_err().contains("no RESULT line"));
        assert_eq!(run_suite(&options, Path::new("/bin/false")), 1);
        let json = std::fs::read_to_string(&options.json).unwrap();
        assert_eq!(json.matches("\"ok\": false").count(), 3);
        assert!(dir.join("speedup.svg").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn fib_has_every_runner() {
        assert_eq!(available_runners("fib"), Runner::ALL.to_vec());
    }
}
