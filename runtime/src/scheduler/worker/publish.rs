//! The worker's side of latent joins (`crate::scheduler::latent::join_chain`) and latent spawns
//! (`crate::scheduler::latent::spawn_arena`): recording a `join`'s second half or a spawned
//! task, and publishing the oldest recorded one to the deque when a thief
//! asks for work (the `hungry` flag of `registry::ThiefSignals`), when a
//! range loop is asked to split, and — all of them — before the running
//! task suspends (and, for spawns, after its job ends). How a join ends and
//! how an owner runs its latent spawns are in `wait.rs`.

use super::thread::WorkerThread;
use crate::counters::bump;
use crate::job::JobRef;
use crate::scheduler::fiber;
use crate::scheduler::latent::spawn_arena::{
    publish_taken, LatentSpawns, LatentTask, RunFn, Taken,
};
use crate::scheduler::stack_job::mark_published;
use std::sync::atomic::Ordering;

/// Where a scope's body runs, taken when the scope begins
/// ([`WorkerThread::latent_mark`]): spawns into the scope may be recorded
/// as latent only on that fiber, and the scope's end looks only at records
/// made since.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LatentMark {
    fiber: *const (),
    since: u64,
}

impl LatentMark {
    /// The mark of a scope that never records (its body runs off a worker).
    pub(crate) const NONE: LatentMark = LatentMark {
        fiber: std::ptr::null(),
        since: u64::MAX,
    };

    /// The first record the scope may own.
    pub(crate) fn since(self) -> u64 {
        self.since
    }
}

impl WorkerThread {
    /// Records a `join`'s second half `job` as latent (see `scheduler/latent/join_chain.rs`)
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
        self.latent_joins_changed();
        if answer_hungry && self.info().signals.hungry.load(Ordering::Relaxed) {
            self.answer_hungry();
        }
    }

    /// A thief found this deque empty: publish the oldest latent spawn, or
    /// else the oldest latent join, if the deque has room (the queue
    /// capacity bounds published tasks as it bounds spawns). Spawns first:
    /// a spawned task still latent was recorded before the joins of the
    /// task running now, whenever that task is one of its own owner's
    /// records run at a scope's end — the common case — so it is the larger
    /// piece of work. (Being wrong costs a smaller steal, nothing else.)
    ///
    /// The push's own wake-up is best effort (`Registry::wake_one_if_none_idle`:
    /// no fence, and none when a worker counts as spinning, which on an
    /// oversubscribed machine may be descheduled). Here a thief asked and
    /// has likely parked since, so the answer wakes a sleeper for sure: a
    /// fenced check (`Registry::wake_one_sleeper`), on this cold path only.
    #[cold]
    #[inline(never)]
    pub(super) fn answer_hungry(&self) {
        self.info().signals.hungry.store(false, Ordering::Relaxed);
        if self.has_room() && (self.publish_oldest_spawn() || self.publish_oldest_latent()) {
            self.registry.wake_one_sleeper();
        }
    }

    /// Whether a thief asked this worker for work since it last answered:
    /// then answers it. For an owner running its latent spawns one after
    /// another, which may make no `join` or spawn of its own.
    #[inline(always)]
    pub(crate) fn answer_if_hungry(&self) {
        if self.info().signals.hungry.load(Ordering::Relaxed) {
            self.answer_hungry();
        }
    }

    /// Records `task` of `owner` (a scope, group or handle: the tag of its
    /// jobs) as the newest latent spawn; gives it back when it does not fit
    /// the arena, for the caller to defer it to the deque. Answers a thief
    /// that asked for work since the last `join` or spawn, as
    /// [`begin_latent`](Self::begin_latent) does.
    ///
    /// The caller guarantees what keeps `owner` alive until the record is
    /// resolved (`scheduler/latent/spawn_arena.rs`, *Invariants*), and has reserved room
    /// ([`reserve`](Self::reserve)).
    #[inline(always)]
    pub(crate) fn record_spawn<T: LatentTask>(&self, owner: *const (), task: T) -> Result<(), T> {
        if !LatentSpawns::fits::<T>() {
            return Err(task);
        }
        self.latent_spawns.push(owner, task);
        self.note_recorded();
        self.answer_if_hungry();
        Ok(())
    }

    /// The mark of a scope that begins now on this worker (see
    /// [`LatentMark`]).
    #[inline]
    pub(crate) fn latent_mark(&self) -> LatentMark {
        LatentMark {
            fiber: fiber::current_fiber().cast_const().cast(),
            since: self.latent_spawns.next_seq(),
        }
    }

    /// Whether a spawn into the scope marked `mark` may be recorded here:
    /// the scope's body runs on the running fiber, so the scope's end —
    /// which runs every record of the scope before it returns — is still
    /// ahead on this very stack.
    #[inline(always)]
    pub(crate) fn may_record_for(&self, mark: LatentMark) -> bool {
        !mark.fiber.is_null() && mark.fiber == fiber::current_fiber().cast_const().cast()
    }

    /// Whether this worker recorded a latent spawn since `since` (a
    /// [`LatentMark::since`]): if not, an owner that began then has none.
    #[inline(always)]
    pub(crate) fn recorded_since(&self, since: u64) -> bool {
        self.latent_spawns.next_seq() > since
    }

    /// Takes the newest latent spawn of `owner` recorded since `since`, for
    /// the caller to run (outside any borrow of the worker).
    #[inline]
    pub(crate) fn take_latent_owned_by(
        &self,
        owner: *const (),
        since: u64,
    ) -> Option<Taken<RunFn>> {
        let taken = self.latent_spawns.take_newest_owned_by(owner, since)?;
        self.note_taken();
        Some(taken)
    }

    /// The sequence number the next latent spawn will get: a handle's
    /// identity on this worker (`spawn.rs`).
    #[inline(always)]
    pub(crate) fn next_spawn_seq(&self) -> u64 {
        self.latent_spawns.next_seq()
    }

    /// Takes this worker's latent spawn numbered `seq` (a handle's own
    /// record), if it is still here, for the caller to run (outside any
    /// borrow of the worker).
    #[inline]
    pub(crate) fn take_latent_seq(&self, seq: u64) -> Option<Taken<RunFn>> {
        let taken = self.latent_spawns.take_seq(seq)?;
        self.note_taken();
        Some(taken)
    }

    /// The bytes of this worker's latent spawn numbered `seq`, if it is
    /// still here (a dropped handle marks its record detached there).
    pub(crate) fn latent_spawn_bytes(&self, seq: u64) -> Option<*mut u8> {
        self.latent_spawns.bytes_of(seq)
    }

    /// Publishes the oldest latent spawn, if any; whether there was one. It
    /// was counted when it was recorded, so the push counts nothing.
    pub(super) fn publish_oldest_spawn(&self) -> bool {
        let Some(taken) = self.latent_spawns.take_oldest() else {
            return false;
        };
        // SAFETY: just taken, and nothing used the arena since.
        let job = unsafe { publish_taken(taken) };
        bump(&self.counters().published_spawns);
        self.enqueue(job);
        true
    }

    /// After the running fiber's job ended: publishes the latent spawns it
    /// left — tasks of groups and handles nobody waited for on this
    /// worker, which keep their owners alive themselves (a scope's records
    /// were all run by its end).
    pub(super) fn publish_leftover_spawns(&self) {
        while self.publish_oldest_spawn() {}
    }

    /// Publishes every latent spawn and wakes a sleeper with a fenced check
    /// (see [`answer_hungry`](Self::answer_hungry)): for a worker that has
    /// more work than it runs soon, or whose task polls its own tasks.
    pub(super) fn publish_spawns_and_wake(&self) {
        while self.publish_oldest_spawn() {}
        self.registry.wake_one_sleeper();
    }

    /// Publishes the oldest latent join, if any; whether there was one.
    fn publish_oldest_latent(&self) -> bool {
        let Some(job) = self.latent.take_oldest() else {
            return false;
        };
        self.latent_joins_changed();
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
        if !self.latent.is_empty() || !self.latent_spawns.is_empty() {
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

    /// Before the running task suspends: publish every latent spawn and
    /// join, so that no unstarted work hides beneath a waiting task (the
    /// wait may depend on it). Ignores the capacity: visibility here is
    /// about progress.
    pub(super) fn publish_all_latent(&self) {
        while self.publish_oldest_spawn() {}
        while self.publish_oldest_latent() {}
    }
}

/// For a task that polls its own tasks instead of waiting for them
/// (`TaskHandle::is_finished`, `TaskGroup::pending`): publishes every latent
/// spawn of this thread's worker, if any, so that other workers can run
/// them while the poller spins. Nothing off a worker.
pub(crate) fn publish_latent_spawns() {
    WorkerThread::with_current(|worker| {
        if let Some(worker) = worker.filter(|worker| !worker.latent_spawns.is_empty()) {
            worker.publish_spawns_and_wake();
        }
    });
}
