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
///
/// Internally an id carries the task's submission sequence number (which
/// doubles as the generation of its node slot, so a stale id is detected) and
/// the dense slot of its node; the sequence number comes first, so ids order
/// by submission.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct TaskId {
    pub(crate) seq: u64,
    pub(crate) slot: u32,
}

impl TaskId {
    /// The id of the task with sequence number `seq` whose node lives in
    /// `slot`.
    pub(crate) const fn new(seq: u64, slot: u32) -> TaskId {
        TaskId { seq, slot }
    }

    /// The task's submission sequence number in its graph: 0 for the first
    /// task, 1 for the second, and so on. Useful for tracing and diagnostics.
    pub fn index(self) -> u64 {
        self.seq
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "task #{}", self.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_order_by_submission_and_expose_their_index() {
        assert!(TaskId::new(3, 9) < TaskId::new(4, 0));
        assert_eq!(TaskId::new(7, 2).index(), 7);
        assert_eq!(TaskId::new(7, 2).to_string(), "task #7");
    }

    #[test]
    fn region_ids_compare_by_value() {
        assert_eq!(RegionId(5), RegionId(5));
        assert_ne!(RegionId(5), RegionId(6));
    }
}
