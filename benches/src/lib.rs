//! Benchmark programs, the tables of `prescient-bench` and its report, for
//! the Prescient task runtime.
//!
//! * [`programs`] holds the fork-join benchmark programs, each with a
//!   sequential reference and one variant per runner (Prescient, rayon,
//!   chili) that differ only in the fork–join call. It is a plain library
//!   shared by the criterion benches, the tables, the examples and the
//!   integration tests; [`cf17`], [`dataflow`], [`annotated`] and
//!   [`inlining`] hold the other tables' programs, [`stack_memory`] the
//!   memory measurements.
//! * [`command`] is the `prescient-bench` command line: one `clap` parser,
//!   a subcommand per table, `report` and `publish`.
//! * [`harness`] is the framework every table is built on: one table
//!   description (programs × runners × thread counts at a size), one
//!   child-process runner (each configuration of fork-join and cf17, and
//!   every peer's row, in a child of its own), one record a measuring child
//!   prints, one report writer (Markdown and JSON).
//! * [`peers`] runs the C/C++ peers (OpenMP under GCC and LLVM, oneTBB,
//!   StarPU; built from `benches/peers/`) as runners of the fork-join,
//!   dataflow, par-loops and cf17 tables.
//! * [`tables`] holds the tables, one module per subcommand (`fork-join`,
//!   `cf17`, `dataflow`, `loops`, `par-loops`, `mpi-heat`, `task-cost`,
//!   `annotated`, `inlining`, `trace-overhead`, `stack-memory`): each one's
//!   clap options and its `run`.
//! * [`report`] runs every table within a time budget and writes one folder
//!   per host and date (report.md, SVG plots, JSON); [`samples`] is the JSON
//!   every table shares for it.
//! * [`cli`] holds the conventions every table follows: the shared flags
//!   ([`cli::CommonArgs`]: `--quick`, `--test-size`, `--threads LIST`,
//!   `--json FILE`), the
//!   one thread-list parser and the `PRESCIENT_BENCH_THREADS` fallback;
//!   [`data`] finds the input files, also beside a copied binary.
//! * [`competing`] holds `--competing N` of the fork-join and dataflow
//!   tables: busy processes that share the CPUs with the measurement (the
//!   hidden subcommand `burn`).
//!
//! The fork–join anchors are rayon 1.12 (`rayon::join` inside
//! `ThreadPool::install`) and chili 0.2.1 (`Scope::join`, the Rust port of
//! Spice).

#![deny(missing_docs)]

pub mod annotated;
pub mod cf17;
pub mod cli;
pub mod command;
pub mod competing;
pub mod data;
pub mod dataflow;
pub mod harness;
pub mod inlining;
pub mod peers;
pub mod programs;
pub mod report;
pub mod samples;
pub mod stack_memory;
pub mod tables;
