//! The shared part of the scheduler: the [`Registry`] of one runtime's
//! workers, which every thread may use — stealing, the injector for jobs
//! from outside the runtime, waking sleepers, where the DAST manager sends
//! the tasks it releases — and what thieves tell a worker
//! ([`ThiefSignals`]). Each worker's own state and main loop are in
//! `worker/`, which builds on this module; this module never uses it.
//!
//! # Layout
//! A [`Registry`] holds what other threads need of each worker: the thieves'
//! end of its deque, its wake-up slot (resume inbox + parking) and its
//! counters, plus the injector for jobs from outside the runtime. A
//! `WorkerThread` (`worker/thread.rs`) is owned by its OS thread and holds the
//! owner's end of the deque, the lazy-task-creation counter and the pool of
//! fibers (stacks).

use crate::counters::WorkerCounters;
use crate::dast::{Dast, ReadySink};
use crate::inlining::{Inliner, InliningReport, WorkerSites};
use crate::job::deque::{DequeStealer, TaskDeque};
use crate::job::JobRef;
use crate::params::Params;
use crate::scheduler::latch::CountLatch;
use crate::scheduler::sleep::WorkerWake;
use crate::sync::AtomicUsize as SleeperCount;
use crate::sync::Inbox;
#[cfg(feature = "trace")]
use crate::trace;
use crate::unwind::{drop_caught, report, PanicPayload};
use crossbeam_deque::{Injector, Steal};
use crossbeam_utils::CachePadded;
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// The longest run of spin hints an idle worker waits between two looks for
/// work before it starts yielding the CPU instead.
pub(crate) const MAX_IDLE_SPIN: u32 = 256;

/// A user callback taking a worker index.
pub(crate) type WorkerCallback = Box<dyn Fn(usize) + Send + Sync>;
/// A user callback for panics of detached tasks.
pub(crate) type PanicCallback = Box<dyn Fn(PanicPayload) + Send + Sync>;

/// What other threads see of one worker.
pub(crate) struct WorkerInfo {
    stealer: DequeStealer,
    /// What thieves tell the owner, on its own cache line, so that their
    /// writes do not disturb the owner's other state.
    pub(crate) signals: CachePadded<ThiefSignals>,
    /// Shared with the worker's fibers (their home), see `sleep.rs`.
    pub(crate) wake: Arc<WorkerWake>,
    pub(crate) counters: CachePadded<WorkerCounters>,
    /// Ready dataflow tasks the DAST manager chose this worker for (see
    /// `Registry`'s `ReadySink`). The worker takes them after its own deque;
    /// thieves take them after the deques.
    pub(crate) mailbox: Inbox<JobRef>,
    /// This worker's per-site counts and inlining decisions (see
    /// `inlining`), written by the worker, read by reports. Boxed: its
    /// cache is kilobytes, and the fields above are on every hot path.
    pub(crate) sites: Box<WorkerSites>,
}

/// What thieves write and a worker reads on its own hot paths.
pub(crate) struct ThiefSignals {
    /// Jobs thieves took from this worker's deque: incremented (`Release`)
    /// after each successful steal, read by the owner when its own count says
    /// the deque is full (see *Lazy task creation*, `worker/capacity.rs`).
    pub(crate) stolen: AtomicU64,
    /// A thief found this worker's deque empty: the worker publishes its
    /// oldest latent join at its next `join` and clears the flag (see
    /// `scheduler/latent/join_chain.rs`). Relaxed both ways: it is a hint; a publication it misses
    /// comes at the next `join` after the thief's next look, and a stale one
    /// costs one needless push.
    pub(crate) hungry: AtomicBool,
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
    pub(crate) injector: Injector<JobRef>,
    sleepers: Arc<SleeperCount>,
    /// Workers in `idle` that are looking for work, not parked.
    pub(crate) idle_spinning: AtomicUsize,
    pub(crate) terminate: AtomicBool,
    /// Worker threads started and not finished; `Runtime`'s drop waits for
    /// zero (suspending, when it runs in a task of another runtime).
    pub(crate) running: CountLatch,
    next_wake: AtomicUsize,
    pub(crate) live_stack_cap: usize,
    pub(crate) handlers: Handlers,
    /// The DAST request queues and manager state (see `dast`).
    pub(crate) dast: Dast,
    /// The per-site inlining decisions (see `inlining`).
    pub(crate) inliner: Inliner,
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

    /// A registry of `num_workers` workers whose threads never start, with
    /// the default parameters: for unit tests and loom models of code that
    /// only needs a registry to point at.
    #[cfg(test)]
    pub(crate) fn without_threads(num_workers: usize) -> Arc<Registry> {
        let (registry, _deques) = Registry::new(
            Params::default(),
            num_workers,
            16,
            Handlers::default(),
            #[cfg(feature = "trace")]
            None,
        );
        registry
    }

    pub(crate) fn num_workers(&self) -> usize {
        self.workers.len()
    }

    /// The inliner's per-site report, summed over the workers.
    pub(crate) fn inlining_report(&self) -> InliningReport {
        self.inliner
            .report(self.workers.iter().map(|worker| &*worker.sites))
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

    /// Whether some worker is idle: looking for work, or parked (relaxed
    /// loads: a hint for a cold path).
    pub(crate) fn has_idle_workers(&self) -> bool {
        self.sleepers.load(Ordering::Relaxed) != 0
            || self.idle_spinning.load(Ordering::Relaxed) != 0
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

    pub(crate) fn steal_from_others(&self, thief: usize, rng: &Cell<u64>) -> Option<JobRef> {
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
    /// through the whole computation (docs/measurements.md, "Idle workers").
    /// With the flags up, the next join of every
    /// busy worker publishes, and its push wakes this worker.
    /// O(workers), on the path to parking only; each flag is read before it
    /// is written, so a flag already up costs no cache-line transfer.
    pub(crate) fn ask_for_latent_work(&self, thief: usize) {
        for (index, info) in self.workers.iter().enumerate() {
            if index != thief {
                info.signals.ask_for_work();
            }
        }
    }

    pub(crate) fn take_injected(&self) -> Option<JobRef> {
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
    pub(crate) fn any_stealable(&self, thief: usize) -> bool {
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

/// A reference to a registry behind a count of its own: see
/// `WorkerThread::registry_handle`.
pub(crate) struct RegistryHandle(pub(crate) Arc<Registry>);

impl std::ops::Deref for RegistryHandle {
    type Target = Registry;

    fn deref(&self) -> &Registry {
        &self.0
    }
}

/// The body of the DAST manager thread (see `dast`): executes the workers'
/// queued graph requests, sending the tasks they release to the least-loaded
/// worker, until the runtime terminates and its workers have exited (a
/// request belongs to a live task, and a worker exits only when none of its
/// tasks is left, so none can come after that).
pub(crate) fn dast_manager_main(registry: &Registry) {
    let _alt_stack = crate::scheduler::fiber::overflow::ensure_alt_stack();
    crate::dast::run_manager(&registry.dast, registry, || {
        registry.terminate.load(Ordering::SeqCst) && registry.running.pending() == 0
    });
}
