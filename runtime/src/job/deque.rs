//! The per-worker task deques, one flavour per [`QueuePolicy`].
//!
//! crossbeam-deque's stealers always take the oldest end, so it expresses two
//! policies: `PF` (insert front, steal back) is its LIFO worker, and
//! insert-back/steal-front is its FIFO worker. We use crossbeam only for `PF`:
//! under the FIFO worker the owner can neither look at the front nor take a
//! specific job back, and the live-stack cap needs exactly that (a joining
//! task at the cap takes its own child back instead of suspending; without it
//! a FIFO policy maps one stack per pending join, without bound). `DEF`
//! (insert back, steal back), insert-back/steal-front and
//! insert-front/steal-front therefore use [`LockedDeque`]: a `VecDeque` behind
//! a per-worker spin lock (`spin_lock.rs`). Thieves only `try_lock` it (a busy lock is a
//! `Retry`, never a wait), so a popular victim does not serialise the thieves
//! behind each other; the owner's lock is uncontended unless a thief is at
//! that very deque, and a thief holds it for a handful of instructions. A spin
//! lock rather than a mutex because it costs the owner one atomic swap per
//! operation (and a plain release store to unlock) instead of two
//! compare-and-swaps, which made a deferred join markedly cheaper
//! (`cargo run --release --example deferred_cost` measures it). The owner's hot path does not touch the deque at all while it is
//! full (lazy task creation in `worker/capacity.rs`), so the lock is paid per real
//! deferred task only.
//!
//! Naming: "front" is where the owner takes from; "newest"/"oldest" follow
//! insertion order.

use crate::job::JobRef;
use crate::params::QueuePolicy;
use crate::spin_lock::SpinLock;
use crossbeam_deque::{Steal, Stealer, Worker};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A deque of our own for the policies crossbeam cannot express.
pub(crate) struct LockedDeque {
    items: SpinLock<VecDeque<JobRef>>,
    /// Length, written under the lock, read without it (`len`).
    len: AtomicUsize,
    /// Whether the owner inserts at the front (`InsertFrontStealFront`) or the
    /// back (`InsertBackStealBack`, `InsertBackStealFront`). The owner always
    /// takes from the front.
    insert_front: bool,
    /// Whether thieves take from the front (`InsertBackStealFront`,
    /// `InsertFrontStealFront`) or the back (`InsertBackStealBack`).
    steal_front: bool,
}

impl LockedDeque {
    fn update_len(&self, items: &VecDeque<JobRef>) {
        self.len.store(items.len(), Ordering::Relaxed);
    }

    fn steal(&self) -> Steal<JobRef> {
        // Look before touching the lock: an empty victim costs a thief one
        // shared read of `len`, and its owner keeps the lock's cache line.
        if self.len.load(Ordering::Relaxed) == 0 {
            return Steal::Empty;
        }
        let Some(mut items) = self.items.try_lock() else {
            return if self.len.load(Ordering::Relaxed) == 0 {
                Steal::Empty
            } else {
                Steal::Retry
            };
        };
        let job = if self.steal_front {
            items.pop_front()
        } else {
            items.pop_back()
        };
        self.update_len(&items);
        match job {
            Some(job) => Steal::Success(job),
            None => Steal::Empty,
        }
    }
}

enum Owner {
    Crossbeam(Worker<JobRef>),
    Locked(Arc<LockedDeque>),
}

/// The owner's end of a worker's deque. Not `Sync`: only the worker thread
/// (any of its fibers) uses it.
pub(crate) struct TaskDeque {
    owner: Owner,
}

/// What the owner found when it looked for the child it is about to wait for.
pub(crate) enum TakeOwn {
    /// The child was in the deque and is now removed: run it inline.
    Taken,
    /// The deque is empty: the child was stolen.
    Empty,
    /// The child is not where the owner can take it: stolen, or (under `PF`)
    /// beneath a newer job the owner must not run on the joiner's behalf.
    NotFound,
}

impl TaskDeque {
    /// A deque for `policy`, and the handle thieves use.
    pub(crate) fn new(policy: QueuePolicy) -> (TaskDeque, DequeStealer) {
        let (owner, stealer) = match policy {
            QueuePolicy::InsertFrontStealBack => {
                let worker = Worker::new_lifo();
                let stealer = worker.stealer();
                (Owner::Crossbeam(worker), StealerInner::Crossbeam(stealer))
            }
            QueuePolicy::InsertBackStealBack
            | QueuePolicy::InsertBackStealFront
            | QueuePolicy::InsertFrontStealFront => {
                let deque = Arc::new(LockedDeque {
                    items: SpinLock::new(VecDeque::new()),
                    len: AtomicUsize::new(0),
                    insert_front: policy == QueuePolicy::InsertFrontStealFront,
                    steal_front: policy != QueuePolicy::InsertBackStealBack,
                });
                (Owner::Locked(deque.clone()), StealerInner::Locked(deque))
            }
        };
        (TaskDeque { owner }, DequeStealer { inner: stealer })
    }

    /// Inserts a job at the policy's insertion end.
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        match &self.owner {
            Owner::Crossbeam(worker) => worker.push(job),
            Owner::Locked(deque) => {
                let mut items = deque.items.lock();
                if deque.insert_front {
                    items.push_front(job);
                } else {
                    items.push_back(job);
                }
                deque.update_len(&items);
            }
        }
    }

    /// Inserts a job where the owner takes its next one, whatever the
    /// policy: the owner runs it before everything queued (a thief may still
    /// take it first). For work that others wait for — the finish of a
    /// dataflow task whose MPI requests completed (`dataflow/task.rs`).
    pub(crate) fn push_next(&self, job: JobRef) {
        match &self.owner {
            // PF: the owner takes the newest, which this job now is.
            Owner::Crossbeam(worker) => worker.push(job),
            // The owner always takes from the front.
            Owner::Locked(deque) => {
                let mut items = deque.items.lock();
                items.push_front(job);
                deque.update_len(&items);
            }
        }
    }

    /// Takes the owner's next job (always from the front).
    pub(crate) fn pop(&self) -> Option<JobRef> {
        match &self.owner {
            Owner::Crossbeam(worker) => worker.pop(),
            Owner::Locked(deque) => {
                let mut items = deque.items.lock();
                let job = items.pop_front();
                deque.update_len(&items);
                job
            }
        }
    }

    /// The joining task claims its own child `job`, under every policy.
    ///
    /// The child is normally the newest job: it was pushed after everything
    /// below it, and every job pushed after it by a join or scope nested in
    /// the joiner's first half was claimed or waited for before that half
    /// returned. Only detached `spawn`s (and group spawns, whose waits may
    /// come later) can sit above it. Both deques find it anyway, searching
    /// from the newest end (crossbeam's `PF` deque past at most
    /// [`LIFO_SEARCH_DEPTH`] newer jobs, see [`take_from_lifo`]); the jobs
    /// above it stay queued, in order.
    pub(crate) fn take_own(&self, job: JobRef) -> TakeOwn {
        match self.take_newest_where(|j| j == job) {
            Search::Found(_) => TakeOwn::Taken,
            Search::Empty => TakeOwn::Empty,
            Search::NotFound => TakeOwn::NotFound,
        }
    }

    /// Takes an unstarted job spawned into the scope, group or task handle
    /// `owner` (see `JobRef::owner`), newest first, for the scope's end, the
    /// group's wait or the handle's join to run inline — its own child, like
    /// `take_own`.
    pub(crate) fn take_owned_by(&self, owner: *const ()) -> Option<JobRef> {
        match self.take_newest_where(|j| j.owner() == owner) {
            Search::Found(job) => Some(job),
            Search::Empty | Search::NotFound => None,
        }
    }

    /// Removes the newest job matching `wanted`: anywhere in a locked deque,
    /// within [`LIFO_SEARCH_DEPTH`] newer jobs in crossbeam's (see
    /// [`take_from_lifo`]). The other jobs stay queued, in order.
    fn take_newest_where(&self, wanted: impl Fn(JobRef) -> bool) -> Search {
        match &self.owner {
            Owner::Crossbeam(worker) => take_from_lifo(worker, wanted),
            Owner::Locked(deque) => {
                let mut items = deque.items.lock();
                if items.is_empty() {
                    return Search::Empty;
                }
                let position = if deque.insert_front {
                    items.iter().position(|&j| wanted(j))
                } else {
                    items.iter().rposition(|&j| wanted(j))
                };
                let Some(job) = position.and_then(|position| items.remove(position)) else {
                    return Search::NotFound;
                };
                deque.update_len(&items);
                Search::Found(job)
            }
        }
    }

    /// The number of jobs in the deque, read from shared state (the owner's
    /// cold resynchronisation path).
    pub(crate) fn len(&self) -> usize {
        match &self.owner {
            Owner::Crossbeam(worker) => worker.len(),
            Owner::Locked(deque) => deque.len.load(Ordering::Relaxed),
        }
    }

    /// Whether the deque is empty.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What a search of the owner's deque for one job found.
enum Search {
    /// The job, now removed from the deque.
    Found(JobRef),
    /// The deque was empty.
    Empty,
    /// The deque holds no such job (any more).
    NotFound,
}

/// How many jobs newer than the wanted one [`take_from_lifo`] looks past.
///
/// Jobs above a joiner's child are detached spawns of the joiner itself
/// (see `take_own`): few in practice. Past this many, the search gives up
/// and the joiner waits as if the child had been stolen — correct, only
/// slower — so that a join whose child really was stolen does not pop and
/// push back a whole deque (up to its capacity) before it waits.
const LIFO_SEARCH_DEPTH: usize = 8;

/// Searches crossbeam's LIFO deque (`PF`) from the newest end for a job
/// matching `wanted`, looking past at most [`LIFO_SEARCH_DEPTH`] newer jobs,
/// and removes it; the jobs above it go back in their order.
///
/// crossbeam's owner can only pop the newest job, so the search pops jobs
/// until it finds the one wanted and pushes the others back, oldest of them
/// first: the deque ends up exactly as before, less that job. Thieves keep
/// stealing the oldest end meanwhile; a job they could have stolen is out of
/// their sight for the few pops it takes (never lost: the owner holds it).
/// Usually the wanted job is the newest, and nothing is popped but it.
fn take_from_lifo(worker: &Worker<JobRef>, wanted: impl Fn(JobRef) -> bool) -> Search {
    let Some(newest) = worker.pop() else {
        return Search::Empty;
    };
    if wanted(newest) {
        return Search::Found(newest);
    }
    let mut newer = [newest; LIFO_SEARCH_DEPTH];
    let mut count = 1;
    let found = loop {
        if count == LIFO_SEARCH_DEPTH {
            break Search::NotFound;
        }
        match worker.pop() {
            None => break Search::NotFound,
            Some(job) if wanted(job) => break Search::Found(job),
            Some(job) => {
                newer[count] = job;
                count += 1;
            }
        }
    };
    // LIFO: pushing the popped jobs back oldest first restores their order.
    for &job in newer[..count].iter().rev() {
        worker.push(job);
    }
    found
}

enum StealerInner {
    Crossbeam(Stealer<JobRef>),
    Locked(Arc<LockedDeque>),
}

/// The thieves' handle to a worker's deque.
pub(crate) struct DequeStealer {
    inner: StealerInner,
}

impl DequeStealer {
    /// Takes a job from the policy's stealing end.
    pub(crate) fn steal(&self) -> Steal<JobRef> {
        match &self.inner {
            StealerInner::Crossbeam(stealer) => stealer.steal(),
            StealerInner::Locked(deque) => deque.steal(),
        }
    }

    /// The number of jobs in the deque (racy; the DAST manager's load
    /// estimate).
    pub(crate) fn len(&self) -> usize {
        match &self.inner {
            StealerInner::Crossbeam(stealer) => stealer.len(),
            StealerInner::Locked(deque) => deque.len.load(Ordering::Relaxed),
        }
    }

    /// Whether the deque looks empty (racy; for idle checks).
    pub(crate) fn is_empty(&self) -> bool {
        match &self.inner {
            StealerInner::Crossbeam(stealer) => stealer.is_empty(),
            StealerInner::Locked(deque) => deque.len.load(Ordering::Relaxed) == 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(n: usize) -> JobRef {
        unsafe fn noop(_: *const ()) {}
        crate::job::tests_support::job_ref(n as *const (), noop)
    }

    /// Pushes 1, 2, 3; returns (owner's order, thief's first).
    fn orders(policy: QueuePolicy) -> (Vec<usize>, usize) {
        let (deque, stealer) = TaskDeque::new(policy);
        for i in 1..=3 {
            deque.push(job(i));
        }
        let stolen = match stealer.steal() {
            Steal::Success(j) => crate::job::tests_support::addr(j),
            _ => panic!("steal failed"),
        };
        let mut owner = Vec::new();
        while let Some(j) = deque.pop() {
            owner.push(crate::job::tests_support::addr(j));
        }
        (owner, stolen)
    }

    #[test]
    fn each_policy_orders_owner_and_thief_as_defined() {
        // DEF: owner oldest first, thief newest.
        assert_eq!(orders(QueuePolicy::InsertBackStealBack), (vec![1, 2], 3));
        // PF: owner newest first, thief oldest.
        assert_eq!(orders(QueuePolicy::InsertFrontStealBack), (vec![3, 2], 1));
        // back/front: owner oldest first, thief oldest.
        assert_eq!(orders(QueuePolicy::InsertBackStealFront), (vec![2, 3], 1));
        // (each line above fails if a policy's owner or thief end is swapped)
        // front/front: owner newest first, thief newest.
        assert_eq!(orders(QueuePolicy::InsertFrontStealFront), (vec![2, 1], 3));
    }

    #[test]
    fn a_job_pushed_next_is_the_owners_next_under_every_policy() {
        for policy in QueuePolicy::ALL {
            let (deque, _stealer) = TaskDeque::new(policy);
            for i in 1..=3 {
                deque.push(job(i));
            }
            deque.push_next(job(9));
            let next = deque.pop().map(crate::job::tests_support::addr);
            assert_eq!(next, Some(9), "{policy:?}");
            // The others keep the policy's order.
            let mut rest = Vec::new();
            while let Some(j) = deque.pop() {
                rest.push(crate::job::tests_support::addr(j));
            }
            let expected = if policy.owner_takes_newest() {
                [3, 2, 1]
            } else {
                [1, 2, 3]
            };
            assert_eq!(rest, expected, "{policy:?}");
        }
    }

    #[test]
    fn take_own_claims_the_newest_job_under_every_policy() {
        for policy in QueuePolicy::ALL {
            let (deque, _stealer) = TaskDeque::new(policy);
            deque.push(job(6));
            deque.push(job(7));
            assert!(matches!(deque.take_own(job(7)), TakeOwn::Taken), "{policy}");
            assert!(
                matches!(deque.take_own(job(7)), TakeOwn::NotFound),
                "{policy}"
            );
            assert!(matches!(deque.take_own(job(6)), TakeOwn::Taken), "{policy}");
            assert!(matches!(deque.take_own(job(6)), TakeOwn::Empty), "{policy}");
            assert_eq!(deque.len(), 0);
        }
    }

    #[test]
    fn take_owned_by_takes_a_scopes_jobs_newest_first() {
        use crate::job::tests_support::{addr, with_owner};
        for policy in QueuePolicy::ALL {
            let (deque, _stealer) = TaskDeque::new(policy);
            deque.push(with_owner(job(1), 100));
            deque.push(with_owner(job(2), 100));
            deque.push(with_owner(job(3), 200));
            let owner = 100 as *const ();
            assert_eq!(deque.take_owned_by(owner).map(addr), Some(2), "{policy}");
            assert_eq!(deque.take_owned_by(owner).map(addr), Some(1), "{policy}");
            assert_eq!(deque.take_owned_by(owner).map(addr), None, "{policy}");
            assert_eq!(deque.len(), 1);
            // The other owner's job stayed.
            assert_eq!(
                deque.take_owned_by(200 as *const ()).map(addr),
                Some(3),
                "{policy}"
            );
        }
    }

    #[test]
    fn take_own_finds_a_child_beneath_newer_jobs_and_keeps_their_order() {
        for policy in QueuePolicy::ALL {
            let (deque, stealer) = TaskDeque::new(policy);
            for i in 1..=4 {
                deque.push(job(i));
            }
            assert!(matches!(deque.take_own(job(2)), TakeOwn::Taken), "{policy}");
            assert!(
                matches!(deque.take_own(job(2)), TakeOwn::NotFound),
                "{policy}"
            );
            assert_eq!(deque.len(), 3, "{policy}");
            // The others are where they were: the owner and a thief see the
            // order the policy defines for jobs 1, 3, 4.
            let stolen = match stealer.steal() {
                Steal::Success(j) => crate::job::tests_support::addr(j),
                _ => panic!("{policy}: nothing to steal"),
            };
            let mut owner = Vec::new();
            while let Some(j) = deque.pop() {
                owner.push(crate::job::tests_support::addr(j));
            }
            let expected = match policy {
                QueuePolicy::InsertBackStealBack => (4, vec![1, 3]),
                QueuePolicy::InsertFrontStealBack => (1, vec![4, 3]),
                QueuePolicy::InsertBackStealFront => (1, vec![3, 4]),
                QueuePolicy::InsertFrontStealFront => (4, vec![3, 1]),
            };
            assert_eq!((stolen, owner), expected, "{policy}");
        }
    }
}
