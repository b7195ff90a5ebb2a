//! A worker's own state, [`WorkerThread`]: owned by its OS thread and used
//! by every fiber on that thread; the thread-local pointer to the worker of
//! this thread (set by `worker_main`, `body.rs`) and the safe ways to reach
//! it ([`WorkerThread::with_current`], [`on_worker`], [`is_current`]).
//!
//! The other files of `worker/` give the worker its behaviour, one concept
//! each (see `mod.rs`). They use its fields, which are `pub(super)` for them
//! and invisible outside `worker/`.

use crate::counters::WorkerCounters;
use crate::dast::PushPolicy;
use crate::inlining::{SiteCache, WorkerSites, NO_SITES};
use crate::job::deque::TaskDeque;
use crate::scheduler::fiber::Fiber;
use crate::scheduler::latent::join_chain::LatentChain;
use crate::scheduler::latent::spawn_arena::LatentSpawns;
use crate::scheduler::registry::{Registry, RegistryHandle, WorkerInfo};
use crate::scheduler::sleep::WorkerWake;
use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::time::Duration;

/// What a thread knows of the runtime: one thread-local, so that a `join`
/// that misses its fast path reads the worker at an address it has already
/// computed (a thread-local's address costs two instructions here).
pub(super) struct ThreadState {
    /// The worker whose main loop runs on this thread: set by `worker_main`
    /// right before the loop starts and cleared right after it returns,
    /// while the `WorkerThread` lives in `worker_main`'s frame. Null on
    /// every other thread. Read only through [`WorkerThread::with_current`]
    /// and `WorkerThread::current_task_path` (`routing.rs`).
    pub(super) worker: Cell<*const WorkerThread>,
    /// The site cache that `join`'s fast path reads
    /// (`WorkerThread::join_inlines_at`, `routing.rs`): [`NO_SITES`], on
    /// which every site misses, except while this thread's worker runs its
    /// main loop *and* its running task has recorded enough latent joins
    /// that an inlined `join` may be a plain call (`keeps_outermost`):
    /// then the worker's own cache. Set only by `worker_main` and
    /// `WorkerThread::latent_joins_changed`, on this thread.
    pub(super) fast_sites: Cell<*const SiteCache>,
}

thread_local! {
    /// This thread's [`ThreadState`].
    pub(super) static THREAD: ThreadState = const {
        ThreadState {
            worker: Cell::new(std::ptr::null()),
            fast_sites: Cell::new(&NO_SITES),
        }
    };
}

/// One worker: owned by its OS thread, used by every fiber on that thread.
pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    /// A number no other worker of any runtime in this process has had:
    /// with a latent spawn's sequence number, the identity of a handle's
    /// record (`spawn.rs`).
    pub(crate) uid: u64,
    pub(crate) registry: Arc<Registry>,
    /// This worker's own counted handle on the registry. A deferred `spawn`
    /// keeps its runtime through a clone of this (for a detached panic), not
    /// of `registry`: the count it touches is then this worker's, not one
    /// cache line that every worker's spawns would bounce between them.
    pub(crate) registry_handle: Arc<RegistryHandle>,
    pub(super) deque: TaskDeque,
    pub(super) queue_capacity: usize,
    /// Jobs pushed and not taken back, as far as the owner knows, plus the
    /// latent spawns (`latent_spawns`): the work this worker deferred.
    pub(super) local_len: Cell<usize>,
    /// `ThiefSignals::stolen` as of the last re-read of the real length.
    pub(super) steals_seen: Cell<u64>,
    /// The running fiber's latent joins (see `scheduler/latent/join_chain.rs`).
    pub(super) latent: LatentChain,
    /// `queue_capacity`, at most `MAX_LATENT_JOINS`: the longest `latent`.
    pub(super) latent_limit: usize,
    /// The running fiber's latent spawns (see `scheduler/latent/spawn_arena.rs`).
    pub(super) latent_spawns: LatentSpawns,
    /// Whether the runtime's `Params::inlining` routes spawn sites.
    pub(super) inlining: bool,
    /// This worker's site state (`WorkerInfo::sites`, boxed there), kept
    /// as a pointer so the inliner's hot path does not go through `info`.
    pub(super) sites: *const WorkerSites,
    /// This worker's entry in `registry.workers` (its counters and its
    /// published steal count), kept as a pointer so the spawn path does not
    /// index the vector.
    pub(super) info: *const WorkerInfo,
    pub(super) wake: Arc<WorkerWake>,
    /// The next park timeout (see `sleep.rs`, the backstop).
    pub(super) park_timeout: Cell<Duration>,
    /// Idle fibers (between jobs), ready for reuse. Boxed because a fiber's
    /// address is handed to latches (as its waiter identity) while it is
    /// suspended, and the pool must not copy fibers around.
    #[allow(clippy::vec_box)]
    pub(super) fiber_pool: RefCell<Vec<Box<Fiber>>>,
    /// The shortest the pool was since the last pre-park trim: the fibers
    /// below it have not run since, so that trim visits only those above.
    pub(super) pool_low_water: Cell<usize>,
    /// Stacks mapped by this worker (pooled, running or suspended).
    pub(super) stacks: Cell<usize>,
    /// Fibers suspended in a wait.
    pub(super) suspended: Cell<usize>,
    pub(super) rng: Cell<u64>,
    /// This worker's DAST push-policy state (see `dast/policy.rs`).
    pub(super) dast_policy: PushPolicy,
    /// Where this worker's next idle drain of the DAST queues starts.
    pub(super) dast_next_queue: Cell<usize>,
}

/// `WorkerThread` must stay `!Sync`, so that the `&WorkerThread` that
/// [`WorkerThread::with_current`] lends cannot be sent to another thread: this
/// fails to compile (the call is ambiguous) if it ever becomes `Sync`.
const _: () = {
    trait AmbiguousIfSync<A> {
        fn check() {}
    }
    impl<T: ?Sized> AmbiguousIfSync<()> for T {}
    impl<T: ?Sized + Sync> AmbiguousIfSync<u8> for T {}
    let _ = <WorkerThread as AmbiguousIfSync<_>>::check;
};

impl WorkerThread {
    /// Calls `f` with the worker running on this thread, or with `None` on a
    /// thread outside any runtime (and on a worker thread outside its main
    /// loop: in its start and exit handlers).
    ///
    /// The reference is valid for the whole call of `f`, and cannot outlive
    /// it: its lifetime is `f`'s own, and `WorkerThread` is `!Sync` (its
    /// `Cell`s; checked at compile time above), so `&WorkerThread` cannot be
    /// sent to another thread either.
    /// It stays valid across a suspension inside `f` (a `join` or any wait):
    /// * tasks are tied: a suspended fiber is resumed only by its home
    ///   worker, on the thread that suspended it (`scheduler/fiber/mod.rs`, `latch.rs`,
    ///   `sleep.rs`: a woken fiber goes to its home's resume inbox, which
    ///   only that worker's main loop pops), so `f` resumes on this thread,
    ///   under the same worker;
    /// * the worker outlives every fiber it runs or suspends: its main loop is
    ///   below the running fiber on this thread, and it exits only when none
    ///   of its fibers is suspended (`can_exit`), so the `WorkerThread` in
    ///   `worker_main`'s frame is alive until `f` returns.
    ///
    /// Callers keep `f` to a decision or a queue operation and run task code
    /// (a `join`'s halves, an inlined spawn, a scope's body) after it
    /// returns, not inside it: in an unoptimised build every closure level is
    /// a stack frame, which a recursion through `join` would pay per level
    /// (the stack analysis budgets `analysis::JOIN_FRAME_BYTES` per level).
    /// [`on_worker`] gets the worker again afterwards.
    #[inline]
    pub(crate) fn with_current<R>(f: impl FnOnce(Option<&WorkerThread>) -> R) -> R {
        let worker = THREAD.with(|thread| thread.worker.get());
        // SAFETY: non-null only while `worker_main`'s `WorkerThread` is alive
        // and its main loop runs on this thread; the reference lives as long
        // as this call of `f`, which the worker outlives even across
        // suspensions (tied tasks; see above), and `&WorkerThread` is `!Send`.
        f(unsafe { worker.as_ref() })
    }

    pub(super) fn info(&self) -> &WorkerInfo {
        // SAFETY: points into `self.registry.workers`, which `self` keeps
        // alive and which is never resized after the registry is built.
        unsafe { &*self.info }
    }

    pub(super) fn sites(&self) -> &WorkerSites {
        // SAFETY: points into the box of `self.registry.workers[index]`,
        // which `self` keeps alive and which never moves or is replaced.
        unsafe { &*self.sites }
    }

    pub(super) fn counters(&self) -> &WorkerCounters {
        &self.info().counters
    }

    pub(super) fn wake(&self) -> &WorkerWake {
        &self.wake
    }
}

/// Calls `f` with this thread's worker, for code that found one with
/// [`WorkerThread::with_current`] earlier in the same call on this thread: a
/// task stays on its worker, even across a suspension, so it still has it.
///
/// # Panics
/// Outside a worker (a bug in the caller).
#[inline]
pub(crate) fn on_worker<R>(f: impl FnOnce(&WorkerThread) -> R) -> R {
    WorkerThread::with_current(|worker| f(worker.expect("task code runs on its worker")))
}

/// Whether the calling thread is a worker of `registry` (running one of its
/// tasks, or its main loop).
pub(crate) fn is_current(registry: &Registry) -> bool {
    WorkerThread::with_current(|worker| {
        worker.is_some_and(|worker| std::ptr::eq(&*worker.registry, registry))
    })
}
