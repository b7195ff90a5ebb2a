//! The scheduler: the registry of workers shared by all threads, and each
//! worker thread's state and main loop.
//!
//! # Layout
//! A [`Registry`] holds what other threads need of each worker: the thieves'
//! end of its deque, its wake-up slot (resume inbox + parking) and its
//! counters, plus the injector for jobs from outside the runtime. A
//! [`WorkerThread`] is owned by its OS thread and holds the owner's end of the
//! deque, the lazy-task-creation counter and the pool of fibers (stacks).
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
//! # Lazy task creation
//! `local_len` counts the jobs this worker pushed and has not taken back; it is
//! owner-local (a `Cell`), so checking "is my deque full?" costs a
//! thread-local load and a compare. Steals are invisible to it, so thieves
//! publish them: every successful steal increments the victim's `stolen`
//! count (`ThiefSignals`, on its own cache line). When `local_len` reads full,
//! the owner compares `stolen` with the value it last saw; only if a thief
//! took something since does it re-read the real length (a `#[cold]` path).
//! So a spawn runs inline only when the deque really holds `queue_capacity`
//! jobs, up to a steal racing with the check, and a worker whose deque really
//! is full pays a load, a compare, a counter bump, one more load (of a line
//! that only steals write) and a plain call per spawn. (A periodic re-read
//! instead, say every 64th full read, lets a spawner whose deque thieves
//! emptied run dozens of tasks serially.)
//!
//! `join` does not push at all unless asked: it records its second half as
//! *latent* (`latent.rs`), and a thief that finds this deque empty raises the
//! worker's `hungry` flag, which makes its next `join` publish the oldest
//! latent half to the deque.
//!
//! # The live-stack cap
//! Each mapped stack costs two memory mappings (Linux allows about 65k per
//! process), so a worker keeps at most `live_stack_cap` stacks. When it needs a
//! new one at the cap it first resumes ready fibers, and takes no new job while
//! one of its tasks may still become ready; it maps a stack beyond the cap only
//! when nothing arrived for [`CAP_GRACE`] (counted in `stacks_beyond_cap`).
//! A joining task whose child is still unstarted in its own deque takes the
//! child back and runs it inline (its own child: that is the sequential order,
//! not helping). Nothing unrelated is ever run nested on a waiting task's
//! stack, so no wait depends on a task buried beneath it.
//!
//! # Trimming pooled stacks
//! A fiber that finished a job goes back to the pool; if its job went below
//! the stack's commitment (the canary under it changed, `stack.rs`) the
//! stack is trimmed back to it first, and before the worker parks it trims
//! every pooled stack used since its last park (a frame can span the canary
//! without writing it). Both are `madvise` calls on this worker's own idle
//! stacks: no other worker is involved, and a shallow job pays one load.

use crate::counters::{add, bump, WorkerCounters};
use crate::dast::{Dast, ErasedRequest, PushPolicy, ReadySink, Route};
use crate::deque::{DequeStealer, TakeOwn, TaskDeque};
use crate::fiber::{self, Fiber, FiberInput, FiberPtr, FiberYield, WaitTarget};
use crate::inlining::{FastRoute, Inliner, InliningReport, SiteId, SiteKey, WorkerSites};
use crate::job::{drop_caught, report, JobRef, PanicPayload};
use crate::latch::{self, CountLatch, Latch, Waitable};
use crate::latent::{LatentChain, MAX_LATENT_JOINS};
use crate::params::{DastMode, Inlining, Params};
use crate::sleep::{WorkerWake, PARK_TIMEOUT_MAX, PARK_TIMEOUT_MIN, SPIN_BEFORE_SLEEP};
use crate::stack_job::mark_published;
use crate::sync::AtomicUsize as SleeperCount;
use crate::sync::Inbox;
use crate::trace;
use crossbeam_deque::{Injector, Steal};
use crossbeam_utils::CachePadded;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a worker at its live-stack cap waits for one of its tasks to
/// become ready before it maps a stack beyond the cap.
pub(crate) const CAP_GRACE: Duration = Duration::from_millis(2);

/// The longest run of spin hints an idle worker waits between two looks for
/// work before it starts yielding the CPU instead.
const MAX_IDLE_SPIN: u32 = 256;

/// A user callback taking a worker index.
pub(crate) type WorkerCallback = Box<dyn Fn(usize) + Send + Sync>;
/// A user callback for panics of detached tasks.
pub(crate) type PanicCallback = Box<dyn Fn(PanicPayload) + Send + Sync>;

/// What other threads see of one worker.
pub(crate) struct WorkerInfo {
    stealer: DequeStealer,
    /// What thieves tell the owner, on its own cache line, so that their
    /// writes do not disturb the owner's other state.
    signals: CachePadded<ThiefSignals>,
    /// Shared with the worker's fibers (their home), see `sleep.rs`.
    pub(crate) wake: Arc<WorkerWake>,
    pub(crate) counters: CachePadded<WorkerCounters>,
    /// Ready dataflow tasks the DAST manager chose this worker for (see
    /// `Registry`'s `ReadySink`). The worker takes them after its own deque;
    /// thieves take them after the deques.
    mailbox: Inbox<JobRef>,
    /// This worker's per-site counts and inlining decisions (see
    /// `inlining`), written by the worker, read by reports. Boxed: its
    /// cache is kilobytes, and the fields above are on every hot path.
    sites: Box<WorkerSites>,
}

/// What thieves write and a worker reads on its own hot paths.
struct ThiefSignals {
    /// Jobs thieves took from this worker's deque: incremented (`Release`)
    /// after each successful steal, read by the owner when its own count says
    /// the deque is full (see *Lazy task creation* above).
    stolen: AtomicU64,
    /// A thief found this worker's deque empty: the worker publishes its
    /// oldest latent join at its next `join` and clears the flag (see
    /// `latent.rs`). Relaxed both ways: it is a hint; a publication it misses
    /// comes at the next `join` after the thief's next look, and a stale one
    /// costs one needless push.
    hungry: AtomicBool,
}

impl ThiefSignals {
    /// Raises the `hungry` flag, as a thief that found the deque empty does.
    /// Read first, so that thieves do not keep writing a line the owner reads
    /// on every join.
    fn ask_for_work(&self) {
        if !self.hungry.load(Ordering::Relaxed) {
            self.hungry.store(true, Ordering::Relaxed);
        }
    }
}

/// User callbacks.
#[derive(Default)]
pub(crate) struct Handlers {
    pub(crate) start: Option<WorkerCallback>,
    pub(crate) exit: Option<WorkerCallback>,
    pub(crate) panic: Option<PanicCallback>,
}

/// State shared by all workers of one runtime.
pub(crate) struct Registry {
    pub(crate) params: Params,
    pub(crate) workers: Vec<WorkerInfo>,
    injector: Injector<JobRef>,
    sleepers: Arc<SleeperCount>,
    /// Workers in `idle` that are looking for work, not parked.
    idle_spinning: AtomicUsize,
    terminate: AtomicBool,
    /// Worker threads started and not finished; `Runtime`'s drop waits for
    /// zero (suspending, when it runs in a task of another runtime).
    pub(crate) running: CountLatch,
    next_wake: AtomicUsize,
    pub(crate) live_stack_cap: usize,
    pub(crate) handlers: Handlers,
    /// The DAST request queues and manager state (see `dast`).
    pub(crate) dast: Dast,
    /// The per-site inlining decisions (see `inlining`).
    inliner: Inliner,
    /// The profiler's per-worker buffers, when the runtime was built with
    /// `RuntimeBuilder::trace` (see `trace`).
    #[cfg(feature = "trace")]
    pub(crate) tracer: Option<trace::Tracer>,
}

impl Registry {
    /// Creates the registry and the owner ends of the deques (one per worker),
    /// which the caller moves into the worker threads.
    pub(crate) fn new(
        params: Params,
        num_workers: usize,
        live_stack_cap: usize,
        handlers: Handlers,
        #[cfg(feature = "trace")] trace_capacity: Option<usize>,
    ) -> (Arc<Registry>, Vec<TaskDeque>) {
        let sleepers = Arc::new(SleeperCount::new(0));
        let mut deques = Vec::with_capacity(num_workers);
        let mut workers = Vec::with_capacity(num_workers);
        for _ in 0..num_workers {
            let (deque, stealer) = TaskDeque::new(params.queue_policy);
            deques.push(deque);
            workers.push(WorkerInfo {
                stealer,
                signals: CachePadded::new(ThiefSignals {
                    stolen: AtomicU64::new(0),
                    hungry: AtomicBool::new(false),
                }),
                wake: Arc::new(WorkerWake::new(sleepers.clone())),
                counters: CachePadded::new(WorkerCounters::default()),
                mailbox: Inbox::new(),
                sites: Box::new(WorkerSites::new()),
            });
        }
        let registry = Arc::new(Registry {
            params,
            workers,
            injector: Injector::new(),
            sleepers,
            idle_spinning: AtomicUsize::new(0),
            terminate: AtomicBool::new(false),
            running: CountLatch::new(0),
            next_wake: AtomicUsize::new(0),
            live_stack_cap,
            handlers,
            dast: Dast::new(
                params.dast,
                num_workers,
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ),
            inliner: Inliner::new(params.inlining),
            #[cfg(feature = "trace")]
            tracer: trace_capacity.map(|capacity| trace::Tracer::new(num_workers, capacity)),
        });
        (registry, deques)
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    /// The inliner's per-site report, summed over the workers.
    pub(crate) fn inlining_report(&self) -> InliningReport {
        self.inliner
            .report(self.workers.iter().map(|worker| &*worker.sites))
    }

    /// Whether the calling thread is a worker of this registry (running one
    /// of its tasks, or its main loop).
    pub(crate) fn is_current(&self) -> bool {
        WorkerThread::with_current(|worker| {
            worker.is_some_and(|worker| std::ptr::eq(&*worker.registry, self))
        })
    }

    /// Queues a job from outside the runtime and wakes a worker for it.
    pub(crate) fn inject(&self, job: JobRef) {
        self.injector.push(job);
        self.wake_one_sleeper();
    }

    /// Wakes one sleeping worker, if any sleeps. The scan over workers happens
    /// only when the sleeper count says one exists, and starts at a rotating
    /// index so that wake-ups spread.
    pub(crate) fn wake_one_sleeper(&self) {
        // Pairs with the fence in `WorkerWake::sleep` (Dekker): either this
        // load sees the sleeper's announcement, or the sleeper's re-check sees
        // the work published before this call. Without the fence the load may
        // be satisfied before the caller's push is visible (store-load
        // reordering), and a worker could sleep on an injected job forever.
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) == 0 {
            return;
        }
        let n = self.workers.len();
        let start = self.next_wake.fetch_add(1, Ordering::Relaxed);
        for offset in 0..n {
            let info = &self.workers[(start + offset) % n];
            if info.wake.is_sleeping() && info.wake.wake() {
                return;
            }
        }
    }

    /// Wakes one sleeping worker if workers sleep and none is awake and idle
    /// (rayon's rule): an awake idle worker finds new work by itself. Best
    /// effort, without a fence, for the hot paths that call it (`push`, and a
    /// worker taking an injected or stolen job): a wake-up missed here costs
    /// parallelism, never progress.
    #[inline]
    pub(crate) fn wake_one_if_none_idle(&self) {
        if self.sleepers.load(Ordering::Relaxed) != 0
            && self.idle_spinning.load(Ordering::Relaxed) == 0
        {
            self.wake_one_sleeper();
        }
    }

    /// A worker queued a DAST request for idle workers to execute: wake a
    /// sleeping worker if none is awake and idle. Unlike
    /// [`wake_one_if_none_idle`](Self::wake_one_if_none_idle) this must not
    /// miss: the producer may go on with a long task, and the request's
    /// successors would wait for it (or for a park timeout). The fence pairs
    /// with the one an idle worker makes between announcing its sleep and
    /// re-checking for work (`WorkerWake::sleep`, whose check includes the
    /// request queues): either this load sees that worker leave the spinners
    /// and announce its sleep, or its re-check sees the request.
    pub(crate) fn wake_one_for_request(&self) {
        std::sync::atomic::fence(Ordering::SeqCst);
        if self.sleepers.load(Ordering::SeqCst) != 0
            && self.idle_spinning.load(Ordering::SeqCst) == 0
        {
            self.wake_one_sleeper();
        }
    }

    /// Tells the workers to finish every task and exit, and wakes them.
    pub(crate) fn terminate(&self) {
        self.terminate.store(true, Ordering::SeqCst);
        for info in &self.workers {
            info.wake.wake();
        }
    }

    /// Reports the panic of a detached task to the panic handler, or without
    /// one on stderr (the std panic hook already printed the message and
    /// location). Never unwinds: a panicking handler is reported and its
    /// payload dropped under `catch_unwind`.
    pub(crate) fn handle_detached_panic(&self, payload: PanicPayload) {
        match &self.handlers.panic {
            Some(handler) => {
                let handled =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler(payload)));
                if let Err(second) = handled {
                    report(format_args!(
                        "the panic handler panicked; that panic is ignored"
                    ));
                    drop_caught(second);
                }
            }
            None => {
                report(format_args!(
                    "a detached task panicked (no panic handler set)"
                ));
                drop_caught(payload);
            }
        }
    }

    fn steal_from_others(&self, thief: usize, rng: &Cell<u64>) -> Option<JobRef> {
        let n = self.workers.len();
        if n <= 1 {
            return None;
        }
        let mut backoff: u32 = 1;
        loop {
            let mut retry = false;
            let start = (next_random(rng) % n as u64) as usize;
            for offset in 0..n {
                let victim = (start + offset) % n;
                if victim == thief {
                    continue;
                }
                match self.workers[victim].stealer.steal() {
                    Steal::Success(job) => {
                        // Release: an owner that sees this count also sees
                        // the deque without the job (`resync_room`).
                        self.workers[victim]
                            .signals
                            .stolen
                            .fetch_add(1, Ordering::Release);
                        return Some(job);
                    }
                    Steal::Retry => retry = true,
                    Steal::Empty => {
                        // Tasks the DAST manager sent the victim wait in its
                        // mailbox while it is busy: take one of those.
                        if let Some(job) = self.workers[victim].mailbox.pop() {
                            return Some(job);
                        }
                        // Ask the victim for its latent work.
                        self.workers[victim].signals.ask_for_work();
                    }
                }
            }
            if !retry {
                return None;
            }
            // Some victim's lock was busy (its owner or another thief holds
            // it for a few instructions): back off before the next round, so
            // that thieves do not keep a popular victim's line bouncing.
            for _ in 0..backoff {
                std::hint::spin_loop();
            }
            backoff = (backoff * 2).min(MAX_IDLE_SPIN);
        }
    }

    /// Raises the `hungry` flag of every other worker: what a failed steal
    /// does to each victim, done once more by a worker about to park.
    ///
    /// Why: a `join` publishes its latent second half only when its worker's
    /// flag is up, and the push of a published half is what wakes a sleeper.
    /// A worker that spun without stealing (the spin only watches for
    /// non-empty deques) and then parked would leave no flag behind, and a
    /// worker that runs only joins would never push: the sleeper would sleep
    /// through the whole computation (observed: a 2-worker fib at sequential
    /// speed in one run of three, zero steals). With the flags up, the next
    /// join of every busy worker publishes, and its push wakes this worker.
    /// O(workers), on the path to parking only; each flag is read before it
    /// is written, so a flag already up costs no cache-line transfer.
    fn ask_for_latent_work(&self, thief: usize) {
        for (index, info) in self.workers.iter().enumerate() {
            if index != thief {
                info.signals.ask_for_work();
            }
        }
    }

    fn take_injected(&self) -> Option<JobRef> {
        loop {
            match self.injector.steal() {
                Steal::Success(job) => return Some(job),
                Steal::Empty => return None,
                Steal::Retry => continue,
            }
        }
    }

    /// Whether any deque of another worker or the injector looks non-empty.
    /// O(workers): used only on the idle path before parking.
    fn any_stealable(&self, thief: usize) -> bool {
        !self.injector.is_empty()
            || self
                .workers
                .iter()
                .enumerate()
                .any(|(i, w)| i != thief && (!w.stealer.is_empty() || !w.mailbox.is_empty()))
    }

    /// The worker a ready task released by the DAST manager goes to: the
    /// less loaded (deque plus mailbox) of two workers picked at random.
    ///
    /// The paper's manager scans every worker for the least-loaded one (its
    /// DBF adaptation); that is O(workers) per released task on the one
    /// thread that all graph work goes through. Two random choices cost O(1)
    /// and keep the most loaded worker within O(log log n) of the average
    /// (the power of two choices), which is what the scan is for.
    fn least_loaded(&self) -> usize {
        let n = self.workers.len();
        let load = |index: usize| {
            let info = &self.workers[index];
            info.stealer.len() + info.mailbox.len()
        };
        let first = (next_random_local() % n as u64) as usize;
        if n == 1 {
            return first;
        }
        let second = (first + 1 + (next_random_local() % (n as u64 - 1)) as usize) % n;
        if load(second) < load(first) {
            second
        } else {
            first
        }
    }
}

/// The DAST manager's sink: a released task goes to the least-loaded worker's
/// mailbox, and that worker is woken if it sleeps.
impl ReadySink for Registry {
    fn dispatch(&self, job: JobRef) {
        let target = &self.workers[self.least_loaded()];
        target.mailbox.push(job);
        // Dekker with the sleeper's re-check of its mailbox (`has_work`)
        // after it announced its sleep, as in `wake_one_sleeper`.
        std::sync::atomic::fence(Ordering::SeqCst);
        if target.wake.is_sleeping() {
            target.wake.wake();
        } else {
            // The target is busy: a thief may take the task from its
            // mailbox, so make sure one is awake.
            self.wake_one_if_none_idle();
        }
    }
}

/// A worker that executes requests itself (inline, draining its full queue,
/// or idle and draining others' queues) keeps what they make ready: its own
/// deque, where thieves can take it.
impl ReadySink for WorkerThread {
    fn dispatch(&self, job: JobRef) {
        self.push(job);
    }
}

/// A per-thread xorshift for the DAST manager's random choices (the manager
/// is not a worker and has no worker rng).
fn next_random_local() -> u64 {
    thread_local! {
        static RNG: Cell<u64> = const { Cell::new(0x2545_F491_4F6C_DD1D) };
    }
    RNG.with(next_random)
}

fn next_random(rng: &Cell<u64>) -> u64 {
    // xorshift64*
    let mut x = rng.get();
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng.set(x);
    x.wrapping_mul(0x2545_F491_4F6C_DD1D)
}

thread_local! {
    /// The worker whose main loop runs on this thread: set by `worker_main`
    /// right before the loop starts and cleared right after it returns, while
    /// the `WorkerThread` lives in `worker_main`'s frame. Null on every other
    /// thread. Read only through [`WorkerThread::with_current`].
    static WORKER_THREAD: Cell<*const WorkerThread> = const { Cell::new(std::ptr::null()) };
}

/// A reference to a registry behind a count of its own: see
/// `WorkerThread::registry_handle`.
pub(crate) struct RegistryHandle(pub(crate) Arc<Registry>);

impl std::ops::Deref for RegistryHandle {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        &self.0
    }
}

/// How one `join` or `spawn` runs (see `WorkerThread::task_path`).
pub(crate) enum TaskPath {
    /// Through the scheduler: a latent join, a deque push.
    Deferred,
    /// Through the scheduler, for an inlined site that keeps its worker's
    /// outermost work ready (`WorkerThread::keeps_outermost`): a latent
    /// join that does not answer a hungry thief itself — the site's
    /// periodic checks do, so that a tiny recursion is not shared faster
    /// than a steal pays — or a deque push.
    Kept,
    /// As a plain call.
    Plain,
    /// Either (`true`: deferred), with the task timed for the inliner.
    Timed(SiteId, bool),
}

/// An inlined `join` records its second half while its worker holds fewer
/// latent joins than this (see `WorkerThread::keeps_outermost`).
const INLINE_LATENT_JOINS: usize = 2;

/// An inlined spawn defers its task while its worker's deque holds fewer
/// tasks than this (see `WorkerThread::keeps_outermost`).
const INLINE_QUEUED_TASKS: usize = 2;

/// One worker: owned by its OS thread, used by every fiber on that thread.
pub(crate) struct WorkerThread {
    pub(crate) index: usize,
    pub(crate) registry: Arc<Registry>,
    /// This worker's own counted handle on the registry. A deferred `spawn`
    /// keeps its runtime through a clone of this (for a detached panic), not
    /// of `registry`: the count it touches is then this worker's, not one
    /// cache line that every worker's spawns would bounce between them.
    pub(crate) registry_handle: Arc<RegistryHandle>,
    deque: TaskDeque,
    queue_capacity: usize,
    /// Jobs pushed and not taken back, as far as the owner knows.
    local_len: Cell<usize>,
    /// `ThiefSignals::stolen` as of the last re-read of the real length.
    steals_seen: Cell<u64>,
    /// The running fiber's latent joins (see `latent.rs`).
    latent: LatentChain,
    /// `queue_capacity`, at most `MAX_LATENT_JOINS`: the longest `latent`.
    latent_limit: usize,
    /// Whether the runtime's `Params::inlining` routes spawn sites.
    inlining: bool,
    /// This worker's site state (`WorkerInfo::sites`, boxed there), kept
    /// as a pointer so the inliner's hot path does not go through `info`.
    sites: *const WorkerSites,
    /// This worker's entry in `registry.workers` (its counters and its
    /// published steal count), kept as a pointer so the spawn path does not
    /// index the vector.
    info: *const WorkerInfo,
    wake: Arc<WorkerWake>,
    /// The next park timeout (see `sleep.rs`, the backstop).
    park_timeout: Cell<Duration>,
    /// Idle fibers (between jobs), ready for reuse. Boxed because a fiber's
    /// address is handed to latches (as its waiter identity) while it is
    /// suspended, and the pool must not copy fibers around.
    #[allow(clippy::vec_box)]
    fiber_pool: RefCell<Vec<Box<Fiber>>>,
    /// The shortest the pool was since the last pre-park trim: the fibers
    /// below it have not run since, so that trim visits only those above.
    pool_low_water: Cell<usize>,
    /// Stacks mapped by this worker (pooled, running or suspended).
    stacks: Cell<usize>,
    /// Fibers suspended in a wait.
    suspended: Cell<usize>,
    rng: Cell<u64>,
    /// This worker's DAST push-policy state (see `dast/policy.rs`).
    dast_policy: PushPolicy,
    /// Where this worker's next idle drain of the DAST queues starts.
    dast_next_queue: Cell<usize>,
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
    ///   worker, on the thread that suspended it (`fiber.rs`, `latch.rs`,
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
        let worker = WORKER_THREAD.with(Cell::get);
        // SAFETY: non-null only while `worker_main`'s `WorkerThread` is alive
        // and its main loop runs on this thread; the reference lives as long
        // as this call of `f`, which the worker outlives even across
        // suspensions (tied tasks; see above), and `&WorkerThread` is `!Send`.
        f(unsafe { worker.as_ref() })
    }

    fn info(&self) -> &WorkerInfo {
        // SAFETY: points into `self.registry.workers`, which `self` keeps
        // alive and which is never resized after the registry is built.
        unsafe { &*self.info }
    }

    fn sites(&self) -> &WorkerSites {
        // SAFETY: points into the box of `self.registry.workers[index]`,
        // which `self` keeps alive and which never moves or is replaced.
        unsafe { &*self.sites }
    }

    fn counters(&self) -> &WorkerCounters {
        &self.info().counters
    }

    /// Counts a task run inline as a plain call because the queue was full
    /// (an owner-written counter: load and store).
    #[inline]
    pub(crate) fn note_inlined(&self) {
        bump(&self.counters().inlined_spawns);
    }

    fn wake(&self) -> &WorkerWake {
        &self.wake
    }

    /// Whether a new task may go into the deque. When it may not, the caller
    /// runs the task inline as a plain call, and this counts it as an inlined
    /// spawn.
    ///
    /// The full path is: load the local length, compare, load this worker's
    /// published steal count and compare it with the last one seen (a thief
    /// took something: re-read the real length on the cold path), bump the
    /// inlined counter (a plain load and store of an owner-written atomic).
    #[inline(always)]
    fn reserve(&self) -> bool {
        if self.has_room() {
            return true;
        }
        self.note_inlined();
        false
    }

    /// [`task_path`](Self::task_path) on this thread's worker, `None` outside
    /// any runtime: what every `join` and `spawn` calls first. One function
    /// without a closure, so that it inlines into the caller's recursion
    /// (a closure passed to `with_current` was left out of line in some
    /// binaries: a call per `join`). Out of line in the debug profile, where
    /// an inlined callee's locals would stay in every recursive frame of
    /// the caller (`tests/tests/join_frame.rs`).
    #[cfg_attr(debug_assertions, inline(never))]
    #[cfg_attr(not(debug_assertions), inline(always))]
    pub(crate) fn current_task_path(site: Option<SiteKey>, is_join: bool) -> Option<TaskPath> {
        let worker = WORKER_THREAD.with(Cell::get);
        // SAFETY: as in `with_current`: non-null only while the worker's
        // main loop runs on this thread, and the reference does not outlive
        // this call.
        let worker = unsafe { worker.as_ref() }?;
        Some(worker.task_path(site, is_join))
    }

    /// How this execution of the `join` (`is_join`) or `spawn` at `site`
    /// runs: through the inliner (`inlining`) when the runtime inlines and
    /// the call is a site, then through lazy task creation (`reserve_join`,
    /// `reserve`).
    ///
    /// An inlined task still takes the scheduler's path while its worker
    /// has little work for thieves (`keeps_outermost`), so that the
    /// outermost pending tasks of an inlined recursion stay ready for a
    /// hungry thief (publication and steals take the oldest): inlining
    /// removes the tasks below them, where fine-grained recursions spend
    /// their spawns.
    #[inline(always)]
    pub(crate) fn task_path(&self, site: Option<SiteKey>, is_join: bool) -> TaskPath {
        if let (Some(site), true) = (site, self.inlining) {
            match self.sites().fast_route(site.address()) {
                FastRoute::Inline => {
                    return if !self.keeps_outermost(is_join) || !self.reserve_for(is_join) {
                        TaskPath::Plain
                    } else {
                        TaskPath::Kept
                    };
                }
                FastRoute::Slow => return self.task_path_slow(site, is_join),
                FastRoute::Schedule => {}
            }
        }
        if self.reserve_for(is_join) {
            TaskPath::Deferred
        } else {
            TaskPath::Plain
        }
    }

    /// `task_path` past the inliner's fast path.
    #[cold]
    #[inline(never)]
    fn task_path_slow(&self, site: SiteKey, is_join: bool) -> TaskPath {
        let Some((id, route)) =
            self.registry
                .inliner
                .slow_route(self.sites(), site, &self.info().signals.hungry)
        else {
            return if self.reserve_for(is_join) {
                TaskPath::Deferred
            } else {
                TaskPath::Plain
            };
        };
        let kept = route.inline() && self.keeps_outermost(is_join);
        let inline = route.inline() && !kept;
        let deferred = !inline && self.reserve_for(is_join);
        match (route.timed(), deferred) {
            (true, _) => TaskPath::Timed(id, deferred),
            (false, true) if kept => TaskPath::Kept,
            (false, true) => TaskPath::Deferred,
            (false, false) => TaskPath::Plain,
        }
    }

    /// Whether an inlined site's task takes the scheduler's path anyway, to
    /// keep this worker's outermost pending work ready for thieves: a `join`
    /// while the worker records fewer than [`INLINE_LATENT_JOINS`] latent
    /// joins, a spawn while its deque holds fewer than
    /// [`INLINE_QUEUED_TASKS`] tasks. In a recursion these are the outer
    /// levels, whose tasks are the large ones; below them, inlined tasks
    /// are plain calls.
    #[inline(always)]
    fn keeps_outermost(&self, is_join: bool) -> bool {
        if is_join {
            self.latent.len() < INLINE_LATENT_JOINS
        } else {
            // The deque's real length: `local_len` does not see steals.
            self.deque.len() < INLINE_QUEUED_TASKS
        }
    }

    #[inline(always)]
    fn reserve_for(&self, is_join: bool) -> bool {
        if is_join {
            self.reserve_join()
        } else {
            self.reserve()
        }
    }

    /// Records a timed execution of site `id` that started at `start` on
    /// the worker running this thread, if any (a timed task runs on a
    /// worker of the runtime that timed it: its own, or a thief's).
    #[cold]
    pub(crate) fn record_site_sample_here(id: SiteId, start: Instant) {
        WorkerThread::with_current(|worker| {
            if let Some(worker) = worker {
                worker.record_site_sample(id, start);
            }
        });
    }

    /// Runs `f` as a timed execution of site `id`: reads the clock before
    /// it and, once it returns (not if it panics), records the sample on
    /// the worker running this thread
    /// ([`record_site_sample_here`](Self::record_site_sample_here)).
    #[inline]
    pub(crate) fn timed_sample<R>(id: SiteId, f: impl FnOnce() -> R) -> R {
        let start = Instant::now();
        let result = f();
        WorkerThread::record_site_sample_here(id, start);
        result
    }

    /// Records a timed execution of site `id` that started at `start` and
    /// ran on this worker.
    pub(crate) fn record_site_sample(&self, id: SiteId, start: Instant) {
        let hungry = self.registry.idle_spinning.load(Ordering::Relaxed) > 0
            || self.info().signals.hungry.load(Ordering::Relaxed);
        self.registry
            .inliner
            .record_sample(self.sites(), id, start, hungry);
    }

    /// Whether a `join` may record its second half as latent: the worker
    /// holds fewer than `queue_capacity` jobs in its deque and latent joins
    /// together, and fewer than `MAX_LATENT_JOINS` latent ones (see
    /// `latent.rs`, *How many*). When it may not, the join is a plain
    /// `(a(), b())`, counted as an inlined spawn. Latent joins count against
    /// the capacity because they are tasks the worker can still hand out.
    #[inline(always)]
    fn reserve_join(&self) -> bool {
        let latent = self.latent.len();
        if latent < self.latent_limit && self.local_len.get() + latent < self.queue_capacity {
            return true;
        }
        if latent >= self.latent_limit {
            self.note_inlined();
            return false;
        }
        let stolen = self.info().signals.stolen.load(Ordering::Relaxed);
        if stolen != self.steals_seen.get() && self.resync_join_room() {
            return true;
        }
        self.note_inlined();
        false
    }

    /// `reserve_join`'s cold path: a steal may have made room in the deque.
    #[cold]
    #[inline(never)]
    fn resync_join_room(&self) -> bool {
        self.resync_room();
        self.local_len.get() + self.latent.len() < self.queue_capacity
    }

    /// Whether the deque holds fewer than `queue_capacity` jobs (up to a
    /// steal racing with the check): `reserve` without counting.
    #[inline(always)]
    fn has_room(&self) -> bool {
        if self.local_len.get() < self.queue_capacity {
            return true;
        }
        let stolen = self.info().signals.stolen.load(Ordering::Relaxed);
        stolen != self.steals_seen.get() && self.resync_room()
    }

    /// Re-reads the real length after a steal; whether there is room now.
    #[cold]
    #[inline(never)]
    fn resync_room(&self) -> bool {
        // Acquire pairs with the thieves' Release increments: every steal
        // counted here is visible in the length read below.
        self.steals_seen
            .set(self.info().signals.stolen.load(Ordering::Acquire));
        let real = self.deque.len();
        self.local_len.set(real);
        real < self.queue_capacity
    }

    /// Pushes a job. Wakes a sleeping worker only when workers sleep and none
    /// is awake and idle (rayon's rule): an awake idle worker will find the
    /// job by itself, so during a burst of fine-grained work — where idle
    /// workers spin for [`SPIN_BEFORE_SLEEP`] between jobs — no push pays for a
    /// futex call; only the first push after everyone went to sleep does.
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        self.deque.push(job);
        self.local_len.set(self.local_len.get() + 1);
        bump(&self.counters().spawns);
        // A missed wake-up costs parallelism, never progress: the owner runs
        // its own deque.
        self.registry.wake_one_if_none_idle();
    }

    /// Pushes `job`, a new job of the running task: pushing a new job is a
    /// fork of the current strand (`trace::fork`), which becomes the job's
    /// creator. [`push`](Self::push) is for jobs whose creator is set
    /// already.
    #[inline]
    pub(crate) fn push_forked(&self, job: JobRef) {
        self.push(job.created_by(trace::fork()));
    }

    fn note_taken(&self) {
        self.local_len.set(self.local_len.get().saturating_sub(1));
    }

    /// Records a `join`'s second half `job` as latent (see `latent.rs`)
    /// before the join runs its first half; if a thief asked for work since
    /// the last `join`, publishes the oldest latent join now.
    ///
    /// The common path is a push onto an owner-only vector and two loads and
    /// a compare for the thief's flag.
    ///
    /// # Safety
    /// `job` comes from `StackJob::as_job_ref` on a job that stays in place
    /// until [`end_latent`](Self::end_latent) with it returns, which the
    /// caller's frame guarantees (it calls `end_latent` before it ends, on
    /// every path), and the calling task does not switch fibers in between
    /// except through `wait_until`.
    ///
    /// `answer_hungry` false (an inlined site's kept join, `TaskPath::Kept`)
    /// records without publishing: the site's own checks answer thieves.
    #[inline(always)]
    pub(crate) unsafe fn begin_latent(&self, job: JobRef, answer_hungry: bool) {
        self.latent.push(job);
        if answer_hungry && self.info().signals.hungry.load(Ordering::Relaxed) {
            self.answer_hungry();
        }
    }

    /// A thief found this deque empty: publish the oldest latent join, if
    /// the deque has room (the queue capacity bounds published joins as it
    /// bounds spawns).
    #[cold]
    #[inline(never)]
    fn answer_hungry(&self) {
        self.info().signals.hungry.store(false, Ordering::Relaxed);
        if self.has_room() {
            self.publish_oldest_latent();
        }
    }

    /// Publishes the oldest latent join, if any; whether there was one.
    fn publish_oldest_latent(&self) -> bool {
        let Some(job) = self.latent.take_oldest() else {
            return false;
        };
        // SAFETY: every job in the chain came from `begin_latent`, whose
        // contract keeps it in place until its join ends, which happens only
        // after it left the chain; we are its worker.
        unsafe { mark_published(job) };
        bump(&self.counters().published_joins);
        // The join becomes a fork here, where its second half becomes
        // visible: the running strand is its creator.
        self.push_forked(job);
        true
    }

    /// For a range loop between two chunks (`range.rs`): whether a thief
    /// asked this worker for work and the loop should split its remaining
    /// range, so that the `join` of the split publishes the second half.
    /// When the worker has a latent join already, it publishes that one (the
    /// oldest, larger than anything the loop could split off now) and the
    /// loop goes on; when its deque is full, thieves have work there and the
    /// loop goes on too. The common path is one load of the thief's flag.
    #[inline]
    pub(crate) fn split_requested(&self) -> bool {
        if !self.info().signals.hungry.load(Ordering::Relaxed) {
            return false;
        }
        if !self.latent.is_empty() {
            self.answer_hungry();
            return false;
        }
        self.has_room()
    }

    /// Raises this worker's `hungry` flag as a thief would (tests force
    /// splits and publications with it).
    #[cfg(test)]
    pub(crate) fn ask_for_work(&self) {
        self.info().signals.hungry.store(true, Ordering::Relaxed);
    }

    /// Before the running task suspends: publish every latent join, so that
    /// no unstarted work hides beneath a waiting task (the wait may depend on
    /// it). Ignores the capacity: visibility here is about progress.
    fn publish_all_latent(&self) {
        while self.publish_oldest_latent() {}
    }

    /// `join`'s second half, after its first half: returns `true` if the
    /// caller runs the child inline — it stayed latent, or it was published
    /// and is still unstarted in this worker's deque (its own child: the
    /// joiner claims it under every policy) — and `false` once the child
    /// finished elsewhere (a thief took it; the task suspended meanwhile).
    /// `published` is the child's `StackJob::is_published`.
    #[inline(always)]
    pub(crate) fn end_latent(&self, job: JobRef, published: bool, latch: &Latch) -> bool {
        if !published {
            self.latent.pop_newest(job);
            return true;
        }
        self.take_back_or_wait(job, latch)
    }

    /// Gets the child `job` done: takes it back and returns `true` (run it
    /// inline) if it is still unstarted in this worker's deque, else waits on
    /// `latch` and returns `false`.
    ///
    /// Claiming the child under every policy is a deliberate departure from
    /// Insieme, whose joiner under insert-back policies suspends here and
    /// lets the worker take its *oldest* job: a fine-grained recursion then
    /// expands breadth-first, every join suspends, and thieves (who take the
    /// newest under `DEF`) get the smallest tasks — measured on 16 cores,
    /// `DEF` fib ran slower than sequential. The child is the joiner's own
    /// dependency, not a scheduling choice; the policy still decides where
    /// new jobs go, which job the owner takes when it looks for work, and
    /// which end thieves take.
    #[cold]
    #[inline(never)]
    fn take_back_or_wait(&self, job: JobRef, latch: &Latch) -> bool {
        // Published joins are the oldest, and newer ones have ended.
        debug_assert!(
            self.latent.is_empty(),
            "a published join ended before a latent one"
        );
        match self.deque.take_own(job) {
            TakeOwn::Taken => {
                self.note_taken();
                return true;
            }
            TakeOwn::Empty => self.local_len.set(0),
            TakeOwn::NotFound => {}
        }
        self.wait_until(latch);
        false
    }

    /// Takes an unstarted job of the scope, group or task handle `owner`
    /// back from this worker's deque, for [`claim_own_then_wait`] to run
    /// inline.
    fn claim_owned_by(&self, owner: *const ()) -> Option<JobRef> {
        let job = self.deque.take_owned_by(owner)?;
        self.note_taken();
        Some(job)
    }

    fn at_stack_cap(&self) -> bool {
        self.fiber_pool.borrow().is_empty() && self.stacks.get() >= self.registry.live_stack_cap
    }

    /// Suspends the current task until `waitable` holds; the worker runs other
    /// work meanwhile. Returns at once if it holds.
    ///
    /// Must be called from task code on this worker's thread. Callers whose
    /// condition can become false again (counters) re-check and call again.
    pub(crate) fn wait_until<W: Waitable>(&self, waitable: &W) {
        if waitable.probe() {
            return;
        }
        self.publish_all_latent();
        // Erase the lifetime: the waitable lives in this task's frame or is
        // kept alive by it, and the frame is suspended (not popped) until the
        // main loop resumes us, which happens only after the waiter is woken.
        let target: *const (dyn WaitTarget + '_) = waitable;
        // SAFETY: transmuting only the trait object's lifetime bound; see above.
        let target: *const (dyn WaitTarget + 'static) = unsafe { std::mem::transmute(target) };
        let paused = trace::suspend();
        // SAFETY: we are task code on a fiber of this worker (contract), and
        // the waitable outlives the suspension (above).
        unsafe { fiber::suspend_current(FiberYield::Wait { target }) };
        trace::resume(paused);
    }

    /// The worker thread's main loop: resume ready fibers, else run new jobs
    /// (own deque, injector, steal), else spin, then park. Returns when the
    /// runtime terminates and this worker has nothing left.
    fn main_loop(&self) {
        loop {
            if let Some(fiber) = self.wake().pop_ready() {
                self.resume_ready(fiber);
                continue;
            }
            if self.at_stack_cap() && !self.wait_at_cap() {
                continue;
            }
            if let Some(job) = self.find_job() {
                self.run_job(job);
                continue;
            }
            if self.drain_dast_requests() {
                continue;
            }
            if !self.idle() {
                return;
            }
        }
    }

    fn find_job(&self) -> Option<JobRef> {
        if let Some(job) = self.deque.pop() {
            self.note_taken();
            return Some(job);
        }
        if let Some(job) = self.info().mailbox.pop() {
            return Some(job);
        }
        if let Some(job) = self.registry.take_injected() {
            self.keep_a_thief_looking();
            return Some(job);
        }
        let job = self.registry.steal_from_others(self.index, &self.rng)?;
        bump(&self.counters().steals);
        self.keep_a_thief_looking();
        Some(job)
    }

    /// This worker just took a job from outside its own deque (the injector
    /// or a steal): if workers sleep and none is awake looking for work, wake
    /// one (tokio's rule for the last searching worker).
    ///
    /// Why: a `join` does not push its second half; it keeps it latent until
    /// a thief raises the worker's `hungry` flag, and only a thief that is
    /// awake raises it. Without this, a job injected while the other workers
    /// sleep (`Runtime::run` after a pause longer than the idle spin) ran on
    /// one worker for as long as it made only joins: nothing was pushed, so
    /// nothing woke a sleeper, and a 2-worker fib ran at sequential speed in
    /// about one run of three. The woken worker spins, finds the deque empty,
    /// raises the flag, and the next join publishes; its own steal then wakes
    /// the next sleeper, so a many-core pool fills in a chain of steals. Cost:
    /// two loads per injected or stolen job; the futex call only when a worker
    /// sleeps and none spins.
    #[inline]
    fn keep_a_thief_looking(&self) {
        self.registry.wake_one_if_none_idle();
    }

    /// At the live-stack cap: wait for a ready fiber up to `CAP_GRACE`.
    /// Returns `true` if the worker may take a new job (which maps a stack
    /// beyond the cap, counted in `take_fiber`), `false` if a fiber became
    /// ready.
    fn wait_at_cap(&self) -> bool {
        let deadline = Instant::now() + CAP_GRACE;
        loop {
            if self.wake().has_ready() {
                return false;
            }
            if Instant::now() >= deadline {
                break;
            }
            std::thread::yield_now();
        }
        true
    }

    fn take_fiber(&self) -> Box<Fiber> {
        let mut pool = self.fiber_pool.borrow_mut();
        if let Some(fiber) = pool.pop() {
            self.pool_low_water
                .set(self.pool_low_water.get().min(pool.len()));
            return fiber;
        }
        drop(pool);
        let params = &self.registry.params;
        let stack_size = params.stack_size;
        match Fiber::new(
            stack_size,
            params.effective_committed_stack_size(),
            self.wake.clone(),
        ) {
            Ok(fiber) => {
                if self.stacks.get() >= self.registry.live_stack_cap {
                    bump(&self.counters().stacks_beyond_cap);
                }
                self.stacks.set(self.stacks.get() + 1);
                bump(&self.counters().live_stacks);
                fiber
            }
            Err(error) => {
                report(format_args!(
                    "cannot map a task stack of {stack_size} bytes: {error} \
                     ({} stacks mapped by worker {}; see Runtime::max_live_stacks)",
                    self.stacks.get(),
                    self.index
                ));
                std::process::abort();
            }
        }
    }

    fn run_job(&self, job: JobRef) {
        let fiber = self.take_fiber();
        self.drive(fiber, FiberInput::Run(job));
    }

    fn resume_ready(&self, fiber: FiberPtr) {
        self.suspended.set(self.suspended.get() - 1);
        // SAFETY: the fiber was suspended by this worker (`drive` leaked its
        // box into the waiter), and the inbox hands it out exactly once.
        let fiber = unsafe { Box::from_raw(fiber.0) };
        self.drive(fiber, FiberInput::Resume);
    }

    /// Resumes `fiber` and handles what it yields.
    fn drive(&self, mut fiber: Box<Fiber>, input: FiberInput) {
        let yielded = fiber.resume(input);
        debug_assert!(
            self.latent.is_empty(),
            "a fiber switched out with latent joins"
        );
        match yielded {
            Some(FiberYield::Done) => {
                if fiber.recycle() {
                    bump(&self.counters().stack_trims);
                }
                self.fiber_pool.borrow_mut().push(fiber);
            }
            Some(FiberYield::Wait { target }) => {
                bump(&self.counters().suspensions);
                let suspended = self.suspended.get() + 1;
                self.suspended.set(suspended);
                let peak = &self.counters().peak_live_stacks;
                if suspended as u64 > peak.load(Ordering::Relaxed) {
                    peak.store(suspended as u64, Ordering::Relaxed);
                }
                let fiber_ptr = FiberPtr(Box::into_raw(fiber));
                // SAFETY: the waiting task's frame keeps `target` alive while
                // its fiber is suspended, and the fiber has switched out, so
                // registering it cannot race with its own code.
                let registered = unsafe { (*target).register_fiber(fiber_ptr) };
                if !registered {
                    // Already satisfied: ready at once.
                    self.wake().push_ready_local(fiber_ptr);
                }
            }
            None => unreachable!("a fiber returned without being told to exit"),
        }
    }

    /// Spins with exponential backoff, then parks. Returns `false` when the
    /// worker should exit.
    ///
    /// The backoff matters on fine grains: every look at another worker's
    /// deque pulls its cache lines over here, and the owner's next push then
    /// pays a cache miss. Between looks an idle worker waits 1, 2, 4, … up to
    /// [`MAX_IDLE_SPIN`] spin hints (then yields the CPU between looks), so an
    /// idle worker costs a busy owner at most one miss per few microseconds.
    fn idle(&self) -> bool {
        // The last park timed out with nothing to do: this worker is idle for
        // a while, not between two bursts, so it goes straight back to sleep.
        // (Spinning after every timed-out park cost an idle runtime about
        // 1.8 ms of CPU per worker in its first second: eight wake-ups of the
        // 4, 8, … 512 ms backoff, each followed by a full spin phase.)
        if self.park_timeout.get() > PARK_TIMEOUT_MIN {
            self.registry.ask_for_latent_work(self.index);
            return self.park();
        }
        let spinning = &self.registry.idle_spinning;
        spinning.fetch_add(1, Ordering::SeqCst);
        let start = Instant::now();
        let mut spins: u32 = 1;
        loop {
            if self.has_work() {
                spinning.fetch_sub(1, Ordering::SeqCst);
                self.park_timeout.set(PARK_TIMEOUT_MIN);
                return true;
            }
            if self.can_exit() {
                spinning.fetch_sub(1, Ordering::SeqCst);
                return false;
            }
            if spins < MAX_IDLE_SPIN {
                for _ in 0..spins {
                    std::hint::spin_loop();
                }
                spins *= 2;
            } else {
                std::thread::yield_now();
                if start.elapsed() > SPIN_BEFORE_SLEEP {
                    break;
                }
            }
        }
        spinning.fetch_sub(1, Ordering::SeqCst);
        self.registry.ask_for_latent_work(self.index);
        self.park()
    }

    /// Parks until there is work, or — once the runtime terminates — until
    /// this worker may exit; doubles the park timeout when it passes with
    /// nothing found (see `sleep.rs`). Returns `true`: the caller looks for
    /// work again and comes back to `idle` if there is none.
    fn park(&self) -> bool {
        self.trim_pooled_stacks();
        // Not "until terminate is set": a terminating runtime with a suspended
        // task (waiting for an event set later) must not spin its workers
        // while it waits.
        let timeout = self.park_timeout.get();
        let timed_out = self
            .wake()
            .sleep(|| self.has_work() || self.can_exit(), timeout);
        self.park_timeout.set(if timed_out {
            (timeout * 2).min(PARK_TIMEOUT_MAX)
        } else {
            PARK_TIMEOUT_MIN
        });
        true
    }

    /// Before parking: trims every pooled stack that ran a job since its
    /// last trim back to its commitment (see `stack.rs`: the canary check at
    /// each job's end can miss a frame that spans it). One `madvise` per such
    /// stack, only when the worker is about to sleep, so what a deep phase
    /// leaves in the pool is returned when the phase ends. It visits only the
    /// pool above its low-water mark: a fiber runs only after it is popped,
    /// and returns on top, so those below have not run since the last trim.
    fn trim_pooled_stacks(&self) {
        let mut trimmed = 0;
        let mut pool = self.fiber_pool.borrow_mut();
        let low_water = self.pool_low_water.get().min(pool.len());
        for fiber in pool[low_water..].iter_mut() {
            trimmed += u64::from(fiber.trim_if_used());
        }
        self.pool_low_water.set(pool.len());
        if trimmed != 0 {
            add(&self.counters().stack_trims, trimmed);
        }
    }

    fn has_work(&self) -> bool {
        self.wake().has_ready()
            || !self.deque.is_empty()
            || !self.info().mailbox.is_empty()
            || self.registry.any_stealable(self.index)
            || (self.registry.dast.idle_workers_drain()
                && self.registry.dast.has_drainable_requests())
    }

    fn can_exit(&self) -> bool {
        self.registry.terminate.load(Ordering::SeqCst)
            && self.suspended.get() == 0
            && !self.wake().has_ready()
            && self.deque.is_empty()
            && self.info().mailbox.is_empty()
            && self.registry.injector.is_empty()
    }

    // ----- DAST requests (see `dast`): the worker's side -----

    /// The DAST mode of this worker's runtime.
    #[inline]
    fn dast_mode(&self) -> DastMode {
        self.registry.dast.mode()
    }

    /// Whether a new-task request of the scope at address `scope` is queued
    /// or executed inline (the new-task push policy), counted.
    #[inline]
    pub(crate) fn dast_route_new(&self, scope: usize) -> Route {
        let route = match self.dast_mode() {
            DastMode::Off => Route::Inline,
            DastMode::Forced => Route::Push,
            DastMode::Adaptive | DastMode::IdleWorkers => {
                let queue = self.registry.dast.queue(self.index);
                match self.dast_policy.route_new(scope, queue.completed()) {
                    Route::Push if !self.dast_consumer_available() => {
                        // Nobody would execute the request soon: run this
                        // worker's queued requests now (FIFO, so the
                        // scope's earlier submissions come first) and this
                        // one inline.
                        if queue.is_empty() || self.dast_drain_own_queue() {
                            Route::Inline
                        } else {
                            Route::Push
                        }
                    }
                    route => route,
                }
            }
        };
        let counters = self.counters();
        Self::note_route(route, &counters.dast_new_pushed, &counters.dast_new_inline)
    }

    /// Queues a new-task request of the scope at address `scope` (after
    /// [`dast_route_new`](Self::dast_route_new) said `Push`).
    ///
    /// # Safety
    /// As [`Request::execute`](crate::dast::Request::execute): what the
    /// request refers to stays alive until it is executed.
    pub(crate) unsafe fn dast_push_new(&self, scope: usize, request: ErasedRequest) {
        // SAFETY: forwarded contract.
        let position = unsafe { self.dast_push(request) };
        self.dast_policy.pushed_new(scope, position);
    }

    /// The done-task push policy, counted.
    #[inline]
    pub(crate) fn dast_route_done(&self) -> Route {
        let route = match self.dast_mode() {
            DastMode::Off => Route::Inline,
            DastMode::Forced => Route::Push,
            DastMode::Adaptive | DastMode::IdleWorkers => {
                let pending = self.registry.dast.queue(self.index).pending();
                let (route, doubled) = self.dast_policy.route_done(pending, self.local_len.get());
                if doubled {
                    bump(&self.counters().dast_bound_doublings);
                }
                // A queued request waits for a consumer; with none at hand
                // (no manager thread, no idle worker) it only delays the
                // successors, so execute it now.
                if route == Route::Push && !self.dast_consumer_available() {
                    Route::Inline
                } else {
                    route
                }
            }
        };
        let counters = self.counters();
        Self::note_route(
            route,
            &counters.dast_done_pushed,
            &counters.dast_done_inline,
        )
    }

    /// The delete-task push policy for a task whose done request was queued
    /// at `done_position` (`None`: executed inline), counted.
    #[inline]
    pub(crate) fn dast_route_delete(&self, done_position: Option<usize>) -> Route {
        let route = match (self.dast_mode(), done_position) {
            (DastMode::Off, _) | (_, None) => Route::Inline,
            (DastMode::Forced, Some(_)) => Route::Push,
            (DastMode::Adaptive | DastMode::IdleWorkers, done) => {
                PushPolicy::route_delete(done, self.registry.dast.queue(self.index).completed())
            }
        };
        let counters = self.counters();
        Self::note_route(
            route,
            &counters.dast_delete_pushed,
            &counters.dast_delete_inline,
        )
    }

    /// Queues a request on this worker's DAST queue and returns its position
    /// (draining the queue first if it is full), waking the manager thread
    /// or an idle worker for it.
    ///
    /// # Safety
    /// As [`Request::execute`](crate::dast::Request::execute): what the
    /// request refers to stays alive until it is executed.
    pub(crate) unsafe fn dast_push(&self, request: ErasedRequest) -> usize {
        let dast = &self.registry.dast;
        // SAFETY: this worker is its queue's one producer; forwarded contract.
        let (position, executed) = unsafe { dast.push(self.index, request, self) };
        self.note_executed_requests(executed);
        if dast.idle_workers_drain() {
            // Idle workers execute queued requests: make sure one looks.
            self.registry.wake_one_for_request();
        }
        position
    }

    /// Counts queued requests this worker executed (an owner-written
    /// counter).
    fn note_executed_requests(&self, executed: usize) {
        if executed > 0 {
            add(&self.counters().dast_executed_by_workers, executed as u64);
        }
    }

    /// Counts a push-policy decision in `pushed` or `inline`.
    #[inline]
    fn note_route(route: Route, pushed: &AtomicU64, inline: &AtomicU64) -> Route {
        bump(match route {
            Route::Push => pushed,
            Route::Inline => inline,
        });
        route
    }

    /// Whether a queued request would be executed soon: a manager thread
    /// runs, or a worker is idle and looking for work (it drains the queues
    /// before it parks). One shared load on the push path; without it,
    /// requests pushed while every worker is busy wait until one idles, and
    /// the tasks they release wait with them.
    #[inline]
    fn dast_consumer_available(&self) -> bool {
        self.registry.dast.has_manager_thread()
            || self.registry.idle_spinning.load(Ordering::Relaxed) > 0
    }

    /// Executes this worker's own queued requests (the tasks they release go
    /// to its deque). Returns `false` if another consumer holds the queue.
    #[cold]
    fn dast_drain_own_queue(&self) -> bool {
        match self
            .registry
            .dast
            .execute_queued(self.index, usize::MAX, self)
        {
            Some(executed) => {
                self.note_executed_requests(executed);
                true
            }
            None => false,
        }
    }

    /// An idle worker's turn at the DAST queues (when idle workers drain
    /// them): one round-robin round. Returns whether it executed anything.
    fn drain_dast_requests(&self) -> bool {
        let dast = &self.registry.dast;
        if !dast.idle_workers_drain() {
            return false;
        }
        let mut next = self.dast_next_queue.get();
        let executed = dast.drain_round(&mut next, self, false);
        self.dast_next_queue.set(next);
        self.note_executed_requests(executed);
        if executed > 0 && dast.has_drainable_requests() {
            // This worker goes on to run what it released and leaves
            // requests behind (at most `MAX_REQ_COUNT` per queue and round):
            // make sure another worker looks at them.
            self.registry.wake_one_for_request();
        }
        executed > 0
    }
}

/// The body of a worker thread.
pub(crate) fn worker_main(
    registry: Arc<Registry>,
    index: usize,
    deque: TaskDeque,
    pin_to: Option<usize>,
) {
    let _alt_stack = crate::overflow::ensure_alt_stack();
    if let Some(pu) = pin_to {
        if let Err(error) = crate::topology::pin_current_thread(pu) {
            report(format_args!(
                "could not pin worker {index} to PU {pu}: {error}"
            ));
        }
    }
    let info = &registry.workers[index];
    let worker = WorkerThread {
        index,
        queue_capacity: registry.params.queue_capacity,
        deque,
        local_len: Cell::new(0),
        steals_seen: Cell::new(0),
        latent: LatentChain::with_capacity(MAX_LATENT_JOINS),
        latent_limit: registry.params.queue_capacity.min(MAX_LATENT_JOINS),
        inlining: registry.params.inlining != Inlining::Never,
        sites: &*info.sites,
        info,
        wake: info.wake.clone(),
        park_timeout: Cell::new(PARK_TIMEOUT_MIN),
        fiber_pool: RefCell::new(Vec::new()),
        pool_low_water: Cell::new(0),
        stacks: Cell::new(0),
        suspended: Cell::new(0),
        rng: Cell::new(0x9E37_79B9_7F4A_7C15 ^ ((index as u64 + 1) << 17)),
        dast_policy: PushPolicy::new(),
        dast_next_queue: Cell::new(index),
        registry: registry.clone(),
        registry_handle: Arc::new(RegistryHandle(registry.clone())),
    };
    // The handlers run outside the runtime (no worker registered yet / any
    // more): a handler that enters a runtime blocks like any other thread.
    if let Some(start) = &registry.handlers.start {
        call_handler("start", index, || start(index));
    }
    WORKER_THREAD.with(|w| w.set(&worker));
    #[cfg(feature = "trace")]
    if let Some(tracer) = &registry.tracer {
        // SAFETY: `uninstall` below runs before this thread drops its
        // registry reference, which keeps the tracer alive.
        unsafe { trace::install(tracer, index) };
    }
    let escape = fiber::AbortOnUnwind("a worker's main loop");
    worker.main_loop();
    std::mem::forget(escape);
    #[cfg(feature = "trace")]
    trace::uninstall();
    WORKER_THREAD.with(|w| w.set(std::ptr::null()));
    for mut fiber in worker.fiber_pool.borrow_mut().drain(..) {
        let out = fiber.resume(FiberInput::Exit);
        debug_assert!(out.is_none());
    }
    if let Some(exit) = &registry.handlers.exit {
        call_handler("exit", index, || exit(index));
    }
    drop(worker);
    // The last thing this thread does with the runtime: a dropping `Runtime`
    // may return (and free everything but our `registry` reference) as soon
    // as this count reaches zero.
    registry.running.decrement();
}

/// The body of the DAST manager thread (see `dast`): executes the workers'
/// queued graph requests, sending the tasks they release to the least-loaded
/// worker, until the runtime terminates and its workers have exited (a
/// request belongs to a live task, and a worker exits only when none of its
/// tasks is left, so none can come after that).
pub(crate) fn dast_manager_main(registry: &Registry) {
    let _alt_stack = crate::overflow::ensure_alt_stack();
    crate::dast::run_manager(&registry.dast, registry, || {
        registry.terminate.load(Ordering::SeqCst) && registry.running.pending() == 0
    });
}

/// Runs a start or exit handler; a panic in it is reported and does not take
/// the worker down (a lost worker would strand the tasks of its deque).
fn call_handler(which: &str, index: usize, handler: impl FnOnce()) {
    if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(handler)) {
        report(format_args!(
            "the {which} handler panicked on worker {index}; the worker goes on"
        ));
        drop_caught(payload);
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

/// How a scope's end, a group's wait and a handle's join wait for their own
/// tasks: while `pending()` holds, takes the unstarted jobs tagged `owner`
/// (see `JobRef::owner`) back from this worker's deque and runs them inline,
/// one at a time (its own children, see `WorkerThread::take_back_or_wait`);
/// at the first search that finds none, or off a worker, it waits for
/// `waitable` instead. `pending` lets the common case — everything claimed,
/// nothing stolen — end without a search that finds nothing.
pub(crate) fn claim_own_then_wait<W: Waitable>(
    owner: *const (),
    pending: impl Fn() -> bool,
    waitable: &W,
) {
    while pending() {
        let Some(job) =
            WorkerThread::with_current(|worker| worker.and_then(|w| w.claim_owned_by(owner)))
        else {
            break;
        };
        // SAFETY: taken out of the deque, so it runs exactly once, here; a
        // scope's, group's or handle's job is alive until it runs.
        trace::run_nested(job.creator(), || unsafe { job.execute() });
    }
    wait_for(waitable);
}

/// Waits until `waitable` holds: suspends the task when called on a worker,
/// parks the thread otherwise. Re-checks after every wake-up.
pub(crate) fn wait_for<W: Waitable>(waitable: &W) {
    while !waitable.probe() {
        WorkerThread::with_current(|worker| match worker {
            Some(worker) if !fiber::current_fiber().is_null() => worker.wait_until(waitable),
            _ => latch::wait_on_thread(waitable),
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::job::HeapJob;
    use crate::runtime::Runtime;
    use std::sync::mpsc;

    /// The deque push's sleeper check is relaxed and may miss a worker that
    /// is falling asleep (see `sleep.rs`). Here the miss is forced: a job is
    /// pushed with no wake-up at all while the other worker is parked, and
    /// the pushing task then blocks its OS thread on that job. Only the park
    /// timeout can get the job run; without it this waits forever.
    #[test]
    fn a_missed_wake_up_is_repaired_by_the_park_timeout() {
        let runtime = Runtime::builder().num_workers(2).build().unwrap();
        let ran = runtime.run(|| {
            WorkerThread::with_current(|worker| {
                let worker = worker.expect("`run` executes on a worker");
                let other = &worker.registry.workers[1 - worker.index].wake;
                while !other.is_sleeping() {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let (sender, receiver) = mpsc::channel();
                worker.deque.push(HeapJob::into_job_ref(move || {
                    let _ = sender.send(());
                }));
                worker.local_len.set(worker.local_len.get() + 1);
                receiver.recv_timeout(Duration::from_secs(20)).is_ok()
            })
        });
        assert!(ran, "the parked worker never noticed the job");
    }
}
