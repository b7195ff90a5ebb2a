//! `scope`: spawn tasks that borrow from the enclosing frame; the scope
//! returns only when all of them (and their nested spawns) have finished.
//!
//! The scope's state sits in an `Arc` that every job holds, because the job
//! that brings the pending count to zero still touches the state (to wake the
//! waiter) after the scope could otherwise have returned.

use crate::job::{drop_caught, keep_first_panic, HeapJob, PanicPayload};
use crate::latch::CountLatch;
use crate::registry::{self, on_worker, Registry, WorkerThread};
use crate::runtime::with_registry;
use parking_lot::Mutex;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Arc;

struct ScopeState {
    pending: CountLatch,
    panic: Mutex<Option<PanicPayload>>,
    /// Where spawns from a thread outside the runtime go.
    registry: Arc<Registry>,
}

/// A scope of tasks that may borrow data living longer than `'scope`.
pub struct Scope<'scope> {
    state: Arc<ScopeState>,
    /// Invariant in `'scope`, like `std::thread::Scope`.
    marker: PhantomData<&'scope mut &'scope ()>,
}

/// Creates a scope, runs `body` in it, and waits for every task spawned in it.
///
/// A panic in the body or in any task is propagated after all tasks finished.
/// Waiting at the end of the scope *suspends* the calling task (see
/// [`join`](crate::join) about mutex guards and thread-locals across waits).
///
/// ```
/// let mut counts = [0u32; 4];
/// prescient::scope(|s| {
///     for (i, slot) in counts.iter_mut().enumerate() {
///         s.spawn(move |_| *slot = i as u32 * 10);
///     }
/// });
/// assert_eq!(counts, [0, 10, 20, 30]);
/// ```
pub fn scope<'scope, F, R>(body: F) -> R
where
    F: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    with_registry(|registry| {
        let scope = Scope {
            state: Arc::new(ScopeState {
                pending: CountLatch::new(1),
                panic: Mutex::new(None),
                registry,
            }),
            marker: PhantomData,
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| body(&scope)));
        scope.state.pending.decrement();
        registry::wait_for(&scope.state.pending);
        if let Some(payload) = scope.state.panic.lock().take() {
            panic::resume_unwind(payload);
        }
        match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    })
}

impl<'scope> Scope<'scope> {
    /// Spawns a task in this scope. It may borrow anything that outlives the
    /// scope, and receives the scope to spawn more.
    ///
    /// When this worker's deque is full the task runs right away, before
    /// `spawn` returns (lazy task creation).
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.state.pending.increment();
        let state = self.state.clone();
        let task = move || {
            let scope = Scope {
                state,
                marker: PhantomData,
            };
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| f(&scope))) {
                keep_first_panic(&scope.state.panic, payload);
            }
            scope.state.pending.decrement();
            // Possibly the last reference to the state (the scope may have
            // returned already): nothing of it may unwind into the worker.
            drop_caught(scope);
        };
        match WorkerThread::with_current(|worker| worker.map(WorkerThread::reserve)) {
            // The job may borrow `'scope` data: `scope` does not return before
            // `pending` reaches zero, i.e. before this job has run.
            Some(true) => on_worker(|worker| worker.push(HeapJob::into_job_ref(task))),
            Some(false) => task(),
            // A thread outside the runtime borrowed the scope: inject.
            None => self.state.registry.inject(HeapJob::into_job_ref(task)),
        }
    }
}
