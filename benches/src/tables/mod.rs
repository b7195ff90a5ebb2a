//! The tables of `prescient-bench`, one module per subcommand: each has its
//! clap `Options` (the shared [`crate::cli::CommonArgs`] flattened in, then
//! its own flags) and a `run` that prints the table as Markdown on stdout,
//! says what it measures on stderr ([`crate::cli::progress`]) and, with
//! `--json FILE`, writes its results with the shared `samples` list
//! ([`crate::samples`]). Fork-join and CF'17 measure every configuration
//! in a child process of its own ([`crate::harness::table`]); every table
//! writes its text with [`crate::harness::write`].

pub mod annotated;
pub mod cf17;
pub mod dataflow;
pub mod fork_join;
pub mod inlining;
pub mod loops;
pub mod mpi_heat;
pub mod par_loops;
pub mod stack_memory;
pub mod task_cost;
#[cfg(feature = "trace")]
pub mod trace_overhead;
