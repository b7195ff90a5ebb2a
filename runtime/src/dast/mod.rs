//! DAST: the decoupled dependency manager (Bosch et al., "Characterizing and
//! improving the performance of many-core task-based parallel programming
//! runtimes", §4), and its follow-up DDAST's idle-worker draining.
//!
//! # What it does
//! Every dataflow task costs three graph operations — the paper's requests
//! `new task` (find predecessors, link), `done task` (release successors)
//! and `delete task` (free the node). Without DAST the worker that submits
//! or finishes a task executes them under the scope graph's lock, so on a
//! many-core host every worker's graph work queues behind that lock and the
//! graph's cache lines travel between all cores. With DAST a worker may
//! instead *push* the request into its own [`queue::RequestQueue`], and a
//! manager executes it: the graph then stays in one cache, and the worker
//! goes back to running tasks at once.
//!
//! # The pieces (each in its own file)
//! * `queue.rs` — a worker's request queue: single producer (the worker),
//!   one consumer at a time, FIFO per worker (which is what correctness
//!   needs; see there).
//! * `policy.rs` — the paper's push policies, per worker: inline or push,
//!   for each of the three requests, and the done-task hysteresis.
//! * `manager.rs` — the manager thread's loop.
//! * `wake.rs` — the manager's park/wake protocol.
//! * `state.rs` — [`Dast`], what a runtime holds (the queues, the manager's
//!   wake-up, the mode), and the round-robin drain shared by the manager
//!   thread and idle workers ([`Dast::drain_round`]).
//! * `interface.rs` — the two interfaces that keep this module below the
//!   dataflow code and the scheduler: a request is an [`ErasedRequest`] (the
//!   dataflow layer implements [`Request`] for its graph operations), and the
//!   tasks a request makes ready go to a [`ReadySink`] (the registry's
//!   least-loaded worker for the manager, a worker's own deque for a
//!   worker).
//! * `stats.rs` — the `dast-stats` timings.
//! * this file — declares them, re-exports what the rest of the crate uses,
//!   and switches the timings on or off ([`time_request`], [`time_lock`]).
//!
//! `manager.rs` → `state.rs`, `interface.rs`; `state.rs` → `wake.rs`,
//! `queue.rs`, `interface.rs`; `policy.rs` → `state.rs`; `stats.rs` →
//! `interface.rs`. No file imports this one.
//!
//! # Who executes requests, per [`DastMode`](crate::params::DastMode)
//! * `Off` — no queues; workers execute every request inline.
//! * `Forced` — every request is pushed; a manager thread executes them.
//! * `Adaptive` — the push policies decide; pushed requests are executed by a
//!   manager thread when the host has a hardware thread to spare for it
//!   (more hardware threads than workers: the paper reserves a core for its
//!   manager, and a manager competing with the workers for the cores slows
//!   everything it was meant to speed up) and the runtime has at least two
//!   workers (one worker never contends for the graph, which is what the
//!   manager removes, and a manager beside one worker made every dependent
//!   task costlier than `Off`), and by idle workers in any case.
//! * `IdleWorkers` — the push policies decide; no extra thread: a worker
//!   that finds no task drains request queues (DDAST).
//!
//! Without a manager thread a queued request waits for a worker to go idle,
//! and the tasks it would release wait with it; so in `Adaptive` and
//! `IdleWorkers` a worker pushes only while a consumer is at hand — a manager
//! thread, or an idle worker looking for work (one shared load) — and
//! otherwise executes the request inline (a new-task request after first
//! executing its own queue, so that its scope's submissions keep their
//! order). On a host whose workers are all busy, this makes those modes
//! behave like `Off`; the requests go to the queues exactly when some thread
//! has time for them.
//!
//! # Invariants
//! The protocol's rules, which the code's `SAFETY` comments name:
//! * **D1 — one producer, one consumer at a time.** A worker's queue has
//!   one producer, its worker; a consumer (the manager, an idle worker, or
//!   the producer draining its own full ring) holds the queue's try-lock
//!   while it executes, so each slot is touched by one thread at a time
//!   (`queue.rs`).
//! * **D2 — FIFO per worker.** A consumer executes a request before it
//!   advances the head, so each queue's requests run in push order. That is
//!   all the graph needs: a scope is submitted to by one task, tied to one
//!   worker, so its `new`s sit in one queue in program order, and a task's
//!   `delete` follows its `done`.
//! * **D3 — every pushed request is executed.** A producer whose ring is
//!   full drains its own queue before it pushes, and a worker about to go
//!   idle drains queues (when idle workers drain), so a scope's final wait —
//!   which suspends its task and idles its worker — finds every request of
//!   its scope executed.
//! * **D4 — what a request refers to outlives it.** Whoever queues a
//!   request keeps what it refers to alive until it has executed
//!   ([`Request::execute`]'s contract); for graph requests, the task is
//!   counted live in its scope until its `delete` has executed
//!   (`dataflow/graph_requests.rs`).
//! * **D5 — the manager misses no push.** A producer wakes the manager with
//!   one fence and one load per push, a Dekker handshake with the manager's
//!   announce and re-check (`wake.rs`; loom model
//!   `loom_manager_park_and_wake`).

mod interface;
mod manager;
mod policy;
mod queue;
mod state;
#[cfg(feature = "dast-stats")]
pub(crate) mod stats;
mod wake;

pub(crate) use interface::{ErasedRequest, Executor, Kind, ReadySink, Request};
pub(crate) use manager::run as run_manager;
pub(crate) use policy::{PushPolicy, Route};
pub(crate) use state::Dast;

/// Runs `operation`, a graph request of `kind` executed by `executor`, timed
/// when the `dast-stats` feature is on (see `stats.rs`); a plain call
/// otherwise.
#[inline(always)]
pub(crate) fn time_request<R>(kind: Kind, executor: Executor, operation: impl FnOnce() -> R) -> R {
    #[cfg(feature = "dast-stats")]
    return stats::time_request(kind, executor, operation);
    #[cfg(not(feature = "dast-stats"))]
    {
        let _ = (kind, executor);
        operation()
    }
}

/// Runs `acquire`, which takes a graph lock, timed when the `dast-stats`
/// feature is on; a plain call otherwise.
#[inline(always)]
pub(crate) fn time_lock<G>(acquire: impl FnOnce() -> G) -> G {
    #[cfg(feature = "dast-stats")]
    return stats::time_lock(acquire);
    #[cfg(not(feature = "dast-stats"))]
    acquire()
}
