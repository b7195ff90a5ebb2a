//! `prescient-bench cf17`: the CF'17 suite ([`crate::cf17::workloads`]) under
//! every runner, each program × runner × thread count in its own child
//! process; one table, one JSON file and three SVG plots.
//!
//! ```text
//! cargo bench-run prescient-bench -- cf17 --quick --threads 1,2
//! ```
//!
//! The command line is [`Options`] (a `clap` argument struct; the `cf17`
//! binary and `prescient-bench cf17` flatten it) and [`run`] runs what it
//! asks for: the suite, the parameter sweep (`--sweep`,
//! [`crate::cf17::sweep`]), the calibration (`--calibrate [DIR]`,
//! [`crate::cf17::calibrate`]) or a hidden child.
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
//! hidden arguments `cf17 --child PROGRAM RUNNER THREADS --size SIZE --reps
//! N` ([`child`]; the first word is [`SUBCOMMAND`], so the executable must
//! dispatch it to [`run`]). The child builds the pool with `THREADS` threads, prepares
//! the workload, and inside one entry into the pool makes one warm-up run
//! and `N` timed runs, each verified against the sequential reference. It
//! prints one line, `RESULT key=value … input=TEXT` (times in nanoseconds,
//! peak RSS in KiB, for Prescient every [`prescient::tuning::Counters`] field summed
//! over the timed runs; `input` is last and takes the rest of the line), or
//! `ERROR message` and exits 1 when a result is wrong. Because each
//! configuration is its own process, the peak RSS (`getrusage`) is its own:
//! input, pool and runs together.
//!
//! # What it prints
//!
//! Markdown (`###` headings, `| ... |` tables). The machine, then per
//! program a block headed by its input, its
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
//! # Samples
//!
//! The JSON's shared `samples` ([`crate::samples`]) hold one entry per
//! measured configuration: the median of the timed runs, in seconds, under
//! the program with its input (`fib (n=35)`, `fft (2^24 points)`; the input
//! depends on the size) and the runner by the shared names:
//!
//! | cf17 runner (`--runners`) | sample runner |
//! |---|---|
//! | `seq` | `sequential` (threads 1) |
//! | `tuned` | `prescient` (the analysed `PARAMS`: what a user of `#[task_program]` gets) |
//! | `default` | `prescient-default` (`Params::DEFAULT`) |
//! | `cf17` | `prescient-cf17` (CF'17's decision trees) |
//! | `rayon`, `chili` | `rayon`, `chili` |
//!
//! # Sizes
//!
//! `--paper` (the default; the shared head's `full`), `--quick` and
//! `--test-size` (each program's own test input and one timed run, and
//! only [`cli::TEST_PROGRAMS`] — fib, delannoy, floorplan — unless `--only`
//! says otherwise: every row and section in seconds); `--size
//! test|quick|paper` names one too (and keeps every program).
//!
//! # Files
//!
//! The JSON (default `target/cf17/cf17.json`; [`report::Cf17Json`]) holds
//! the shared head (table `cf17`, machine, size — `full`, `quick` or `test`
//! —, thread counts, samples), the input size (`input_size`: `paper`,
//! `quick` or `test`), the repetitions, the programs with their inputs and
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
pub use cli::{ChildSpec, Command, Options, Settings, SUBCOMMAND};
pub use report::Table;
pub use runner::{cf17_params, params_text, Runner};

/// Runs what `options` ask for: the suite as the parent, the sweep, the
/// calibration, or a child. Returns the exit code (2 for bad options).
///
/// This and [`Options`] are all a command needs: `prescient-bench cf17`
/// flattens [`Options`] into its subcommand and calls this; the children
/// are `current_exe cf17 ...`, so the executable must dispatch the
/// subcommand [`SUBCOMMAND`] to this function.
pub fn run(options: &Options) -> i32 {
    match options.command() {
        Ok(Command::Run(settings)) => match std::env::current_exe() {
            Ok(exe) => run_suite(&settings, &exe),
            Err(e) => {
                eprintln!("error: cannot find the cf17 binary's own executable: {e}");
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

/// Runs every configuration of `settings` as a child of `exe` (run as `exe
/// cf17 --child ...`), reporting progress on stderr; returns the outcomes
/// in the order run.
pub fn collect(settings: &Settings, exe: &Path) -> Vec<Outcome> {
    let mut configs = Vec::new();
    for &program in &settings.programs {
        let available = available_runners(program);
        for (runner, threads) in settings.configurations() {
            if available.contains(&runner) {
                configs.push((program, runner, threads));
            }
        }
    }
    let mut outcomes = Vec::with_capacity(configs.len());
    for (i, &(program, runner, threads)) in configs.iter().enumerate() {
        crate::cli::progress(format!(
            "{SUBCOMMAND}: [{}/{}] {program} {runner} {threads} thread(s)",
            i + 1,
            configs.len()
        ));
        let outcome = child::spawn(exe, program, runner, threads, settings);
        match &outcome.result {
            Ok(r) => eprintln!("  {}", crate::suite::report::format_ns(r.median_ns)),
            Err(e) => eprintln!("  FAILED: {e}"),
        }
        outcomes.push(outcome);
    }
    outcomes
}

/// Runs the whole suite as the parent: the children ([`collect`]), then the
/// table, the summary, the JSON and the plots. Returns the exit code (1 if
/// any child failed or a file could not be written).
pub fn run_suite(settings: &Settings, exe: &Path) -> i32 {
    let machine = Machine::detect();
    println!("{}\n", machine.describe());
    println!(
        "size: {}; reps: {} timed (+1 warm-up) per configuration; threads: {}; programs: {}; runners: {}",
        settings.size.name(),
        settings.reps,
        crate::suite::cli::join_list(&settings.threads),
        settings.programs.join(","),
        crate::suite::cli::join_list(&settings.runners),
    );
    println!();

    let outcomes = collect(settings, exe);
    let table = Table::new(&outcomes);
    println!("{}", table.render(&settings.threads));
    println!("{}", table.render_summary(&settings.threads));

    let mut status = 0;
    let json = report::Cf17Json::new(&machine, settings, &table);
    let text = serde_json::to_string_pretty(&json).expect("the JSON serializes") + "\n";
    match write_file(&settings.json, &text) {
        Ok(()) => println!("JSON written to {}", settings.json.display()),
        Err(e) => {
            eprintln!("error: {e}");
            status = 1;
        }
    }
    match crate::cf17::plots::write_all(&table, &settings.threads, &settings.plots) {
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
        let mut settings = Settings::new(Size::Test, vec![1, 2]);
        settings.programs = vec!["fib"];
        settings.runners = vec![Runner::Seq, Runner::Tuned];
        settings.json = dir.join("cf17.json");
        settings.plots = dir.clone();
        // `false` exits 1 without a message; `echo` succeeds without a RESULT.
        let outcomes = collect(&settings, Path::new("/bin/false"));
        assert_eq!(outcomes.len(), 3);
        for o in &outcomes {
            assert!(o.result.as_ref().unwrap_err().contains("without a message"));
        }
        let echoed = child::spawn(Path::new("/bin/echo"), "fib", Runner::Seq, 1, &settings);
        assert!(echoed.result.unwrap_err().contains("no RESULT line"));
        assert_eq!(run_suite(&settings, Path::new("/bin/false")), 1);
        let json = std::fs::read_to_string(&settings.json).unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        let results = v["results"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        assert!(results.iter().all(|r| r["ok"] == false));
        assert!(v["samples"].as_array().unwrap().is_empty());
        assert!(dir.join("speedup.svg").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn fib_has_every_runner() {
        assert_eq!(available_runners("fib"), Runner::ALL.to_vec());
    }
}
