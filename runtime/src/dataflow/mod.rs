//! Dataflow tasks: tasks that declare `in` / `out` / `inout` accesses on data
//! handles owned by the runtime, ordered as OpenMP 4 / OmpSs `depend` clauses
//! order them, with safe borrows in their bodies.
//!
//! Start with [`dataflow()`](fn@dataflow) (also at the crate root,
//! `prescient::dataflow(…)`): it opens a scope, [`Dataflow`], in which
//! [`Dataflow::data`] and [`Dataflow::tiles`] make handles ([`Data`],
//! [`Tiles`]) and [`Dataflow::task`] submits a task with its accesses — the
//! tokens [`In`], [`Out`], [`InOut`], [`TileIn`], [`TileOut`],
//! [`TileInOut`] that the handles' `read`/`write`/`inout` methods return,
//! alone or in a tuple ([`Accesses`], [`TaskArgs`]). With the cargo feature
//! `dast-stats`, `DastStats` times the dependency manager's work.

// This module's files (the user-facing documentation is on `dataflow()`):
//
// * `mod.rs` (this file): [`dataflow`], the scope [`Dataflow`] and task
//   submission.
// * `task.rs`: a submitted task, how it runs and finishes, and the safety
//   invariant behind the `&mut T` hand-out.
// * `access.rs`: the access tokens, the [`Accesses`] / [`TaskArgs`] traits
//   that map them to the body's borrows, and the named-twice check.
// * `handle.rs`: the handles [`Data`] and [`Tiles`].
// * `scope_core.rs`: the lifetime-free part of a scope that handles point to
//   (region ids, retired allocations, the final wait).
// * `state.rs`: what a scope shares with its tasks (graph, live count,
//   first panic) and the type-erased task the graph holds.
// * `graph_requests.rs`: the graph operations as DAST requests — executed inline
//   by the worker that submits or finishes a task, or queued for the
//   manager, as the worker's push policies decide (see `crate::dast`).
// * `graph_ops.rs`: the scope's dependency graph, sharded by region, each
//   shard behind its own spin lock.
// * `shard.rs`: its pieces — a shard, the id a task is handed out under,
//   and the countdown record of a task registered in several shards.
//
// Each file imports only files listed after it, so no two import each other:
// `access` → `handle` → `scope_core` → `state` → `graph_ops` → `shard`;
// `task` → `access`, `state`, `graph_requests`, `graph_ops`; `graph_requests` → `state`,
// `graph_ops`.

mod access;
#[cfg(feature = "mpi")]
pub(crate) mod external;
mod graph_ops;
mod graph_requests;
mod handle;
mod scope_core;
mod shard;
mod state;
mod task;

pub use access::{Accesses, In, InOut, Out, TaskArgs, TileIn, TileInOut, TileOut};
pub use handle::{Data, Tiles};

#[cfg(feature = "dast-stats")]
pub use crate::dast::stats::{DastStats, Timing};

use crate::job::{HeapJob, JobRef};

use crate::runtime::with_registry;
use crate::scheduler::worker::{on_worker, WorkerThread};
use crate::unwind::drop_caught;
use access::{check_duplicates, MAX_ACCESSES};
use prescient_graph::{AccessMode, RegionId};
use scope_core::{OwnerThreadOnly, ScopeCore};
use state::Shared;
use std::fmt;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};

/// Runs `body` in a new dataflow scope and waits for all its tasks.
///
/// The body receives the scope, [`Dataflow`], to create handles
/// ([`Dataflow::data`], [`Dataflow::tiles`]) and submit tasks
/// ([`Dataflow::task`]). When it returns, `dataflow` waits for every task of
/// the scope (an implicit [`Dataflow::wait`]) and returns the body's result.
/// The scope's dependency table has the runtime's
/// [`Params::dependency_buckets`](crate::Params) buckets.
///
/// Called outside any runtime, it runs in the global runtime; inside a task,
/// the scope belongs to that task (nested dataflow).
///
/// # Panics
/// Re-raises the body's panic, else the first panic of a task not yet
/// re-raised by a wait — in both cases only after every task finished or was
/// cancelled (see *Panics* below for the policy).
///
/// ```
/// let total = prescient::dataflow(|df| {
///     let a = df.data(vec![1.0f64; 4]);
///     let sum = df.data(0.0f64);
///     df.task(a.inout(), |a: &mut Vec<f64>| a.iter_mut().for_each(|x| *x *= 2.0));
///     df.task((a.read(), sum.out()), |(a, sum): (&Vec<f64>, &mut f64)| {
///         *sum = a.iter().sum();
///     });
///     df.wait(); // OpenMP's taskwait
///     sum.into_inner()
/// });
/// assert_eq!(total, 8.0);
/// ```
///
/// # Semantics
/// * A task runs after every earlier task of its scope whose access conflicts
///   with its own (read-after-write, write-after-read, write-after-write), in
///   submission order. A task that is ready at submission goes to the
///   submitting worker's deque, or runs at once, as a plain call, when
///   [`queue_capacity`](crate::Params::queue_capacity) tasks of the scope
///   already wait in deques (lazy task creation, as `spawn` does; counted
///   exactly, steals included); when no unfinished task touches its data at
///   all, such a task does not even enter the dependency graph (it is over
///   before anything else is submitted). A task with unfinished predecessors
///   never runs at submission: the graph keeps it, and the worker whose task
///   releases it queues it on its own deque (where thieves may take it). To
///   make every task a deferred one, give the runtime a `queue_capacity`
///   larger than the number of tasks a scope has queued at once.
/// * **A handle named twice** by one task: two `in` accesses are one `in`
///   access for ordering and give two `&T` (harmless). If either access
///   writes, the body would get `&mut T` and another borrow of one value, so
///   the submission panics with a message naming both modes, *before*
///   anything is registered (the scope stays usable): name the handle once,
///   with the strongest mode you need (`inout`).
/// * **Panics** (the policy: poison the data, cancel the dependents): a
///   task that panics poisons every handle (tile) it writes. A later task
///   that accesses poisoned data is cancelled — its body does not run — and
///   poisons what it writes, so the whole downstream of the failure is
///   cancelled and nothing reads half-written data. Every other task runs
///   normally; nothing hangs. The first panic since the last wait is
///   re-raised by [`Dataflow::wait`] (and by `get_mut`/`into_inner`, which
///   wait), or by `dataflow` when it returns. A panic of the body itself
///   wins over a task's; it is re-raised after every task finished.
/// * **Nesting**: a task body may open its own `dataflow` scope, making
///   handles from the borrows it received (e.g. [`Dataflow::tiles`] over its
///   `&mut [T]`). The nested scope has its own graph and ends with an
///   implicit wait, so the outer task is done — and its outer successors run
///   — only after its nested tasks are done.
/// * **Waiting** ([`Dataflow::wait`] and the implicit wait at the end of
///   `dataflow`) suspends the waiting task, not its worker; see
///   [`join`](fn@crate::join) for what that means for mutex guards and
///   thread-locals held across it.
pub fn dataflow<'env, F, R>(body: F) -> R
where
    F: for<'df> FnOnce(&'df Dataflow<'df, 'env>) -> R + Send,
    R: Send,
{
    with_registry(|registry| {
        let scope = Dataflow {
            core: ScopeCore::new(registry),
            _marker: PhantomData,
            _owner_thread: PhantomData,
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| body(&scope)));
        match result {
            Err(payload) => {
                // The body's panic wins; the tasks' and the drops' are dropped.
                drop_caught(scope.core.wait_all());
                drop_caught(scope.core.shared.take_panic());
                panic::resume_unwind(payload)
            }
            Ok(value) => {
                if let Err(payload) =
                    panic::catch_unwind(AssertUnwindSafe(|| scope.core.wait_and_raise()))
                {
                    drop_caught(value);
                    panic::resume_unwind(payload);
                }
                value
            }
        }
    })
}

/// A dataflow scope: creates data handles and submits tasks that access
/// them. Given to the body of [`dataflow`].
///
/// `'df` is the scope's brand: handles carry it, it is invariant, and each
/// scope has its own, so a handle can neither leave its scope nor be used by
/// another scope's tasks. Task bodies may borrow anything that outlives the
/// scope (`'env`). The scope is `!Sync`: only the body submits (tasks cannot
/// capture it), which gives submissions their program order.
pub struct Dataflow<'df, 'env: 'df> {
    core: ScopeCore,
    /// Invariant in both lifetimes, like `std::thread::Scope`.
    _marker: PhantomData<(&'df mut &'df (), &'env mut &'env ())>,
    _owner_thread: OwnerThreadOnly,
}

impl<'df, 'env> Dataflow<'df, 'env> {
    /// Hands `value` to the runtime and returns its handle. Tasks access it
    /// with [`Data::read`] (`in`, body gets `&T`), [`Data::out`] and
    /// [`Data::inout`] (body gets `&mut T`).
    pub fn data<T: Send + 'df>(&'df self, value: T) -> Data<'df, T> {
        Data::new(&self.core, value)
    }

    /// Splits `slice` into tiles of `tile_len` elements (the last may be
    /// shorter), one handle (dependency region) per tile, in the slice's one
    /// allocation. Tasks access tile `i` with [`Tiles::read`] (body gets
    /// `&[T]`), [`Tiles::out`] and [`Tiles::inout`] (body gets `&mut [T]`).
    ///
    /// The slice may be borrowed from outside the scope, or — in a nested
    /// scope — be (part of) what the enclosing task received.
    ///
    /// # Panics
    /// If `tile_len` is 0.
    pub fn tiles<T: Send + 'df>(&'df self, slice: &'df mut [T], tile_len: usize) -> Tiles<'df, T> {
        Tiles::new(&self.core, slice, tile_len)
    }

    /// Submits a task that runs `body` with the borrows its `accesses`
    /// declare, once every earlier conflicting task of this scope is done.
    ///
    /// `accesses` is one access token, a tuple of them, or `()`; the body
    /// receives the matching borrow or tuple of borrows:
    ///
    /// ```
    /// prescient::dataflow(|df| {
    ///     let x = df.data(1u64);
    ///     let y = df.data(0u64);
    ///     df.task((x.read(), y.inout()), |(x, y): (&u64, &mut u64)| *y += *x);
    ///     df.task(y.inout(), |y: &mut u64| *y *= 10);
    ///     df.task((), |()| { /* no accesses: ordered after nothing */ });
    ///     assert_eq!(y.into_inner(), 10);
    /// });
    /// ```
    ///
    /// # Panics
    /// If the accesses name one handle (tile) twice and either access writes
    /// it — before anything is submitted (see [`dataflow`] on handles named
    /// twice). A task's own panic is not raised here.
    pub fn task<A, F>(&'df self, accesses: A, body: F)
    where
        A: Accesses<'df>,
        F: for<'t> FnOnce(<A::Raw as TaskArgs<'t>>::Args) + Send + 'df,
    {
        const {
            assert!(
                A::COUNT <= MAX_ACCESSES,
                "a task declares more than MAX_ACCESSES accesses"
            )
        };
        let mut regions = [(RegionId(0), AccessMode::In); MAX_ACCESSES];
        let regions = &mut regions[..A::COUNT];
        let raw = accesses.into_raw(regions);
        // One access cannot name a handle twice: the check (a loop the
        // compiler does not unroll) is for tuples only.
        if A::COUNT > 1 {
            check_duplicates(regions);
        }
        let shared = &self.core.shared;
        // Task bodies run outside `with_current`'s closure (see there why):
        // only whether this thread is a worker is taken from it.
        let on_a_worker = WorkerThread::with_current(|worker| worker.is_some());
        if A::COUNT == 0 {
            // No accesses: no graph entry, no id.
            shared.live.increment();
            let shared_addr = shared as *const Shared as usize;
            // `queued`: it runs as a job of its own (`trace`).
            let run = move |queued: bool| {
                // SAFETY: the task is counted as live, so its scope is alive;
                // without accesses it needs no hand-out and gets no borrow.
                unsafe { task::execute(shared_addr as *const Shared, raw, body, None, queued) }
            };
            if on_a_worker && !shared.has_room() {
                run_inlined(|| run(false));
            } else {
                shared.note_queued();
                let job = HeapJob::into_job_ref(move || {
                    // SAFETY: the scope is alive while this task is counted
                    // live in it (link 7 of `task.rs`), until its finish.
                    unsafe { (*(shared_addr as *const Shared)).note_started() };
                    run(true);
                });
                push_or_inject(shared, job);
            }
            return;
        }
        // The fast path: when no registered unfinished task conflicts with
        // these accesses and enough of the scope's tasks are queued, the task
        // would run inline anyway; it then needs no graph entry at all, since
        // it finishes before this thread (the only submitter) submits
        // anything else.
        let has_room = shared.has_room();
        // SAFETY: the handles are alive: the tokens borrowed them for this
        // call.
        if on_a_worker && !has_room && unsafe { raw.is_idle() } {
            // SAFETY: idle, and this is the owner thread (`!Sync` scope)
            // submitting; see `run_unregistered`.
            let bound = run_inlined(|| unsafe { task::run_unregistered(shared, raw, body) });
            if let Some((raw, events)) = bound {
                // Its body bound external events: registered after all, so
                // that later tasks wait for them and its data stays alive
                // until they happened, even if the body panicked after
                // binding (see `boxed_bound`).
                let stand_in = |raw| task::boxed_bound(shared, raw, events);
                submit_registered(shared, raw, stand_in, regions, on_a_worker, has_room);
            }
            return;
        }
        let task = |raw| task::boxed(shared, raw, body);
        submit_registered(shared, raw, task, regions, on_a_worker, has_room);
    }

    /// Waits for every task submitted to this scope so far (OpenMP's
    /// `taskwait`); afterwards handles' values are readable again
    /// ([`Data::get_mut`], [`Data::into_inner`], [`Tiles::get_mut`]).
    ///
    /// Waiting suspends the calling task; its worker runs other tasks
    /// meanwhile (see [`join`](fn@crate::join) about mutex guards and
    /// thread-locals held across a wait).
    ///
    /// # Panics
    /// Re-raises the first panic of a task of this scope since the last wait,
    /// after every task finished or was cancelled.
    pub fn wait(&self) {
        self.core.wait();
    }

    /// The number of tasks submitted to this scope and not finished yet.
    pub fn live_tasks(&self) -> usize {
        self.core.shared.live.count()
    }
}

/// Registers a task with the graph and runs or queues it if it is ready
/// (the part of [`Dataflow::task`] after the fast path). `make_task` boxes
/// it (`task::boxed`, or `task::boxed_bound` for a fast-path task that bound
/// external events) once it is counted.
fn submit_registered<R>(
    shared: &Shared,
    raw: R,
    make_task: impl FnOnce(R) -> state::TaskRef,
    regions: &[(RegionId, AccessMode)],
    on_a_worker: bool,
    has_room: bool,
) where
    R: for<'t> TaskArgs<'t> + Send,
{
    // SAFETY: the handles are alive (the caller's tokens borrow them for
    // the submission); counted once, before registration, by the owner.
    unsafe { raw.count_live() };
    shared.live.increment();
    let task = make_task(raw);
    // SAFETY: the owner submits, on its worker; the task is counted live.
    let Some(task) = (unsafe { graph_requests::submit(shared, task, regions) }) else {
        // Queued for the DAST manager, which hands the task to a worker
        // once its predecessors are done.
        return;
    };
    let ready = crate::dast::time_request(
        crate::dast::Kind::New,
        crate::dast::Executor::Inline,
        || shared.graph.new_task(regions, task),
    );
    let Some((id, task)) = ready else {
        // Waits for its predecessors: whoever finishes the last one
        // queues it.
        return;
    };
    if on_a_worker && !has_room {
        // Lazy task creation: enough tasks are queued and this one is
        // ready, so run it now as a plain call.
        // SAFETY: the graph handed the task out under `id`; the scope
        // is alive (the caller borrows it).
        run_inlined(|| unsafe { task.run(id) });
    } else {
        // SAFETY: the graph handed the task out under `id` (link 1 of
        // `task.rs`); the scope is alive (the caller borrows it).
        push_or_inject(shared, unsafe { task.into_job(id) });
    }
}

/// Queues a job on this worker's deque, or in the runtime's injector from a
/// thread outside it.
fn push_or_inject(shared: &Shared, job: JobRef) {
    WorkerThread::with_current(|worker| match worker {
        Some(worker) => worker.push_forked(job),
        None => shared.registry.inject(job),
    });
}

/// Runs `child`, a task run at once at submission, inline: counts it as an
/// inlined spawn of this worker, then runs it in the running strand's
/// inline time (`trace::inlined`). On a worker only.
fn run_inlined<R>(child: impl FnOnce() -> R) -> R {
    on_worker(WorkerThread::note_inlined);
    crate::trace::inlined(child)
}

impl fmt::Debug for Dataflow<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dataflow")
            .field("live_tasks", &self.live_tasks())
            .finish_non_exhaustive()
    }
}

#[cfg(all(test, not(loom), feature = "mpi"))]
mod tests {
    use super::dataflow;
    use super::external::{bind_to_current_task, ExternalEvents};
    use crate::params::Params;
    use crate::runtime::Runtime;
    use std::sync::{Arc, Mutex};

    /// When a bound task's last event happens while other tasks are queued,
    /// the rest of its finish, and the tasks that finish releases, run next
    /// (`task::queue_continuation`; a test of `external.rs`, kept here
    /// because it needs the whole scope), not behind the queue. One worker, every
    /// task deferred, the default queue policy (the owner takes the oldest
    /// job first): `bound` binds an event (as `mpi::bind` does) and the
    /// first of the queued tasks makes it happen, as a poll between jobs
    /// would; the consumer of `bound`'s data must run right after it.
    #[test]
    fn a_bound_tasks_successors_run_before_queued_work() {
        let rt = Runtime::builder()
            .num_workers(1)
            .params(Params::DEFAULT.with_queue_capacity(1 << 16))
            .build()
            .unwrap();
        let log = Mutex::new(Vec::new());
        let held: Mutex<Option<Arc<ExternalEvents>>> = Mutex::new(None);
        rt.run(|| {
            dataflow(|df| {
                let data = df.data(0u32);
                let (log, held) = (&log, &held);
                df.task(data.out(), move |value: &mut u32| {
                    *value = 100;
                    *held.lock().unwrap() = bind_to_current_task();
                });
                for i in 0..20 {
                    df.task((), move |()| {
                        if i == 0 {
                            let events = held.lock().unwrap().take();
                            events.expect("the bound task ran first").decrease();
                        }
                        log.lock().unwrap().push(i);
                    });
                }
                df.task(data.read(), move |value: &u32| {
                    log.lock().unwrap().push(*value);
                });
            })
        });
        let log = log.into_inner().unwrap();
        assert_eq!(log[..3], [0, 100, 1], "{log:?}");
        assert_eq!(log.len(), 21);
    }
}
