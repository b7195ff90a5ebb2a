//! `prescient-graph`: the pure, single-threaded data structures behind
//! Prescient's dataflow tasks.
//!
//! The central type is [`DependencyGraph`]: tasks declare accesses to data
//! regions ([`RegionId`]) with an [`AccessMode`], and the graph orders them as
//! OpenMP 4 / OmpSs `depend` clauses do — a task runs after every earlier task
//! whose access conflicts with its own (read-after-write, write-after-read,
//! write-after-write), in submission order. Its three operations are the ones
//! the runtime (and the DAST manager) issue: [`DependencyGraph::new_task`],
//! [`DependencyGraph::done_task`] and [`DependencyGraph::delete_task`].
//!
//! The graph's exclusivity guarantee is a *safety* invariant of the runtime,
//! which hands out `&mut T` to the tasks the graph declares ready. That is why
//! this crate forbids `unsafe` itself and is tested against a brute-force
//! reference model (see `tests/random_programs.rs`).
//!
//! The [`critical_path`] module analyses a recorded run's computation DAG: its
//! critical path and where the run's time went (work, delay, nowork).
//!
//! The crate is single-threaded on purpose: the runtime serialises access to a
//! graph (behind a lock, or by giving it to the manager thread).

#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod access;
pub mod critical_path;
mod error;
mod graph;
mod ids;
mod mix;
mod region_table;

pub use access::AccessMode;
pub use error::GraphError;
pub use graph::{DependencyGraph, NewTask};
pub use ids::{RegionId, TaskId};
pub use region_table::RegionTable;
