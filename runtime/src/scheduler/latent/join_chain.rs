//! Latent joins: the second halves of `join`s that this worker has not shown
//! to thieves yet — lazy task creation in the original sense (Mohr, Kranz and
//! Halstead, 1991), and the frames chili's heartbeat promotes.
//!
//! # Why
//! A `join(a, b)` that pushes `b` to its deque and takes it back after `a`
//! pays two deque operations (a lock or a fence each) even when no worker is
//! looking for work, which in a fine-grained recursion is nearly always. And
//! claiming `b` back from the deque under every policy keeps the deque short,
//! so lazy task creation's "deque full" test rarely fires: on one thread a
//! fine-grained recursion then deferred most of its joins and ran several
//! times slower than sequential (docs/measurements.md, "Latent joins"). Instead, `join` records `b` here — its job goes
//! on an owner-only stack — and runs `a`. Only when another worker asks for
//! work (it found this worker's deque empty and raised its `hungry` flag, see
//! `registry.rs`) does the worker, at its next `join`, *publish* its oldest
//! latent `b`: push it to its deque, where thieves take it by the queue
//! policy. A `b` that nobody asked for is popped after `a` and run inline:
//! the sequential order, at the cost of a few plain stores. The oldest is
//! published first because it is the largest piece of work the worker can
//! give away (the outermost pending half of its recursion).
//!
//! The protocol and its invariants (J1–J4) are in `README.md`, the
//! `scheduler::latent` module's documentation.
//!
//! # How many
//! A join records its `b` only while the worker holds fewer than
//! `queue_capacity` jobs in its deque and chain together, and fewer than
//! [`MAX_LATENT_JOINS`] in its chain (`WorkerThread::reserve_join`); past
//! that it is a plain `(a(), b())`. So a recursion records only its
//! outermost pending halves — the ones worth publishing — and pays a
//! compare for every join below them.

use crate::job::JobRef;
use std::cell::{Cell, UnsafeCell};

/// The most latent joins a worker records at once, whatever its queue
/// capacity.
///
/// A recorded join costs a few nanoseconds more than a plain call, which a
/// fine-grained recursion pays on every join it records; the records that
/// matter are the oldest, since publication takes those first. The share
/// of joins recorded grows steeply with the limit (for fib, from a fraction
/// of a percent at 4 to most joins at 16, the default capacity, where one
/// thread ran well above its sequential time; docs/measurements.md,
/// "Latent joins"). Eight keeps, in a balanced recursion, the halves of its eight outermost
/// pending levels ready for thieves, from half of the current task down to
/// 1/256 of it; when thieves take one, the next join records again.
pub(crate) const MAX_LATENT_JOINS: usize = 8;

/// A worker's latent joins (see the module docs): `records[base..]` are the
/// unpublished ones, oldest first.
pub(crate) struct LatentChain {
    records: UnsafeCell<Vec<JobRef>>,
    /// Records below `base` were published; reset to 0 whenever the chain
    /// empties by publication.
    base: Cell<usize>,
}

impl LatentChain {
    /// An empty chain with room for `capacity` records before it grows.
    pub(crate) fn with_capacity(capacity: usize) -> LatentChain {
        LatentChain {
            records: UnsafeCell::new(Vec::with_capacity(capacity)),
            base: Cell::new(0),
        }
    }

    /// Runs `f` on the records. `f` is one of this file's few statements,
    /// which call no user code and no other method of the chain.
    #[inline(always)]
    fn with_records<R>(&self, f: impl FnOnce(&mut Vec<JobRef>) -> R) -> R {
        // SAFETY: owner-only (the chain lives in a `!Sync` worker, so one
        // thread), and `f` never reenters the chain (above), so this is the
        // only reference to the vector while it lives.
        f(unsafe { &mut *self.records.get() })
    }

    /// The number of latent (unpublished) joins.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.with_records(|records| records.len()) - self.base.get()
    }

    /// Whether no latent join is recorded.
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Records `job` as the newest latent join.
    #[inline(always)]
    pub(crate) fn push(&self, job: JobRef) {
        self.with_records(|records| records.push(job));
    }

    /// Removes the newest latent join, `job`, whose `join` ends unpublished.
    #[inline(always)]
    pub(crate) fn pop_newest(&self, job: JobRef) {
        let popped = self.with_records(Vec::pop);
        debug_assert!(popped == Some(job), "latent joins popped out of order");
        let _ = job;
    }

    /// Takes the oldest latent join off the chain and returns its job, for
    /// the caller to mark published and push to its deque.
    pub(crate) fn take_oldest(&self) -> Option<JobRef> {
        let base = self.base.get();
        self.with_records(|records| {
            let job = *records.get(base)?;
            if base + 1 == records.len() {
                records.clear();
                self.base.set(0);
            } else {
                self.base.set(base + 1);
            }
            Some(job)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(n: usize) -> JobRef {
        unsafe fn noop(_: *const ()) {}
        crate::job::tests_support::job_ref(n as *const (), noop)
    }

    #[test]
    fn pops_newest_first_and_publishes_oldest_first() {
        let chain = LatentChain::with_capacity(2);
        for i in 1..=3 {
            chain.push(job(i));
        }
        assert_eq!(chain.len(), 3);
        assert_eq!(chain.take_oldest(), Some(job(1)));
        assert_eq!(chain.len(), 2);
        chain.pop_newest(job(3));
        assert_eq!(chain.take_oldest(), Some(job(2)));
        assert!(chain.is_empty());
        assert_eq!(chain.take_oldest(), None);
        // Emptied by publication: starts again from the bottom.
        chain.push(job(4));
        assert_eq!(chain.len(), 1);
        chain.pop_newest(job(4));
        assert!(chain.is_empty());
    }
}
