//! Errors of the dependency graph's operations: misuse by the caller (an
//! unknown id, an operation out of order) is reported, never a panic.

use std::fmt;

use crate::ids::TaskId;

/// A dependency-graph operation was called in a way the protocol forbids.
///
/// Every variant is a bug in the caller (the runtime), reported as a value so
/// the runtime can turn it into a clear failure instead of a panic inside a
/// worker. A failed operation leaves the graph unchanged.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum GraphError {
    /// [`DependencyGraph::new`](crate::DependencyGraph::new) was given zero
    /// buckets; the region table needs at least one.
    ZeroBuckets,
    /// The id was never issued by this graph, or its task has been deleted
    /// already (deleting twice reports this).
    UnknownTask(TaskId),
    /// [`done_task`](crate::DependencyGraph::done_task) was called twice for
    /// the task.
    DoneTwice(TaskId),
    /// [`done_task`](crate::DependencyGraph::done_task) was called for a task
    /// that is not ready yet: its payload was never handed out, so it cannot
    /// have run.
    NotReady(TaskId),
    /// [`delete_task`](crate::DependencyGraph::delete_task) was called for a
    /// task that is not done.
    NotDone(TaskId),
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::ZeroBuckets => {
                write!(f, "the dependency table needs at least one bucket")
            }
            GraphError::UnknownTask(id) => {
                write!(
                    f,
                    "{id} is unknown to this graph (never created, or deleted)"
                )
            }
            GraphError::DoneTwice(id) => write!(f, "{id} was marked done twice"),
            GraphError::NotReady(id) => {
                write!(f, "{id} was marked done before it was ready to run")
            }
            GraphError::NotDone(id) => write!(f, "{id} was deleted before it was done"),
        }
    }
}

impl std::error::Error for GraphError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_task_and_the_problem() {
        let id = TaskId::new(12, 0);
        let cases = [
            (GraphError::ZeroBuckets, "at least one bucket"),
            (GraphError::UnknownTask(id), "task #12 is unknown"),
            (GraphError::DoneTwice(id), "task #12 was marked done twice"),
            (
                GraphError::NotReady(id),
                "task #12 was marked done before it was ready",
            ),
            (
                GraphError::NotDone(id),
                "task #12 was deleted before it was done",
            ),
        ];
        for (error, expected) in cases {
            let message = error.to_string();
            assert!(message.contains(expected), "{message:?} lacks {expected:?}");
            let as_error: &dyn std::error::Error = &error;
            assert!(as_error.source().is_none());
        }
    }
}
