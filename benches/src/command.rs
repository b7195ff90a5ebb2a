//! The `prescient-bench` command line: one `clap` parser with a subcommand
//! per table and `report`, shared by the `prescient-bench` binary and the
//! `report` bench (`cargo bench -p prescient-benches --bench report`), so
//! that the report's child processes can run any table through whichever
//! executable started them.

use clap::{Parser, Subcommand};

use crate::{cf17, competing, peers, report, suite, tables};

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
    // The fork-join suite: `crate::suite`.
    ForkJoin(suite::Options),
    // The CF'17 suite, its sweep and calibration: `crate::cf17::suite`.
    Cf17(cf17::suite::Options),
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
    // The C/C++ peers beside the sequential references, hidden until the
    // tables carry them: `crate::peers::cli`.
    #[command(hide = true)]
    Peers(peers::cli::Options),
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

/// Runs `command`; returns the process exit code.
pub fn run(command: Command) -> i32 {
    let result = match command {
        Command::ForkJoin(options) => return suite::run(&options),
        Command::Cf17(options) => return cf17::suite::run(&options),
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
        Command::Peers(options) => peers::cli::run_command(&options),
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
/// returns the exit code (`clap` exits by itself for `--help` and bad
/// flags).
pub fn main() -> i32 {
    run(Cli::parse().command)
}
