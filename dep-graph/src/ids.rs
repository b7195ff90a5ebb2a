//! Identifiers: the data regions tasks access ([`RegionId`]) and the tasks the
//! graph has created ([`TaskId`]).

use std::fmt;

/// A data region that tasks access — in the runtime, one dataflow handle (or
/// one tile of a tiled allocation). The graph only compares and hashes it;
/// any unique `u64` (an index, an address) works.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct RegionId(pub u64);

/// A task created by [`DependencyGraph::new_task`](crate::DependencyGraph::new_task).
///
/// Ids are opaque and issued in submission order, never reused within one
/// graph: comparing two ids compares their submission order. An id is only
/// meaningful to the graph that issued it.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct TaskId(pub(crate) u64);

impl TaskId {
    /// The task's submission sequence number in its graph: 0 for the first
    /// task, 1 for the second, and so on. Useful for tracing and diagnostics.
    pub fn index(self) -> u64 {
        self.0
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "task #{}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_order_by_submission_and_expose_their_index() {
        assert!(TaskId(3) < TaskId(4));
        assert_eq!(TaskId(7).index(), 7);
        assert_eq!(TaskId(7).to_string(), "task #7");
    }

    #[test]
    fn region_ids_compare_by_value() {
        assert_eq!(RegionId(5), RegionId(5));
        assert_ne!(RegionId(5), RegionId(6));
    }
}
