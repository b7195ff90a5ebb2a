//! The synchronisation primitives of the protocols that have loom models
//! (`RUSTFLAGS="--cfg loom" cargo test -p prescient --lib loom`): under
//! `--cfg loom` they are loom's instrumented types (behind wrappers with
//! parking_lot's API where the real code uses parking_lot, and with
//! `AtomicBool::swap` as a compare-exchange: see `loom_bool`), otherwise std's,
//! parking_lot's and crossbeam's; so are the thread handle, `current` and
//! `park` with which a plain thread waits on a latch. The models therefore
//! run the real latch, scope-end, wake-up and spawn-handle code, not a
//! restatement of it. (`AtomicU8` needs no `loom_bool`-like wrapper: its one
//! user, a spawn handle's state, is only swapped, never stored to, and the
//! loom bug `loom_bool` works around needs another thread's plain store.)

#[cfg(loom)]
pub(crate) use self::loom_bool::AtomicBool;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicPtr, AtomicU8, AtomicUsize};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicBool, AtomicPtr, AtomicU8, AtomicUsize};

#[cfg(loom)]
pub(crate) use loom::thread::{current as current_thread, park, Thread};
#[cfg(not(loom))]
pub(crate) use std::thread::{current as current_thread, park, Thread};

#[cfg(loom)]
pub(crate) use self::loom_lock::{Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use parking_lot::{Condvar, Mutex, MutexGuard};

use std::time::Duration;

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// `std::cell::UnsafeCell` behind loom's closure-based API (`with`,
/// `with_mut`), so that code written for loom's checked cell compiles to a
/// plain pointer access.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(std::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    pub(crate) const fn new(value: T) -> UnsafeCell<T> {
        UnsafeCell(std::cell::UnsafeCell::new(value))
    }

    /// Calls `f` with a pointer for reading.
    #[inline(always)]
    pub(crate) fn with<R>(&self, f: impl FnOnce(*const T) -> R) -> R {
        f(self.0.get())
    }

    /// Calls `f` with a pointer for writing.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

/// Waits on `condvar` (releasing the guard's mutex meanwhile) until notified
/// or until `timeout` has passed. Returns `true` when it timed out. Under loom,
/// which has no clock, it never times out: the models prove that no wake-up
/// is lost without the timeout's help.
#[cfg(not(loom))]
pub(crate) fn wait_timeout<T>(
    condvar: &Condvar,
    guard: &mut parking_lot::MutexGuard<'_, T>,
    timeout: Duration,
) -> bool {
    condvar.wait_for(guard, timeout).timed_out()
}

/// See the non-loom version.
#[cfg(loom)]
pub(crate) fn wait_timeout<T>(
    condvar: &Condvar,
    guard: &mut loom_lock::MutexGuard<'_, T>,
    _timeout: Duration,
) -> bool {
    condvar.wait(guard);
    false
}

/// A multi-producer queue that only its owner pops: crossbeam's `Injector`,
/// or under loom a locked `VecDeque` (crossbeam is not instrumented).
pub(crate) struct Inbox<T> {
    #[cfg(not(loom))]
    queue: crossbeam_deque::Injector<T>,
    #[cfg(loom)]
    queue: loom::sync::Mutex<std::collections::VecDeque<T>>,
}

impl<T> Inbox<T> {
    pub(crate) fn new() -> Inbox<T> {
        Inbox {
            queue: Default::default(),
        }
    }

    /// Appends `value` (any thread).
    pub(crate) fn push(&self, value: T) {
        #[cfg(not(loom))]
        self.queue.push(value);
        #[cfg(loom)]
        self.queue.lock().unwrap().push_back(value);
    }

    /// Takes the oldest value (owner).
    pub(crate) fn pop(&self) -> Option<T> {
        #[cfg(not(loom))]
        loop {
            match self.queue.steal() {
                crossbeam_deque::Steal::Success(value) => return Some(value),
                crossbeam_deque::Steal::Empty => return None,
                crossbeam_deque::Steal::Retry => continue,
            }
        }
        #[cfg(loom)]
        self.queue.lock().unwrap().pop_front()
    }

    /// How many values the queue holds (a snapshot).
    pub(crate) fn len(&self) -> usize {
        #[cfg(not(loom))]
        return self.queue.len();
        #[cfg(loom)]
        self.queue.lock().unwrap().len()
    }

    /// Whether the queue looks empty.
    pub(crate) fn is_empty(&self) -> bool {
        #[cfg(not(loom))]
        return self.queue.is_empty();
        #[cfg(loom)]
        self.queue.lock().unwrap().is_empty()
    }
}

/// loom's `Mutex` and `Condvar` behind the slice of parking_lot's API that
/// the runtime uses.
#[cfg(loom)]
mod loom_lock {
    use std::ops::{Deref, DerefMut};

    pub(crate) struct Mutex<T>(loom::sync::Mutex<T>);

    /// A guard that `Condvar::wait` can take out and put back.
    pub(crate) struct MutexGuard<'a, T>(Option<loom::sync::MutexGuard<'a, T>>);

    impl<T> Mutex<T> {
        pub(crate) fn new(value: T) -> Mutex<T> {
            Mutex(loom::sync::Mutex::new(value))
        }

        pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
            MutexGuard(Some(self.0.lock().unwrap()))
        }
    }

    impl<T> Deref for MutexGuard<'_, T> {
        type Target = T;
        fn deref(&self) -> &T {
            self.0.as_ref().unwrap()
        }
    }

    impl<T> DerefMut for MutexGuard<'_, T> {
        fn deref_mut(&mut self) -> &mut T {
            self.0.as_mut().unwrap()
        }
    }

    pub(crate) struct Condvar(loom::sync::Condvar);

    impl Condvar {
        pub(crate) fn new() -> Condvar {
            Condvar(loom::sync::Condvar::new())
        }

        pub(crate) fn wait<T>(&self, guard: &mut MutexGuard<'_, T>) {
            let inner = guard.0.take().unwrap();
            guard.0 = Some(self.0.wait(inner).unwrap());
        }

        pub(crate) fn notify_one(&self) {
            self.0.notify_one();
        }
    }
}

/// loom's `AtomicBool` with `swap` modelled as the compare-exchange it is
/// equivalent to for a `bool` (`swap(v)` reads `!v` and writes `v`, or reads
/// `v` and leaves it), which works around a loom 0.7 bug: loom does not keep
/// a plain store of another thread out of the gap between an RMW's read and
/// its write (tokio-rs/loom#254, #389; fix proposed in loom PR #391). For the
/// request queue's try-lock (`swap(true)` by a consumer that loses, against
/// the holder's `store(false)`) loom then lets the loser's `true` land *after*
/// the holder's release in the modification order — a lock held by nobody,
/// forever, which no C++/Rust execution allows (an RMW writes immediately
/// after the value it read). A failed compare-exchange writes nothing, so the
/// phantom cannot arise; everything else about the operation — the value
/// returned, the value left, the synchronisation of the read — is the same.
#[cfg(loom)]
mod loom_bool {
    use std::sync::atomic::Ordering;

    pub(crate) struct AtomicBool(loom::sync::atomic::AtomicBool);

    impl AtomicBool {
        pub(crate) fn new(value: bool) -> AtomicBool {
            AtomicBool(loom::sync::atomic::AtomicBool::new(value))
        }

        pub(crate) fn load(&self, order: Ordering) -> bool {
            self.0.load(order)
        }

        pub(crate) fn store(&self, value: bool, order: Ordering) {
            self.0.store(value, order);
        }

        /// `std`'s `swap`, as a compare-exchange (see the module comment).
        pub(crate) fn swap(&self, value: bool, order: Ordering) -> bool {
            // The read half of `order`, for the case where nothing changes.
            let failure = match order {
                Ordering::Relaxed | Ordering::Release => Ordering::Relaxed,
                Ordering::Acquire | Ordering::AcqRel => Ordering::Acquire,
                _ => Ordering::SeqCst,
            };
            match self.0.compare_exchange(!value, value, order, failure) {
                Ok(previous) | Err(previous) => previous,
            }
        }
    }
}
