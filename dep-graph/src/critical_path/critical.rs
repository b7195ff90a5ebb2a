//! The critical path of a run and the breakdown of its length.
//!
//! # The path
//! Start from the strand that ends last (ties: the smallest [`StrandId`]) and
//! repeatedly step to the predecessor that ended last (ties: the smallest
//! `StrandId`; among several edges from that strand, the first in input
//! order). Validation guarantees acyclicity, so this stops at a strand
//! without predecessors. Each step costs a scan of one strand's predecessor
//! list, so the whole trace-back is O(edges).
//!
//! # The breakdown
//! The path's strands are ordered in time: each starts no earlier than its
//! predecessor on the path ends. So `[0, T]` (`T` the path's last end, which
//! is the run's end) is cut exactly into the path's strands (work) and the
//! gaps before each of them: `[0, first.start]` and `[p.end, s.start]` for
//! each step `p → s`. Each instant of a gap is *busy delay* if every worker
//! was running a strand then, and *scheduler delay* otherwise, attributed to
//! the kind of the edge `p → s` (or, for the first gap, to the start of the
//! run). Hence, exactly in integer nanoseconds,
//! `work + busy_delay + Σ scheduler_delay + initial_scheduler_delay == T`.
//!
//! Whenever every worker is busy, `nowork` is 0; so the nowork that falls
//! into the path's scheduler-delay instants equals the nowork integrated
//! over its whole gaps, which the [`Timeline`] answers directly.

use super::ids::StrandId;
use super::model::{Dag, Edge, EdgeKind};
use super::timeline::Timeline;

/// One strand of the critical path and the gap before it.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct PathStep {
    /// The strand.
    pub strand: StrandId,
    /// The kind of the edge from the previous strand of the path; `None` for
    /// the first strand.
    pub via: Option<EdgeKind>,
    /// Start of the gap before the strand: the previous path strand's end,
    /// or 0 for the first strand. The gap ends at the strand's start.
    pub gap_start: u64,
    /// Instants of the gap during which every worker was busy (ns).
    pub busy_delay: u64,
    /// Instants of the gap during which some worker was idle (ns).
    pub scheduler_delay: u64,
}

/// The critical path and the breakdown of its length.
///
/// The path starts at the strand that ends last (ties: the smallest id) and
/// steps back to the predecessor that ended last (ties: the smallest
/// predecessor id, then the first edge in input order). Its strands are
/// ordered in time, so `[0, length]` is cut exactly into their work and the
/// gaps before them, each gap instant being busy or scheduler delay:
/// `work + busy_delay + total_scheduler_delay() == length`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct CriticalPath {
    /// The path's strands in forward (time) order.
    pub steps: Vec<PathStep>,
    /// The end of its last strand, which is the end of the run (ns).
    pub length: u64,
    /// Sum of its strands' durations (ns).
    pub work: u64,
    /// Gap instants during which every worker was busy (ns).
    pub busy_delay: u64,
    /// Gap instants during which some worker was idle, by the kind of the
    /// step's edge, indexed by [`EdgeKind::index`] (ns).
    pub scheduler_delay: [u64; 4],
    /// Scheduler delay before the path's first strand, between 0 and its
    /// start (ns); its busy instants count in `busy_delay`.
    pub initial_scheduler_delay: u64,
}

impl CriticalPath {
    /// The scheduler delay of steps along edges of this kind (ns).
    pub fn scheduler_delay_of(&self, kind: EdgeKind) -> u64 {
        self.scheduler_delay[kind.index()]
    }

    /// All scheduler delay on the path, the initial gap included (ns).
    pub fn total_scheduler_delay(&self) -> u64 {
        self.scheduler_delay.iter().sum::<u64>() + self.initial_scheduler_delay
    }
}

/// The strand that ends last; ties go to the smallest id.
fn last_strand(dag: &Dag) -> StrandId {
    let mut best = 0usize;
    for (i, s) in dag.strands().iter().enumerate() {
        if s.end > dag.strands()[best].end {
            best = i;
        }
    }
    StrandId(best as u32)
}

/// The edge from the predecessor of `id` that ended last; ties go to the
/// smallest predecessor id, then to the first edge in input order.
fn critical_edge(dag: &Dag, id: StrandId) -> Option<&Edge> {
    let mut best: Option<&Edge> = None;
    for edge in dag.predecessors(id) {
        let better = match best {
            None => true,
            Some(b) => {
                let (end, best_end) = (dag.strand(edge.from).end, dag.strand(b.from).end);
                end > best_end || (end == best_end && edge.from < b.from)
            }
        };
        if better {
            best = Some(edge);
        }
    }
    best
}

/// Traces the critical path back from the last strand; returns, in forward
/// order, each strand with the kind of the edge into it.
fn trace_back(dag: &Dag) -> Vec<(StrandId, Option<EdgeKind>)> {
    let mut backwards = Vec::new();
    let mut current = last_strand(dag);
    while let Some(edge) = critical_edge(dag, current) {
        backwards.push((current, Some(edge.kind)));
        current = edge.from;
    }
    backwards.push((current, None));
    backwards.reverse();
    backwards
}

/// The critical path with its breakdown, and the nowork integrated over its
/// gaps (worker-ns).
pub(crate) fn critical_path(dag: &Dag, timeline: &Timeline) -> (CriticalPath, u64) {
    let mut path = CriticalPath {
        steps: Vec::new(),
        length: 0,
        work: 0,
        busy_delay: 0,
        scheduler_delay: [0; 4],
        initial_scheduler_delay: 0,
    };
    let mut nowork_in_gaps = 0;
    let mut previous_end = 0;
    for (strand, via) in trace_back(dag) {
        let s = dag.strand(strand);
        let busy = timeline.all_busy_within(previous_end, s.start);
        let scheduler = s.start - previous_end - busy;
        nowork_in_gaps += timeline.nowork_within(previous_end, s.start);
        path.work += s.duration();
        path.busy_delay += busy;
        match via {
            Some(kind) => path.scheduler_delay[kind.index()] += scheduler,
            None => path.initial_scheduler_delay += scheduler,
        }
        path.steps.push(PathStep {
            strand,
            via,
            gap_start: previous_end,
            busy_delay: busy,
            scheduler_delay: scheduler,
        });
        previous_end = s.end;
    }
    path.length = previous_end;
    (path, nowork_in_gaps)
}
