//! A dataflow scope's dependency graph behind a spin lock: the worker that
//! submits or finishes a task updates the graph itself, under the scope's
//! lock ([`LockedGraph`]).
//!
//! The runtime never touches a [`DependencyGraph`] directly: submission calls
//! [`LockedGraph::new_task`], a finished task calls
//! [`LockedGraph::finish_task`] (done, then delete, in one critical section).
//! Whatever an operation makes ready is appended to a [`ReadyList`] that the
//! *caller* dispatches outside the lock.
//!
//! The graph is generic over the payload it holds per task, so this module
//! uses nothing else of `dataflow`: the payload is `state::TaskRef`, and
//! `state.rs` builds on this module, not the reverse.

use crate::spin_lock::SpinLock;
use prescient_graph::{AccessMode, DependencyGraph, GraphError, RegionId, TaskId};
use std::cell::RefCell;
use std::thread::LocalKey;

/// Tasks made ready by a graph operation, with the ids the graph gave them.
pub(crate) type ReadyList<T> = Vec<(TaskId, T)>;

/// A thread's pool of empty graphs (see [`LockedGraph::new`]).
pub(crate) type GraphPool<T> = RefCell<Vec<DependencyGraph<T>>>;

/// The dependency graph of one dataflow scope, holding a `T` per task, and
/// its operations (`new task`, `done task` + `delete task`, as the DAST paper
/// names its requests), which the calling worker executes under the graph's
/// lock.
///
/// The graph's safety invariant (see `prescient_graph::DependencyGraph`)
/// carries over: a task is handed out — appended to a ready list — only when
/// every earlier conflicting task of the scope is done. The runtime's
/// hand-out of `&mut T` relies on it (see `task.rs`).
pub(crate) struct LockedGraph<T: 'static> {
    /// A spin lock: the critical sections are a few hundred nanoseconds of
    /// graph bookkeeping that never block or switch fibers (see
    /// `spin_lock.rs`).
    graph: SpinLock<DependencyGraph<T>>,
    /// Where the graph goes back to when it is dropped empty.
    pool: &'static LocalKey<GraphPool<T>>,
}

/// Empty graphs kept per thread for the next scope, so that a scope does not
/// regrow the graph's maps (and a nested scope per task does not allocate a
/// table per task).
const POOLED_GRAPHS: usize = 2;

impl<T: 'static> LockedGraph<T> {
    /// A graph whose region table has `buckets` buckets
    /// (`Params::dependency_buckets`, validated to be at least 1): an empty
    /// one from this thread's `pool` if one has that many buckets. A dropped
    /// graph goes back to the pool of the thread that drops it. (The pool is
    /// the caller's `thread_local!`, since a `thread_local!` cannot be
    /// generic.)
    pub(crate) fn new(buckets: usize, pool: &'static LocalKey<GraphPool<T>>) -> LockedGraph<T> {
        let pooled = pool.with(|pool| {
            let mut pool = pool.borrow_mut();
            let index = pool
                .iter()
                .position(|g| g.region_table().bucket_count() == buckets)?;
            Some(pool.swap_remove(index))
        });
        let graph = match pooled {
            Some(graph) => graph,
            None => DependencyGraph::new(buckets).unwrap_or_else(|error| fatal(error)),
        };
        LockedGraph {
            graph: SpinLock::new(graph),
            pool,
        }
    }

    /// Registers a task with its accesses. If it has no unfinished
    /// predecessor it is ready: appended to `ready`.
    pub(crate) fn new_task(
        &self,
        accesses: &[(RegionId, AccessMode)],
        task: T,
        ready: &mut ReadyList<T>,
    ) {
        let new = self.graph.lock().new_task(accesses, task);
        if let Some(task) = new.ready {
            ready.push((new.id, task));
        }
    }

    /// `done task`: marks a handed-out task done; successors it releases go
    /// to `ready`.
    pub(crate) fn done_task(&self, id: TaskId, ready: &mut ReadyList<T>) {
        let result = self.graph.lock().done_task(id, ready);
        result.unwrap_or_else(|error| fatal(error));
    }

    /// `delete task`: frees a done task's node and its region-table
    /// references.
    pub(crate) fn delete_task(&self, id: TaskId) {
        let result = self.graph.lock().delete_task(id);
        result.unwrap_or_else(|error| fatal(error));
    }

    /// `done task` then `delete task` in one lock round trip — what a worker
    /// does when it finishes a task and executes both requests itself.
    /// Successors it releases go to `ready`.
    pub(crate) fn finish_task(&self, id: TaskId, ready: &mut ReadyList<T>) {
        let result = {
            let mut graph = self.graph.lock();
            graph
                .done_task(id, ready)
                .and_then(|()| graph.delete_task(id))
        };
        result.unwrap_or_else(|error| fatal(error));
    }
}

impl<T: 'static> Drop for LockedGraph<T> {
    fn drop(&mut self) {
        let graph = std::mem::replace(
            self.graph.get_mut(),
            DependencyGraph::new(1).unwrap_or_else(|error| fatal(error)),
        );
        // Only an empty graph is reusable (a scope ends with no task left).
        if graph.is_empty() {
            let _ = self.pool.try_with(|pool| {
                let mut pool = pool.borrow_mut();
                if pool.len() < POOLED_GRAPHS {
                    pool.push(graph);
                }
            });
        }
    }
}

/// A graph operation failed: the runtime broke the graph's protocol. The
/// graph's bookkeeping (on which the hand-out of `&mut T` rests) can no longer
/// be trusted, and this runs where unwinding is not allowed (a finishing
/// task), so the process aborts with the reason.
#[cold]
#[inline(never)]
fn fatal(error: GraphError) -> ! {
    crate::job::report(format_args!(
        "dataflow dependency graph protocol violated: {error}"
    ));
    std::process::abort();
}
