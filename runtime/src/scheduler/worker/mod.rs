//! A worker: its state and everything it does on its own thread — the part
//! of the scheduler that is not shared (the shared part, stealing, the
//! injector and waking sleepers, is `crate::scheduler::registry`, which this module
//! builds on and which never uses it).
//!
//! # Where task code runs
//! A worker's *main* stack runs only [`WorkerThread::main_loop`]. Every job
//! runs on a fiber (a coroutine with a pooled stack: the `stack_size`
//! reserve, with the analysed commitment pre-faulted; `stack.rs`): the loop
//! resumes a fiber with the job, and the fiber answers `Done` or `Wait`. A
//! waiting task's fiber stays suspended, registered as the waiter of what it
//! waits for; when that is set the waker pushes the fiber to this worker's
//! resume inbox, which the loop serves before any new work. A started task
//! therefore always resumes on the thread that started it (tied tasks).
//!
//! # Files, one concept each
//! * `thread.rs` — [`WorkerThread`], the worker's state, and the thread-local
//!   pointer to this thread's worker ([`WorkerThread::with_current`],
//!   [`on_worker`], [`is_current`]).
//! * `body.rs` — [`worker_main`], the body of a worker thread.
//! * `routing.rs` — inliner routing: how a `join` or `spawn` runs
//!   ([`TaskPath`]).
//! * `capacity.rs` — lazy task creation: room in the deque, pushing.
//! * `publish.rs` — recording and publishing latent joins.
//! * `wait.rs` — how a task waits: its own children inline first, then
//!   suspension ([`WorkerThread::wait_until`], [`wait_for`],
//!   [`claim_own_then_wait`]).
//! * `fiber_pool.rs` — the fiber pool, running and resuming fibers, the
//!   live-stack cap.
//! * `idle.rs` — the main loop, looking for work, idling and parking.
//! * `dast.rs` — the worker's side of the DAST request queues.
//!
//! Each file adds methods to `WorkerThread` and imports `thread.rs` for it,
//! and no other file of this folder; this file only declares them and
//! re-exports what the rest of the crate uses, so no file here imports
//! another that imports it back.

mod body;
mod capacity;
mod dast;
mod fiber_pool;
mod idle;
mod publish;
mod routing;
mod thread;
mod wait;

pub(crate) use body::worker_main;
pub(crate) use publish::{publish_latent_spawns, LatentMark};
pub(crate) use routing::TaskPath;
pub(crate) use thread::{is_current, on_worker, WorkerThread};
pub(crate) use wait::{claim_own, claim_own_then_wait, wait_for};
