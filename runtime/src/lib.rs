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
//!   [`slice::par_sort`] and its `_by`, `_by_key` and `_unstable` forms sort
//!   a slice with a parallel merge sort.
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
//!   is hungry ([`tuning::Inlining`], [`Runtime::inlining_report`]).
//! * **Runtime**: build one with [`Runtime::builder`], or let the free
//!   functions use the lazily created global runtime. [`Runtime::counters`]
//!   tells what the scheduler did. The knobs, limits and reports a program
//!   rarely names are in [`tuning`].
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
//! [`for_range_reduce`] or [`for_chunks_reduce`]; `par_sort` and its forms
//! are [`slice::par_sort`]`(slice)` and its forms;
//! `ThreadPoolBuilder::num_threads` is [`RuntimeBuilder::num_workers`],
//! `ThreadPool::install` is [`Runtime::run`], `current_thread_index` is
//! [`current_worker_index`], and `RAYON_NUM_THREADS` is `PRESCIENT_WORKERS`.
//!
//! ## Fork-join
//!
//! ```
//! use prescient::tuning::QueuePolicy;
//! use prescient::{Params, Runtime};
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
//! assert_eq!(fib::PARAMS.queue_policy, prescient::tuning::QueuePolicy::InsertBackStealFront);
//! assert_eq!(fib::PARAMS.queue_capacity, 32);
//! let cf17 = fib::ANALYSIS.params(Trees::Cf17);
//! assert_eq!(cf17.queue_policy, prescient::tuning::QueuePolicy::InsertBackStealBack);
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

// Module layers, lowest first. A module imports only modules of its own
// layer or below, and no import circle joins the modules of any folder;
// ARCHITECTURE.md ("Module layers") has the same table with each folder's
// inner layers and every module's imports, and `.ci/check-layout` checks
// the code, this list and that table against each other (test code and
// every cargo feature included).
// 1. `sync`, `spin_lock`, `unwind`, `params`, `counters`, `topology`, `progress`, `trace`
// 2. `job`
// 3. `dast`, `inlining`
// 4. `scheduler`, `analysis`
// 5. `runtime`
// 6. `task`
// 7. `loops`, `dataflow`, `profile`
// 8. `mpi`
// The crate root's re-exports and its `tuning`, `slice` and `__private`
// modules are the public face, above every layer: no module imports
// through them.

#![deny(missing_docs)]

pub mod analysis;
mod counters;
mod dast;
pub mod dataflow;
mod inlining;
mod job;
mod loops;
#[cfg(feature = "mpi")]
pub mod mpi;
mod params;
#[cfg(feature = "trace")]
pub mod profile;
mod progress;
mod runtime;
mod scheduler;
mod spin_lock;
mod sync;
mod task;
mod topology;
mod trace;
mod unwind;

pub use dataflow::dataflow;
pub use loops::chunks::{for_chunks, for_chunks_mut, for_each_mut};
pub use loops::range::{for_range, for_range_chunked};
pub use loops::reduce::{for_chunks_reduce, for_range_chunked_reduce, for_range_reduce};
pub use params::Params;
/// The static analyzer: put it on an inline module of task code to get that
/// program's [`Params`] as `PARAMS` (and the analysis behind them as
/// `ANALYSIS`, a [`ProgramAnalysis`](analysis::ProgramAnalysis)) inside the
/// module. See the [crate documentation](crate#parameters-from-the-analyzer)
/// for a runnable example, and [`analysis`] for the decision trees.
#[doc(inline)]
pub use prescient_macros::task_program;
pub use runtime::{current_worker_index, num_workers, BuildError, Runtime, RuntimeBuilder};
pub use task::event::Event;
pub use task::group::TaskGroup;
pub use task::join::join;
pub use task::local::LocalKey;
pub use task::scope::{scope, Scope};
pub use task::spawn::{spawn, TaskHandle};

/// Parallel sorts of slices: cilksort's merge sort on the runtime's tasks,
/// with the standard library's guarantees (the stable sorts are stable) and
/// rayon's names (`ParallelSliceMut::par_sort` and its `_by`, `_by_key` and
/// `_unstable` forms, here free functions of the slice).
///
/// ```
/// let mut v: Vec<u32> = (0..10_000).rev().collect();
/// prescient::slice::par_sort(&mut v);
/// assert!(v.windows(2).all(|w| w[0] <= w[1]));
/// ```
pub mod slice {
    pub use crate::loops::sort::{
        par_sort, par_sort_by, par_sort_by_key, par_sort_unstable, par_sort_unstable_by,
        par_sort_unstable_by_key,
    };
}

/// What a program tunes and what tells it how a run went: the values of
/// [`Params`]' fields, the limits [`Params::validate`] enforces (so that a
/// program can clamp a computed value instead of guessing), and the
/// scheduler's reports.
///
/// Most programs never name these: `Params::DEFAULT` or the analyzer's
/// `PARAMS` are complete values, and the free functions need no runtime of
/// their own.
///
/// ```
/// use prescient::tuning::{Inlining, QueuePolicy, MAX_QUEUE_CAPACITY};
/// use prescient::{Params, Runtime};
/// const PARAMS: Params = Params::DEFAULT
///     .with_queue_policy(QueuePolicy::InsertFrontStealBack)
///     .with_queue_capacity(MAX_QUEUE_CAPACITY)
///     .with_inlining(Inlining::Never)
///     .checked();
/// let runtime = Runtime::builder().params(PARAMS).num_workers(1).build().unwrap();
/// assert_eq!(runtime.run(|| prescient::join(|| 1, || 2)), (1, 2));
/// // One worker has no thief: the scheduler's report (a `tuning::Counters`)
/// // says nothing was stolen.
/// assert_eq!(runtime.counters().steals, 0);
/// ```
pub mod tuning {
    pub use crate::counters::Counters;
    pub use crate::inlining::{InliningReport, SiteReport};
    pub use crate::params::{
        DastMode, Inlining, ParamsError, Pinning, QueuePolicy, DEFAULT_STACK_SIZE,
        MAX_DEPENDENCY_BUCKETS, MAX_QUEUE_CAPACITY, MAX_STACK_SIZE, MIN_STACK_SIZE,
    };
    pub use crate::runtime::MAX_WORKERS;
}

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
    pub use crate::loops::chunks::{for_chunks_at, for_chunks_mut_at, for_each_mut_at};
    pub use crate::loops::range::{for_range_at, for_range_chunked_at};
    pub use crate::loops::reduce::{
        for_chunks_reduce_at, for_range_chunked_reduce_at, for_range_reduce_at,
    };
    pub use crate::loops::sort::{
        par_sort_at, par_sort_by_at, par_sort_by_key_at, par_sort_unstable_at,
        par_sort_unstable_by_at, par_sort_unstable_by_key_at,
    };
    pub use crate::task::join::join_at;
    pub use crate::task::spawn::spawn_at;
}
