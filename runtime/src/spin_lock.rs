//! The runtime's one spin lock, for critical sections of a few hundred
//! nanoseconds at most that never block: the items of a locked deque
//! (`deque.rs`) and a dataflow scope's dependency graph
//! (`dataflow/graph_ops.rs`).
//!
//! # Why a spin lock
//! Neither critical section blocks, allocates on a hot path in the steady
//! state, or switches fibers, so a thread that finds the lock taken is better
//! off waiting a few hundred nanoseconds on the spot than parking (a futex
//! round trip costs microseconds). Unlike `parking_lot::Mutex`, unlocking is
//! a plain release store, not a read-modify-write: a deferred task under a
//! locked deque policy locks its deque twice (push and pop), and a dependent
//! dataflow task locks its graph twice (submission and finish), so this saves
//! an atomic RMW per lock (`deque.rs` has the measurement).
//!
//! # Invariants and orderings
//! * `locked` is `true` exactly while one [`SpinGuard`] exists; only that
//!   guard's holder touches `value`, so the guard's `&mut T` is unique.
//! * Locking is a `swap(true)` with **Acquire** that returned `false`;
//!   unlocking (dropping the guard) is a `store(false)` with **Release**. So
//!   the critical sections are totally ordered by the lock word, and
//!   everything one holder wrote under the lock happens before everything the
//!   next holder reads under it. Failed attempts and the waiting loop read
//!   with Relaxed: they only decide when to try the swap again, and the swap
//!   that succeeds is the one that synchronises.
//! * Test-and-test-and-set: a waiter spins on a plain load (the cache line
//!   stays shared) and tries the swap only once the lock looks free, so
//!   waiters do not keep stealing the line from the holder.
//!
//! # Backoff
//! One policy for both users, chosen for short, non-blocking sections: spin
//! with [`std::hint::spin_loop`] for up to [`SPINS_BEFORE_YIELD`] looks at the
//! lock word (a few microseconds: several times the longest critical section,
//! so a holder that is running releases the lock within the spin phase), then
//! [`std::thread::yield_now`] before each further look. The yield matters
//! when the holder was preempted — with more runnable threads than cores
//! spinning on would burn the waiter's whole time slice while the holder
//! cannot run — and costs nothing in the common case, which never reaches
//! it. Exponential backoff buys nothing here: the sections are too short for
//! contention to build up, and thieves, the one source of contention on a
//! deque, never wait at all ([`SpinLock::try_lock`]).
//!
//! The lock uses std's atomics even under `--cfg loom`: no loom model covers
//! the deque or the graph, and loom's atomics may only be used inside a model.

use std::cell::UnsafeCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering};

/// Looks at a taken lock word, each after one spin hint, before a waiter
/// starts yielding its thread between looks (see the module docs).
const SPINS_BEFORE_YIELD: u32 = 100;

/// A test-and-test-and-set spin lock around a `T` (see the module docs for
/// its invariants and orderings).
pub(crate) struct SpinLock<T> {
    locked: AtomicBool,
    value: UnsafeCell<T>,
}

// SAFETY: the lock hands out access to `value` to one thread at a time (the
// holder of `locked`, see the module's invariants), so sharing the lock
// between threads only moves the `T` between them: `T: Send` suffices.
unsafe impl<T: Send> Sync for SpinLock<T> {}

impl<T> SpinLock<T> {
    /// An unlocked lock around `value`.
    pub(crate) const fn new(value: T) -> SpinLock<T> {
        SpinLock {
            locked: AtomicBool::new(false),
            value: UnsafeCell::new(value),
        }
    }

    /// Takes the lock, waiting (spin, then yield) while another thread holds
    /// it.
    #[inline]
    pub(crate) fn lock(&self) -> SpinGuard<'_, T> {
        // Acquire: see the module's orderings.
        if self.locked.swap(true, Ordering::Acquire) {
            self.lock_contended();
        }
        SpinGuard { lock: self }
    }

    /// The slow path of [`lock`](Self::lock): wait until the lock looks free,
    /// then try again.
    #[cold]
    #[inline(never)]
    fn lock_contended(&self) {
        let mut spins = 0;
        loop {
            while self.locked.load(Ordering::Relaxed) {
                if spins < SPINS_BEFORE_YIELD {
                    spins += 1;
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
            if !self.locked.swap(true, Ordering::Acquire) {
                return;
            }
        }
    }

    /// Takes the lock if it is free, without waiting.
    #[inline]
    pub(crate) fn try_lock(&self) -> Option<SpinGuard<'_, T>> {
        // The Relaxed load first: a taken lock fails without writing the line.
        if self.locked.load(Ordering::Relaxed) || self.locked.swap(true, Ordering::Acquire) {
            return None;
        }
        Some(SpinGuard { lock: self })
    }

    /// The value, through the unique borrow of the lock (no locking needed).
    pub(crate) fn get_mut(&mut self) -> &mut T {
        self.value.get_mut()
    }
}

/// Holds a [`SpinLock`]; gives access to its value and unlocks when dropped.
pub(crate) struct SpinGuard<'a, T> {
    lock: &'a SpinLock<T>,
}

impl<T> Deref for SpinGuard<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        // SAFETY: this guard holds the lock, so no other reference to the
        // value exists while it lives (the module's first invariant).
        unsafe { &*self.lock.value.get() }
    }
}

impl<T> DerefMut for SpinGuard<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: this guard holds the lock, so no other reference to the
        // value exists while it lives (the module's first invariant), and
        // `&mut self` makes this borrow unique among the guard's own.
        unsafe { &mut *self.lock.value.get() }
    }
}

impl<T> Drop for SpinGuard<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Release: the next holder sees every write made under the lock.
        self.lock.locked.store(false, Ordering::Release);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::hint::black_box;

    /// Several threads increment a plain (non-atomic) counter under the lock,
    /// half of them taking it with `lock`, half with `try_lock`; the
    /// read-then-write with a yield in between loses increments as soon as
    /// two threads are inside at once.
    #[test]
    fn the_lock_excludes_every_other_holder() {
        const THREADS: usize = 4;
        const ROUNDS: usize = 2_000;
        let lock = SpinLock::new(0usize);
        std::thread::scope(|s| {
            for thread in 0..THREADS {
                let lock = &lock;
                s.spawn(move || {
                    for round in 0..ROUNDS {
                        let mut guard = if thread % 2 == 0 {
                            lock.lock()
                        } else {
                            loop {
                                if let Some(guard) = lock.try_lock() {
                                    break guard;
                                }
                                std::hint::spin_loop();
                            }
                        };
                        let seen = black_box(*guard);
                        if round % 64 == 0 {
                            std::thread::yield_now();
                        }
                        *guard = seen + 1;
                    }
                });
            }
        });
        let mut lock = lock;
        assert_eq!(*lock.get_mut(), THREADS * ROUNDS);
    }

    #[test]
    fn try_lock_fails_while_the_lock_is_held() {
        let lock = SpinLock::new(());
        let guard = lock.lock();
        std::thread::scope(|s| {
            s.spawn(|| assert!(lock.try_lock().is_none()));
        });
        drop(guard);
        assert!(lock.try_lock().is_some());
    }
}
