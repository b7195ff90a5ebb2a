//! The `prescient-bench` command line: one `clap` parser with a subcommand
//! per table and `report`, shared by the `prescient-bench` binary and the
//! `report` bench (`cargo bench -p prescient-benches --bench report`), so
//! that the report's child processes can run any table through whichever
//! executable started them.

use clap::{Parser, Subcommand};

use crate::cli;

use crate::{competing, peers, report, tables};

/// Prescient's benchmark tables, side by side with rayon, chili and the
/// sequential programs.
///
/// `prescient-bench report` runs them all within a time budget and writes
/// one folder per host and date; each subcommand runs one table. Thread
/// counts come from `--threads`, else $PRESCIENT_BENCH_THREADS.
#[derive(Parser, Debug)]
#[command(name = "prescient-bench", version, propagate_version = true)]
pub struct Cli {
    /// What to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
///
/// A table's variant has no doc comment of its own: `clap` would show it in
/// place of the long description on the table's `Options` (each variant's
/// doc is its module's).
#[derive(Subcommand, Debug)]
#[allow(missing_docs)]
pub enum Command {
    // The fork-join programs: `crate::tables::fork_join`.
    ForkJoin(tables::fork_join::Options),
    // The CF'17 suite, its sweep and calibration: `crate::tables::cf17`.
    Cf17(tables::cf17::Options),
    // The dataflow programs under each DAST mode: `crate::tables::dataflow`.
    Dataflow(tables::dataflow::Options),
    // Range loops against rayon: `crate::tables::loops`.
    Loops(tables::loops::Options),
    // Parallel loops over slices (reductions, chunks) against rayon:
    // `crate::tables::par_loops`.
    ParLoops(tables::par_loops::Options),
    // The distributed heat equation under mpirun: `crate::tables::mpi_heat`.
    MpiHeat(tables::mpi_heat::Options),
    // What a task nobody steals costs over a plain call:
    // `crate::tables::task_cost`.
    TaskCost(tables::task_cost::Options),
    // The annotated programs under their own and fixed parameters:
    // `crate::tables::annotated`.
    Annotated(tables::annotated::Options),
    // Adaptive inlining against the fixed policies: `crate::tables::inlining`.
    Inlining(tables::inlining::Options),
    // What the critical-path profiler costs: `crate::tables::trace_overhead`
    // (in a build with the `trace` feature).
    #[cfg(feature = "trace")]
    TraceOverhead(tables::trace_overhead::Options),
    // What task stacks cost in memory: `crate::tables::stack_memory`.
    StackMemory(tables::stack_memory::Options),
    /// Every table within a time budget, into one folder with report.md,
    /// SVG plots and JSON.
    Report(report::Options),
    /// Put a report's headline into README.md and the whole report into
    /// docs/RESULTS.md.
    Publish(report::publish::Options),
    // A competing busy process of `--competing N`, hidden from the help:
    // `crate::competing` (the tables start it as `current_exe burn`).
    #[command(name = competing::SUBCOMMAND, hide = true)]
    Burn,
    // Each C/C++ peer's executable, or why it is skipped, one `NAME\tPATH`
    // line each (hidden; `benches/bundle` copies what it lists):
    // `crate::peers`.
    #[command(name = "peer-paths", hide = true)]
    PeerPaths,
}

/// The subcommand names (what a first argument must be for [`main`] to
/// take the command line as `prescient-bench`'s).
pub fn subcommand_names() -> Vec<String> {
    use clap::CommandFactory;
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .chain(["help".to_string()])
        .collect()
}

/// Runs `command`; returns the process exit code: 0, 1 for a failure
/// (a table whose configurations failed, a report whose tables failed), 2
/// for a usage error (bad options, a bad `PRESCIENT_BENCH_THREADS`).
pub fn run(command: Command) -> i32 {
    if !matches!(command, Command::Publish(_) | Command::Burn) {
        if let Err(e) = cli::check_env() {
            eprintln!("error: {e}");
            return 2;
        }
    }
    let result = match command {
        Command::ForkJoin(options) => return tables::fork_join::run(&options),
        Command::Cf17(options) => return tables::cf17::run(&options),
        Command::Dataflow(options) => tables::dataflow::run(&options),
        Command::Loops(options) => tables::loops::run(&options),
        Command::ParLoops(options) => tables::par_loops::run(&options),
        Command::MpiHeat(options) => tables::mpi_heat::run(&options),
        Command::TaskCost(options) => tables::task_cost::run(&options),
        #[cfg(feature = "trace")]
        Command::TraceOverhead(options) => tables::trace_overhead::run(&options),
        Command::Annotated(options) => tables::annotated::run(&options),
        Command::Inlining(options) => tables::inlining::run(&options),
        Command::StackMemory(options) => tables::stack_memory::run(&options),
        Command::Report(options) => report::run(&options).map(drop),
        Command::Publish(options) => report::publish::run(&options),
        Command::Burn => competing::burn(),
        Command::PeerPaths => {
            for peer in peers::Peer::ALL {
                match peer.executable() {
                    Ok(exe) => println!("{peer}\t{}", exe.display()),
                    Err(why) => println!("{peer}\tskipped: {why}"),
                }
            }
            Ok(())
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// Parses the process's command line as `prescient-bench`'s and runs it;
/// returns the exit code (`clap` exits by itself, with 2, for `--help` and
/// bad flags).
pub fn main() -> i32 {
    run(Cli::parse().command)
}

/// The command line of the `report` bench (`cargo bench -p
/// prescient-benches --bench report -- FLAGS`), `args` without the
/// executable: the report's flags, as `prescient-bench report FLAGS` takes
/// them, with the `--bench` cargo adds left out; or, when the first word is
/// a subcommand, that subcommand (how the report runs its tables through
/// this same executable).
///
/// # Errors
/// clap's error for an argument the report does not take.
pub fn bench_command(args: impl IntoIterator<Item = String>) -> Result<Cli, clap::Error> {
    let args: Vec<String> = args.into_iter().collect();
    let words: Vec<String> = match args.first() {
        Some(first) if subcommand_names().contains(first) => args,
        _ => std::iter::once("report".to_string())
            .chain(args.into_iter().filter(|a| a != "--bench"))
            .collect(),
    };
    Cli::try_parse_from(std::iter::once("prescient-bench".to_string()).chain(words))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(args: &[&str]) -> Result<Cli, clap::Error> {
        bench_command(args.iter().map(|s| s.to_string()))
    }

    fn parses(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("prescient-bench").chain(line.split_whitespace()))
    }

    #[test]
    fn every_table_takes_its_flags_and_refuses_bad_ones() {
        let good = [
            "fork-join --quick --only tree1k,fib --runners rayon,seq --json x.json --no-idle \
             --timeout 5 --threads 1,2 --competing 3 --tree-layout post-order",
            "fork-join --profile tree1k --threads 1,4 --profile-dir /tmp/p",
            "fork-join --child fib rayon 2 --test-size",
            "fork-join --child-idle chili 2",
            "cf17 --quick --threads 2,1,4 --reps 7 --only fib --runners chili,tuned,seq \
             --json a/b.json --plots=plots --timeout 1.5",
            "cf17 --sweep --threads 1 --out /tmp/s --reps 2 --size test",
            "cf17 --calibrate",
            "dataflow --quick --threads 2,1 --reps 7 --counters --dast adaptive,off \
             --only matmul,buckets,two_wave,task-cost --json /tmp/x.json --competing 2",
            "loops --test-size --reps=7 --json out.json",
            "par-loops --quick --threads 2,1 --reps 3",
            "task-cost --quick --threads 2,1 --json out.json",
            "annotated --threads=3 --reps 7 --only alignment,fib --programs nqueens",
            "inlining --quick --policies adaptive,fixed-8 --programs fib,mixed,uts --reps 3",
            "stack-memory --test-size --threads 2",
            "report --quick --tables loops,cf17 --budget 1h30m --host h --competing 2",
            "publish results/h/d --repo . --allow-loaded",
        ];
        for line in good {
            assert!(
                parses(line).is_ok(),
                "{line}: {}",
                parses(line).unwrap_err()
            );
        }
        let bad = [
            "fork-join --only nope",
            "fork-join --tree-layout sideways",
            "fork-join --timeout -1",
            "fork-join --profile fib --competing 1",
            "fork-join --threads",
            "cf17 --quick --paper",
            "cf17 --reps 0",
            "cf17 --size huge",
            "cf17 --calibrate --sweep",
            "cf17 --out x",
            "dataflow --only nope",
            "dataflow --dast off,off",
            "dataflow --dast off,",
            "dataflow --counters=1",
            "dataflow --competing -2",
            "loops --reps 0",
            "par-loops --reps x",
            "annotated --only tree",
            "annotated --only ,",
            "inlining --policies never,never",
            "inlining --policies fixed-100000",
            "inlining --programs tree",
            "report --competing x",
            "report --budget",
        ];
        for line in bad {
            assert!(parses(line).is_err(), "{line}");
        }
        for table in subcommand_names()
            .iter()
            .filter(|t| *t != "help" && *t != "burn")
        {
            for line in [
                "--threads 0",
                "--threads 2,2",
                "--threads 4097",
                "--quick --test-size",
                "--bogus",
            ] {
                let line = format!("{table} {line}");
                let parsed = parses(&line);
                let refused = parsed.is_err() || matches!(table.as_str(), "publish");
                assert!(refused, "{line}");
            }
        }
    }

    #[test]
    fn the_report_bench_takes_the_report_flags() {
        let Ok(Cli {
            command: Command::Report(options),
        }) = words(&["--quick", "--tables", "loops", "--bench"])
        else {
            panic!("not a report");
        };
        assert!(options.quick && options.tables == ["loops"]);
        let Ok(Cli {
            command: Command::Report(options),
        }) = words(&["--bench"])
        else {
            panic!("not a report");
        };
        assert!(!options.quick && options.tables.is_empty());
        assert!(words(&["--bogus", "--bench"]).is_err());
        assert!(
            words(&["fib", "--bench"]).is_err(),
            "a filter is not a report flag"
        );
        assert!(matches!(
            words(&["loops", "--test-size"]),
            Ok(Cli {
                command: Command::Loops(_)
            })
        ));
    }
}
