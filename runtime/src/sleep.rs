//! Idle workers: how a worker with nothing to do goes to sleep, and how the
//! three kinds of news wake it — a ready fiber in its resume inbox (always
//! woken: a suspended task must not be forgotten), a job injected from outside
//! the runtime, and surplus work in a busy worker's deque (woken lazily, never
//! on every push: see `registry::WorkerThread::push`).
//!
//! # Why no wake-up is lost
//! A worker announces `sleeping = true` (SeqCst) while holding its mutex, then
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

use crate::fiber::FiberPtr;
use crossbeam_deque::{Injector, Steal};
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::{fence, AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// How long an idle worker keeps looking for work before it parks.
pub(crate) const SPIN_BEFORE_SLEEP: Duration = Duration::from_micros(200);

/// The part of a worker that other threads use to hand it a ready fiber and to
/// wake it.
pub(crate) struct WorkerWake {
    /// Suspended fibers of this worker that became ready (multi-producer; only
    /// the owner pops).
    inbox: Injector<FiberPtr>,
    sleeping: AtomicBool,
    mutex: Mutex<()>,
    condvar: Condvar,
    /// The registry-wide count of sleeping workers.
    sleepers: Arc<AtomicUsize>,
}

impl WorkerWake {
    pub(crate) fn new(sleepers: Arc<AtomicUsize>) -> WorkerWake {
        WorkerWake {
            inbox: Injector::new(),
            sleeping: AtomicBool::new(false),
            mutex: Mutex::new(()),
            condvar: Condvar::new(),
            sleepers,
        }
    }

    fn sleepers(&self) -> &AtomicUsize {
        &self.sleepers
    }

    /// Hands a fiber that became ready back to this worker and wakes it.
    pub(crate) fn push_ready(&self, fiber: FiberPtr) {
        self.inbox.push(fiber);
        self.wake();
    }

    /// The owner queues one of its own fibers as ready (it is awake).
    pub(crate) fn push_ready_local(&self, fiber: FiberPtr) {
        self.inbox.push(fiber);
    }

    /// Pops a ready fiber (owner only).
    pub(crate) fn pop_ready(&self) -> Option<FiberPtr> {
        loop {
            match self.inbox.steal() {
                Steal::Success(fiber) => return Some(fiber),
                Steal::Empty => return None,
                Steal::Retry => continue,
            }
        }
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
        if self.sleeping.swap(false, Ordering::SeqCst) {
            self.sleepers().fetch_sub(1, Ordering::SeqCst);
            self.condvar.notify_one();
            true
        } else {
            false
        }
    }

    /// Whether the worker is parked (or about to park).
    pub(crate) fn is_sleeping(&self) -> bool {
        self.sleeping.load(Ordering::Relaxed)
    }

    /// Parks the calling worker (the owner) until woken, unless `has_work`
    /// finds something after the announcement.
    pub(crate) fn sleep(&self, has_work: impl Fn() -> bool) {
        let mut guard = self.mutex.lock();
        self.sleeping.store(true, Ordering::SeqCst);
        self.sleepers().fetch_add(1, Ordering::SeqCst);
        // Pairs with the fence in `wake`: the re-check below cannot read the
        // queues as they were before the announcement.
        fence(Ordering::SeqCst);
        if has_work() {
            if self.sleeping.swap(false, Ordering::SeqCst) {
                self.sleepers().fetch_sub(1, Ordering::SeqCst);
            }
            return;
        }
        while self.sleeping.load(Ordering::SeqCst) {
            self.condvar.wait(&mut guard);
        }
    }
}

/// A loom model of the protocol above (`--cfg loom`), restated with loom's
/// atomics because the real code's condvar and crossbeam injector are not
/// instrumented: the worker announces (`sleepers += 1`), fences and re-checks
/// the queue; the waker publishes, fences and reads `sleepers`. Loom explores
/// every interleaving and reports a deadlock if the worker can sleep on
/// published work with nobody to wake it (delete either fence to see it fail).
#[cfg(all(test, loom))]
mod loom_models {
    use loom::sync::atomic::{fence, AtomicBool, AtomicUsize};
    use loom::sync::Arc;
    use std::sync::atomic::Ordering;

    struct Model {
        queued: AtomicUsize,
        sleepers: AtomicUsize,
        sleeping: AtomicBool,
    }

    #[test]
    fn loom_published_work_is_never_slept_on() {
        loom::model(|| {
            let model = Arc::new(Model {
                queued: AtomicUsize::new(0),
                sleepers: AtomicUsize::new(0),
                sleeping: AtomicBool::new(false),
            });
            let waker = {
                let model = model.clone();
                loom::thread::spawn(move || {
                    model.queued.store(1, Ordering::Release); // push
                    fence(Ordering::SeqCst);
                    if model.sleepers.load(Ordering::SeqCst) != 0
                        && model.sleeping.swap(false, Ordering::SeqCst)
                    {
                        model.sleepers.fetch_sub(1, Ordering::SeqCst);
                    }
                })
            };
            // The worker: announce, fence, re-check, then "park" until woken.
            model.sleeping.store(true, Ordering::SeqCst);
            model.sleepers.fetch_add(1, Ordering::SeqCst);
            fence(Ordering::SeqCst);
            if model.queued.load(Ordering::Acquire) != 0 {
                if model.sleeping.swap(false, Ordering::SeqCst) {
                    model.sleepers.fetch_sub(1, Ordering::SeqCst);
                }
            } else {
                while model.sleeping.load(Ordering::SeqCst) {
                    loom::thread::yield_now();
                }
            }
            assert_eq!(model.queued.load(Ordering::Acquire), 1);
            waker.join().unwrap();
        });
    }
}
