//! Assembling a session's per-worker buffers into a
//! [`Dag`](prescient_graph::trace::Dag): dense strand ids, nanoseconds since
//! the session began, and the repair of cross-core clock skew.
//!
//! Strand ids: worker `w`'s strands get `offset[w] + index`, in the order
//! the worker recorded them (which is time order). A strand's task is the
//! dense id of the task's first strand, or the strand itself when that one
//! was recorded in another session. Edges from or to strands of another
//! session (a task that started before the session began) are dropped.
//!
//! Clock skew: the time-stamp counters of two cores may disagree by a few
//! nanoseconds. A worker's thread may move between cores, so first each
//! worker's strands are made to follow one another (a strand that appears
//! to start before its predecessor on the worker ended starts at that end;
//! moving a start later breaks no edge into it). Then an edge says its
//! target started after its source ended; where a target
//! appears to start before its source ended, the source's end is moved back
//! to the target's start (a strand only shrinks, so no other edge or
//! worker order breaks); if the target appears to start even before the
//! source started, the edge is dropped. Both are counted in
//! [`TraceStats`].

use super::recorder::{EdgeRecord, Recording, StrandRecord, StrandRef};
use prescient_graph::trace::{Dag, Edge, Strand, StrandId, TraceError};
use std::mem::size_of;

/// Figures about one recorded session.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct TraceStats {
    /// Strands recorded.
    pub strands: usize,
    /// Edges recorded (before dropping those to other sessions).
    pub edges: usize,
    /// Bytes of the recorded strands (40 each) and edges (24 each).
    pub recorded_bytes: usize,
    /// Bytes the workers' buffers held for the session (reserved chunks
    /// included).
    pub buffer_bytes: usize,
    /// Edges whose source's end was moved back to its target's start
    /// because of clock skew between cores.
    pub skew_repairs: usize,
    /// The largest such move, in nanoseconds.
    pub max_skew_ns: u64,
    /// Edges dropped: their other end was recorded in another session, or
    /// the skew could not be repaired.
    pub dropped_edges: usize,
    /// Wall time of the recorded run (ns).
    pub run_ns: u64,
    /// Time to assemble the buffers into the DAG, validation included (ns).
    pub assemble_ns: u64,
    /// Time to analyse the DAG (ns).
    pub analyze_ns: u64,
}

/// A session's DAG, with what the DAG model has no room for.
pub(crate) struct Assembled {
    pub(crate) dag: Dag,
    pub(crate) stats: TraceStats,
    /// Per strand (by id): nanoseconds spent running children inline.
    pub(crate) inlined_ns: Vec<u64>,
    /// Per strand: children run inline that began in it.
    pub(crate) inlined_children: Vec<u32>,
}

/// Builds the DAG of a session.
pub(crate) fn assemble(recording: Recording) -> Result<Assembled, TraceError> {
    let Recording {
        epoch,
        buffers,
        conversion,
    } = recording;
    let mut stats = TraceStats::default();
    let mut offsets = Vec::with_capacity(buffers.len());
    let mut total = 0usize;
    for buffer in &buffers {
        offsets.push(total);
        total += buffer.strands.len();
        stats.edges += buffer.edges.len();
        stats.buffer_bytes += buffer.strands.allocated_bytes() + buffer.edges.allocated_bytes();
        stats.recorded_bytes += buffer.strands.len() * size_of::<StrandRecord>()
            + buffer.edges.len() * size_of::<EdgeRecord>();
    }
    stats.strands = total;
    let dense = |raw: u64| -> Option<u32> {
        let strand = StrandRef::from_raw(raw);
        if strand.is_none() || strand.epoch() != epoch {
            return None;
        }
        let worker = strand.worker()?;
        let buffer = buffers.get(worker)?;
        (strand.index() < buffer.strands.len()).then(|| (offsets[worker] + strand.index()) as u32)
    };
    let mut strands = Vec::with_capacity(total);
    let mut inlined_ns = Vec::with_capacity(total);
    let mut inlined_children = Vec::with_capacity(total);
    for (worker, buffer) in buffers.iter().enumerate() {
        let mut previous_end = 0;
        for record in buffer.strands.iter() {
            let id = strands.len() as u32;
            let mut start = conversion.nanos(record.start);
            let mut end = conversion.nanos(record.end);
            // The thread moved to a core whose counter is behind.
            if start < previous_end {
                stats.skew_repairs += 1;
                stats.max_skew_ns = stats.max_skew_ns.max(previous_end - start);
                start = previous_end;
                end = end.max(start);
            }
            previous_end = end;
            inlined_ns.push(conversion.duration(record.inlined).min(end - start));
            inlined_children.push(record.inlined_children);
            strands.push(Strand {
                task: dense(record.task).unwrap_or(id),
                worker: worker as u32,
                start,
                end,
            });
        }
    }
    let mut edges = Vec::with_capacity(stats.edges);
    for buffer in &buffers {
        for record in buffer.edges.iter() {
            let (Some(from), Some(to)) = (dense(record.from), dense(record.to)) else {
                stats.dropped_edges += 1;
                continue;
            };
            let target_start = strands[to as usize].start;
            let source = &mut strands[from as usize];
            if source.end > target_start {
                if source.start > target_start {
                    stats.dropped_edges += 1;
                    continue;
                }
                stats.skew_repairs += 1;
                stats.max_skew_ns = stats.max_skew_ns.max(source.end - target_start);
                source.end = target_start;
            }
            edges.push(Edge {
                from: StrandId(from),
                to: StrandId(to),
                kind: record.kind,
            });
        }
    }
    // Ends only move earlier in this pass and starts do not move, so an
    // edge checked before a strand shrank still holds.
    drop(buffers);
    let dag = Dag::new(offsets.len() as u32, strands, edges)?;
    Ok(Assembled {
        dag,
        stats,
        inlined_ns,
        inlined_children,
    })
}
