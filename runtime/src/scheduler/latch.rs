//! Waiting without blocking a worker: the [`Waitable`] protocol, the one-shot
//! lock-free [`Latch`] (join, `TaskHandle`, `Runtime::run`), the
//! [`ScopeLatch`] of a scope on its creator's stack, and the mutex-protected
//! [`WaitList`] (events, the counters of task groups).
//!
//! A waiter is either a suspended fiber (a task waiting inside the runtime) or
//! a parked OS thread (code outside any runtime). Registration happens on the
//! waiting worker's *main* stack after the fiber has switched out (see
//! `WorkerThread::wait_until` in `worker/wait.rs`), so a waker can never resume a fiber
//! that is still running: a woken fiber is pushed to its home worker's resume
//! inbox, and only that worker resumes it (tasks are tied to their worker).
//!
//! # Why the latch protocol is correct
//! The latch word is `UNSET`, `SET`, or the address of a waiter (tagged).
//! * The waiter registers with a CAS `UNSET -> waiter`. If it fails the word is
//!   `SET` (a latch has one waiter) and the waiter does not sleep.
//! * The setter swaps in `SET`. If it got a waiter back, it wakes it; it never
//!   reads the latch again, because the waiter may free it as soon as it runs.
//!
//! Both are AcqRel: the setter's writes before `set` (a job's result) happen
//! before the waiter's reads after it observes `SET` or is woken (the wake goes
//! through the inbox queue or the thread's flag, both release/acquire).

use crate::scheduler::fiber::{FiberPtr, WaitTarget};
use crate::sync::{self, AtomicBool, AtomicUsize, Thread};
use parking_lot::Mutex;
use std::sync::atomic::Ordering;

/// Something a task can wait for.
pub(crate) trait Waitable {
    /// Whether the awaited condition holds now.
    fn probe(&self) -> bool;
    /// Registers `waiter` to be woken when the condition holds. Returns `false`
    /// (and keeps no reference to the waiter) if it already holds.
    fn register(&self, waiter: Waiter) -> bool;
}

/// Every waitable can take a suspended fiber as its waiter.
impl<T: Waitable> WaitTarget for T {
    fn register_fiber(&self, fiber: FiberPtr) -> bool {
        self.register(Waiter::Fiber(fiber))
    }
}

/// Who to wake.
#[derive(Clone, Copy)]
pub(crate) enum Waiter {
    /// A suspended fiber (its `home` names the worker it is tied to).
    Fiber(FiberPtr),
    /// An OS thread parked in [`wait_on_thread`].
    Thread(*const ThreadWaiter),
}

// SAFETY: the pointers are only dereferenced by `wake`, whose contract says the
// pointees are alive; a fiber pointer is only resumed by its home worker.
unsafe impl Send for Waiter {}

impl Waiter {
    /// Wakes the waiter.
    ///
    /// # Safety
    /// The waiter is still waiting (it was registered and not woken before), so
    /// the fiber is suspended and its worker is alive, or the thread is parked
    /// in `wait_on_thread` with its `ThreadWaiter` on its stack.
    pub(crate) unsafe fn wake(self) {
        match self {
            // SAFETY: by the contract the fiber is suspended and registered
            // here, and this is its one wake-up.
            Waiter::Fiber(fiber) => unsafe { fiber.make_ready() },
            Waiter::Thread(waiter) => {
                // SAFETY: the waiter is alive until `woken` is set; we clone the
                // thread handle before setting it and touch nothing after.
                let thread = unsafe { (*waiter).thread.clone() };
                // SAFETY: the waiter is alive until `woken` is set (it spins
                // or parks on this flag in `wait_on_thread`, its frame
                // holding the `ThreadWaiter`); this store is our last touch.
                unsafe { (*waiter).woken.store(true, Ordering::Release) };
                thread.unpark();
            }
        }
    }
}

/// A parked thread's wake-up slot; lives on the waiting thread's stack.
pub(crate) struct ThreadWaiter {
    thread: Thread,
    woken: AtomicBool,
}

/// Blocks the calling OS thread (not a worker) until `waitable` holds.
pub(crate) fn wait_on_thread(waitable: &dyn Waitable) {
    while !waitable.probe() {
        let waiter = ThreadWaiter {
            thread: sync::current_thread(),
            woken: AtomicBool::new(false),
        };
        if !waitable.register(Waiter::Thread(&waiter)) {
            return;
        }
        while !waiter.woken.load(Ordering::Acquire) {
            sync::park();
        }
    }
}

const UNSET: usize = 0;
const SET: usize = 1;
const THREAD_TAG: usize = 2;

/// A one-shot latch with at most one waiter, lock-free.
pub(crate) struct Latch {
    state: AtomicUsize,
}

impl Latch {
    pub(crate) fn new() -> Latch {
        Latch {
            state: AtomicUsize::new(UNSET),
        }
    }

    /// Sets the latch and wakes its waiter.
    ///
    /// Takes a raw pointer because the waiter may free the latch as soon as the
    /// swap is visible: this function does not touch `*this` afterwards.
    ///
    /// # Safety
    /// `this` points to a live latch that is set at most once.
    pub(crate) unsafe fn set(this: *const Latch) {
        // SAFETY: `this` is alive until the swap (contract); after it we only
        // use the value we swapped out.
        let previous = unsafe { (*this).state.swap(SET, Ordering::AcqRel) };
        match previous {
            UNSET => {}
            SET => unreachable!("latch set twice"),
            bits if bits & THREAD_TAG != 0 => {
                let waiter = (bits & !THREAD_TAG) as *const ThreadWaiter;
                // SAFETY: the waiter registered and was not woken before (the
                // latch has one waiter and is set once).
                unsafe { Waiter::Thread(waiter).wake() }
            }
            bits => {
                let fiber = FiberPtr(bits as *mut crate::scheduler::fiber::Fiber);
                // SAFETY: a registered fiber waiter stays suspended until woken.
                unsafe { Waiter::Fiber(fiber).wake() }
            }
        }
    }

    /// Whether the latch is set.
    #[inline]
    pub(crate) fn is_set(&self) -> bool {
        self.state.load(Ordering::Acquire) == SET
    }
}

impl Waitable for Latch {
    fn probe(&self) -> bool {
        self.is_set()
    }

    fn register(&self, waiter: Waiter) -> bool {
        let bits = match waiter {
            Waiter::Fiber(fiber) => fiber.0 as usize,
            Waiter::Thread(thread) => thread as usize | THREAD_TAG,
        };
        debug_assert!(bits & !THREAD_TAG > SET);
        self.state
            .compare_exchange(UNSET, bits, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// A condition with any number of waiters behind a mutex: events and the
/// pending-task counters of scopes and groups. Not on any hot path.
///
/// `register` checks the condition under the lock and `notify_all` takes the
/// lock after the condition became true, so a waiter that registered is always
/// woken. A woken waiter re-checks its condition (a counter may have risen
/// again), so spurious wake-ups are harmless.
pub(crate) struct WaitList {
    waiters: Mutex<Vec<Waiter>>,
}

impl WaitList {
    pub(crate) const fn new() -> WaitList {
        WaitList {
            waiters: Mutex::new(Vec::new()),
        }
    }

    /// Registers `waiter` unless `condition()` holds (checked under the lock).
    pub(crate) fn register_unless(&self, condition: impl Fn() -> bool, waiter: Waiter) -> bool {
        let mut waiters = self.waiters.lock();
        if condition() {
            return false;
        }
        waiters.push(waiter);
        true
    }

    /// Wakes every registered waiter. Call after making the condition true.
    pub(crate) fn notify_all(&self) {
        let waiters = std::mem::take(&mut *self.waiters.lock());
        for waiter in waiters {
            // SAFETY: each waiter registered once and was removed from the list
            // here, so it is still waiting and is woken exactly once.
            unsafe { waiter.wake() };
        }
    }
}

/// A counter of pending tasks whose waiters wake when it drops to zero.
pub(crate) struct CountLatch {
    pending: std::sync::atomic::AtomicUsize,
    waiters: WaitList,
}

impl CountLatch {
    pub(crate) const fn new(initial: usize) -> CountLatch {
        CountLatch {
            pending: std::sync::atomic::AtomicUsize::new(initial),
            waiters: WaitList::new(),
        }
    }

    pub(crate) fn increment(&self) {
        self.pending.fetch_add(1, Ordering::Relaxed);
    }

    /// Decrements; the decrement that reaches zero wakes the waiters.
    pub(crate) fn decrement(&self) {
        if self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.waiters.notify_all();
        }
    }

    pub(crate) fn pending(&self) -> usize {
        self.pending.load(Ordering::Acquire)
    }
}

impl Waitable for CountLatch {
    fn probe(&self) -> bool {
        self.pending() == 0
    }

    fn register(&self, waiter: Waiter) -> bool {
        self.waiters.register_unless(|| self.pending() == 0, waiter)
    }
}

/// The count of a scope that lives on its creator's stack: the creator's own
/// count (1 at the start) plus one per deferred task not yet finished; the
/// task that brings it to zero sets a one-waiter [`Latch`], which only the
/// creator waits for.
///
/// # Why the creator may free it as soon as it returns from waiting
/// A task's last access is [`release`](Self::release): its decrement, and —
/// only for the task that reaches zero — `Latch::set`, which touches nothing
/// after its swap. The creator returns only when it saw zero itself
/// ([`release_creator`](Self::release_creator) or [`is_idle`](Self::is_idle))
/// or after the latch was set; in both cases every task has made its
/// decrement, and the one that reached zero (if not the creator) has made its
/// swap. The count cannot rise again from zero: only the creator or a running
/// task, each holding a count, adds one. So zero is reached once, and the
/// latch is set at most once.
pub(crate) struct ScopeLatch {
    pending: AtomicUsize,
    done: Latch,
}

impl ScopeLatch {
    /// A count of 1: the creator's.
    pub(crate) fn new() -> ScopeLatch {
        ScopeLatch {
            pending: AtomicUsize::new(1),
            done: Latch::new(),
        }
    }

    /// Counts one more task. The caller holds a count (the creator's or a
    /// running task's), so the count is not zero.
    pub(crate) fn add(&self) {
        // Relaxed: the count is not zero and nobody waits on this value; the
        // task's publication (a deque push or an injection, both release)
        // orders it before the task's own `release`.
        self.pending.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether only the creator's count is left: nothing was deferred, or
    /// everything deferred has finished. Then nobody can add a count any
    /// more but the creator, and the creator may skip
    /// [`release_creator`](Self::release_creator) and return. A load instead
    /// of a read-modify-write on the common path.
    pub(crate) fn is_idle(&self) -> bool {
        // Acquire pairs with the tasks' releases: their writes are visible.
        self.pending.load(Ordering::Acquire) == 1
    }

    /// Releases the creator's count; whether that was the last (no task is
    /// pending, and the latch will never be set).
    pub(crate) fn release_creator(&self) -> bool {
        self.pending.fetch_sub(1, Ordering::AcqRel) == 1
    }

    /// What the creator waits for after `release_creator` returned `false`.
    pub(crate) fn done(&self) -> &Latch {
        &self.done
    }

    /// A task finished: releases its count; the one that reaches zero sets
    /// the latch.
    ///
    /// # Safety
    /// `this` is alive and the caller holds one count, released here; the
    /// caller does not touch the latch (or what holds it) afterwards, since
    /// the creator may free it at once.
    pub(crate) unsafe fn release(this: *const ScopeLatch) {
        // AcqRel: the task's writes happen before the creator's return, which
        // observes zero through this decrement (or through the latch).
        // SAFETY: alive while we hold our count (contract).
        if unsafe { (*this).pending.fetch_sub(1, Ordering::AcqRel) } == 1 {
            // SAFETY: alive until `done` is set (the creator released its
            // count and waits for it); set once, since zero is reached once.
            // `Latch::set` does not touch the latch after its swap.
            unsafe { Latch::set(&(*this).done) };
        }
    }
}

/// What the loom models need of a `ScopeLatch` beyond the protocol.
#[cfg(all(test, loom))]
impl ScopeLatch {
    /// What freeing the latch is to loom: an exclusive (`with_mut`) access
    /// to its words, which loom reports as a causality violation unless
    /// every other thread's access to them happens before it. A model calls
    /// it where the real code lets the latch's memory go (the scope's frame
    /// returns).
    pub(crate) fn free_for_model(&mut self) {
        self.pending.with_mut(|_| ());
        self.done.state.with_mut(|_| ());
    }
}

/// Loom models of the latch protocol (`--cfg loom`): every interleaving of a
/// waiter registering and a setter setting ends with the waiter either not
/// sleeping (registration failed because the latch was set) or woken. The
/// waiter is the real [`wait_on_thread`] (its thread handle and `park` are
/// loom's under `--cfg loom`, see `crate::sync`). The scope's side — its
/// end, deferred tasks and latent spawns — is modelled in `scope.rs`.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    #[test]
    fn loom_waiter_is_woken_or_sees_the_latch_set() {
        loom::model(|| {
            let latch = Arc::new(Latch::new());
            let data = Arc::new(loom::cell::UnsafeCell::new(0u32));
            let (setter_latch, setter_data) = (latch.clone(), data.clone());
            let setter = loom::thread::spawn(move || {
                // SAFETY: the waiter reads `data` only after the latch is set.
                setter_data.with_mut(|d| unsafe { *d = 42 });
                // SAFETY: the latch is alive (Arc) and set once.
                unsafe { Latch::set(&*setter_latch) };
            });
            wait_on_thread(&*latch);
            assert!(latch.is_set());
            // SAFETY: set with Release before; we observed it with Acquire.
            assert_eq!(data.with(|d| unsafe { *d }), 42);
            setter.join().unwrap();
        });
    }

    #[test]
    fn loom_registration_fails_after_set() {
        loom::model(|| {
            let latch = Latch::new();
            // SAFETY: alive and set once.
            unsafe { Latch::set(&latch) };
            let waiter = ThreadWaiter {
                thread: sync::current_thread(),
                woken: AtomicBool::new(false),
            };
            assert!(!latch.register(Waiter::Thread(&waiter)));
        });
    }

    /// The scope protocol on the latch alone: a creator on whose stack the
    /// `ScopeLatch` lives, two deferred tasks. The creator frees the latch
    /// ([`ScopeLatch::free_for_model`]) as soon as it returns from waiting:
    /// loom reports any task's access to it that does not happen before
    /// that — a decrement, or the set's swap — and the creator sees both
    /// tasks' writes.
    #[test]
    fn loom_scope_latch_is_never_touched_after_the_creator_returns() {
        struct Ptr(*const ScopeLatch);
        // SAFETY: the model keeps the pointee alive until every thread is
        // joined and checks the protocol, not Rust ownership.
        unsafe impl Send for Ptr {}

        loom::model(|| {
            let latch = Box::into_raw(Box::new(ScopeLatch::new()));
            let data = Arc::new([
                loom::cell::UnsafeCell::new(0u32),
                loom::cell::UnsafeCell::new(0u32),
            ]);
            let mut tasks = Vec::new();
            for i in 0..2 {
                // SAFETY: alive; the creator holds its count.
                unsafe { (*latch).add() };
                let (ptr, data) = (Ptr(latch), data.clone());
                tasks.push(loom::thread::spawn(move || {
                    let ptr = ptr;
                    // SAFETY: only this task writes slot i; the creator reads
                    // it after observing the count at zero.
                    data[i].with_mut(|d| unsafe { *d = 1 });
                    // SAFETY: alive while we hold our count; released once.
                    unsafe { ScopeLatch::release(ptr.0) };
                }));
            }
            // The creator's end, as `Scope::finish_body` makes it off a worker.
            {
                // SAFETY: alive (freed below).
                let creator = unsafe { &*latch };
                if !creator.is_idle() && !creator.release_creator() {
                    wait_on_thread(creator.done());
                }
            }
            // The creator returns: its frame, and the latch, are gone.
            // SAFETY: the model's stand-in for that (see `free_for_model`).
            unsafe { (*latch).free_for_model() };
            for slot in data.iter() {
                // SAFETY: every task released its count after its write.
                assert_eq!(slot.with(|d| unsafe { *d }), 1);
            }
            for task in tasks {
                task.join().unwrap();
            }
            // SAFETY: every thread is joined.
            drop(unsafe { Box::from_raw(latch) });
        });
    }
}
