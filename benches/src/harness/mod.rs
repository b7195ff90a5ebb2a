//! The framework every table of `prescient-bench` is built on: one way to
//! run a child process, one record a measuring child prints, one table
//! description, one report writer.
//!
//! * [`table::Plan`] describes a table: its programs × runners × thread
//!   counts at one size. A [`table::Runner`] is the sequential reference,
//!   a runtime of this executable (Prescient under some parameters, rayon,
//!   chili), or a C/C++ peer's executable ([`crate::peers`]). The fork-join and CF'17
//!   tables measure every configuration in a child process
//!   ([`table::Plan::measure`]): this executable again with the table's
//!   hidden `--child PROGRAM RUNNER THREADS`, or the peer's, so that each
//!   configuration's peak RSS is its own and a crash costs one row. The
//!   tables that measure in process (dataflow, par-loops: runners timed
//!   round robin inside one process) run their peers the same way, as
//!   children, and add their rows.
//! * [`record::Record`] is what a measuring child prints as its last line:
//!   one JSON object with the time of one run per sample, its peak RSS and,
//!   for Prescient, its counters. Ours and a peer's are the same line.
//! * [`child::run`] runs a child: the measuring children, a table under
//!   the report (in a process group of its own, its `progress:` lines
//!   shown), the sweep's children.
//! * [`write`](mod@write) is the report writer: Markdown tables, number formats,
//!   ratios and geometric means, JSON files; [`machine`] the machine every
//!   table's JSON records.

pub mod child;
pub mod inproc;
pub mod machine;
pub mod pool;
pub mod record;
pub mod table;
pub mod write;

pub use machine::{load_average, Machine};
pub use pool::Pool;
pub use record::Record;
pub use table::{Kind, Outcome, Outcomes, Plan, Runner};
