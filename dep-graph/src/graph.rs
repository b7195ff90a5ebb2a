//! The dataflow dependency graph: orders tasks by their declared region
//! accesses (OpenMP 4 / OmpSs `depend` semantics) and tells the caller which
//! tasks may run.
//!
//! # Safety-relevant invariant
//!
//! **A task's payload is handed out (returned as ready, by
//! [`DependencyGraph::new_task`] or [`DependencyGraph::done_task`]) only when
//! every earlier task with a conflicting access on a shared region is done;
//! so two tasks holding conflicting accesses to one region are never both
//! handed out and not done.** (Two accesses conflict when at least one of
//! them writes.)
//!
//! The runtime relies on this to hand out `&mut T` (for `out`/`inout`) and
//! `&T` (for `in`) to the bodies of handed-out tasks from its own `unsafe`
//! code, without any further check: a bug here would be undefined behaviour
//! there. That is why this module is tested against a brute-force pairwise
//! model (`tests/random_programs.rs`).
//!
//! Why it holds, by induction over submission order. Take earlier task `i`
//! and later task `j` conflicting on region `r`, with `i` not done when `j` is
//! submitted (a done task stays done, so otherwise there is nothing to show).
//! When `j` is submitted the region table holds `r`'s last writer `w` and the
//! readers since `w`, all of them linked as `j`'s predecessors if `j` writes,
//! and `w` alone if `j` only reads. If `i` is one of those, `j` waits for it
//! directly. Otherwise `i` came before `w`, and `i` conflicts with `w`
//! (because `w` writes): by induction `w` is handed out only after `i` is
//! done, so `w` is not done yet, and `j` waits for `w`. Table entries are
//! removed only when every task referencing them is deleted, hence done, so
//! forgetting them drops no constraint. Duplicate regions in one task are
//! merged into one access with [`AccessMode::strongest`], so a task never
//! conflicts with itself and never holds two accesses to one region.

use std::fmt;
use std::mem;
use std::num::NonZeroUsize;

use crate::access::AccessMode;
use crate::error::GraphError;
use crate::ids::{RegionId, TaskId};
use crate::region_table::{Epoch, RegionTable};

/// What [`DependencyGraph::new_task`] returns: the new task's id, and its
/// payload back if the task can run right away.
#[derive(Debug)]
#[must_use = "a ready payload must be run and then marked done, or its successors never run"]
pub struct NewTask<T> {
    /// The id the task is known by from now on.
    pub id: TaskId,
    /// `Some(payload)` if the task has no unfinished predecessor: the caller
    /// runs it now and later calls [`DependencyGraph::done_task`]. `None` if it
    /// must wait: the graph keeps the payload and hands it out from the
    /// `done_task` call that releases the task's last predecessor.
    pub ready: Option<T>,
}

/// Where a task is in its life cycle. A node exists from `new_task` to
/// `delete_task`; a slot that holds no node is `Free`.
enum State<T> {
    /// Waiting for predecessors; the graph holds the payload.
    Blocked(T),
    /// The payload has been handed out; the task may be running.
    HandedOut,
    /// The caller reported the task done.
    Done,
    /// The slot holds no task (never used, or its task was deleted); its
    /// vectors are kept for the next task that takes the slot.
    Free,
}

/// One region access of a task, as remembered until the task is deleted.
struct Access {
    region: RegionId,
    write: bool,
    /// The region-table version the access was recorded in; lets deletion
    /// tell whether a later write has already superseded it.
    epoch: Epoch,
}

/// How many successors a node holds without a heap allocation.
const INLINE_SUCCESSORS: usize = 3;

/// A node's successors, by slot: a small inline array, spilled to a vector
/// when it overflows.
///
/// Slots identify successors unambiguously: a successor waits for the node,
/// so it is not done, hence not deleted, so its slot is not reused while it
/// is in the list (and the list is emptied when the node is done).
///
/// While `len <= INLINE_SUCCESSORS` the slots are in `inline[..len]` and
/// `spill` is empty; beyond, all of them are in `spill`. Clearing keeps
/// `spill`'s capacity, so a reused node slot does not allocate again.
#[derive(Default)]
struct Successors {
    len: usize,
    inline: [u32; INLINE_SUCCESSORS],
    spill: Vec<u32>,
}

impl Successors {
    fn as_slice(&self) -> &[u32] {
        if self.len <= INLINE_SUCCESSORS {
            &self.inline[..self.len]
        } else {
            &self.spill
        }
    }

    fn last(&self) -> Option<u32> {
        self.as_slice().last().copied()
    }

    fn push(&mut self, slot: u32) {
        if self.len < INLINE_SUCCESSORS {
            self.inline[self.len] = slot;
        } else {
            if self.len == INLINE_SUCCESSORS {
                self.spill.extend_from_slice(&self.inline);
            }
            self.spill.push(slot);
        }
        self.len += 1;
    }

    fn clear(&mut self) {
        self.len = 0;
        self.spill.clear();
    }

    fn is_empty(&self) -> bool {
        self.len == 0
    }
}

struct Node<T> {
    /// The sequence number of the task in this slot: the `seq` of its id, and
    /// the slot's generation (a stale id names an older sequence number).
    seq: u64,
    state: State<T>,
    /// Linked predecessors not done yet; the task is handed out at zero.
    unfinished_preds: usize,
    /// Tasks waiting for this one, in submission order, without duplicates.
    /// Emptied when the task is done.
    successors: Successors,
    /// The task's accesses, one per region. Kept (cleared) when the slot is
    /// freed, for reuse.
    accesses: Vec<Access>,
}

/// The dependency graph's nodes: a slab indexed by dense slots, whose freed
/// slots (with their vectors) are reused, so that steady-state submission
/// and deletion do not allocate.
struct Slab<T> {
    nodes: Vec<Node<T>>,
    /// Free slots, reused last-freed first (the most likely still cached).
    free: Vec<u32>,
    /// Slots holding a task (not `Free`).
    live: usize,
}

impl<T> Slab<T> {
    /// The node of `id`, if `id` names a task that exists (created and not
    /// deleted).
    #[inline]
    fn get(&self, id: TaskId) -> Option<&Node<T>> {
        self.nodes
            .get(id.slot as usize)
            .filter(|node| node.seq == id.seq && !matches!(node.state, State::Free))
    }

    /// See [`get`](Self::get).
    #[inline]
    fn get_mut(&mut self, id: TaskId) -> Option<&mut Node<T>> {
        self.nodes
            .get_mut(id.slot as usize)
            .filter(|node| node.seq == id.seq && !matches!(node.state, State::Free))
    }

    /// Whether `id` names a task that exists.
    fn contains(&self, id: TaskId) -> bool {
        self.get(id).is_some()
    }
}

/// The dataflow dependency graph of one dataflow scope.
///
/// Holds a payload `T` (in the runtime, the task's closure) for every task
/// that waits for predecessors, and hands it back once the task may run.
///
/// # Safety-relevant invariant
///
/// A task's payload is handed out (returned as ready) only when every earlier
/// task with a conflicting access on a shared region is done; so two tasks
/// holding conflicting accesses to one region are never both handed out and
/// not done. The runtime's `unsafe` hand-out of `&mut T` / `&T` to running
/// tasks relies on this, so a bug here is undefined behaviour there.
///
/// A task's life: [`new_task`](Self::new_task) → (payload handed out, run) →
/// [`done_task`](Self::done_task) → [`delete_task`](Self::delete_task). The
/// split between done and delete follows the DAST runtime's three requests:
/// done releases successors; delete, which may come later, frees the task's
/// memory and its region-table references.
///
/// Every operation is amortised `O(1)` per access and per edge, plus the
/// region-table chain walk. Nodes live in a slab indexed by the slot their
/// id carries; freed slots and their vectors are reused, so in steady state
/// (no more tasks alive than before, no region new to the table) the three
/// operations do not allocate. The graph is single-threaded; the runtime puts
/// it behind a lock or hands it to the DAST manager thread.
///
/// # Example
///
/// ```
/// use prescient_graph::{AccessMode, DependencyGraph, RegionId};
///
/// let mut graph = DependencyGraph::new(97).unwrap();
/// let a = RegionId(0);
///
/// // A writer with no predecessor is ready at once: its payload comes back.
/// let writer = graph.new_task(&[(a, AccessMode::Out)], "write a");
/// assert_eq!(writer.ready, Some("write a"));
///
/// // Two readers must wait for the writer (read-after-write).
/// let r1 = graph.new_task(&[(a, AccessMode::In)], "read a (1)");
/// let r2 = graph.new_task(&[(a, AccessMode::In)], "read a (2)");
/// assert!(r1.ready.is_none() && r2.ready.is_none());
///
/// // When the writer is done, both readers become ready together, in
/// // submission order.
/// let mut ready = Vec::new();
/// graph.done_task(writer.id, &mut ready).unwrap();
/// assert_eq!(ready, [(r1.id, "read a (1)"), (r2.id, "read a (2)")]);
///
/// // A done task is freed with delete_task.
/// graph.delete_task(writer.id).unwrap();
/// for (id, _payload) in ready.drain(..) {
///     graph.done_task(id, &mut Vec::new()).unwrap();
///     graph.delete_task(id).unwrap();
/// }
/// assert!(graph.is_empty());
/// assert!(graph.region_table().is_empty());
/// ```
pub struct DependencyGraph<T> {
    table: RegionTable,
    slab: Slab<T>,
    next_seq: u64,
    /// Scratch space for merging a new task's accesses (kept to avoid an
    /// allocation per task).
    merged: Vec<(RegionId, AccessMode)>,
}

impl<T> DependencyGraph<T> {
    /// An empty graph whose region table has exactly `dependency_buckets`
    /// buckets.
    ///
    /// # Errors
    ///
    /// [`GraphError::ZeroBuckets`] if `dependency_buckets` is 0.
    pub fn new(dependency_buckets: usize) -> Result<Self, GraphError> {
        let buckets = NonZeroUsize::new(dependency_buckets).ok_or(GraphError::ZeroBuckets)?;
        Ok(DependencyGraph {
            table: RegionTable::new(buckets),
            slab: Slab {
                nodes: Vec::new(),
                free: Vec::new(),
                live: 0,
            },
            next_seq: 0,
            merged: Vec::new(),
        })
    }

    /// Takes a free slot (or a new one) for a task with sequence number
    /// `seq`, in state `HandedOut` with no predecessor, successor or access.
    fn alloc_slot(&mut self, seq: u64) -> u32 {
        let slot = match self.slab.free.pop() {
            Some(slot) => slot,
            None => {
                let slot = u32::try_from(self.slab.nodes.len())
                    .expect("more than 2^32 live dataflow tasks in one graph");
                self.slab.nodes.push(Node {
                    seq,
                    state: State::Free,
                    unfinished_preds: 0,
                    successors: Successors::default(),
                    accesses: Vec::new(),
                });
                slot
            }
        };
        let node = &mut self.slab.nodes[slot as usize];
        debug_assert!(matches!(node.state, State::Free));
        debug_assert!(node.successors.is_empty() && node.accesses.is_empty());
        node.seq = seq;
        node.state = State::HandedOut;
        node.unfinished_preds = 0;
        self.slab.live += 1;
        slot
    }

    /// Submits a task with the given region accesses and payload.
    ///
    /// Its predecessors are the earlier tasks, not yet done, whose accesses
    /// conflict with its own: for each region, a reader follows the last
    /// writer (read-after-write); a writer follows the last writer
    /// (write-after-write) and every reader since it (write-after-read).
    /// Readers between two writes do not order each other. Done tasks are
    /// never predecessors.
    ///
    /// A region named more than once in `accesses` counts once, with the
    /// [strongest](AccessMode::strongest) of its modes.
    ///
    /// If the task has no unfinished predecessor its payload is returned in
    /// [`NewTask::ready`] and the caller must run it; otherwise the graph keeps
    /// it and hands it out from a later [`done_task`](Self::done_task).
    pub fn new_task(&mut self, accesses: &[(RegionId, AccessMode)], payload: T) -> NewTask<T> {
        let seq = self.next_seq;
        self.next_seq += 1;
        let slot = self.alloc_slot(seq);
        let id = TaskId::new(seq, slot);

        let mut merged = mem::take(&mut self.merged);
        merged.clear();
        merged.extend_from_slice(accesses);
        if merged.len() > 1 {
            merged.sort_unstable_by_key(|&(region, _)| region);
            merged.dedup_by(|later, earlier| {
                let same = later.0 == earlier.0;
                if same {
                    earlier.1 = AccessMode::strongest(earlier.1, later.1);
                }
                same
            });
        }

        // The new node is in the slab already (handed out, no accesses), but
        // not yet in the region table, so it cannot be its own predecessor.
        let mut records = mem::take(&mut self.slab.nodes[slot as usize].accesses);
        let mut unfinished_preds = 0;
        for &(region, mode) in &merged {
            let slab = &mut self.slab;
            let epoch = if mode.is_write() {
                self.table.add_writer(region, id, |pred| {
                    unfinished_preds += usize::from(link(slab, pred, slot));
                })
            } else {
                let (writer, epoch) = self.table.add_reader(region, id);
                if let Some(pred) = writer {
                    unfinished_preds += usize::from(link(slab, pred, slot));
                }
                epoch
            };
            records.push(Access {
                region,
                write: mode.is_write(),
                epoch,
            });
        }
        self.merged = merged;

        let node = &mut self.slab.nodes[slot as usize];
        node.accesses = records;
        node.unfinished_preds = unfinished_preds;
        let ready = if unfinished_preds == 0 {
            Some(payload)
        } else {
            node.state = State::Blocked(payload);
            None
        };
        NewTask { id, ready }
    }

    /// Marks a handed-out task done and releases its successors: each task
    /// whose last unfinished predecessor this was becomes ready, and is
    /// appended to `newly_ready` with its payload, in submission order. The
    /// caller must run them. `newly_ready` is not cleared first.
    ///
    /// # Errors
    ///
    /// The graph is left unchanged and
    /// - [`GraphError::UnknownTask`] if `id` was not issued by this graph or
    ///   was deleted;
    /// - [`GraphError::DoneTwice`] if the task is already done;
    /// - [`GraphError::NotReady`] if its payload was never handed out.
    pub fn done_task(
        &mut self,
        id: TaskId,
        newly_ready: &mut Vec<(TaskId, T)>,
    ) -> Result<(), GraphError> {
        let node = self.slab.get_mut(id).ok_or(GraphError::UnknownTask(id))?;
        match node.state {
            State::Blocked(_) => return Err(GraphError::NotReady(id)),
            State::Done => return Err(GraphError::DoneTwice(id)),
            State::Free => return Err(GraphError::UnknownTask(id)),
            State::HandedOut => node.state = State::Done,
        }
        // Successors were pushed as they were submitted, so releasing them in
        // list order yields the ready ones in submission order.
        let mut successors = mem::take(&mut node.successors);
        for &succ_slot in successors.as_slice() {
            // A successor cannot be done (it waits for this task), hence not
            // deleted: its slot still holds it.
            let succ = &mut self.slab.nodes[succ_slot as usize];
            debug_assert!(
                matches!(succ.state, State::Blocked(_)),
                "successor in slot {succ_slot} of {id} was not blocked"
            );
            succ.unfinished_preds -= 1;
            if succ.unfinished_preds == 0 {
                match mem::replace(&mut succ.state, State::HandedOut) {
                    State::Blocked(payload) => {
                        newly_ready.push((TaskId::new(succ.seq, succ_slot), payload));
                    }
                    other => succ.state = other,
                }
            }
        }
        successors.clear();
        // Give the (emptied) list back, keeping its spill capacity.
        self.slab.nodes[id.slot as usize].successors = successors;
        Ok(())
    }

    /// Frees a done task: its node, and its references in the region table
    /// (a region no live task references is forgotten).
    ///
    /// # Errors
    ///
    /// The graph is left unchanged and
    /// - [`GraphError::UnknownTask`] if `id` was not issued by this graph or
    ///   was deleted already;
    /// - [`GraphError::NotDone`] if the task is not done.
    pub fn delete_task(&mut self, id: TaskId) -> Result<(), GraphError> {
        let node = self.slab.get_mut(id).ok_or(GraphError::UnknownTask(id))?;
        if !matches!(node.state, State::Done) {
            return Err(GraphError::NotDone(id));
        }
        debug_assert!(node.successors.is_empty());
        // Free the slot first: the task no longer counts as live when the
        // region table compacts its reader lists.
        node.state = State::Free;
        let mut accesses = mem::take(&mut node.accesses);
        self.slab.live -= 1;
        let slab = &self.slab;
        for access in &accesses {
            self.table
                .release(access.region, id, access.epoch, access.write, |task| {
                    slab.contains(task)
                });
        }
        accesses.clear();
        self.slab.nodes[id.slot as usize].accesses = accesses;
        self.slab.free.push(id.slot);
        Ok(())
    }

    /// The number of tasks created and not yet deleted (blocked, handed out,
    /// or done).
    pub fn pending(&self) -> usize {
        self.slab.live
    }

    /// Whether every task created has been deleted.
    pub fn is_empty(&self) -> bool {
        self.slab.live == 0
    }

    /// The region table, for diagnostics: bucket count, live regions, chain
    /// lengths.
    pub fn region_table(&self) -> &RegionTable {
        &self.table
    }
}

/// Makes the task in `succ_slot` (the newest task) wait for `pred`, unless
/// `pred` is done or deleted (finished tasks create no edges) or the edge
/// exists already (a task conflicting on several regions with one predecessor
/// waits for it once). Returns whether an edge was added.
fn link<T>(slab: &mut Slab<T>, pred: TaskId, succ_slot: u32) -> bool {
    let Some(node) = slab.get_mut(pred) else {
        return false; // deleted, hence done
    };
    // `succ` is the newest task, so an edge added to it earlier in this
    // `new_task` call is the last successor: the duplicate check is O(1).
    if matches!(node.state, State::Done) || node.successors.last() == Some(succ_slot) {
        return false;
    }
    node.successors.push(succ_slot);
    true
}

impl<T> fmt::Debug for DependencyGraph<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = |wanted: fn(&State<T>) -> bool| {
            self.slab
                .nodes
                .iter()
                .filter(|node| wanted(&node.state))
                .count()
        };
        f.debug_struct("DependencyGraph")
            .field("pending", &self.slab.live)
            .field("blocked", &count(|s| matches!(s, State::Blocked(_))))
            .field("handed_out", &count(|s| matches!(s, State::HandedOut)))
            .field("done", &count(|s| matches!(s, State::Done)))
            .field("regions", &self.table.len())
            .field("buckets", &self.table.bucket_count())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::rc::Rc;
    use AccessMode::{In, InOut, Out};

    const A: RegionId = RegionId(10);
    const B: RegionId = RegionId(20);

    fn graph() -> DependencyGraph<u32> {
        DependencyGraph::new(97).unwrap()
    }

    impl<T> DependencyGraph<T> {
        fn node(&self, id: TaskId) -> &Node<T> {
            self.slab.get(id).expect("no such task")
        }
    }

    /// Submits a task that must be ready at once; returns its id.
    fn ready(g: &mut DependencyGraph<u32>, accesses: &[(RegionId, AccessMode)], p: u32) -> TaskId {
        let t = g.new_task(accesses, p);
        assert_eq!(t.ready, Some(p), "task {p} should be ready at once");
        t.id
    }

    /// Submits a task that must wait; returns its id.
    fn blocked(
        g: &mut DependencyGraph<u32>,
        accesses: &[(RegionId, AccessMode)],
        p: u32,
    ) -> TaskId {
        let t = g.new_task(accesses, p);
        assert_eq!(t.ready, None, "task {p} should wait");
        t.id
    }

    /// Marks `id` done and returns the payloads that became ready.
    fn done(g: &mut DependencyGraph<u32>, id: TaskId) -> Vec<u32> {
        let mut out = Vec::new();
        g.done_task(id, &mut out).unwrap();
        out.into_iter().map(|(_, p)| p).collect()
    }

    #[test]
    fn zero_buckets_is_an_error() {
        assert_eq!(
            DependencyGraph::<u32>::new(0).err(),
            Some(GraphError::ZeroBuckets)
        );
        assert!(DependencyGraph::<u32>::new(1).is_ok());
    }

    #[test]
    fn table_has_exactly_the_configured_buckets() {
        for buckets in [1, 97, 256_019] {
            let g = DependencyGraph::<()>::new(buckets).unwrap();
            assert_eq!(g.region_table().bucket_count(), buckets);
            assert_eq!(g.region_table().chain_lengths().len(), buckets);
        }
    }

    #[test]
    fn ids_follow_submission_order() {
        let mut g = graph();
        let ids: Vec<TaskId> = (0..5).map(|p| g.new_task(&[(A, In)], p).id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            ids.iter().map(|id| id.index()).collect::<Vec<_>>(),
            [0, 1, 2, 3, 4]
        );
    }

    #[test]
    fn task_without_accesses_or_conflicts_is_ready() {
        let mut g = graph();
        ready(&mut g, &[], 0);
        ready(&mut g, &[(A, Out)], 1);
        ready(&mut g, &[(B, InOut)], 2);
        ready(&mut g, &[], 3);
        assert_eq!(g.pending(), 4);
    }

    #[test]
    fn read_after_write_waits_for_the_writer() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out)], 0);
        let r = blocked(&mut g, &[(A, In)], 1);
        assert_eq!(done(&mut g, w), [1]);
        assert_eq!(done(&mut g, r), Vec::<u32>::new());
    }

    #[test]
    fn write_after_read_waits_for_every_reader() {
        let mut g = graph();
        let r1 = ready(&mut g, &[(A, In)], 0);
        let r2 = ready(&mut g, &[(A, In)], 1);
        let w = blocked(&mut g, &[(A, Out)], 2);
        assert_eq!(done(&mut g, r2), Vec::<u32>::new());
        assert_eq!(done(&mut g, r1), [2]);
        done(&mut g, w);
    }

    #[test]
    fn write_after_write_waits_for_the_writer() {
        for (first, second) in [(Out, Out), (Out, InOut), (InOut, Out), (InOut, InOut)] {
            let mut g = graph();
            let w1 = ready(&mut g, &[(A, first)], 0);
            blocked(&mut g, &[(A, second)], 1);
            assert_eq!(done(&mut g, w1), [1]);
        }
    }

    #[test]
    fn writer_follows_last_writer_even_with_readers_between() {
        let mut g = graph();
        let w1 = ready(&mut g, &[(A, Out)], 0);
        let r = blocked(&mut g, &[(A, In)], 1);
        let w2 = blocked(&mut g, &[(A, Out)], 2);
        assert_eq!(done(&mut g, w1), [1]);
        assert_eq!(done(&mut g, r), [2]);
        done(&mut g, w2);
    }

    #[test]
    fn readers_of_one_version_are_ready_together() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out)], 0);
        for p in 1..=4 {
            blocked(&mut g, &[(A, In)], p);
        }
        let w2 = blocked(&mut g, &[(A, InOut)], 5);
        blocked(&mut g, &[(A, In)], 6);
        let mut out = Vec::new();
        g.done_task(w, &mut out).unwrap();
        assert_eq!(
            out.iter().map(|&(_, p)| p).collect::<Vec<_>>(),
            [1, 2, 3, 4]
        );
        // The readers after the second writer are a different version.
        let mut released = Vec::new();
        for (id, _) in out {
            released.extend(done(&mut g, id));
        }
        assert_eq!(released, [5]);
        assert_eq!(done(&mut g, w2), [6]);
    }

    #[test]
    fn independent_regions_do_not_order_tasks() {
        let mut g = graph();
        ready(&mut g, &[(A, Out)], 0);
        ready(&mut g, &[(B, Out)], 1);
        ready(&mut g, &[(RegionId(30), InOut)], 2);
    }

    #[test]
    fn finished_tasks_create_no_edges() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out)], 0);
        done(&mut g, w);
        // Done but not deleted: still in the table, yet no predecessor.
        let r = ready(&mut g, &[(A, In)], 1);
        done(&mut g, r);
        ready(&mut g, &[(A, Out)], 2);
        // Deleted tasks neither.
        g.delete_task(w).unwrap();
        g.delete_task(r).unwrap();
        assert_eq!(g.pending(), 1);
    }

    #[test]
    fn multi_region_task_waits_for_all_and_each_predecessor_once() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out), (B, Out)], 0);
        // Conflicts with `w` on both regions: one edge, released once.
        let both = blocked(&mut g, &[(A, In), (B, InOut)], 1);
        assert_eq!(g.node(w).successors.as_slice(), [both.slot]);
        assert_eq!(g.node(both).unfinished_preds, 1);
        let other = ready(&mut g, &[(RegionId(30), Out)], 2);
        // Reads B (written by task 1) and region 30 (written by task 2); its
        // read of A does not order it after task 1, which only reads A.
        blocked(&mut g, &[(A, In), (B, In), (RegionId(30), In)], 3);
        assert_eq!(done(&mut g, w), [1]);
        assert_eq!(
            done(&mut g, other),
            Vec::<u32>::new(),
            "still waits for task 1 via B"
        );
        assert_eq!(done(&mut g, both), [3]);
    }

    #[test]
    fn duplicate_region_takes_the_strongest_mode() {
        // In + Out = InOut: the task is a writer, not a reader and a writer.
        let mut g = graph();
        let r0 = ready(&mut g, &[(A, In)], 0);
        let dup = blocked(&mut g, &[(A, In), (A, Out)], 1);
        let r2 = blocked(&mut g, &[(A, In)], 2);
        assert_eq!(g.node(dup).accesses.len(), 1);
        assert!(g.node(dup).accesses[0].write);
        assert_eq!(done(&mut g, r0), [1]);
        assert_eq!(done(&mut g, dup), [2]);
        done(&mut g, r2);

        // In + In = In: a single reader entry, ordered like any reader.
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out)], 0);
        let dup = blocked(&mut g, &[(A, In), (B, In), (A, In)], 1);
        assert_eq!(g.region_table().readers_of(A), Some(&[dup][..]));
        assert_eq!(g.node(dup).accesses.len(), 2);
        assert_eq!(done(&mut g, w), [1]);
    }

    #[test]
    fn naming_a_region_twice_never_waits_for_itself() {
        let mut g = graph();
        for modes in [[In, Out], [Out, In], [Out, Out], [InOut, In], [In, In]] {
            let id = ready(
                &mut g,
                &[(RegionId(99), modes[0]), (RegionId(99), modes[1])],
                7,
            );
            done(&mut g, id);
        }
    }

    #[test]
    fn newly_ready_is_appended_in_submission_order() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out), (B, Out)], 0);
        // Interleave tasks on A and B; all wait for `w` only.
        let expected: Vec<u32> = (1..=6).collect();
        for &p in &expected {
            let region = if p % 2 == 0 { A } else { B };
            blocked(&mut g, &[(region, In)], p);
        }
        let mut out = vec![(TaskId::new(u64::MAX, 0), 999)];
        g.done_task(w, &mut out).unwrap();
        assert_eq!(
            out[0],
            (TaskId::new(u64::MAX, 0), 999),
            "existing entries are kept"
        );
        let ids: Vec<TaskId> = out[1..].iter().map(|&(id, _)| id).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(
            out[1..].iter().map(|&(_, p)| p).collect::<Vec<_>>(),
            expected
        );
    }

    #[test]
    fn done_task_errors() {
        let mut g = graph();
        let mut out = Vec::new();
        assert_eq!(
            g.done_task(TaskId::new(0, 0), &mut out),
            Err(GraphError::UnknownTask(TaskId::new(0, 0)))
        );
        let w = ready(&mut g, &[(A, Out)], 0);
        let r = blocked(&mut g, &[(A, In)], 1);
        assert_eq!(g.done_task(r, &mut out), Err(GraphError::NotReady(r)));
        g.done_task(w, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(g.done_task(w, &mut out), Err(GraphError::DoneTwice(w)));
        assert_eq!(out.len(), 1, "a failed done_task releases nothing");
        g.delete_task(w).unwrap();
        assert_eq!(g.done_task(w, &mut out), Err(GraphError::UnknownTask(w)));
        assert_eq!(
            g.done_task(TaskId::new(77, 0), &mut out),
            Err(GraphError::UnknownTask(TaskId::new(77, 0)))
        );
    }

    #[test]
    fn delete_task_errors() {
        let mut g = graph();
        assert_eq!(
            g.delete_task(TaskId::new(3, 0)),
            Err(GraphError::UnknownTask(TaskId::new(3, 0)))
        );
        let w = ready(&mut g, &[(A, Out)], 0);
        let r = blocked(&mut g, &[(A, In)], 1);
        assert_eq!(
            g.delete_task(w),
            Err(GraphError::NotDone(w)),
            "handed out, not done"
        );
        assert_eq!(g.delete_task(r), Err(GraphError::NotDone(r)), "blocked");
        assert_eq!(g.pending(), 2, "failed deletes leave the graph unchanged");
        assert_eq!(done(&mut g, w), [1]);
        g.delete_task(w).unwrap();
        assert_eq!(
            g.delete_task(w),
            Err(GraphError::UnknownTask(w)),
            "deleted twice"
        );
    }

    #[test]
    fn stale_ids_of_reused_slots_are_unknown() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out)], 0);
        done(&mut g, w);
        g.delete_task(w).unwrap();
        // The next task takes the freed slot, under a new sequence number.
        let next = ready(&mut g, &[(A, Out)], 1);
        assert_eq!(next.slot, w.slot);
        assert!(next > w);
        let mut out = Vec::new();
        assert_eq!(g.done_task(w, &mut out), Err(GraphError::UnknownTask(w)));
        assert_eq!(g.delete_task(w), Err(GraphError::UnknownTask(w)));
        done(&mut g, next);
        assert_eq!(g.delete_task(w), Err(GraphError::UnknownTask(w)));
        g.delete_task(next).unwrap();
        assert!(g.is_empty());
    }

    #[test]
    fn successor_lists_spill_and_are_reused() {
        let mut g = graph();
        for round in 0..3 {
            let w = ready(&mut g, &[(A, Out)], 0);
            let readers: Vec<TaskId> = (1..=10).map(|p| blocked(&mut g, &[(A, In)], p)).collect();
            assert_eq!(
                g.node(w).successors.as_slice(),
                readers.iter().map(|r| r.slot).collect::<Vec<_>>()
            );
            assert_eq!(done(&mut g, w), (1..=10).collect::<Vec<_>>());
            g.delete_task(w).unwrap();
            for r in readers {
                done(&mut g, r);
                g.delete_task(r).unwrap();
            }
            assert!(g.is_empty());
            assert_eq!(g.slab.nodes.len(), 11, "round {round} reuses the slots");
        }
    }

    #[test]
    fn pending_counts_tasks_until_deleted() {
        let mut g = graph();
        assert!(g.is_empty());
        let w = ready(&mut g, &[(A, Out)], 0);
        let r = blocked(&mut g, &[(A, In)], 1);
        assert_eq!(g.pending(), 2);
        done(&mut g, w);
        assert_eq!(g.pending(), 2, "done tasks are pending until deleted");
        g.delete_task(w).unwrap();
        assert_eq!(g.pending(), 1);
        done(&mut g, r);
        g.delete_task(r).unwrap();
        assert_eq!(g.pending(), 0);
        assert!(g.is_empty());
    }

    #[test]
    fn deleting_every_task_empties_the_region_table() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out), (B, In)], 0);
        let r = blocked(&mut g, &[(A, In)], 1);
        assert_eq!(g.region_table().len(), 2);
        done(&mut g, w);
        g.delete_task(w).unwrap();
        // B was only referenced by `w`; A is still read by `r`.
        assert_eq!(g.region_table().len(), 1);
        assert_eq!(g.region_table().last_writer_of(A), None);
        done(&mut g, r);
        g.delete_task(r).unwrap();
        assert!(g.region_table().is_empty());
    }

    #[test]
    fn region_table_does_not_grow_over_a_long_run() {
        let mut g = DependencyGraph::new(7).unwrap();
        for i in 0..10_000u64 {
            // Fresh regions each time, plus one shared region.
            let t = g.new_task(&[(RegionId(1000 + i), Out), (RegionId(0), InOut)], i);
            let id = t.id;
            assert_eq!(t.ready, Some(i));
            g.done_task(id, &mut Vec::new()).unwrap();
            g.delete_task(id).unwrap();
            assert!(g.region_table().len() <= 2);
        }
        assert!(g.is_empty());
        assert!(g.region_table().is_empty());
    }

    #[test]
    fn deleted_readers_do_not_pile_up_in_the_table() {
        let mut g = graph();
        let keep = ready(&mut g, &[(A, In)], 0);
        for i in 1..5_000 {
            let id = ready(&mut g, &[(A, In)], i);
            done(&mut g, id);
            g.delete_task(id).unwrap();
        }
        let readers = g.region_table().readers_of(A).unwrap();
        assert!(
            readers.len() <= 16,
            "{} reader ids kept for 1 live reader",
            readers.len()
        );
        assert!(readers.contains(&keep));
        // The writer still waits for the one live reader.
        let w = blocked(&mut g, &[(A, Out)], 9);
        assert_eq!(done(&mut g, keep), [9]);
        let _ = w;
    }

    #[test]
    fn superseded_reader_deletion_keeps_newer_state() {
        let mut g = graph();
        let r = ready(&mut g, &[(A, In)], 0);
        let w = blocked(&mut g, &[(A, Out)], 1);
        assert_eq!(done(&mut g, r), [1]);
        g.delete_task(r).unwrap();
        // `w` is still the last writer: a new reader must wait for it.
        assert_eq!(g.region_table().last_writer_of(A), Some(w));
        blocked(&mut g, &[(A, In)], 2);
        assert_eq!(done(&mut g, w), [2]);
    }

    #[test]
    fn payloads_are_handed_out_once_and_dropped_with_the_graph() {
        let payload = Rc::new(());
        let mut g = DependencyGraph::new(3).unwrap();
        let w = g.new_task(&[(A, Out)], Rc::clone(&payload));
        assert!(w.ready.is_some());
        let blocked_tasks: Vec<TaskId> = (0..3)
            .map(|_| g.new_task(&[(A, InOut)], Rc::clone(&payload)).id)
            .collect();
        assert_eq!(Rc::strong_count(&payload), 5);
        drop(w.ready);
        let mut out = Vec::new();
        g.done_task(w.id, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, blocked_tasks[0]);
        out.clear();
        assert_eq!(
            Rc::strong_count(&payload),
            3,
            "handed-out payloads leave the graph"
        );
        drop(g);
        assert_eq!(
            Rc::strong_count(&payload),
            1,
            "blocked payloads are dropped with it"
        );
    }

    #[test]
    fn debug_output_summarises_the_graph() {
        let mut g = graph();
        let w = ready(&mut g, &[(A, Out)], 0);
        blocked(&mut g, &[(A, In)], 1);
        done(&mut g, w);
        let text = format!("{g:?}");
        for part in [
            "pending: 2",
            "blocked: 0",
            "handed_out: 1",
            "done: 1",
            "regions: 1",
            "buckets: 97",
        ] {
            assert!(text.contains(part), "{text} lacks {part}");
        }
    }
}
