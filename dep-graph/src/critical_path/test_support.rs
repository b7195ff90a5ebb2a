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

/// The four edges of one fork-join: s0 forks s1 (child), s2 is the parent's
/// continuation, s3 the parent after the join.
pub(super) fn fork_join_edges() -> Vec<Edge> {
    vec![
        edge(0, 1, EdgeKind::Create),
        edge(0, 2, EdgeKind::CreateContinue),
        edge(1, 3, EdgeKind::End),
        edge(2, 3, EdgeKind::WaitContinue),
    ]
}
