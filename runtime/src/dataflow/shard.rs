//! The pieces of a scope's sharded dependency graph (`graph_ops.rs`): a
//! shard, what a shard's graph holds for a task, the id under which a task is
//! handed out, and the heap record of a task registered in more than one
//! shard, whose countdown hands the task out once every shard released it
//! (see *Shards* and *Why sharding keeps the graph's invariant* in
//! `graph_ops.rs`).

use prescient_graph::{DependencyGraph, GraphError, TaskId};
use std::cell::{RefCell, UnsafeCell};
use std::mem;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The id of a task that a `LockedGraph` handed out, for the operations
/// that report it done and delete it. Opaque, and meaningful only to the
/// graph that handed it out, until the task is deleted.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct GraphTaskId(pub(super) Location);

/// Where a task is registered.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Location {
    /// In one shard, whose graph knows it as `id`.
    One { shard: u32, id: TaskId },
    /// In several shards: the address of the task's [`Record`] (a
    /// `Record<T>` of the graph that handed the task out), alive until the
    /// task is deleted.
    Many(NonNull<()>),
}

// SAFETY: a `GraphTaskId` is plain data: the record address in it is only
// dereferenced by `LockedGraph`'s `unsafe` operations, under their contracts,
// which do not depend on the thread that calls them (the record's fields are
// read-only or atomic by then: see `Record`).
unsafe impl Send for GraphTaskId {}
// SAFETY: a `GraphTaskId` is plain data (see `Send`): a shared one only
// lends out copies, and its record is dereferenced only under
// `LockedGraph`'s contracts.
unsafe impl Sync for GraphTaskId {}

const _: () = assert!(mem::size_of::<GraphTaskId>() <= 24);

/// Tasks made ready by a graph operation, with the ids they were handed out
/// under.
pub(crate) type ReadyList<T> = Vec<(GraphTaskId, T)>;

/// A thread's pool of empty shards (see `LockedGraph::new`).
pub(crate) type GraphPool<T> = RefCell<Vec<Shard<T>>>;

/// Shard ids a [`Record`] holds without a second allocation. A runtime task
/// names at most `MAX_ACCESSES` = 16 regions; the typical multi-region tasks
/// (tile kernels) name 2 or 3.
const INLINE_SHARD_IDS: usize = 4;

/// What a shard's `done_task` releases: the tasks' ids in the shard and what
/// the shard held for them.
pub(super) type Released<T> = Vec<(TaskId, Held<T>)>;

/// One shard: a dependency graph over the regions `r` with `r % S` equal to
/// the shard's index, and scratch space for what its `done_task` releases.
pub(crate) struct Shard<T> {
    pub(super) graph: DependencyGraph<Held<T>>,
    /// What the graph released in the current operation, before it is
    /// translated into the caller's ready list (see
    /// `LockedGraph::hand_out`); empty between operations, and kept (with
    /// its capacity) for the next one.
    pub(super) released: Released<T>,
}

impl<T> Shard<T> {
    pub(super) fn new(buckets: usize) -> Shard<T> {
        Shard {
            graph: DependencyGraph::new(buckets).unwrap_or_else(|error| fatal(error)),
            released: Vec::new(),
        }
    }
}

/// What a shard's graph holds for a task.
pub(super) enum Held<T> {
    /// A single-shard task's payload.
    One(T),
    /// One of a multi-shard task's shares of its record.
    Many(RecordRef<T>),
}

/// The payload, ids and countdown of a task registered in more than one
/// shard.
///
/// Made by the owner in `LockedGraph::new_task`, freed by the operation
/// that deletes the task (or, for a task never handed out, when the last
/// graph holding it is dropped: see [`RecordRef`]). Its fields:
/// * `blocking` is only touched atomically.
/// * `shards` is written before the record is shared, then read-only.
/// * `ids` is written only by the owner while `blocking` still counts the
///   owner's share, and read only after the task is handed out — which needs
///   the owner's decrement (Release), and the handing-out decrement acquires
///   every earlier one in the count's release sequence.
/// * `payload` is taken once, by the thread whose decrement brings
///   `blocking` to zero.
pub(super) struct Record<T> {
    /// Shards that have not handed the task out yet, plus one while the owner
    /// is still registering it.
    pub(super) blocking: AtomicUsize,
    /// The task's shards: bit `k` for shard `k`.
    pub(super) shards: u64,
    /// The task's id in each of its shards, in increasing shard order.
    pub(super) ids: UnsafeCell<ShardIds>,
    /// The task, until it is handed out.
    pub(super) payload: UnsafeCell<Option<T>>,
}

/// A multi-shard task's ids in its shards, by rank (the `n`-th shard of the
/// task in increasing order has rank `n`): inline up to
/// [`INLINE_SHARD_IDS`], the rest in `spill`.
pub(super) struct ShardIds {
    inline: [Option<TaskId>; INLINE_SHARD_IDS],
    spill: Vec<TaskId>,
}

impl ShardIds {
    pub(super) fn new() -> ShardIds {
        ShardIds {
            inline: [None; INLINE_SHARD_IDS],
            spill: Vec::new(),
        }
    }

    /// Records the id of rank `rank`; ranks come in increasing order.
    pub(super) fn set(&mut self, rank: usize, id: TaskId) {
        match self.inline.get_mut(rank) {
            Some(slot) => *slot = Some(id),
            None => {
                debug_assert_eq!(self.spill.len(), rank - INLINE_SHARD_IDS);
                self.spill.push(id);
            }
        }
    }

    /// The id of rank `rank`, recorded by [`set`](Self::set).
    pub(super) fn get(&self, rank: usize) -> TaskId {
        let id = match self.inline.get(rank) {
            Some(id) => *id,
            None => self.spill.get(rank - INLINE_SHARD_IDS).copied(),
        };
        id.expect("a multi-shard task has an id in each of its shards")
    }
}

/// A shard graph's share of a multi-shard task's [`Record`] (one count of
/// `blocking`), held as the payload while the task is blocked in the shard.
///
/// When the shard hands it out, the share is given up with
/// [`into_raw`](Self::into_raw) and its count released by [`release`]. A
/// share that is dropped instead — its graph dropped with the task still
/// blocked, which the runtime never does — releases its count, and the last
/// one frees the record with its payload (a task that some shard still
/// blocked was never handed out, so no [`GraphTaskId`] names it).
pub(super) struct RecordRef<T>(pub(super) NonNull<Record<T>>);

// SAFETY: a share only reaches the record's atomic count (see `Record` for
// how the other fields are shared), and the payload moves to whichever thread
// hands it out or drops it: `T: Send` suffices.
unsafe impl<T: Send> Send for RecordRef<T> {}

impl<T> RecordRef<T> {
    /// Gives the share up without releasing its count: the caller releases
    /// it.
    pub(super) fn into_raw(self) -> NonNull<Record<T>> {
        let record = self.0;
        mem::forget(self);
        record
    }
}

impl<T> Drop for RecordRef<T> {
    fn drop(&mut self) {
        // SAFETY: the record is alive while a share of it exists (it is freed
        // at zero or at delete, after every share was given up); the count is
        // only touched atomically, through a reference that ends here.
        let previous = unsafe { (*self.0.as_ptr()).blocking.fetch_sub(1, Ordering::AcqRel) };
        if previous == 1 {
            // SAFETY: this was the last count, and the task was never handed
            // out (see the type's docs), so nothing else refers to the record;
            // it came from `Box::leak` in `new_task`.
            drop(unsafe { Box::from_raw(self.0.as_ptr()) });
        }
    }
}

/// Releases `count` counts of a multi-shard task's countdown; if that brings
/// it to zero, takes the payload and returns it with the task's id.
///
/// # Safety
/// `record` is alive, and the caller owns `count` of its `blocking` counts
/// (given up by [`RecordRef::into_raw`], or the owner's own) and gives them
/// up.
pub(super) unsafe fn release<T>(
    record: NonNull<Record<T>>,
    count: usize,
) -> Option<(GraphTaskId, T)> {
    // SAFETY: alive (contract); only the atomic is reached, through a
    // reference that ends here (if this is not the last count, another thread
    // may hand the task out, run it and free the record right after).
    let previous = unsafe {
        (*record.as_ptr())
            .blocking
            .fetch_sub(count, Ordering::AcqRel)
    };
    if previous == count {
        // SAFETY: this call brought the count to zero, so every other count
        // was released before (the AcqRel chain makes the owner's writes
        // visible) and no other thread takes the payload; the record stays
        // alive until the task is deleted, which needs this hand-out.
        let task = unsafe { (*(*record.as_ptr()).payload.get()).take() };
        let task = task.expect("a multi-shard task is handed out once");
        Some((GraphTaskId(Location::Many(record.cast())), task))
    } else {
        None
    }
}

/// Releases a share a shard handed out: [`release`] of its one count (out
/// of line, to keep the single-shard hand-out loop short).
#[cold]
#[inline(never)]
pub(super) fn release_share<T>(share: RecordRef<T>, ready: &mut ReadyList<T>) {
    // SAFETY: the record is alive (this share was not given up yet), and the
    // share is given up to `release`.
    ready.extend(unsafe { release(share.into_raw(), 1) });
}

/// A graph operation failed: the runtime broke the graph's protocol. The
/// graph's bookkeeping (on which the hand-out of `&mut T` rests) can no longer
/// be trusted, and this runs where unwinding is not allowed (a finishing
/// task), so the process aborts with the reason.
#[cold]
#[inline(never)]
pub(super) fn fatal(error: GraphError) -> ! {
    crate::unwind::report(format_args!(
        "dataflow dependency graph protocol violated: {error}"
    ));
    std::process::abort();
}
