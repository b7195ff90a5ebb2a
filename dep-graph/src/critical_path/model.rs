//! The recorded computation DAG of one run: strands, the edges between them,
//! and the validating constructor [`Dag::new`].
//!
//! Validation establishes the three facts the analysis relies on:
//! 1. every edge goes forward in time (`from.end <= to.start`), so a strand's
//!    ready time (the latest end of its predecessors) is never after its start;
//! 2. the strands of one worker do not overlap, so at any instant the number
//!    of strands running equals the number of busy workers (never more than
//!    `workers`);
//! 3. the edges are acyclic, so tracing back along predecessors terminates.
//!    By (1) a cycle can only consist of zero-length strands at one instant;
//!    only edges between zero-length strands are checked (Kahn's algorithm).
//!
//! Memory: a [`Strand`] is 24 bytes and an [`Edge`] 12; the DAG adds a
//! predecessor index (CSR: 4 bytes per edge plus 4 per strand) and each
//! worker's strands in time order (4 bytes per strand). That is 32 bytes per
//! strand plus 16 per edge; fork-join traces have 1.4 to 2 edges per strand,
//! so the model holds 55 to 64 bytes per strand.

use std::fmt;

use super::error::TraceError;
use super::ids::StrandId;

/// A serial piece of one task, run on one worker between two task operations
/// (spawn, wait, end). Times are nanoseconds since the run started.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Strand {
    /// The task the strand belongs to.
    pub task: u32,
    /// The worker that ran it, `0..workers`.
    pub worker: u32,
    /// When it started (ns).
    pub start: u64,
    /// When it ended (ns), `>= start`.
    pub end: u64,
}

impl Strand {
    /// How long it ran (ns).
    pub fn duration(&self) -> u64 {
        self.end - self.start
    }
}

/// Why one strand had to wait for another.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum EdgeKind {
    /// From the parent's strand ending at a spawn to the child's first strand.
    Create,
    /// From the parent's strand ending at a spawn to the parent's next strand
    /// (the continuation after the fork).
    CreateContinue,
    /// From a child's last strand to the parent's strand after the wait (join,
    /// scope end, group wait, event, dataflow dependency).
    End,
    /// From the parent's strand ending at a wait to its strand after the wait.
    WaitContinue,
}

impl EdgeKind {
    /// All kinds, in the order of [`EdgeKind::index`].
    pub const ALL: [EdgeKind; 4] = [
        EdgeKind::Create,
        EdgeKind::CreateContinue,
        EdgeKind::End,
        EdgeKind::WaitContinue,
    ];

    /// Position of the kind in [`EdgeKind::ALL`] (and in per-kind arrays).
    pub fn index(self) -> usize {
        match self {
            EdgeKind::Create => 0,
            EdgeKind::CreateContinue => 1,
            EdgeKind::End => 2,
            EdgeKind::WaitContinue => 3,
        }
    }

    /// A short lowercase name: `create`, `create-continue`, `end`,
    /// `wait-continue`.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Create => "create",
            EdgeKind::CreateContinue => "create-continue",
            EdgeKind::End => "end",
            EdgeKind::WaitContinue => "wait-continue",
        }
    }
}

impl fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dependency: `to` could not start before `from` ended.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Edge {
    /// The predecessor.
    pub from: StrandId,
    /// The successor.
    pub to: StrandId,
    /// Why `to` waited for `from`.
    pub kind: EdgeKind,
}

/// A validated computation DAG of one run on `workers` workers.
///
/// Built only by [`Dag::new`], so every value satisfies the invariants the
/// analysis relies on: every edge goes forward in time (so a strand's ready
/// time is never after its start), the strands of one worker do not overlap
/// (so the number of running strands is the number of busy workers), and the
/// edges are acyclic (so tracing back along predecessors terminates).
///
/// Memory: 32 bytes per strand plus 16 per edge (55 to 64 bytes per strand
/// for fork-join traces, which have 1.4 to 2 edges per strand).
#[derive(Clone, Debug)]
pub struct Dag {
    workers: u32,
    strands: Vec<Strand>,
    edges: Vec<Edge>,
    /// `pred_edges[pred_start[s]..pred_start[s + 1]]`: indices of the edges
    /// into strand `s`, in input order.
    pred_start: Vec<u32>,
    pred_edges: Vec<u32>,
    /// `by_worker[worker_start[w]..worker_start[w + 1]]`: the strands of
    /// worker `w` sorted by `(start, end)`.
    worker_start: Vec<u32>,
    by_worker: Vec<u32>,
}

impl Dag {
    /// Validates a recorded trace and indexes it for analysis.
    ///
    /// `strands[i]` is the strand with id `StrandId(i)`. Runs in
    /// O(strands + edges) plus a sort of each worker's strands by time.
    ///
    /// # Errors
    /// A [`TraceError`] naming the first problem found: no strand, a worker
    /// out of range, a strand ending before it starts, an edge naming an
    /// unknown strand or going backwards in time, overlapping strands on one
    /// worker, or a cycle.
    ///
    /// # Panics
    /// If there are `u32::MAX` strands or edges or more (ids are 32-bit).
    pub fn new(workers: u32, strands: Vec<Strand>, edges: Vec<Edge>) -> Result<Dag, TraceError> {
        assert!(
            u32::try_from(strands.len()).is_ok_and(|n| n < u32::MAX)
                && u32::try_from(edges.len()).is_ok_and(|n| n < u32::MAX),
            "a trace holds fewer than 2^32 - 1 strands and edges"
        );
        check_strands(workers, &strands)?;
        check_edges(&strands, &edges)?;
        let (pred_start, pred_edges) = predecessor_index(strands.len(), &edges);
        let (worker_start, by_worker) = strands_by_worker(workers, &strands);
        let dag = Dag {
            workers,
            strands,
            edges,
            pred_start,
            pred_edges,
            worker_start,
            by_worker,
        };
        dag.check_worker_overlap()?;
        dag.check_acyclic()?;
        Ok(dag)
    }

    /// The number of workers of the run.
    pub fn workers(&self) -> u32 {
        self.workers
    }

    /// All strands; `strands()[i]` has id `StrandId(i)`.
    pub fn strands(&self) -> &[Strand] {
        &self.strands
    }

    /// All edges, in input order.
    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// One strand.
    ///
    /// # Panics
    /// If the id is not in the DAG.
    pub fn strand(&self, id: StrandId) -> &Strand {
        &self.strands[id.index()]
    }

    /// The edges into `id`, in input order.
    ///
    /// # Panics
    /// If the id is not in the DAG.
    pub fn predecessors(&self, id: StrandId) -> impl Iterator<Item = &Edge> + '_ {
        let range = self.pred_start[id.index()] as usize..self.pred_start[id.index() + 1] as usize;
        self.pred_edges[range]
            .iter()
            .map(|&e| &self.edges[e as usize])
    }

    /// The strands run by `worker`, sorted by `(start, end)`.
    ///
    /// # Panics
    /// If `worker >= workers()`.
    pub fn worker_strands(&self, worker: u32) -> impl ExactSizeIterator<Item = StrandId> + '_ {
        self.worker_strand_slice(worker)
            .iter()
            .map(|&s| StrandId(s))
    }

    /// [`Dag::worker_strands`] as raw indices.
    pub(crate) fn worker_strand_slice(&self, worker: u32) -> &[u32] {
        let w = worker as usize;
        &self.by_worker[self.worker_start[w] as usize..self.worker_start[w + 1] as usize]
    }

    /// The end of the run: the latest end of any strand (ns). The run spans
    /// `[0, end_time()]`.
    pub fn end_time(&self) -> u64 {
        self.strands.iter().map(|s| s.end).max().unwrap_or(0)
    }

    /// Each strand's ready time: the latest end of its predecessors, 0 for a
    /// strand without predecessors. Never after the strand's start.
    pub fn ready_times(&self) -> Vec<u64> {
        let mut ready = vec![0u64; self.strands.len()];
        for edge in &self.edges {
            let end = self.strands[edge.from.index()].end;
            let slot = &mut ready[edge.to.index()];
            *slot = (*slot).max(end);
        }
        ready
    }

    fn check_worker_overlap(&self) -> Result<(), TraceError> {
        for worker in 0..self.workers {
            let mut previous: Option<StrandId> = None;
            for id in self.worker_strands(worker) {
                if let Some(prev) = previous {
                    if self.strand(prev).end > self.strand(id).start {
                        return Err(TraceError::Overlap {
                            worker,
                            first: prev,
                            second: id,
                        });
                    }
                }
                previous = Some(id);
            }
        }
        Ok(())
    }

    /// Kahn's algorithm on the edges between zero-length strands (the only
    /// edges a cycle can use), run backwards along the predecessor index.
    fn check_acyclic(&self) -> Result<(), TraceError> {
        let is_instant = |id: StrandId| self.strand(id).start == self.strand(id).end;
        let in_cycle_graph = |e: &Edge| is_instant(e.from) && is_instant(e.to);
        if !self.edges.iter().any(in_cycle_graph) {
            return Ok(());
        }
        // successors_left[s]: edges out of s, within the cycle graph, whose
        // target has not been removed yet.
        let mut successors_left = vec![0u32; self.strands.len()];
        let mut involved = vec![false; self.strands.len()];
        for edge in self.edges.iter().filter(|e| in_cycle_graph(e)) {
            successors_left[edge.from.index()] += 1;
            involved[edge.from.index()] = true;
            involved[edge.to.index()] = true;
        }
        let mut sinks: Vec<StrandId> = (0..self.strands.len())
            .filter(|&s| involved[s] && successors_left[s] == 0)
            .map(|s| StrandId(s as u32))
            .collect();
        while let Some(sink) = sinks.pop() {
            for edge in self.predecessors(sink).filter(|e| in_cycle_graph(e)) {
                let left = &mut successors_left[edge.from.index()];
                *left -= 1;
                if *left == 0 {
                    sinks.push(edge.from);
                }
            }
        }
        match successors_left.iter().position(|&left| left > 0) {
            Some(s) => Err(TraceError::Cycle {
                strand: StrandId(s as u32),
            }),
            None => Ok(()),
        }
    }
}

fn check_strands(workers: u32, strands: &[Strand]) -> Result<(), TraceError> {
    if strands.is_empty() {
        return Err(TraceError::NoStrands);
    }
    for (i, s) in strands.iter().enumerate() {
        let strand = StrandId(i as u32);
        if s.worker >= workers {
            return Err(TraceError::UnknownWorker {
                strand,
                worker: s.worker,
                workers,
            });
        }
        if s.start > s.end {
            return Err(TraceError::EndsBeforeStart {
                strand,
                start: s.start,
                end: s.end,
            });
        }
    }
    Ok(())
}

fn check_edges(strands: &[Strand], edges: &[Edge]) -> Result<(), TraceError> {
    for (i, e) in edges.iter().enumerate() {
        let lookup = |id: StrandId| {
            strands.get(id.index()).ok_or(TraceError::UnknownStrand {
                edge: i,
                strand: id,
            })
        };
        let (from, to) = (lookup(e.from)?, lookup(e.to)?);
        if from.end > to.start {
            return Err(TraceError::SuccessorStartsEarly {
                edge: i,
                from_end: from.end,
                to_start: to.start,
            });
        }
    }
    Ok(())
}

/// Groups `items` (0..n) by `key` in a CSR layout: returns the group starts
/// (`groups + 1` entries) and the items, stable within a group.
fn counting_sort(
    groups: usize,
    items: impl Iterator<Item = (usize, u32)> + Clone,
) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; groups + 1];
    for (group, _) in items.clone() {
        start[group + 1] += 1;
    }
    for g in 0..groups {
        start[g + 1] += start[g];
    }
    let mut next = start.clone();
    let mut sorted = vec![0u32; start[groups] as usize];
    for (group, item) in items {
        sorted[next[group] as usize] = item;
        next[group] += 1;
    }
    (start, sorted)
}

fn predecessor_index(strands: usize, edges: &[Edge]) -> (Vec<u32>, Vec<u32>) {
    counting_sort(
        strands,
        edges
            .iter()
            .enumerate()
            .map(|(i, e)| (e.to.index(), i as u32)),
    )
}

fn strands_by_worker(workers: u32, strands: &[Strand]) -> (Vec<u32>, Vec<u32>) {
    let (start, mut sorted) = counting_sort(
        workers as usize,
        strands
            .iter()
            .enumerate()
            .map(|(i, s)| (s.worker as usize, i as u32)),
    );
    for w in 0..workers as usize {
        let group = &mut sorted[start[w] as usize..start[w + 1] as usize];
        let by_time = |&i: &u32| (strands[i as usize].start, strands[i as usize].end);
        if !group.is_sorted_by_key(by_time) {
            group.sort_unstable_by_key(by_time);
        }
    }
    (start, sorted)
}
