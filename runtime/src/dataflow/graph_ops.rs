//! The three dependency-graph operations behind one interface, and the
//! `DastMode::Off` implementation: workers execute them themselves, under one
//! lock per dataflow scope.
//!
//! The runtime never touches a [`DependencyGraph`] directly: submission calls
//! [`GraphOps::new_task`], a finished task calls [`GraphOps::finish_task`]
//! (done, then delete). Whatever an operation makes ready is appended to a
//! [`ReadyList`] that the *caller* dispatches outside the lock. A later
//! implementation (the DAST manager thread, or idle workers draining request
//! queues) may execute the operations asynchronously: it would return with
//! nothing appended and dispatch the ready tasks itself, without any change to
//! the public API or to the task code.

use super::task::TaskRef;
use crate::spin_lock::SpinLock;
use prescient_graph::{AccessMode, DependencyGraph, GraphError, RegionId, TaskId};
use std::cell::RefCell;

/// Tasks made ready by a graph operation, with the ids the graph gave them.
pub(crate) type ReadyList = Vec<(TaskId, TaskRef)>;

/// The dependency-graph operations of one dataflow scope (`new task`,
/// `done task`, `delete task`, as the DAST paper names its requests).
///
/// Implementations must keep the graph's safety invariant (see
/// `prescient_graph::DependencyGraph`): a task is handed out — appended to a
/// ready list, or dispatched by the implementation — only when every earlier
/// conflicting task of the scope is done. The runtime's hand-out of `&mut T`
/// relies on it (see `task.rs`).
pub(crate) trait GraphOps: Send + Sync {
    /// Registers a task with its accesses. If it has no unfinished
    /// predecessor it is ready: appended to `ready` (or dispatched by the
    /// implementation).
    fn new_task(&self, accesses: &[(RegionId, AccessMode)], task: TaskRef, ready: &mut ReadyList);

    /// Marks a handed-out task done; successors it releases go to `ready`.
    fn done_task(&self, id: TaskId, ready: &mut ReadyList);

    /// Frees a done task's node and its region-table references.
    fn delete_task(&self, id: TaskId);

    /// `done_task` then `delete_task`: what a worker issues when a task
    /// finishes. Implementations may do both in one step (one lock round
    /// trip).
    fn finish_task(&self, id: TaskId, ready: &mut ReadyList) {
        self.done_task(id, ready);
        self.delete_task(id);
    }
}

/// `DastMode::Off`: the graph behind a lock; the worker that submits or
/// finishes a task executes the operation itself.
pub(crate) struct LockedGraph {
    /// A spin lock: the critical sections are a few hundred nanoseconds of
    /// graph bookkeeping that never block or switch fibers (see
    /// `spin_lock.rs`).
    graph: SpinLock<DependencyGraph<TaskRef>>,
}

/// Empty graphs kept per thread for the next scope, so that a scope does not
/// regrow the graph's maps (and a nested scope per task does not allocate a
/// table per task).
const POOLED_GRAPHS: usize = 2;

thread_local! {
    static GRAPH_POOL: RefCell<Vec<DependencyGraph<TaskRef>>> = const { RefCell::new(Vec::new()) };
}

impl LockedGraph {
    /// A graph whose region table has `buckets` buckets
    /// (`Params::dependency_buckets`, validated to be at least 1): an empty
    /// one from this thread's pool if one has that many buckets.
    pub(crate) fn new(buckets: usize) -> LockedGraph {
        let pooled = GRAPH_POOL.with(|pool| {
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
        }
    }
}

impl Drop for LockedGraph {
    fn drop(&mut self) {
        let graph = std::mem::replace(
            self.graph.get_mut(),
            DependencyGraph::new(1).unwrap_or_else(|error| fatal(error)),
        );
        // Only an empty graph is reusable (a scope ends with no task left).
        if graph.is_empty() {
            let _ = GRAPH_POOL.try_with(|pool| {
                let mut pool = pool.borrow_mut();
                if pool.len() < POOLED_GRAPHS {
                    pool.push(graph);
                }
            });
        }
    }
}

impl GraphOps for LockedGraph {
    fn new_task(&self, accesses: &[(RegionId, AccessMode)], task: TaskRef, ready: &mut ReadyList) {
        let new = self.graph.lock().new_task(accesses, task);
        if let Some(task) = new.ready {
            ready.push((new.id, task));
        }
    }

    fn done_task(&self, id: TaskId, ready: &mut ReadyList) {
        let result = self.graph.lock().done_task(id, ready);
        result.unwrap_or_else(|error| fatal(error));
    }

    fn delete_task(&self, id: TaskId) {
        let result = self.graph.lock().delete_task(id);
        result.unwrap_or_else(|error| fatal(error));
    }

    fn finish_task(&self, id: TaskId, ready: &mut ReadyList) {
        let result = {
            let mut graph = self.graph.lock();
            graph
                .done_task(id, ready)
                .and_then(|()| graph.delete_task(id))
        };
        result.unwrap_or_else(|error| fatal(error));
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
