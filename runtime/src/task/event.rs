//! A runtime-aware one-shot [`Event`]: waiting suspends the task (the worker
//! runs other tasks), as the Insieme event table does.

use crate::scheduler::latch::{WaitList, Waitable, Waiter};
use crate::scheduler::worker;
use crate::trace::{self, AtomicStrandRef};
use std::sync::atomic::{AtomicBool, Ordering};

/// An event that is set once; tasks waiting for it suspend until then.
///
/// ```
/// use std::sync::Arc;
/// let event = Arc::new(prescient::Event::new());
/// let setter = event.clone();
/// let waiter = prescient::spawn({
///     let event = event.clone();
///     move || { event.wait(); 1 }
/// });
/// setter.set();
/// assert_eq!(waiter.join(), 1);
/// ```
pub struct Event {
    set: AtomicBool,
    waiters: WaitList,
    /// The strand that set the event (`trace`): the first setter's.
    setter: AtomicStrandRef,
}

impl Default for Event {
    fn default() -> Self {
        Event::new()
    }
}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("set", &self.is_set())
            .finish()
    }
}

impl Event {
    /// An event that is not set.
    pub const fn new() -> Event {
        Event {
            set: AtomicBool::new(false),
            waiters: WaitList::new(),
            setter: AtomicStrandRef::new(),
        }
    }

    /// Sets the event and wakes every waiter. Setting it again does nothing.
    pub fn set(&self) {
        // The setter's strand ends at the set: what it did before is what
        // waiters waited for (the first setter's, if several set it).
        self.setter.store_first(trace::fork());
        if !self.set.swap(true, Ordering::AcqRel) {
            self.waiters.notify_all();
        }
    }

    /// Whether the event is set.
    pub fn is_set(&self) -> bool {
        self.set.load(Ordering::Acquire)
    }

    /// Waits until the event is set.
    ///
    /// Inside a task this *suspends* the task, not the worker; the task
    /// resumes on the same thread. Other tasks run on this thread meanwhile: do
    /// not hold a `Mutex` guard across the wait that another task on this
    /// worker may need, and do not rely on set/restore of a thread-local across
    /// it; use [`task_local!`](macro@crate::task_local). On a thread outside any
    /// runtime it blocks the thread.
    pub fn wait(&self) {
        worker::wait_for(self);
        trace::joined(self.setter.load());
    }
}

impl Waitable for Event {
    fn probe(&self) -> bool {
        self.is_set()
    }

    fn register(&self, waiter: Waiter) -> bool {
        self.waiters.register_unless(|| self.is_set(), waiter)
    }
}
