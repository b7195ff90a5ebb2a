//! Task groups (INSPIRE's `merge`/`merge_all`, OpenMP's `taskgroup`): spawn
//! any number of `'static` tasks into a group and wait for all of them.

use crate::job::{drop_caught, keep_first_panic, HeapJob, PanicPayload};
use crate::latch::CountLatch;
use crate::registry::{self, on_worker, WorkerThread};
use crate::runtime::Runtime;
use parking_lot::Mutex;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

struct GroupState {
    pending: CountLatch,
    panic: Mutex<Option<PanicPayload>>,
}

/// A set of tasks to wait for together.
///
/// Clones share the group, so a task may spawn more tasks into the group it
/// belongs to; [`wait`](TaskGroup::wait) returns when every task spawned so
/// far, and every task they spawned into the group, has finished.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// let sum = Arc::new(AtomicUsize::new(0));
/// let group = prescient::TaskGroup::new();
/// for i in 1..=10 {
///     let sum = sum.clone();
///     group.spawn(move || { sum.fetch_add(i, Ordering::Relaxed); });
/// }
/// group.wait();
/// assert_eq!(sum.load(Ordering::Relaxed), 55);
/// ```
#[derive(Clone)]
pub struct TaskGroup {
    state: Arc<GroupState>,
}

impl Default for TaskGroup {
    fn default() -> Self {
        TaskGroup::new()
    }
}

impl std::fmt::Debug for TaskGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskGroup")
            .field("pending", &self.state.pending.pending())
            .finish()
    }
}

impl TaskGroup {
    /// An empty group.
    pub fn new() -> TaskGroup {
        TaskGroup {
            state: Arc::new(GroupState {
                pending: CountLatch::new(0),
                panic: Mutex::new(None),
            }),
        }
    }

    /// Spawns `f` into the group: on this worker's deque inside a runtime
    /// (inline right away when the deque is full), into the global runtime
    /// outside.
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.state.pending.increment();
        let state = self.state.clone();
        let task = move || {
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
                keep_first_panic(&state.panic, payload);
            }
            state.pending.decrement();
            // Possibly the last reference to the group (dropped without a
            // wait, holding an unobserved panic): nothing of it may unwind
            // into the worker.
            drop_caught(state);
        };
        match WorkerThread::with_current(|worker| worker.map(WorkerThread::reserve)) {
            Some(true) => on_worker(|worker| worker.push(HeapJob::into_job_ref(task))),
            Some(false) => task(),
            None => Runtime::global()
                .registry()
                .inject(HeapJob::into_job_ref(task)),
        }
    }

    /// The number of tasks spawned and not yet finished.
    pub fn pending(&self) -> usize {
        self.state.pending.pending()
    }

    /// Waits for every task of the group, then propagates the first panic of
    /// any of them (once). Inside a task this *suspends* the task (see
    /// [`join`](crate::join) about mutex guards and thread-locals across
    /// waits). The group can be used again afterwards.
    pub fn wait(&self) {
        registry::wait_for(&self.state.pending);
        if let Some(payload) = self.state.panic.lock().take() {
            panic::resume_unwind(payload);
        }
    }
}
