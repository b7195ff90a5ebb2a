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
//! compare-and-swaps: measured, a deferred join under insert-front/steal-front
//! went from 43 to 24 ns per join (`cargo run --release --example
//! deferred_cost`). The owner's hot path does not touch the deque at all while it is
//! full (lazy task creation in `registry.rs`), so the lock is paid per real
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
    /// come later) can sit above it. The locked deque then finds it anyway,
    /// searching from the newest end; crossbeam's `PF` deque can only pop the
    /// newest, so there the joiner leaves the newer job alone (running an
    /// unrelated task on the joiner's stack could make the join wait for
    /// whatever that task waits for) and waits.
    pub(crate) fn take_own(&self, job: JobRef) -> TakeOwn {
        match &self.owner {
            Owner::Crossbeam(worker) => match worker.pop() {
                None => TakeOwn::Empty,
                Some(newest) if newest == job => TakeOwn::Taken,
                Some(newest) => {
                    // LIFO: pushing back restores the exact order.
                    worker.push(newest);
                    TakeOwn::NotFound
                }
            },
            Owner::Locked(deque) => {
                let mut items = deque.items.lock();
                if items.is_empty() {
                    return TakeOwn::Empty;
                }
                let position = if deque.insert_front {
                    items.iter().position(|&j| j == job)
                } else {
                    items.iter().rposition(|&j| j == job)
                };
                let Some(position) = position else {
                    return TakeOwn::NotFound;
                };
                items.remove(position);
                deque.update_len(&items);
                TakeOwn::Taken
            }
        }
    }

    /// Takes an unstarted job spawned into the scope or group `owner` (see
    /// `JobRef::owner`), newest first, for the scope's end or the group's
    /// wait to run inline — its own child, like `take_own`. The locked deque
    /// finds one anywhere; crossbeam's `PF` deque only looks at the newest
    /// job (and pushes it back if it belongs to someone else).
    pub(crate) fn take_owned_by(&self, owner: *const ()) -> Option<JobRef> {
        match &self.owner {
            Owner::Crossbeam(worker) => {
                let newest = worker.pop()?;
                if newest.owner() == owner {
                    return Some(newest);
                }
                // LIFO: pushing back restores the exact order.
                worker.push(newest);
                None
            }
            Owner::Locked(deque) => {
                let mut items = deque.items.lock();
                let position = if deque.insert_front {
                    items.iter().position(|j| j.owner() == owner)
                } else {
                    items.iter().rposition(|j| j.owner() == owner)
                }?;
                let job = items.remove(position);
                deque.update_len(&items);
                job
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
            let first = deque.take_owned_by(owner).map(addr);
            if policy == QueuePolicy::InsertFrontStealBack {
                // Crossbeam's LIFO deque only looks at the newest (3).
                assert_eq!(first, None, "{policy}");
                assert_eq!(deque.len(), 3);
                continue;
            }
            assert_eq!(first, Some(2), "{policy}");
            assert_eq!(deque.take_owned_by(owner).map(addr), Some(1), "{policy}");
            assert_eq!(deque.take_owned_by(owner).map(addr), None, "{policy}");
            assert_eq!(deque.len(), 1);
        }
        // Under PF the scope's own jobs on top come back newest first.
        let (deque, _stealer) = TaskDeque::new(QueuePolicy::InsertFrontStealBack);
        deque.push(with_owner(job(3), 200));
        deque.push(with_owner(job(1), 100));
        deque.push(with_owner(job(2), 100));
        let owner = 100 as *const ();
        assert_eq!(deque.take_owned_by(owner).map(addr), Some(2));
        assert_eq!(deque.take_owned_by(owner).map(addr), Some(1));
        assert_eq!(deque.take_owned_by(owner).map(addr), None);
    }

    #[test]
    fn take_own_finds_a_child_beneath_a_newer_job_in_a_locked_deque() {
        for policy in QueuePolicy::ALL {
            let (deque, _stealer) = TaskDeque::new(policy);
            deque.push(job(1));
            deque.push(job(2));
            let taken = matches!(deque.take_own(job(1)), TakeOwn::Taken);
            // Crossbeam's LIFO deque (PF) only pops the newest.
            assert_eq!(
                taken,
                policy != QueuePolicy::InsertFrontStealBack,
                "{policy}"
            );
            assert_eq!(deque.len(), if taken { 1 } else { 2 }, "{policy}");
        }
    }
}
