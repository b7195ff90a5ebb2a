//! Shorthands the trace module's unit tests build DAGs with.

use super::{Edge, EdgeKind, Strand, StrandId};

/// A strand of `task` on `worker` over `[start, end)`.
pub(super) fn strand(task: u32, worker: u32, start: u64, end: u64) -> Strand {
    Strand {
        task,
        worker,
        start,
        end,
    }
}

/// An edge of `kind` between two strand ids.
pub(super) fn edge(from: u32, to: u32, kind: EdgeKind) -> Edge {
    Edge {
        from: StrandId(from),
        to: StrandId(to),
        kind,
    }
}
