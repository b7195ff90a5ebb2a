//! A dataflow scope's dependency graph, split by region into independent
//! shards, each behind its own spin lock: the worker that submits or finishes
//! a task updates the graph itself, under the locks of the shards the task's
//! regions live in ([`LockedGraph`]). One lock per scope serialised every
//! worker finishing a task of the scope; with one per shard, tasks on regions
//! of different shards do their bookkeeping in parallel.
//!
//! The runtime never touches a [`DependencyGraph`] directly: submission calls
//! [`LockedGraph::new_task`], a finished task calls
//! [`LockedGraph::finish_task`] (done, then delete, in one visit of each of
//! its shards). Whatever an operation makes ready is returned (a new task:
//! at most itself) or appended to a [`ReadyList`] (a finished task's
//! successors), and the *caller* dispatches it outside the locks.
//!
//! The graph is generic over the payload it holds per task, so this module
//! uses nothing else of `dataflow` but its pieces in `shard.rs`: the payload
//! is `state::TaskRef`, and `state.rs` builds on this module, not the
//! reverse.
//!
//! # Shards
//! A scope's graph is `S` independent [`DependencyGraph`]s (`S` is fixed when
//! the scope is made, 1 ≤ `S` ≤ [`MAX_SHARDS`]; `state.rs` chooses it from
//! the number of workers). Region `r` belongs to shard `r % S`; region ids are
//! per-scope sequential numbers, so neighbouring handles and tiles land in
//! different shards. A task is registered in every shard one of its regions
//! belongs to, with its accesses to that shard's regions.
//!
//! * A **single-shard task** (all its regions in one shard — every task when
//!   `S` = 1) costs what a task cost before sharding: one lock round trip per
//!   operation, its payload held by that shard's graph, no allocation. Its
//!   [`GraphTaskId`] is the shard and the shard's own id. (What remains is
//!   translating what a shard's graph releases into [`GraphTaskId`]s.)
//! * A **multi-shard task** gets a small heap record ([`Record`]) holding its
//!   payload, its id in each of its shards and a countdown of the shards that
//!   still block it; each of its shards' graphs holds a pointer to the record
//!   as the payload. When a shard hands that pointer out, the countdown drops
//!   by one, and whoever brings it to zero appends the task's payload to its
//!   ready list. The submitter holds one extra count while it registers the
//!   task, so the task cannot be handed out before it is registered (and its
//!   ids recorded) in all its shards. Done and delete visit each of its
//!   shards, one at a time; delete frees the record. Its [`GraphTaskId`] is
//!   the record's address, which is why the operations that take an id are
//!   `unsafe`: the id must come from this graph and not be used after delete.
//!
//! No thread ever holds two shard locks at once, so the locks cannot
//! deadlock, and each critical section is as short as the single lock's was.
//!
//! # Why sharding keeps the graph's invariant
//! The invariant the runtime relies on (`task.rs`, link 1) is the graph's own
//! (see the top of `dep-graph/src/graph.rs`): **a task is handed out —
//! returned by `new_task` or appended to a ready list — only when every
//! earlier task of the scope with a conflicting access to a shared region is
//! done** (reported done with
//! [`LockedGraph::done_task`] or [`LockedGraph::finish_task`], which the
//! runtime does only after the task's body finished). Take an earlier task
//! `i` and a later task `j` conflicting on region `r`, and let `s = r % S`.
//!
//! 1. Both are registered in shard `s`, each with its access to `r` (a task's
//!    accesses are grouped by shard, none dropped and no mode changed; two
//!    accesses of one task to `r` go to the same shard, whose graph merges
//!    them as an unsharded graph would). So shard `s`'s graph sees the
//!    conflict between `i` and `j` on `r`.
//! 2. Shard `s` sees `i` before `j`: the scope's new-task operations run one
//!    at a time, in program order — only the owner thread submits
//!    (`Dataflow` is `!Sync`), and it either registers a task itself or
//!    queues the request for the DAST manager, whose queue executes one
//!    request at a time in push order and which the owner never overtakes
//!    (`dast/policy.rs`: a new task is registered inline only while none of
//!    its scope's new-task requests is queued or executing) — and the
//!    registration of `i` in all of `i`'s shards finishes before that of `j`
//!    starts; the shard's lock orders the two registrations for every thread
//!    that looks at the shard afterwards. So every shard sees
//!    its submissions in program order, whatever order the shards of one task
//!    are visited in.
//! 3. By the invariant of shard `s`'s graph, shard `s` hands `j` out only
//!    after `i` is done in shard `s`, which happens only in `done_task` /
//!    `finish_task` of `i`, after `i`'s body finished.
//! 4. `j` is handed out only when every shard it is registered in has handed
//!    it out (the countdown reaches zero only then), shard `s` among them.
//!
//! So `j` is handed out only after `i` is done. Conversely nothing is held
//! back: a shard's graph orders only tasks that conflict on one of its
//! regions, which the unsharded graph orders too, so a task is handed out as
//! soon as every earlier conflicting task is done (each of its shards has
//! released it by then, and the last release hands it out). Every wait is for
//! an earlier task in program order, so no cycle — no deadlock — can form
//! across shards. Each task is handed out exactly once: a single-shard task
//! by its one shard's graph, a multi-shard task by the one decrement that
//! brings its countdown to zero.

pub(crate) use super::shard::{GraphPool, GraphTaskId, ReadyList};

use super::shard::{
    fatal, release, release_share, Held, Location, Record, RecordRef, Released, Shard, ShardIds,
};
use crate::spin_lock::{SpinGuard, SpinLock};
use crossbeam_utils::CachePadded;
use prescient_graph::{AccessMode, DependencyGraph, GraphError, RegionId, TaskId};
use std::cell::UnsafeCell;
use std::mem::ManuallyDrop;
use std::ptr::NonNull;
use std::sync::atomic::AtomicUsize;
use std::thread::LocalKey;

/// The most shards a scope's graph has: a task's set of shards is a `u64`
/// bit mask.
pub(crate) const MAX_SHARDS: usize = 64;

/// Empty scope graphs' worth of shards kept per thread for the next scope, so
/// that a scope does not regrow its graphs' maps (and a nested scope per task
/// does not allocate tables per task): a dropped graph of `S` shards goes back
/// to a pool that holds up to `POOLED_GRAPHS * S` shards.
const POOLED_GRAPHS: usize = 2;

/// A shard behind its lock, alone on its cache lines (`ManuallyDrop` so
/// that [`LockedGraph`]'s `drop` can move it to the pool).
type LockedShard<T> = CachePadded<SpinLock<ManuallyDrop<Shard<T>>>>;

/// The dependency graph of one dataflow scope, holding a `T` per task, split
/// into shards by region (see the module docs), and its operations
/// (`new task`, `done task`, `delete task`, as the DAST paper names its
/// requests), which the calling worker executes under the shards' locks.
///
/// The graph's safety invariant (see `prescient_graph::DependencyGraph`)
/// carries over, as the module docs prove: a task is handed out — returned
/// by `new_task` or appended to a ready list — only when every earlier
/// conflicting task of the scope is done. The runtime's hand-out of `&mut T` relies on it (see `task.rs`).
pub(crate) struct LockedGraph<T: 'static> {
    /// Shard 0. The shards are each behind a spin lock of their own on cache
    /// lines of their own: the critical sections are a few hundred
    /// nanoseconds of graph bookkeeping that never block or switch fibers
    /// (see `spin_lock.rs`). Shard 0 is inline, so that a one-shard graph
    /// (one worker) allocates nothing for its shards.
    first: LockedShard<T>,
    /// Shards 1 to `S - 1`.
    rest: Box<[LockedShard<T>]>,
    /// `S - 1` if the shard count `S` is a power of two (then a mask picks a
    /// region's shard), else `None` (a remainder does).
    shard_mask: Option<u64>,
    /// Where the shards go back to when the graph is dropped empty.
    pool: &'static LocalKey<GraphPool<T>>,
}

impl<T: 'static> LockedGraph<T> {
    /// A graph of `shards` shards (1 to [`MAX_SHARDS`]) whose region tables
    /// have `buckets` buckets in all (`Params::dependency_buckets`, validated
    /// to be at least 1): `buckets / shards`, rounded up, each. Each shard
    /// holds about `1 / shards` of the regions, so chains are as long as in
    /// one table of `buckets` buckets, and a scope's tables take as much
    /// memory. Shards are taken empty from this thread's `pool` when it has
    /// ones of that size. A graph dropped empty puts its shards back in the
    /// pool of the thread that drops it. (The pool is the caller's
    /// `thread_local!`, since a `thread_local!` cannot be generic.)
    ///
    /// # Panics
    /// If `shards` is 0 or more than [`MAX_SHARDS`].
    pub(crate) fn new(
        buckets: usize,
        shards: usize,
        pool: &'static LocalKey<GraphPool<T>>,
    ) -> LockedGraph<T> {
        assert!(
            (1..=MAX_SHARDS).contains(&shards),
            "a dataflow graph has 1 to {MAX_SHARDS} shards, not {shards}"
        );
        let per_shard = buckets.div_ceil(shards);
        // Once the pool has no shard of this size, it will not have one for
        // the next shard either: stop looking.
        let mut pool_has_some = true;
        let mut take = || {
            let pooled = pool_has_some
                .then(|| {
                    pool.with(|pool| {
                        let mut pool = pool.borrow_mut();
                        let index = pool.iter().position(|shard| {
                            shard.graph.region_table().bucket_count() == per_shard
                        })?;
                        Some(pool.swap_remove(index))
                    })
                })
                .flatten();
            pool_has_some = pooled.is_some();
            let shard = pooled.unwrap_or_else(|| Shard::new(per_shard));
            CachePadded::new(SpinLock::new(ManuallyDrop::new(shard)))
        };
        let first = take();
        let rest = (1..shards).map(|_| take()).collect();
        let count = shards as u64;
        LockedGraph {
            first,
            rest,
            shard_mask: count.is_power_of_two().then_some(count - 1),
            pool,
        }
    }

    /// The number of shards, `S`.
    #[inline]
    fn shard_count(&self) -> usize {
        self.rest.len() + 1
    }

    /// Takes the lock of shard `shard`. Every lock acquisition of the graph
    /// goes through here.
    #[inline]
    fn lock_shard(&self, shard: usize) -> SpinGuard<'_, ManuallyDrop<Shard<T>>> {
        let locked = match shard.checked_sub(1) {
            None => &self.first,
            Some(index) => &self.rest[index],
        };
        // Timed (the graph-lock acquisition time) with `dast-stats` only.
        crate::dast::time_lock(|| locked.lock())
    }

    /// The shard region `region` belongs to: `region % S`.
    #[inline]
    fn shard_of(&self, region: RegionId) -> usize {
        let shard = match self.shard_mask {
            Some(mask) => region.0 & mask,
            None => region.0 % self.shard_count() as u64,
        };
        shard as usize
    }

    /// Registers a task with its accesses. If it has no unfinished
    /// predecessor it is ready: returned, with the id it is handed out
    /// under. (A new task can release nothing but itself, so no ready list
    /// is involved: the submission path neither borrows one nor loops over
    /// it.)
    ///
    /// Called by the scope's owner thread only (the one submitter), so that
    /// every shard sees the scope's tasks in program order.
    #[inline(always)]
    pub(crate) fn new_task(
        &self,
        accesses: &[(RegionId, AccessMode)],
        task: T,
    ) -> Option<(GraphTaskId, T)> {
        let shard = if self.rest.is_empty() {
            0
        } else {
            match self.common_shard(accesses) {
                Some(shard) => shard,
                None => return self.new_multi_shard_task(accesses, task),
            }
        };
        let new = self
            .lock_shard(shard)
            .graph
            .new_task(accesses, Held::One(task));
        match new.ready {
            Some(Held::One(task)) => {
                let shard = shard as u32;
                Some((GraphTaskId(Location::One { shard, id: new.id }), task))
            }
            _ => None,
        }
    }

    /// The shard of all the regions in `accesses` (shard 0 if there is
    /// none), or `None` if they are in more than one.
    #[inline]
    fn common_shard(&self, accesses: &[(RegionId, AccessMode)]) -> Option<usize> {
        let shard = accesses
            .first()
            .map_or(0, |&(region, _)| self.shard_of(region));
        accesses
            .iter()
            .all(|&(region, _)| self.shard_of(region) == shard)
            .then_some(shard)
    }

    /// [`new_task`](Self::new_task) for a task whose regions are in more than
    /// one shard: registers it in each, with a [`Record`] as the payload.
    #[inline(never)]
    fn new_multi_shard_task(
        &self,
        accesses: &[(RegionId, AccessMode)],
        task: T,
    ) -> Option<(GraphTaskId, T)> {
        let shards = accesses
            .iter()
            .fold(0u64, |set, &(region, _)| set | 1 << self.shard_of(region));
        let record = NonNull::from(Box::leak(Box::new(Record {
            // One count per shard, one for this thread until it is done
            // registering.
            blocking: AtomicUsize::new(shards.count_ones() as usize + 1),
            shards,
            ids: UnsafeCell::new(ShardIds::new()),
            payload: UnsafeCell::new(Some(task)),
        })));
        // The accesses of one shard at a time: on the stack for any task the
        // runtime submits (at most `MAX_ACCESSES` = 16 accesses).
        let mut on_stack = [(RegionId(0), AccessMode::In); 16];
        let mut on_heap = Vec::new();
        let group = if accesses.len() <= on_stack.len() {
            &mut on_stack[..]
        } else {
            on_heap.resize(accesses.len(), (RegionId(0), AccessMode::In));
            &mut on_heap[..]
        };
        let mut handed_out = 0;
        let mut rest = shards;
        let mut rank = 0;
        while rest != 0 {
            let shard = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let mut len = 0;
            for &access in accesses {
                if self.shard_of(access.0) == shard {
                    group[len] = access;
                    len += 1;
                }
            }
            let new = self
                .lock_shard(shard)
                .graph
                .new_task(&group[..len], Held::Many(RecordRef(record)));
            // SAFETY: the record is alive (this thread's count is not
            // released); only this thread writes `ids`, and nobody reads them
            // before the task is handed out, which needs this thread's count
            // (see `Record`).
            unsafe { (*(*record.as_ptr()).ids.get()).set(rank, new.id) };
            if let Some(held) = new.ready {
                let Held::Many(share) = held else {
                    unreachable!("a multi-shard task's payload is its record")
                };
                share.into_raw();
                handed_out += 1;
            }
            rank += 1;
        }
        // SAFETY: alive; this thread owns its own count and those of the
        // shares the shards handed out at once, and gives them up here.
        unsafe { release(record, handed_out + 1) }
    }

    /// Translates what shard `shard`'s graph just released into hand-outs:
    /// a single-shard task is handed out at once; a multi-shard task's share
    /// is released, and the task handed out if that was its last count.
    /// Runs under the shard's lock (which owns `released`).
    #[inline]
    fn hand_out(shard: usize, released: &mut Released<T>, ready: &mut ReadyList<T>) {
        let len = released.len();
        let base = released.as_ptr();
        // SAFETY: `released` is emptied first and then its `len` elements,
        // still in place, are each moved out once, in order (so a panic below
        // leaks the rest rather than dropping them twice); the allocation
        // stays with `released`. A plain loop: `drain` costs more here, on
        // every finishing task.
        unsafe { released.set_len(0) };
        for index in 0..len {
            // SAFETY: element `index < len` is still in place in the
            // allocation `released` keeps, and is moved out exactly once
            // (the loop visits each index once after `set_len(0)`).
            let (id, held) = unsafe { base.add(index).read() };
            match held {
                Held::One(task) => {
                    let shard = shard as u32;
                    ready.push((GraphTaskId(Location::One { shard, id }), task));
                }
                Held::Many(share) => release_share(share, ready),
            }
        }
    }

    /// Runs `operation` on the graph of each shard the task `id` is
    /// registered in, with the task's id there and the shard's released
    /// list, under the shard's lock, and hands out what it releases; aborts
    /// if an operation fails. Then, if `delete`, frees a multi-shard task's
    /// record (the operation deleted the task).
    ///
    /// # Safety
    /// `id` was handed out by this graph and is not deleted yet.
    #[inline(always)]
    unsafe fn for_each_shard<F>(
        &self,
        id: GraphTaskId,
        ready: &mut ReadyList<T>,
        delete: bool,
        mut operation: F,
    ) where
        F: FnMut(&mut DependencyGraph<Held<T>>, TaskId, &mut Released<T>) -> Result<(), GraphError>,
    {
        match id.0 {
            Location::One { shard, id } => self.visit(shard as usize, id, ready, &mut operation),
            // SAFETY: `id` was handed out by this graph and is not deleted
            // (this function's contract), so its record is alive and
            // describes this graph's shards.
            Location::Many(record) => unsafe {
                self.visit_record_shards(record.cast(), ready, delete, &mut operation);
            },
        }
    }

    /// [`for_each_shard`](Self::for_each_shard) for a multi-shard task.
    ///
    /// # Safety
    /// `record` is the record of a task this graph handed out and has not
    /// deleted yet.
    #[inline(never)]
    unsafe fn visit_record_shards<F>(
        &self,
        record: NonNull<Record<T>>,
        ready: &mut ReadyList<T>,
        delete: bool,
        operation: &mut F,
    ) where
        F: FnMut(&mut DependencyGraph<Held<T>>, TaskId, &mut Released<T>) -> Result<(), GraphError>,
    {
        let pointer = record.as_ptr();
        // SAFETY: a live `Record<T>` (contract); once the task is handed out,
        // its `shards` and `ids` are only read (see `Record`).
        let (shards, ids) = unsafe { ((*pointer).shards, &*(*pointer).ids.get()) };
        let mut rest = shards;
        let mut rank = 0;
        while rest != 0 {
            let shard = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            self.visit(shard, ids.get(rank), ready, operation);
            rank += 1;
        }
        if delete {
            // SAFETY: made by `Box::leak` in `new_task` as a `Record<T>`
            // (contract); the task was handed out (so no shard holds a share
            // any more, and its payload was taken) and is now deleted in every
            // shard, so nothing refers to the record; `ids` is not used again.
            drop(unsafe { Box::from_raw(pointer) });
        }
    }

    /// Runs `operation` on shard `shard`'s graph for the task it knows as
    /// `id`, under the shard's lock, and hands out what it releases; aborts
    /// if it fails.
    #[inline(always)]
    fn visit<F>(&self, shard: usize, id: TaskId, ready: &mut ReadyList<T>, operation: &mut F)
    where
        F: FnMut(&mut DependencyGraph<Held<T>>, TaskId, &mut Released<T>) -> Result<(), GraphError>,
    {
        let result = {
            let mut guard = self.lock_shard(shard);
            let Shard { graph, released } = &mut **guard;
            let result = operation(graph, id, released);
            Self::hand_out(shard, released, ready);
            result
        };
        result.unwrap_or_else(|error| fatal(error));
    }

    /// `done task`: marks a handed-out task done in each of its shards;
    /// successors it releases go to `ready`.
    ///
    /// # Safety
    /// `id` was handed out by this graph (returned or appended to a ready
    /// list by one of its operations), is reported done once, and is not deleted yet. (A
    /// multi-shard task's id is its record's address.)
    pub(crate) unsafe fn done_task(&self, id: GraphTaskId, ready: &mut ReadyList<T>) {
        // SAFETY: `id` was handed out by this graph and is not deleted yet
        // (this function's contract), all `for_each_shard` asks.
        unsafe {
            self.for_each_shard(id, ready, false, |graph, id, released| {
                graph.done_task(id, released)
            });
        }
    }

    /// `delete task`: frees a done task's nodes and region-table references
    /// in each of its shards (and a multi-shard task's record).
    ///
    /// # Safety
    /// `id` was handed out by this graph, has been reported done
    /// ([`done_task`](Self::done_task)), is deleted once, and is not used
    /// afterwards.
    pub(crate) unsafe fn delete_task(&self, id: GraphTaskId) {
        // SAFETY: `id` was handed out by this graph and is deleted only now,
        // once (this function's contract), so it is not deleted yet while
        // `for_each_shard` runs (a delete releases nothing, so the ready
        // list stays empty and does not allocate).
        unsafe {
            self.for_each_shard(id, &mut Vec::new(), true, |graph, id, _| {
                graph.delete_task(id)
            });
        }
    }

    /// `done task` then `delete task` in one lock round trip per shard —
    /// what a worker does when it finishes a task and executes both requests
    /// itself. Successors it releases go to `ready`.
    ///
    /// # Safety
    /// `id` was handed out by this graph, has not been reported done, and is
    /// not used afterwards.
    #[inline]
    pub(crate) unsafe fn finish_task(&self, id: GraphTaskId, ready: &mut ReadyList<T>) {
        // SAFETY: `id` was handed out by this graph and is neither done nor
        // deleted yet (this function's contract), all `for_each_shard` asks.
        unsafe {
            self.for_each_shard(id, ready, true, |graph, id, released| {
                graph
                    .done_task(id, released)
                    .and_then(|()| graph.delete_task(id))
            });
        }
    }
}

impl<T: 'static> Drop for LockedGraph<T> {
    fn drop(&mut self) {
        let limit = POOLED_GRAPHS * self.shard_count();
        for shard in std::iter::once(&mut self.first).chain(self.rest.iter_mut()) {
            // SAFETY: each shard is taken once, here, and never used again.
            let shard = unsafe { ManuallyDrop::take(shard.get_mut()) };
            // Only an empty shard is reusable (a scope ends with no task
            // left); a non-empty one is dropped with what it holds.
            if shard.graph.is_empty() {
                let _ = self.pool.try_with(|pool| {
                    let mut pool = pool.borrow_mut();
                    if pool.len() < limit {
                        pool.push(shard);
                    }
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;
    use AccessMode::{In, InOut, Out};

    thread_local! {
        static POOL: GraphPool<usize> = const { RefCell::new(Vec::new()) };
        static RC_POOL: GraphPool<Rc<()>> = const { RefCell::new(Vec::new()) };
    }

    impl<T: 'static> LockedGraph<T> {
        /// Whether no shard holds a task.
        fn is_empty(&self) -> bool {
            (0..self.shard_count()).all(|shard| self.lock_shard(shard).graph.is_empty())
        }
    }

    fn r(region: u64) -> RegionId {
        RegionId(region)
    }

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
    }

    /// Regions the random programs use: their residues differ for every
    /// shard count tested (shard 0 and shard `S - 1` included), and two of
    /// them share shard 0 whatever `S` is (0 and 64, for `S` dividing 64).
    const REGIONS: [u64; 8] = [0, 1, 2, 3, 5, 8, 63, 64];

    /// Where a task of the model is in its life.
    #[derive(Clone, Copy, PartialEq, Debug)]
    enum Life {
        Blocked,
        Running(GraphTaskId),
        Done(GraphTaskId),
        Deleted,
    }

    /// The brute-force rule: a task may be handed out exactly when every
    /// earlier task with a conflicting access on a shared region (one of the
    /// two writes it) is done.
    struct Model {
        /// Per task, its regions with whether it writes them (a region named
        /// twice counts once, written if either access writes).
        regions: Vec<Vec<(u64, bool)>>,
        /// Per submitted task, the earlier tasks it conflicts with.
        earlier: Vec<Vec<usize>>,
        life: Vec<Life>,
    }

    impl Model {
        fn conflict(&self, a: usize, b: usize) -> bool {
            self.regions[a]
                .iter()
                .any(|&(x, wa)| self.regions[b].iter().any(|&(y, wb)| x == y && (wa || wb)))
        }

        fn submit(&mut self, accesses: &[(RegionId, AccessMode)]) -> usize {
            let mut regions: Vec<(u64, bool)> = Vec::new();
            for &(region, mode) in accesses {
                match regions.iter_mut().find(|(x, _)| *x == region.0) {
                    Some((_, write)) => *write |= mode.is_write(),
                    None => regions.push((region.0, mode.is_write())),
                }
            }
            let task = self.regions.len();
            self.regions.push(regions);
            let earlier = (0..task).filter(|&i| self.conflict(i, task)).collect();
            self.earlier.push(earlier);
            self.life.push(Life::Blocked);
            task
        }

        fn finished(&self, task: usize) -> bool {
            matches!(self.life[task], Life::Done(_) | Life::Deleted)
        }

        /// Whether every earlier conflicting task of `task` is done.
        fn may_run(&self, task: usize) -> bool {
            self.earlier[task].iter().all(|&i| self.finished(i))
        }
    }

    /// Takes what the graph handed out, checking each hand-out against the
    /// model: once, allowed by the brute-force rule, conflicting with no
    /// running task, and under the kind of id its shards call for.
    fn absorb(
        model: &mut Model,
        graph: &LockedGraph<usize>,
        ready: &mut ReadyList<usize>,
        running: &mut Vec<usize>,
    ) {
        for (id, task) in ready.drain(..) {
            assert_eq!(
                model.life[task],
                Life::Blocked,
                "task {task} handed out twice"
            );
            assert!(
                model.may_run(task),
                "task {task} handed out before an earlier conflicting task is done"
            );
            for &other in running.iter() {
                assert!(
                    !model.conflict(task, other),
                    "task {task} handed out while conflicting task {other} runs"
                );
            }
            let mut shards: Vec<usize> = model.regions[task]
                .iter()
                .map(|&(region, _)| graph.shard_of(r(region)))
                .collect();
            shards.sort_unstable();
            shards.dedup();
            match id.0 {
                Location::One { shard, .. } => assert_eq!(shards, [shard as usize]),
                Location::Many(_) => assert!(shards.len() > 1),
            }
            model.life[task] = Life::Running(id);
            running.push(task);
        }
    }

    /// One random program on a graph of `shards` shards: tasks of 1 to 4
    /// accesses (now and then a wide one of up to 20) over [`REGIONS`],
    /// submitted in order, interleaved with finishing running tasks in random
    /// order (`finish_task`, or `done_task` and a later `delete_task`). After
    /// every operation, exactly the tasks the brute-force rule allows have
    /// been handed out.
    fn run_program(seed: u64, shards: usize, buckets: usize, tasks: usize) {
        let graph = LockedGraph::<usize>::new(buckets, shards, &POOL);
        let mut rng = Rng(seed | 1);
        let mut model = Model {
            regions: Vec::new(),
            earlier: Vec::new(),
            life: Vec::new(),
        };
        let mut ready = ReadyList::new();
        let mut running: Vec<usize> = Vec::new();
        let mut done: Vec<usize> = Vec::new();
        let mut blocked: Vec<usize> = Vec::new();
        let mut submitted = 0;
        loop {
            let idle = running.is_empty() && done.is_empty();
            if submitted < tasks && (idle || rng.below(3) == 0) {
                let count = if rng.below(16) == 0 {
                    5 + rng.below(16)
                } else {
                    1 + rng.below(4)
                };
                let accesses: Vec<(RegionId, AccessMode)> = (0..count)
                    .map(|_| {
                        let region = r(REGIONS[rng.below(REGIONS.len())]);
                        (region, [In, In, Out, InOut][rng.below(4)])
                    })
                    .collect();
                let task = model.submit(&accesses);
                ready.extend(graph.new_task(&accesses, task));
                blocked.push(task);
                submitted += 1;
            } else if !running.is_empty() && (done.is_empty() || rng.below(3) != 0) {
                let task = running.swap_remove(rng.below(running.len()));
                let Life::Running(id) = model.life[task] else {
                    unreachable!()
                };
                if rng.below(2) == 0 {
                    // SAFETY: handed out by this graph, finished once.
                    unsafe { graph.finish_task(id, &mut ready) };
                    model.life[task] = Life::Deleted;
                } else {
                    // SAFETY: handed out by this graph, done once.
                    unsafe { graph.done_task(id, &mut ready) };
                    model.life[task] = Life::Done(id);
                    done.push(task);
                }
            } else if !done.is_empty() {
                let task = done.swap_remove(rng.below(done.len()));
                let Life::Done(id) = model.life[task] else {
                    unreachable!()
                };
                // SAFETY: handed out by this graph, done, deleted once.
                unsafe { graph.delete_task(id) };
                model.life[task] = Life::Deleted;
            } else {
                break;
            }
            absorb(&mut model, &graph, &mut ready, &mut running);
            blocked.retain(|&task| model.life[task] == Life::Blocked);
            for &task in &blocked {
                assert!(
                    !model.may_run(task),
                    "task {task} may run but was not handed out \
                     (seed {seed:#x}, {shards} shards)"
                );
            }
        }
        assert_eq!(submitted, tasks);
        assert!(model.life.iter().all(|&life| life == Life::Deleted));
        assert!(graph.is_empty());
    }

    #[test]
    fn random_programs_follow_the_brute_force_rule_on_any_shard_count() {
        for shards in [1, 2, 3, 4, 8, 64] {
            for program in 0..40u64 {
                let buckets = [1, 7, 97][program as usize % 3];
                let seed = 0x5AD_F00D ^ (shards as u64) << 40 ^ program.wrapping_mul(0x9E37_79B9);
                run_program(seed, shards, buckets, 150);
            }
        }
    }

    #[test]
    fn one_shard_hands_out_only_single_shard_ids() {
        let graph = LockedGraph::<usize>::new(7, 1, &POOL);
        let mut ready = ReadyList::new();
        ready.extend(graph.new_task(&[(r(0), Out), (r(1), In), (r(2), InOut)], 0));
        ready.extend(graph.new_task(&[(r(1), Out), (r(3), Out)], 1));
        let [(id, 0)] = ready[..] else {
            panic!("expected task 0 alone ready, got {ready:?}")
        };
        assert_eq!(
            id.0,
            Location::One {
                shard: 0,
                id: match id.0 {
                    Location::One { id, .. } => id,
                    Location::Many(_) => unreachable!(),
                }
            }
        );
        ready.clear();
        // SAFETY: handed out by this graph, finished once.
        unsafe { graph.finish_task(id, &mut ready) };
        assert!(matches!(
            ready[..],
            [(GraphTaskId(Location::One { shard: 0, .. }), 1)]
        ));
    }

    #[test]
    fn a_multi_shard_task_waits_for_every_shard() {
        let graph = LockedGraph::<usize>::new(7, 2, &POOL);
        let mut ready = ReadyList::new();
        // Task 0 writes region 0 (shard 0), task 1 writes region 1 (shard 1),
        // task 2 reads both: blocked in both shards.
        ready.extend(graph.new_task(&[(r(0), Out)], 0));
        ready.extend(graph.new_task(&[(r(1), Out)], 1));
        ready.extend(graph.new_task(&[(r(0), In), (r(1), In)], 2));
        let handed: Vec<usize> = ready.iter().map(|&(_, task)| task).collect();
        assert_eq!(handed, [0, 1]);
        let (first, second) = (ready[0].0, ready[1].0);
        ready.clear();
        // SAFETY: handed out by this graph, finished once.
        unsafe { graph.finish_task(second, &mut ready) };
        assert!(ready.is_empty(), "task 2 still waits for task 0 in shard 0");
        // SAFETY: handed out by this graph, reported done once, not deleted.
        unsafe { graph.done_task(first, &mut ready) };
        assert_eq!(ready.len(), 1);
        let (id, task) = ready.pop().unwrap();
        assert_eq!(task, 2);
        assert!(matches!(id.0, Location::Many(_)));
        // SAFETY: done above; deleted once. Then task 2: handed out, finished
        // once.
        unsafe {
            graph.delete_task(first);
            graph.finish_task(id, &mut ready);
        }
        assert!(ready.is_empty() && graph.is_empty());
    }

    #[test]
    fn wide_tasks_spill_their_ids_and_group_accesses_on_the_heap() {
        let graph = LockedGraph::<usize>::new(97, 64, &POOL);
        let mut ready = ReadyList::new();
        // 20 accesses (more than the 16 grouped on the stack) in 20 shards
        // (more than the 4 ids kept inline).
        let wide: Vec<(RegionId, AccessMode)> = (0..20).map(|i| (r(i * 3), Out)).collect();
        ready.extend(graph.new_task(&wide, 0));
        ready.extend(graph.new_task(&[(r(57), In), (r(58), In)], 1));
        assert_eq!(ready.len(), 1);
        let (id, task) = ready.pop().unwrap();
        assert_eq!(task, 0);
        // SAFETY: handed out by this graph, finished once.
        unsafe { graph.finish_task(id, &mut ready) };
        let (id, task) = ready.pop().unwrap();
        assert_eq!(task, 1);
        // SAFETY: handed out by this graph, finished once.
        unsafe { graph.finish_task(id, &mut ready) };
        assert!(ready.is_empty() && graph.is_empty());
    }

    #[test]
    fn empty_graphs_return_their_shards_to_the_pool() {
        let pooled = || POOL.with(|pool| pool.borrow().len());
        assert_eq!(pooled(), 0);
        drop(LockedGraph::<usize>::new(97, 4, &POOL));
        assert_eq!(pooled(), 4);
        POOL.with(|pool| {
            // 97 buckets in all: 25 per shard.
            assert!(pool
                .borrow()
                .iter()
                .all(|shard| shard.graph.region_table().bucket_count() == 25));
        });
        // A graph of the same shape takes them all back.
        let graph = LockedGraph::<usize>::new(97, 4, &POOL);
        assert_eq!(pooled(), 0);
        let mut ready = ReadyList::new();
        ready.extend(graph.new_task(&[(r(0), Out), (r(1), Out)], 0));
        let (id, _) = ready.pop().unwrap();
        // SAFETY: handed out by this graph, finished once.
        unsafe { graph.finish_task(id, &mut ready) };
        drop(graph);
        assert_eq!(pooled(), 4);
        // Another shape does not match (49 buckets a shard), and the pool
        // holds two graphs' worth of the dropping graph's shards at most.
        drop(LockedGraph::<usize>::new(97, 2, &POOL));
        assert_eq!(pooled(), 4);
        let (a, b) = (
            LockedGraph::<usize>::new(97, 4, &POOL),
            LockedGraph::<usize>::new(97, 4, &POOL),
        );
        let c = LockedGraph::<usize>::new(97, 4, &POOL);
        drop((a, b, c));
        assert_eq!(pooled(), 8);
    }

    #[test]
    fn a_graph_dropped_with_blocked_tasks_drops_each_payload_once() {
        let payload = Rc::new(());
        let graph = LockedGraph::new(7, 4, &RC_POOL);
        let mut ready = ReadyList::new();
        // Task 0 writes region 0: ready. Task 1 reads regions 0, 1, 2: ready
        // in shards 1 and 2, blocked in shard 0. Task 2 writes region 1:
        // blocked behind task 1 in shard 1.
        ready.extend(graph.new_task(&[(r(0), Out)], Rc::clone(&payload)));
        ready.extend(graph.new_task(&[(r(0), In), (r(1), In), (r(2), In)], Rc::clone(&payload)));
        ready.extend(graph.new_task(&[(r(1), Out)], Rc::clone(&payload)));
        assert_eq!(ready.len(), 1);
        assert_eq!(Rc::strong_count(&payload), 4);
        drop(ready);
        assert_eq!(Rc::strong_count(&payload), 3);
        drop(graph);
        assert_eq!(Rc::strong_count(&payload), 1);
        // Only shard 3 was empty (shard 2 still held task 1, handed out
        // there).
        assert_eq!(RC_POOL.with(|pool| pool.borrow().len()), 1);
    }

    #[test]
    fn shard_counts_out_of_range_are_refused() {
        for shards in [0, MAX_SHARDS + 1] {
            let made = std::panic::catch_unwind(|| LockedGraph::<usize>::new(7, shards, &POOL));
            assert!(made.is_err(), "{shards} shards accepted");
        }
    }
}
