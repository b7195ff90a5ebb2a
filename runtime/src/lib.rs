//! # Prescient
//!
//! A work-stealing runtime of stackful tasks whose parameters are chosen at
//! compile time by static analysis.
//!
//! * **Fork-join**: [`join`](fn@join), [`spawn`](fn@spawn), [`scope`](fn@scope), [`TaskGroup`], [`Event`]
//!   and [`task_local!`]. A task that waits suspends, and only that task —
//!   its worker goes on with other tasks, so tasks may block on each other
//!   without blocking a thread.
//! * **Loops**: [`for_range`] and [`for_range_chunked`] run a body over a
//!   range of indices with a grain size, split in halves by [`join`](fn@join) only
//!   when another worker asks for work; [`for_chunks_mut`], [`for_chunks`]
//!   and [`for_each_mut`] do the same over a slice's disjoint chunks or
//!   elements (safe `&mut` access), and [`for_range_reduce`],
//!   [`for_range_chunked_reduce`] and [`for_chunks_reduce`] fold a range or
//!   a slice deterministically for an associative combination;
//!   [`par_sort`] and its `_by`, `_by_key` and `_unstable` forms sort a
//!   slice with a parallel merge sort.
//! * **Dataflow**: [`dataflow()`] tasks declare `in`/`out`/`inout` accesses to
//!   runtime-owned [`Data`](dataflow::Data) and [`Tiles`](dataflow::Tiles) (the
//!   [`dataflow`](mod@dataflow) module); the runtime orders them as OpenMP
//!   `depend` clauses would, and their bodies get plain `&T`/`&mut T`.
//! * **Analysis**: [`task_program`] reads a module of task code at compile
//!   time and chooses its [`Params`] — queue policy, queue capacity (lazy
//!   task creation), task stack size, dependency-table buckets.
//! * **Adaptive inlining**: every `join`/`spawn` call site is measured on
//!   its own; a site whose tasks are too short to be worth the scheduler
//!   runs them as plain calls, and hands work out only when another worker
//!   is hungry ([`Inlining`], [`Runtime::inlining_report`]).
//! * **Runtime**: build one with [`Runtime::builder`], or let the free
//!   functions use the lazily created global runtime. [`Runtime::counters`]
//!   tells what the scheduler did.
//! * **Profiling** (cargo feature `trace`): `Runtime::profile` records a
//!   run's computation DAG and finds its critical path and where the time
//!   went — work, busy delay, scheduler delay by cause, idle time — as a
//!   text report, a Chrome trace and an SVG (the `profile` module).
//!
//! Coming from rayon: [`join`](fn@join), [`scope`](fn@scope) and [`spawn`](fn@spawn) keep their names;
//! `(a..b).into_par_iter().with_min_len(g).for_each(f)` is
//! [`for_range`]`(a..b, g, f)`; `par_chunks_mut(n).enumerate().for_each(f)`
//! is [`for_chunks_mut`]`(slice, n, f)`; `par_iter_mut().enumerate().for_each`
//! is [`for_each_mut`]; `fold(...).reduce(...)` over a range or chunks is
//! [`for_range_reduce`] or [`for_chunks_reduce`];
//! `ThreadPoolBuilder::num_threads` is [`RuntimeBuilder::num_workers`],
//! `ThreadPool::install` is [`Runtime::run`], `current_thread_index` is
//! [`current_worker_index`], and `RAYON_NUM_THREADS` is `PRESCIENT_WORKERS`.
//!
//! ## Fork-join
//!
//! ```
//! use prescient::{Params, QueuePolicy, Runtime};
//! const PARAMS: Params = Params::DEFAULT
//!     .with_queue_policy(QueuePolicy::InsertFrontStealBack)
//!     .with_queue_capacity(4)
//!     .checked(); // an invalid value fails compilation
//! let runtime = Runtime::builder().params(PARAMS).num_workers(2).build().unwrap();
//! let sum: u64 = runtime.run(|| {
//!     let (a, b) = prescient::join(|| (0..1000u64).sum::<u64>(), || 1000u64);
//!     a + b
//! });
//! assert_eq!(sum, 500_500);
//! ```
//!
//! ## Parameters from the analyzer
//!
//! `#[task_program]` on an inline module emits `PARAMS` (and the `ANALYSIS`
//! it came from) inside it; hand `PARAMS` to the builder:
//!
//! ```
//! #[prescient::task_program]
//! mod fib {
//!     use prescient::join;
//!
//!     pub fn fib(n: u64) -> u64 {
//!         if n < 2 {
//!             return n;
//!         }
//!         let (a, b) = join(move || fib(n - 1), move || fib(n - 2));
//!         a + b
//!     }
//! }
//!
//! // fib recurses through one join site, with tiny tasks (effort 6 < 7667:
//! // fine or opaque tasks): the calibrated decision trees choose the BF
//! // policy (insert at the back, owner and thieves take the oldest task) with
//! // room for 32 queued tasks per worker; CF'17's trees would choose DEF
//! // (thieves take the newest) with 4.
//! use prescient::analysis::Trees;
//! assert_eq!(fib::PARAMS.queue_policy, prescient::QueuePolicy::InsertBackStealFront);
//! assert_eq!(fib::PARAMS.queue_capacity, 32);
//! let cf17 = fib::ANALYSIS.params(Trees::Cf17);
//! assert_eq!(cf17.queue_policy, prescient::QueuePolicy::InsertBackStealBack);
//! let runtime = prescient::Runtime::builder()
//!     .params(fib::PARAMS)
//!     .num_workers(2)
//!     .build()
//!     .unwrap();
//! assert_eq!(runtime.run(|| fib::fib(20)), 6765);
//! println!("{}", fib::ANALYSIS); // the report: contexts, sites, parameters
//! ```
//!
//! ## Dataflow
//!
//! ```
//! // A prefix sum over the tiles of one vector: first each tile on its own
//! // (independent tasks), then the carries, chained tile by tile because the
//! // task for tile i reads tile i - 1 and writes tile i.
//! let mut values: Vec<u64> = (1..=16).collect();
//! prescient::dataflow(|df| {
//!     let tiles = df.tiles(&mut values, 4);
//!     for i in 0..tiles.len() {
//!         df.task(tiles.inout(i), |tile: &mut [u64]| {
//!             for k in 1..tile.len() {
//!                 tile[k] += tile[k - 1];
//!             }
//!         });
//!     }
//!     for i in 1..tiles.len() {
//!         df.task(
//!             (tiles.read(i - 1), tiles.inout(i)),
//!             |(previous, tile): (&[u64], &mut [u64])| {
//!                 let carry = previous[previous.len() - 1];
//!                 tile.iter_mut().for_each(|v| *v += carry);
//!             },
//!         );
//!     }
//! });
//! assert_eq!(values[15], (1..=16).sum::<u64>());
//! ```

// Module layers, lowest first (ARCHITECTURE.md has each module's imports):
// 1. `params`, `sync`, `spin_lock`, `stack` (task stacks: reserve,
//    commitment, trimming; `params`), `overflow` (`stack`), `topology`, `trace` (the
//    profiler's recording hooks; empty without the `trace` feature), `job`
//    (`trace`), `counters`, `latent` (`job`), `progress` (the hook through
//    which workers poll external operations) — no runtime state;
// 2. `deque` (uses `job`, `spin_lock`), `fiber` (stack switching; `job`,
//    `overflow`, `stack`), `dast` (the DAST manager's request queues, push policies
//    and manager loop; `job`, `params`, `sync`);
// 3. `sleep` (parking and resume inboxes; `fiber`), `inlining` (the
//    adaptive inliner: site ids, per-site statistics and decisions,
//    calibration; `counters`, `deque`, `job`, `params`, `spin_lock`, `sync`);
// 4. `latch` (waiting; `fiber`, `sync`), `stack_job` (`job`, `latch`);
// 5. `registry` — the scheduler's shared part: what other threads see of
//    each worker, stealing, the injector, waking sleepers, the DAST manager
//    thread (`counters`, `dast`, `deque`, `inlining`, `job`, `latch`,
//    `overflow`, `params`, `sleep`, `sync`, `trace`);
// 6. `worker` — each worker's own part: its state and main loop, inliner
//    routing, lazy task creation, latent joins, waiting, fibers and the
//    live-stack cap, idling, its side of DAST (`registry` and layers 1–4);
// 7. the public API: `runtime`, `join`, `split` (the loops' splitting
//    engine over `join`), `range`, `chunks` and `reduce` (loops over
//    `split`), `sort` (the parallel sorts, over `join`),
//    `spawn`, `scope`, `group`, `event`, `task_local`, `dataflow`, `mpi`
//    (feature `mpi`, over `event`, `dataflow` and `progress`),
//    `analysis` (whose `SpawnSite` statics carry an `inlining` site slot),
//    `profile` (`Runtime::profile`, feature `trace`). `fiber`, `stack_job`,
//    `worker` and the public API call `trace`'s hooks.
//
// No module imports one from a layer above it, and no two modules import
// each other (within layer 7, `join`, `split`, `sort`, `spawn`, `scope`,
// `group` and `dataflow` use `runtime`, never the reverse, `split` and `sort`
// use `join`, and `range`, `chunks` and `reduce` use `split`). Nor
// do two files of one module: `worker`'s files use only `worker/thread.rs`
// of their folder, and the files of `dast` and of `dataflow` form chains (see
// each `mod.rs`). Test code is the one exception: `sleep`'s loom models use
// `latch` (which does not use `sleep`).

#![deny(missing_docs)]

pub mod analysis;
mod chunks;
mod counters;
mod dast;
pub mod dataflow;
mod deque;
mod event;
mod fiber;
mod group;
mod inlining;
mod job;
mod join;
mod latch;
mod latent;
mod latent_spawn;
#[cfg(feature = "mpi")]
pub mod mpi;
#[cfg(unix)]
mod overflow;
#[cfg(not(unix))]
#[path = "overflow_fallback.rs"]
mod overflow;
mod params;
#[cfg(feature = "trace")]
pub mod profile;
mod progress;
mod range;
mod reduce;
mod registry;
mod runtime;
mod scope;
mod sleep;
mod sort;
mod spawn;
mod spin_lock;
mod split;
mod stack;
mod stack_job;
mod sync;
mod task_local;
mod topology;
mod trace;
mod worker;

pub use chunks::{for_chunks, for_chunks_mut, for_each_mut};
pub use counters::Counters;
pub use dataflow::dataflow;
pub use event::Event;
pub use group::TaskGroup;
pub use inlining::{InliningReport, SiteReport};
pub use join::join;
pub use params::{
    DastMode, Inlining, Params, ParamsError, Pinning, QueuePolicy, DEFAULT_STACK_SIZE,
    MAX_DEPENDENCY_BUCKETS, MAX_QUEUE_CAPACITY, MAX_STACK_SIZE, MIN_STACK_SIZE,
};
/// The static analyzer: put it on an inline module of task code to get that
/// program's [`Params`] as `PARAMS` (and the analysis behind them as
/// `ANALYSIS`, a [`ProgramAnalysis`](analysis::ProgramAnalysis)) inside the
/// module. See the [crate documentation](crate#parameters-from-the-analyzer)
/// for a runnable example, and [`analysis`] for the decision trees.
#[doc(inline)]
pub use prescient_macros::task_program;
pub use range::{for_range, for_range_chunked};
pub use reduce::{for_chunks_reduce, for_range_chunked_reduce, for_range_reduce};
pub use runtime::{
    current_worker_index, num_workers, BuildError, Runtime, RuntimeBuilder, MAX_WORKERS,
};
pub use scope::{scope, Scope};
pub use sort::{
    par_sort, par_sort_by, par_sort_by_key, par_sort_unstable, par_sort_unstable_by,
    par_sort_unstable_by_key,
};
pub use spawn::{spawn, TaskHandle};
pub use task_local::LocalKey;

/// What the code `#[task_program]` emits refers to: the spawn-site `static`s,
/// the site-aware `join`/`spawn`/`for_range` entry points, and the `const fn`
/// helpers of the emitted effort and stack expressions.
///
/// Not part of the public API: hidden from the docs, and free to change in
/// any release together with the macro (the convention of serde and tokio).
#[doc(hidden)]
pub mod __private {
    pub use crate::analysis::emitted::{
        max, product, split_levels, sum, trip_count, SpawnSite, JOIN_FRAME_BYTES,
    };
    pub use crate::chunks::{for_chunks_at, for_chunks_mut_at, for_each_mut_at};
    pub use crate::join::join_at;
    pub use crate::range::{for_range_at, for_range_chunked_at};
    pub use crate::reduce::{
        for_chunks_reduce_at, for_range_chunked_reduce_at, for_range_reduce_at,
    };
    pub use crate::sort::{
        par_sort_at, par_sort_by_at, par_sort_by_key_at, par_sort_unstable_at,
        par_sort_unstable_by_at, par_sort_unstable_by_key_at,
    };
    pub use crate::spawn::spawn_at;
}
