//! The worker's side of latent joins (`crate::latent`): recording a `join`'s
//! second half, and publishing the oldest recorded one to the deque when a
//! thief asks for work (the `hungry` flag of `registry::ThiefSignals`), when
//! a range loop is asked to split, and — all of them — before the running
//! task suspends. How a join ends is in `wait.rs`.

use super::thread::WorkerThread;
use crate::counters::bump;
use crate::job::JobRef;
use crate::stack_job::mark_published;
use std::sync::atomic::Ordering;

impl WorkerThread {
    /// Records a `join`'s second half `job` as latent (see `latent.rs`)
    /// before the join runs its first half; if a thief asked for work since
    /// the last `join`, publishes the oldest latent join now.
    ///
    /// The common path is a push onto an owner-only vector and two loads and
    /// a compare for the thief's flag.
    ///
    /// # Safety
    /// `job` comes from `StackJob::as_job_ref` on a job that stays in place
    /// until [`end_latent`](Self::end_latent) with it returns, which the
    /// caller's frame guarantees (it calls `end_latent` before it ends, on
    /// every path), and the calling task does not switch fibers in between
    /// except through `wait_until`.
    ///
    /// `answer_hungry` false (an inlined site's kept join, `TaskPath::Kept`)
    /// records without publishing: the site's own checks answer thieves.
    #[inline(always)]
    pub(crate) unsafe fn begin_latent(&self, job: JobRef, answer_hungry: bool) {
        self.latent.push(job);
        if answer_hungry && self.info().signals.hungry.load(Ordering::Relaxed) {
            self.answer_hungry();
        }
    }

    /// A thief found this deque empty: publish the oldest latent join, if
    /// the deque has room (the queue capacity bounds published joins as it
    /// bounds spawns).
    #[cold]
    #[inline(never)]
    fn answer_hungry(&self) {
        self.info().signals.hungry.store(false, Ordering::Relaxed);
        if self.has_room() {
            self.publish_oldest_latent();
        }
    }

    /// Publishes the oldest latent join, if any; whether there was one.
    fn publish_oldest_latent(&self) -> bool {
        let Some(job) = self.latent.take_oldest() else {
            return false;
        };
        // SAFETY: every job in the chain came from `begin_latent`, whose
        // contract keeps it in place until its join ends, which happens only
        // after it left the chain; we are its worker.
        unsafe { mark_published(job) };
        bump(&self.counters().published_joins);
        // The join becomes a fork here, where its second half becomes
        // visible: the running strand is its creator.
        self.push_forked(job);
        true
    }

    /// For a range loop between two chunks (`range.rs`): whether a thief
    /// asked this worker for work and the loop should split its remaining
    /// range, so that the `join` of the split publishes the second half.
    /// When the worker has a latent join already, it publishes that one (the
    /// oldest, larger than anything the loop could split off now) and the
    /// loop goes on; when its deque is full, thieves have work there and the
    /// loop goes on too. The common path is one load of the thief's flag.
    #[inline]
    pub(crate) fn split_requested(&self) -> bool {
        if !self.info().signals.hungry.load(Ordering::Relaxed) {
            return false;
        }
        if !self.latent.is_empty() {
            self.answer_hungry();
            return false;
        }
        self.has_room()
    }

    /// Raises this worker's `hungry` flag as a thief would (tests force
    /// splits and publications with it).
    #[cfg(test)]
    pub(crate) fn ask_for_work(&self) {
        self.info().signals.hungry.store(true, Ordering::Relaxed);
    }

    /// Before the running task suspends: publish every latent join, so that
    /// no unstarted work hides beneath a waiting task (the wait may depend on
    /// it). Ignores the capacity: visibility here is about progress.
    pub(super) fn publish_all_latent(&self) {
        while self.publish_oldest_latent() {}
    }
}
