//! Recording a run's computation DAG for the critical-path profiler
//! (`Runtime::profile`; the analysis is `prescient_graph::critical_path`).
//!
//! The scheduler and the public API call the hooks below at every task
//! operation that is a real fork, wait or completion; inlined spawns (lazy
//! task creation, latent joins that were never published, the inliner's
//! plain calls) are none: they record no task or edge and are part of
//! their parent's strand (children a spawner runs itself only pass through
//! `inlined`, which times them; see below). With the cargo feature `trace`
//! off, the hooks are empty and their values zero-sized (`off.rs`): no cost
//! at all.
//!
//! Which construct records what (`P0` is the running strand that ends at a
//! fork, `P1` the one that begins there):
//! * a published join's second half, a deferred `spawn`, scope or group
//!   spawn, a dataflow task ready at submission: `fork` ends `P0` and
//!   begins `P1` (create-continue); the job carries `P0` as its creator,
//!   and its first strand records the create edge when it starts
//!   (`task_start`, or `run_nested` when its owner claims it back);
//! * a task's end: `task_finish` ends its last strand `Bn`, which its
//!   completion carries (the `StackJob`, the handle, the scope's or
//!   group's or dataflow scope's latest finisher);
//! * a suspension (`wait_until`): `suspend` ends the strand, `resume`
//!   begins the next (wait-continue);
//! * the wait's end: `joined(Bn)` records the end edge into the waiter's
//!   strand (beginning one if the wait did not suspend);
//! * `Event::set` forks (the setter's strand ends at the set), and
//!   `Event::wait` ends with `joined(setter)`;
//! * a finished dataflow task's last strand creates the tasks it releases,
//!   even when the DAST manager releases them later (the delay shows as
//!   create scheduler delay).
//!
//! Children a spawner runs itself (`spawn`, scope and group spawns and
//! dataflow tasks run inline by lazy task creation or the inliner) are
//! no task, but `inlined` times them into the running strand's *inline
//! time*, which the report uses to tell a spawner's own work from the
//! children it ran (a loop spawner whose deque is full). `join`'s second
//! halves run inline are not timed: they are the recursion's own work, and
//! timing them would cost every join two clock reads.
//!
//! A scope, group or dataflow scope keeps only its latest finisher, which
//! is all the critical path needs (it follows the last-finished
//! predecessor).

#[cfg(feature = "trace")]
mod buffer;
#[cfg(feature = "trace")]
mod clock;
#[cfg(feature = "trace")]
mod collect;
#[cfg(feature = "trace")]
mod recorder;

#[cfg(feature = "trace")]
pub use collect::TraceStats;
#[cfg(feature = "trace")]
pub(crate) use collect::{assemble, AssembleError, Assembled, MAX_DAG_LEN};
#[cfg(feature = "trace")]
pub(crate) use recorder::{
    fork, inlined, install, joined, resume, run_nested, suspend, task_end, task_finish, task_start,
    uninstall, AtomicStrandRef, StartError, StrandRef, Tracer,
};

#[cfg(not(feature = "trace"))]
mod off;
#[cfg(not(feature = "trace"))]
pub(crate) use off::{
    fork, inlined, joined, resume, run_nested, suspend, task_end, task_finish, task_start,
    AtomicStrandRef, StrandRef,
};
