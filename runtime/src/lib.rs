//! # Prescient
//!
//! A work-stealing runtime of stackful tasks whose parameters are chosen at
//! compile time by static analysis (`#[task_program]`).
//!
//! * [`join`], [`spawn`], [`scope`], [`TaskGroup`], [`Event`] and
//!   [`task_local!`]: a task that waits suspends, and only that task — its
//!   worker goes on with other tasks.
//! * [`Params`]: the queue policy, queue capacity (lazy task creation), task
//!   stack size and pinning, `const`-constructible and validated.
//! * [`Runtime`]: build one with [`Runtime::builder`], or let the free
//!   functions use the lazily created global runtime.
//!
//! ```
//! use prescient::{Params, QueuePolicy, Runtime};
//! const PARAMS: Params = Params::DEFAULT
//!     .with_queue_policy(QueuePolicy::PF)
//!     .with_queue_capacity(4)
//!     .checked();
//! let runtime = Runtime::builder().params(PARAMS).num_workers(2).build().unwrap();
//! let sum: u64 = runtime.run(|| {
//!     let (a, b) = prescient::join(|| (0..1000u64).sum::<u64>(), || 1000u64);
//!     a + b
//! });
//! assert_eq!(sum, 500_500);
//! ```
//!
//! ## Module layers
//! 1. `params`, `sync`, `spin_lock`, `overflow`, `topology`, `job` — no
//!    runtime state;
//! 2. `deque` (uses `job`, `spin_lock`), `fiber` (stack switching; `job`,
//!    `overflow`);
//! 3. `sleep` (parking and resume inboxes; `fiber`);
//! 4. `latch` (waiting; `fiber`, `sync`), `stack_job` (`job`, `latch`);
//! 5. `registry` — the scheduler: workers and their main loop;
//! 6. the public API: `runtime`, `join`, `spawn`, `scope`, `group`, `event`,
//!    `task_local`, `dataflow`, `analysis`.
//!
//! No module imports one from a layer above it, and no two modules import
//! each other (within layer 6, `join`, `spawn`, `scope`, `group` and
//! `dataflow` use `runtime`, never the reverse; `dataflow`'s own files form
//! a chain, see its `mod.rs`). Test code is the exception: `registry`'s unit
//! test starts a `Runtime`, and `sleep`'s loom models use `latch`.

#![deny(missing_docs)]

pub mod analysis;
mod dataflow;
mod deque;
mod event;
mod fiber;
mod group;
mod job;
mod join;
mod latch;
mod overflow;
mod params;
mod registry;
mod runtime;
mod scope;
mod sleep;
mod spawn;
mod spin_lock;
mod stack_job;
mod sync;
mod task_local;
pub mod topology;

pub use dataflow::{
    dataflow, Accesses, Data, Dataflow, In, InOut, Out, TaskArgs, TileIn, TileInOut, TileOut, Tiles,
};
pub use event::Event;
pub use group::TaskGroup;
pub use join::{join, join_at};
pub use params::{
    Params, ParamsError, Pinning, QueuePolicy, MAX_DEPENDENCY_BUCKETS, MAX_QUEUE_CAPACITY,
    MAX_STACK_SIZE, MIN_STACK_SIZE,
};
pub use prescient_macros::task_program;
pub use runtime::{
    current_worker_index, num_workers, BuildError, Counters, Runtime, RuntimeBuilder, MAX_WORKERS,
};
pub use scope::{scope, Scope};
pub use spawn::{spawn, spawn_at, TaskHandle};
pub use task_local::LocalKey;
