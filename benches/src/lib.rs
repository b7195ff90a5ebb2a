//! Benchmark programs and the suite runner of the Prescient task runtime.
//!
//! * [`programs`] holds the benchmark programs, each with a sequential
//!   reference and one variant per runner (Prescient, rayon, chili) that
//!   differ only in the fork–join call. It is a plain library shared by the
//!   criterion benches, the suite, the examples and the integration tests.
//! * [`suite`] is the side-by-side runner behind the `suite` binary
//!   (`cargo bench-run suite -- --quick`): every
//!   program × runner × thread count runs in its own child process, so that its
//!   peak RSS is its own, and the parent prints one table and writes JSON.
//! * [`dataflow`] holds the dataflow benchmark programs, behind the
//!   `dataflow` table ([`tables::dataflow`]) and the `dataflow` criterion
//!   bench.
//! * [`stack_memory`] measures what task stacks cost in memory (the
//!   `stack_memory` binary): suspended tasks, the pool after a deep phase,
//!   the same work on OS threads.
//! * [`tables`] holds the tables of the `prescient-bench` command, one
//!   module per subcommand (`dataflow`, `loops`, `trace-overhead`, ...):
//!   each one's clap options and its `run`.
//! * [`cli`] is the command-line convention of every benchmark: the shared
//!   flags (`--quick`, `--threads LIST`, `--help`), the one thread-list
//!   parser and the `PRESCIENT_BENCH_THREADS` fallback.
//!
//! The fork–join anchors are rayon 1.12 (`rayon::join` inside
//! `ThreadPool::install`) and chili 0.2.1 (`Scope::join`, the Rust port of
//! Spice).

#![deny(missing_docs)]

pub mod annotated;
pub mod cf17;
pub mod cli;
pub mod command;
pub mod data;
pub mod dataflow;
pub mod inlining;
pub mod programs;
pub mod report;
pub mod samples;
pub mod stack_memory;
pub mod suite;
pub mod tables;
