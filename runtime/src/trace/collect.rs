//! Assembling a session's per-worker buffers into a
//! [`Dag`]: dense strand ids, nanoseconds since
//! the session began, and the repair of cross-core clock skew.
//!
//! Strand ids: worker `w`'s strands get `offset[w] + index`, in the order
//! the worker recorded them (which is time order). A strand's task is the
//! dense id of the task's first strand, or the strand itself when that one
//! was recorded in another session.
//!
//! Recorded references are process-wide ids, in blocks (`recorder.rs`).
//! The blocks this session's workers took lie in one range of the
//! process-wide counter, shared only with blocks that other runtimes'
//! sessions took meanwhile; a table over that range gives, per block, the
//! dense id of its first strand and how many of its strands were recorded
//! (none for another runtime's block). Mapping a reference is then a
//! subtraction, a bounds check, a load and a compare, and a reference from
//! any other session — earlier, or another runtime's at the same time —
//! maps to nothing: its edge is dropped (the recorder already leaves out
//! edges from earlier sessions of this runtime). The table costs 8 bytes
//! per block in the range: 2 KiB per million strands recorded, plus the
//! blocks of other runtimes recording at the same time.
//!
//! A `Dag` numbers strands and edges with `u32`s: a recording with more
//! than [`MAX_DAG_LEN`] of either is refused
//! ([`AssembleError::TooLarge`]) before anything is converted.
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

use super::recorder::{
    block_of, offset_in_block, EdgeRecord, Recording, StrandRecord, WorkerBuffer, BLOCK_LEN,
    BLOCK_SHIFT,
};
use prescient_graph::critical_path::{Dag, Edge, Strand, StrandId, TraceError};
use std::mem::size_of;

/// The most strands, and the most edges, a session's `Dag` holds: ids are
/// `u32`, and `Dag::new` keeps `u32::MAX` out of both counts.
pub(crate) const MAX_DAG_LEN: usize = u32::MAX as usize - 1;

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

/// Why a session's recording did not become a DAG.
#[derive(Debug)]
pub(crate) enum AssembleError {
    /// More strands or edges than [`MAX_DAG_LEN`] (the counts recorded).
    TooLarge { strands: usize, edges: usize },
    /// `Dag::new` refused it: a recorder bug.
    Invalid(TraceError),
}

/// Where one block's strands are in the dense numbering.
#[derive(Clone, Copy)]
struct BlockEntry {
    /// The dense id of the block's first strand.
    first: u32,
    /// How many of its strands were recorded: 0 for a block of another
    /// session.
    count: u32,
}

/// Maps raw strand ids of one session to dense ids.
struct DenseIds {
    /// The lowest block of the session.
    min_block: u64,
    /// Per block from `min_block` on.
    entries: Vec<BlockEntry>,
}

impl DenseIds {
    /// The table for `buffers`, whose strands get dense ids from
    /// `offsets[w]` on; all of them fit in `u32` (checked by the caller).
    fn new(buffers: &[WorkerBuffer], offsets: &[usize]) -> DenseIds {
        let blocks = buffers
            .iter()
            .flat_map(|buffer| buffer.blocks.iter().copied());
        let (Some(min_block), Some(max_block)) = (blocks.clone().min(), blocks.max()) else {
            return DenseIds {
                min_block: 0,
                entries: Vec::new(),
            };
        };
        let span = usize::try_from(max_block - min_block + 1)
            .expect("a session's blocks were taken while it ran: their range fits in memory");
        let mut entries = vec![
            BlockEntry {
                first: u32::MAX,
                count: 0,
            };
            span
        ];
        for (buffer, &offset) in buffers.iter().zip(offsets) {
            let recorded = buffer.strands.len();
            for (j, &block) in buffer.blocks.iter().enumerate() {
                let start = j << BLOCK_SHIFT;
                // A block taken for a strand that never ended keeps count 0.
                let count = recorded.saturating_sub(start).min(BLOCK_LEN);
                entries[(block - min_block) as usize] = BlockEntry {
                    first: (offset + start) as u32,
                    count: count as u32,
                };
            }
        }
        DenseIds { min_block, entries }
    }

    /// The dense id of `raw`, if it is a strand of this session (0, "none",
    /// is in block 0, below every session's).
    #[inline]
    fn get(&self, raw: u64) -> Option<u32> {
        let slot = usize::try_from(block_of(raw).wrapping_sub(self.min_block)).ok()?;
        let entry = self.entries.get(slot)?;
        let offset = offset_in_block(raw) as u32;
        (offset < entry.count).then(|| entry.first + offset)
    }
}

/// Builds the DAG of a session.
pub(crate) fn assemble(recording: Recording) -> Result<Assembled, AssembleError> {
    assemble_at_most(recording, MAX_DAG_LEN)
}

/// [`assemble`], refusing more than `max_len` strands or edges (tests use a
/// small bound).
fn assemble_at_most(recording: Recording, max_len: usize) -> Result<Assembled, AssembleError> {
    let Recording {
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
    if total > max_len || stats.edges > max_len {
        return Err(AssembleError::TooLarge {
            strands: total,
            edges: stats.edges,
        });
    }
    let ids = DenseIds::new(&buffers, &offsets);
    let dense = |raw: u64| ids.get(raw);
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
    let dag = Dag::new(offsets.len() as u32, strands, edges).map_err(AssembleError::Invalid)?;
    Ok(Assembled {
        dag,
        stats,
        inlined_ns,
        inlined_children,
    })
}

#[cfg(test)]
mod tests {
    use super::super::recorder::{
        fork, install, joined, resume, suspend, task_end, task_start, uninstall, StrandRef, Tracer,
    };
    use super::*;
    use prescient_graph::critical_path::EdgeKind;
    use std::collections::HashSet;

    /// Makes this thread worker `worker` of `tracer` (the hooks record into
    /// its buffer while a session is active).
    fn be_worker(tracer: &Tracer, worker: usize) {
        // SAFETY: every test calls `uninstall` before its tracer is dropped.
        unsafe { install(tracer, worker) };
    }

    /// Records a task on this thread: its first strand is created by
    /// `creator`, then `forks` forks; returns the strands the forks ended.
    fn record_task(creator: StrandRef, forks: usize) -> Vec<StrandRef> {
        task_start(creator);
        let ended = (0..forks).map(|_| fork()).collect();
        task_end();
        ended
    }

    fn edge_set(dag: &Dag) -> HashSet<(u32, u32, EdgeKind)> {
        dag.edges()
            .iter()
            .map(|e| (e.from.0, e.to.0, e.kind))
            .collect()
    }

    fn chain(first: u32, strands: u32) -> impl Iterator<Item = (u32, u32, EdgeKind)> {
        (first..first + strands - 1).map(|i| (i, i + 1, EdgeKind::CreateContinue))
    }

    /// Two workers whose blocks interleave (worker 0 takes a third block
    /// after worker 1's two): every reference maps to the strand it named.
    #[test]
    fn ids_map_across_blocks_and_workers() {
        let tracer = Tracer::new(2, 0);
        tracer.start().unwrap();
        be_worker(&tracer, 0);
        // Strands 0 ..= 5000 of worker 0: its blocks 0 and 1.
        let first = record_task(StrandRef::NONE, 5000);
        be_worker(&tracer, 1);
        // Strands 0 ..= 4200 of worker 1, created by worker 0's 4500th.
        let second = record_task(first[4500], 4200);
        be_worker(&tracer, 0);
        // Strands 5001 ..= 9001 of worker 0: into its block 2, taken after
        // worker 1's.
        record_task(first[10], 4000);
        uninstall();
        let recording = tracer.stop().unwrap();
        let [zero, one] = &recording.buffers[..] else {
            panic!("two buffers")
        };
        assert_eq!(zero.blocks.len(), 3);
        assert_eq!(one.blocks.len(), 2);
        assert!(zero.blocks[1] < one.blocks[0] && one.blocks[1] < zero.blocks[2]);
        for (index, strand) in first.iter().enumerate() {
            assert_eq!(strand.raw(), zero.id_of(index));
        }
        for (index, strand) in second.iter().enumerate() {
            assert_eq!(strand.raw(), one.id_of(index));
        }
        assert_eq!(zero.id_of(BLOCK_LEN) >> BLOCK_SHIFT, zero.blocks[1]);

        let assembled = assemble(recording).unwrap();
        let dag = &assembled.dag;
        assert_eq!(assembled.stats.strands, 9002 + 4201);
        assert_eq!(assembled.stats.dropped_edges, 0);
        let mut expected: HashSet<_> = chain(0, 5001).chain(chain(5001, 4001)).collect();
        expected.extend(chain(9002, 4201));
        expected.insert((4500, 9002, EdgeKind::Create));
        expected.insert((10, 5001, EdgeKind::Create));
        assert_eq!(edge_set(dag), expected);
        for (id, strand) in dag.strands().iter().enumerate() {
            let (worker, task) = match id {
                0..=5000 => (0, 0),
                5001..=9001 => (0, 5001),
                _ => (1, 9002),
            };
            assert_eq!((strand.worker, strand.task), (worker, task), "strand {id}");
        }
    }

    /// References kept from the first session — a creator, a setter, a
    /// suspended task's last strand — are of no later session, however
    /// many follow (an 8-bit session number would wrap after 256).
    #[test]
    fn references_from_an_earlier_session_are_rejected() {
        let tracer = Tracer::new(1, 0);
        be_worker(&tracer, 0);
        tracer.start().unwrap();
        task_start(StrandRef::NONE);
        let old = fork();
        let paused = suspend();
        tracer.stop().unwrap();
        assert!(!old.is_none());
        for session in 0..300 {
            tracer.start().unwrap();
            // The suspended task resumes: a new task, no wait-continue edge;
            // its wait for `old` records nothing.
            resume(paused);
            joined(old);
            let _ = fork();
            let _ = suspend();
            // A job created by `old`: no create edge.
            record_task(old, 0);
            let recording = tracer.stop().unwrap();
            let buffer = &recording.buffers[0];
            assert_eq!(buffer.strands.len(), 3, "session {session}");
            assert_eq!(buffer.edges.len(), 1, "session {session}");
            let assembled = assemble(recording).unwrap();
            let expected: HashSet<_> = chain(0, 2).collect();
            assert_eq!(edge_set(&assembled.dag), expected, "session {session}");
            assert_eq!(assembled.stats.dropped_edges, 0);
            let tasks: Vec<u32> = assembled.dag.strands().iter().map(|s| s.task).collect();
            assert_eq!(tasks, [0, 0, 2]);
        }
        uninstall();
    }

    /// A reference from another runtime's session running at the same time
    /// passes the recorder's floor check; the collector drops its edges.
    #[test]
    fn a_concurrent_sessions_reference_is_dropped_when_assembled() {
        let ours = Tracer::new(1, 0);
        let theirs = Tracer::new(1, 0);
        ours.start().unwrap();
        theirs.start().unwrap();
        be_worker(&theirs, 0);
        let foreign = record_task(StrandRef::NONE, 1)[0];
        be_worker(&ours, 0);
        task_start(foreign);
        joined(foreign);
        task_end();
        uninstall();
        let recording = ours.stop().unwrap();
        // create and end from `foreign`, wait-continue at the split.
        assert_eq!(recording.buffers[0].edges.len(), 3);
        let assembled = assemble(recording).unwrap();
        assert_eq!(assembled.stats.dropped_edges, 2);
        let expected: HashSet<_> = [(0, 1, EdgeKind::WaitContinue)].into();
        assert_eq!(edge_set(&assembled.dag), expected);
        let theirs = assemble(theirs.stop().unwrap()).unwrap();
        assert_eq!(theirs.dag.edges().len(), 1);
    }

    #[test]
    fn a_recording_larger_than_a_dag_is_refused() {
        let tracer = Tracer::new(1, 0);
        be_worker(&tracer, 0);
        let record = || {
            tracer.start().unwrap();
            record_task(StrandRef::NONE, 9);
            tracer.stop().unwrap()
        };
        assert!(matches!(
            assemble_at_most(record(), 9),
            Err(AssembleError::TooLarge {
                strands: 10,
                edges: 9
            })
        ));
        assert_eq!(
            assemble_at_most(record(), 10).unwrap().dag.strands().len(),
            10
        );
        uninstall();
    }
}
