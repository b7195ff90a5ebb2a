//! Idle workers: how a worker with nothing to do goes to sleep, and how the
//! three kinds of news wake it — a ready fiber in its resume inbox (always
//! woken: a suspended task must not be forgotten), a job injected from outside
//! the runtime, and surplus work in a busy worker's deque (woken lazily, never
//! on every push: see `WorkerThread::push` in `worker/capacity.rs`).
//!
//! # Invariants
//! **W1 — no wake-up is lost** (inbox and injector). A worker announces
//! `sleeping = true` (SeqCst) while holding its mutex, then
//! re-checks every source of work, then waits on its condvar until `sleeping`
//! is false. A waker first publishes its work (push), then (SeqCst) reads
//! `sleeping`; if true, it takes the mutex, swaps it to false and notifies. By
//! the SeqCst total order either the worker's re-check sees the work or the
//! waker sees `sleeping == true`; and since the worker holds the mutex from the
//! announcement until `wait` releases it, the waker's notify cannot slip in
//! between the re-check and the wait.
//!
//! A worker parks only when it has no ready fiber and found no job to take;
//! before parking it spins and yields for about [`SPIN_BEFORE_SLEEP`], so that a
//! burst of fine-grained jobs finds it awake without costing the spawner a
//! futex call.
//!
//! **W2 — the one wake-up that may be missed, and the backstop.** W1 holds for
//! the inbox (`push_ready` always wakes) and for
//! injected jobs (`Registry::inject` fences before it reads the sleeper
//! count); the loom models below run this file's real code for both. A push
//! to a worker's own deque is different: it reads the sleeper count with a
//! relaxed load and no fence, because a fence on every deferred spawn costs
//! more than the spawn. That read may miss a worker that is falling asleep at
//! that very moment. Normally this costs parallelism only: the owner runs its
//! own deque, and its next push sees the sleeper. It would cost progress if
//! the owner then blocked its OS thread on the pushed job (a task that waits
//! on a `std` channel for a job it just spawned). So parking also has a
//! timeout: a parked worker wakes after [`PARK_TIMEOUT_MIN`], re-checks every
//! source of work, and parks again with twice the timeout, up to
//! [`PARK_TIMEOUT_MAX`]; finding work resets it. A worker woken by its
//! timeout that finds nothing parks again at once, without the spin phase
//! (it is idle for a while, not between two bursts). An idle runtime costs
//! each worker about two wake-ups per second (a few microseconds each); a
//! missed wake-up is repaired within `PARK_TIMEOUT_MAX` at worst.
//!
//! The two constants are set against rayon's idle cost: after its last job a
//! rayon worker searches and yields for 32 rounds (tens of microseconds)
//! and then sleeps with no timeout. `prescient-bench fork-join --child-idle
//! prescient-default 16` measures the CPU an idle runtime burns in the second after one tiny
//! job; with these constants it is about rayon's, where a longer spin and a
//! shorter first timeout cost several times more (docs/measurements.md,
//! "Idle workers").
//!
//! **W3 — a woken worker outlives its wake-up.** A `WorkerWake` is reference-
//! counted on its own (not only through its
//! registry): a fiber holds its home's `Arc`, and whoever makes a fiber ready
//! clones it before publishing the fiber (`fiber::FiberPtr::make_ready`), so
//! the wake-up after the push never touches a freed worker even when the
//! runtime is dropped the moment the fiber is resumed.

use crate::scheduler::fiber::{FiberHome, FiberPtr};
use crate::sync::{fence, wait_timeout, AtomicBool, AtomicUsize, Condvar, Inbox, Mutex};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// How long an idle worker keeps looking for work before it parks.
pub(crate) const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(20);

/// The first park timeout of an idle worker (see the module docs).
pub(crate) const PARK_TIMEOUT_MIN: Duration = Duration::from_millis(64);

/// The longest park timeout: the worst delay before a missed wake-up is
/// repaired, and the period of an idle worker's wake-ups.
pub(crate) const PARK_TIMEOUT_MAX: Duration = Duration::from_millis(512);

/// Runs `sleep` (a timed park) with this thread's timer slack at one
/// microsecond, then restores the default. Linux lets a timed wait of a
/// normal thread end up to its slack — 50 µs by default — late, so that
/// wake-ups can be batched; that is noise for the park timeouts above, but
/// it would double a timeout of tens of microseconds (the MPI polling
/// sleeper's, `progress.rs`). Two `prctl` calls per such sleep. Elsewhere
/// it only runs `sleep`.
pub(crate) fn with_fine_timer<R>(sleep: impl FnOnce() -> R) -> R {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: `PR_SET_TIMERSLACK` takes the slack in nanoseconds by
        // value and only sets the calling thread's slack; no memory is
        // passed. A failure leaves the slack as it was: a later wake-up.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1_000 as libc::c_ulong) };
        let result = sleep();
        // SAFETY: `PR_SET_TIMERSLACK` takes its argument by value and sets
        // only this thread's slack; 0 restores the thread's default.
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 0 as libc::c_ulong) };
        result
    }
    #[cfg(not(target_os = "linux"))]
    sleep()
}

/// The part of a worker that other threads use to hand it a ready fiber and to
/// wake it.
pub(crate) struct WorkerWake {
    /// Suspended fibers of this worker that became ready (multi-producer; only
    /// the owner pops).
    inbox: Inbox<FiberPtr>,
    sleeping: AtomicBool,
    mutex: Mutex<()>,
    condvar: Condvar,
    /// The registry-wide count of sleeping workers.
    sleepers: Arc<AtomicUsize>,
}

impl WorkerWake {
    pub(crate) fn new(sleepers: Arc<AtomicUsize>) -> WorkerWake {
        WorkerWake {
            inbox: Inbox::new(),
            sleeping: AtomicBool::new(false),
            mutex: Mutex::new(()),
            condvar: Condvar::new(),
            sleepers,
        }
    }

    fn sleepers(&self) -> &AtomicUsize {
        &self.sleepers
    }

    /// The owner queues one of its own fibers as ready (it is awake).
    pub(crate) fn push_ready_local(&self, fiber: FiberPtr) {
        self.inbox.push(fiber);
    }

    /// Pops a ready fiber (owner only).
    pub(crate) fn pop_ready(&self) -> Option<FiberPtr> {
        self.inbox.pop()
    }

    /// Whether a ready fiber waits in the inbox.
    pub(crate) fn has_ready(&self) -> bool {
        !self.inbox.is_empty()
    }

    /// Wakes the worker if it sleeps. Call after publishing the work.
    pub(crate) fn wake(&self) -> bool {
        fence(Ordering::SeqCst);
        if !self.sleeping.load(Ordering::SeqCst) {
            return false;
        }
        let _guard = self.mutex.lock();
        if self.stop_sleeping() {
            self.condvar.notify_one();
            true
        } else {
            false
        }
    }

    /// Clears the sleeping flag; returns whether it was set (and then
    /// uncounts the sleeper). Called with the mutex held, by a waker or by
    /// the sleeper itself.
    fn stop_sleeping(&self) -> bool {
        if self.sleeping.swap(false, Ordering::SeqCst) {
            self.sleepers().fetch_sub(1, Ordering::SeqCst);
            true
        } else {
            false
        }
    }

    /// Whether the worker is parked (or about to park).
    pub(crate) fn is_sleeping(&self) -> bool {
        self.sleeping.load(Ordering::Relaxed)
    }

    /// Parks the calling worker (the owner) until woken or until `timeout`
    /// has passed, unless `has_work` finds something after the announcement.
    /// Returns `true` when it woke by the timeout (the caller re-checks for
    /// work and parks again with a longer timeout: see the module docs).
    pub(crate) fn sleep(&self, has_work: impl Fn() -> bool, timeout: Duration) -> bool {
        let mut guard = self.mutex.lock();
        self.sleeping.store(true, Ordering::SeqCst);
        self.sleepers().fetch_add(1, Ordering::SeqCst);
        // Pairs with the fence in `wake`: the re-check below cannot read the
        // queues as they were before the announcement.
        fence(Ordering::SeqCst);
        if has_work() {
            self.stop_sleeping();
            return false;
        }
        while self.sleeping.load(Ordering::SeqCst) {
            if wait_timeout(&self.condvar, &mut guard, timeout) {
                // Still under the mutex, so no waker is between its swap and
                // its notify: whoever clears the flag first uncounts us.
                return self.stop_sleeping();
            }
        }
        false
    }
}

impl FiberHome for WorkerWake {
    /// Hands a fiber that became ready back to this worker and wakes it.
    /// `self` must stay alive until this returns: the caller holds an `Arc`
    /// (see the module docs, *Lifetime*).
    fn push_ready(&self, fiber: FiberPtr) {
        self.inbox.push(fiber);
        self.wake();
    }
}

/// Loom models (`--cfg loom`) of this file's real code: the sleep/wake
/// protocol for the inbox, and the hand-off of a fiber woken from a thread
/// outside its runtime while the runtime goes away.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use crate::scheduler::fiber::Fiber;
    use crate::scheduler::latch::{Latch, Waitable, Waiter};

    fn new_home() -> Arc<WorkerWake> {
        Arc::new(WorkerWake::new(Arc::new(AtomicUsize::new(0))))
    }

    /// The home worker's side: park until the fiber is in the inbox (the
    /// predicate is the one the main loop uses), then take it.
    fn worker_receives(home: &WorkerWake) -> FiberPtr {
        loop {
            if let Some(fiber) = home.pop_ready() {
                return fiber;
            }
            home.sleep(|| home.has_ready(), PARK_TIMEOUT_MAX);
        }
    }

    /// A fiber suspended on a latch is made ready by a thread that holds no
    /// reference to its runtime (an `Event::set` from a plain thread). In every
    /// interleaving the home worker receives the fiber exactly once — it never
    /// sleeps on it — and the wake-up after the push never outlives the
    /// inbox: the worker drops its (the runtime's) last reference right after
    /// receiving the fiber, and loom checks every `Arc` and access.
    #[test]
    fn loom_fiber_woken_from_outside_reaches_home_and_outlives_no_runtime() {
        loom::model(|| {
            let home = new_home();
            let fiber = Fiber::new(16 << 10, 0, home.clone()).expect("map a fiber stack");
            let fiber = FiberPtr(Box::into_raw(fiber));
            let latch = std::sync::Arc::new(Latch::new());
            // The registration the worker's main loop makes after the switch.
            assert!(latch.register(Waiter::Fiber(fiber)));
            let setter = {
                let latch = latch.clone();
                // SAFETY: the latch is alive (Arc) and set once.
                loom::thread::spawn(move || unsafe { Latch::set(&*latch) })
            };
            let received = worker_receives(&home);
            assert_eq!(received, fiber);
            // "The task finished and the runtime was dropped": its fibers and
            // its registry's references to the inbox go, while the setter may
            // still be inside its wake-up call.
            // SAFETY: received once from the inbox; never started, so
            // dropping it unwinds nothing.
            drop(unsafe { Box::from_raw(received.0) });
            drop(home);
            setter.join().unwrap();
            assert!(latch.is_set());
        });
    }

    /// Two wakers (two fibers of the same worker) against one sleeper: the
    /// worker receives both and never sleeps with a fiber in its inbox.
    #[test]
    fn loom_two_wakers_one_sleeper() {
        loom::model(|| {
            let home = new_home();
            let fibers: Vec<FiberPtr> = (0..2)
                .map(|_| {
                    FiberPtr(Box::into_raw(
                        Fiber::new(16 << 10, 0, home.clone()).unwrap(),
                    ))
                })
                .collect();
            let wakers: Vec<_> = fibers
                .iter()
                .map(|&fiber| {
                    // SAFETY: each fiber is "suspended" and woken once.
                    loom::thread::spawn(move || unsafe { Waiter::Fiber(fiber).wake() })
                })
                .collect();
            let first = worker_receives(&home);
            let second = worker_receives(&home);
            assert_ne!(first, second);
            for waker in wakers {
                waker.join().unwrap();
            }
            for fiber in [first, second] {
                // SAFETY: received once; never started.
                drop(unsafe { Box::from_raw(fiber.0) });
            }
        });
    }
}
