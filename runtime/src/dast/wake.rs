//! Where the DAST manager thread parks and how producers wake it
//! ([`ManagerWake`]).
//!
//! # Park and wake (why no wake-up is lost)
//! The manager parks only after announcing it (`sleeping = true`) and then
//! re-checking every queue; a producer, after publishing a request (its
//! Release store of the queue's tail), checks `sleeping` and, if set, clears
//! it under the lock and notifies. Both sides put a SeqCst fence between
//! their write and their read (Dekker), so either the manager's re-check sees
//! the request or the producer sees `sleeping` — never neither. The
//! notification happens under the mutex the manager sleeps with, so it cannot
//! fall between the manager's check of `sleeping` and its wait. A park also
//! has a timeout, a backstop that only a bug in the above could need.
//!
//! The producer's side is one fence and one load per pushed request;
//! requests executed inline pay nothing.

use crate::sync::{fence, wait_timeout, AtomicBool, Condvar, Mutex};
use std::sync::atomic::Ordering;
use std::time::Duration;

/// The backstop timeout of a park.
const PARK_TIMEOUT: Duration = Duration::from_millis(50);

/// Where the manager thread parks and how producers wake it.
pub(crate) struct ManagerWake {
    sleeping: AtomicBool,
    lock: Mutex<()>,
    condvar: Condvar,
}

impl ManagerWake {
    pub(crate) fn new() -> ManagerWake {
        ManagerWake {
            sleeping: AtomicBool::new(false),
            lock: Mutex::new(()),
            condvar: Condvar::new(),
        }
    }

    /// A producer published a request: wake the manager if it parks.
    #[inline]
    pub(crate) fn notify(&self) {
        // Pairs with the fence in `park_unless` (see the module comment).
        fence(Ordering::SeqCst);
        if self.sleeping.load(Ordering::Relaxed) {
            self.wake_up();
        }
    }

    #[cold]
    #[inline(never)]
    fn wake_up(&self) {
        let _guard = self.lock.lock();
        if self.sleeping.swap(false, Ordering::Relaxed) {
            self.condvar.notify_one();
        }
    }

    /// Parks the manager unless `has_work` (re-checked after announcing the
    /// park) says there is something to do; returns when notified, or after
    /// the backstop timeout.
    pub(crate) fn park_unless(&self, has_work: impl Fn() -> bool) {
        let mut guard = self.lock.lock();
        self.sleeping.store(true, Ordering::Relaxed);
        // Pairs with the fence in `notify`.
        fence(Ordering::SeqCst);
        if has_work() {
            self.sleeping.store(false, Ordering::Relaxed);
            return;
        }
        while self.sleeping.load(Ordering::Relaxed) {
            if wait_timeout(&self.condvar, &mut guard, PARK_TIMEOUT) {
                self.sleeping.store(false, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use crate::sync::AtomicUsize;
    use loom::sync::Arc;

    /// The manager parks while a producer publishes a request and notifies:
    /// in every interleaving the manager sees the request (it never sleeps
    /// through it: loom's condvar has no timeout to rescue it).
    #[test]
    fn loom_manager_park_and_wake() {
        loom::model(|| {
            let wake = Arc::new(ManagerWake::new());
            let published = Arc::new(AtomicUsize::new(0));
            let producer = {
                let (wake, published) = (wake.clone(), published.clone());
                loom::thread::spawn(move || {
                    published.store(1, Ordering::Release);
                    wake.notify();
                })
            };
            // The manager: park until the request is visible.
            while published.load(Ordering::Acquire) == 0 {
                wake.park_unless(|| published.load(Ordering::Acquire) != 0);
            }
            producer.join().unwrap();
        });
    }
}
