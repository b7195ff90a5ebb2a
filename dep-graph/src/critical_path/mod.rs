//! Critical-path profiling of a recorded run (after Huynh & Taura's DAG
//! analysis of task-parallel runs): the pure analysis half.
//!
//! The runtime records a run as a [`Dag`] of [`Strand`]s — serial pieces of
//! tasks, each run by one worker between two task operations — joined by
//! [`Edge`]s of four [`EdgeKind`]s. [`analyze`] then computes:
//!
//! 1. the **critical path**: from the strand that ends last, step back to the
//!    predecessor that finished last, until the root;
//! 2. the **breakdown of the path's length** `T` (the run's end) into work,
//!    *busy delay* (the path's next strand was ready but every worker was
//!    running something) and *scheduler delay* (it was ready and some worker
//!    was idle), the latter by the kind of edge the path was waiting on;
//! 3. the **whole-run breakdown** of `T × workers` into work, delay (idle
//!    workers while strands were ready) and nowork (idle workers with nothing
//!    ready), in total and per worker;
//! 4. the **nowork caused by critical-path scheduler delay**: machine time
//!    that starved while the path waited to be scheduled.
//!
//! Definitions: a strand's *ready time* is the latest end of its
//! predecessors (0 for a root). The run spans `[0, T]` with `T` the latest
//! end of any strand; instant `t` is the nanosecond `[t, t + 1)`. At `t`,
//! `running(t)` strands run, `idle(t) = workers - running(t)`, `ready(t)` is
//! the number of strands with `ready <= t < start`,
//! `delay(t) = min(idle(t), ready(t))` and `nowork(t) = idle(t) - delay(t)`.
//! All totals are exact integers of (worker-)nanoseconds:
//! `path.work + path.busy_delay + Σ path.scheduler_delay
//! + path.initial_scheduler_delay == T` and
//! `run.work + run.delay + run.nowork == T × workers`.
//! The gap between 0 and the path's first strand is split like every other
//! gap; its scheduler part is reported apart, as
//! [`CriticalPath::initial_scheduler_delay`].
//!
//! [`Analysis`] prints as a text report; [`chrome_trace`] renders the run for
//! Perfetto or `chrome://tracing`; [`parallelism_profile`] gives the step
//! functions `running(t)` and `ready(t)` (and their downsampling for plots);
//! with the `svg` feature, `svg_report` draws the timeline, the profile and
//! both breakdowns as one SVG image.
//!
//! # How to read the report
//! - A large **work** share of the path means the program itself lacks
//!   parallelism: only shortening the path's strands helps.
//! - **Busy delay** means the path waited while every core was busy: the
//!   machine was full, and priority to path strands (not more workers) would
//!   shorten the run.
//! - **Create** scheduler delay: a new child waited to start while a core was
//!   idle — slow stealing or wake-up of idle workers.
//! - **Create-continue** scheduler delay: the spawning task waited to run
//!   again after forking, e.g. a loop spawner whose worker went on to run the
//!   child (work-first) while its continuation waited to be stolen.
//! - **End** scheduler delay: a joiner waited for a child that finished late
//!   and was then not resumed at once (e.g. a suspended task waiting in a
//!   queue after its last child ended).
//! - **Wait-continue** scheduler delay: the waiting task's own previous
//!   strand finished last and its resumption was slow — the cost of the
//!   wait/resume path of the runtime.
//! - The **run** table separates idleness the scheduler could have avoided
//!   (delay) from idleness with nothing to run (nowork, lack of
//!   parallelism). Nowork during critical-path scheduler delay is starvation
//!   that the scheduler itself caused by not running the path promptly.

mod analysis;
mod chrome;
mod critical;
mod error;
mod ids;
mod model;
mod parallelism;
#[cfg(feature = "svg")]
mod svg;
mod timeline;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;

pub use analysis::{analyze, Analysis, PathTask, PATH_TASKS};
pub use chrome::{chrome_trace, escape_json};
pub use critical::{CriticalPath, PathStep};
pub use error::TraceError;
pub use ids::StrandId;
pub use model::{Dag, Edge, EdgeKind, Strand};
pub use parallelism::{parallelism_profile, ParallelismProfile, ProfileBucket, ProfilePoint};
#[cfg(feature = "svg")]
pub use svg::svg_report;
pub use timeline::{RunBreakdown, Timeline, WorkerBreakdown};
