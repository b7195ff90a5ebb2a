//! Lazy task creation: whether a new task may be deferred — the deque's room
//! under `queue_capacity`, shared with the latent joins (`reserve`,
//! `reserve_join`) — and pushing deferred jobs.
//!
//! # Lazy task creation
//! `local_len` counts the jobs this worker pushed and has not taken back; it is
//! owner-local (a `Cell`), so checking "is my deque full?" costs a
//! thread-local load and a compare. Steals are invisible to it, so thieves
//! publish them: every successful steal increments the victim's `stolen`
//! count (`ThiefSignals`, on its own cache line). When `local_len` reads full,
//! the owner compares `stolen` with the value it last saw; only if a thief
//! took something since does it re-read the real length (a `#[cold]` path).
//! So a spawn runs inline only when the deque really holds `queue_capacity`
//! jobs, up to a steal racing with the check, and a worker whose deque really
//! is full pays a load, a compare, a counter bump, one more load (of a line
//! that only steals write) and a plain call per spawn. (A periodic re-read
//! instead, say every 64th full read, lets a spawner whose deque thieves
//! emptied run dozens of tasks serially.)
//!
//! `join` does not push at all unless asked: it records its second half as
//! *latent* (`scheduler/latent/join_chain.rs`), and a thief that finds this deque empty raises the
//! worker's `hungry` flag, which makes its next `join` publish the oldest
//! latent half to the deque. Spawns are recorded as latent too
//! (`scheduler/latent/spawn_arena.rs`), and those records count in `local_len` like pushed
//! jobs: what the capacity bounds is the work a worker deferred, visible or
//! not.

use super::thread::WorkerThread;
use crate::counters::bump;
use crate::job::JobRef;
use crate::trace;
use std::sync::atomic::Ordering;

impl WorkerThread {
    /// A spawn found the capacity full while this worker holds latent
    /// spawns: if a thief is hungry or any worker is idle, publish all of
    /// them, oldest first.
    ///
    /// Why all, where a `join` or a spawn below the capacity publishes one:
    /// at the capacity the worker holds more work than it will run soon —
    /// it is about to run a new task inline, for as long as that takes —
    /// and while its records fill the capacity nothing it spawns becomes
    /// visible, so a pool of idle thieves would get one task per spawn of
    /// the owner (docs/measurements.md, "Sharing at a full capacity"). Oldest
    /// first, so that under the policies whose thieves take the oldest
    /// they take the largest; the owner takes the rest back at its waits.
    /// Not only on a raised flag: a thief's flag is consumed by one answer,
    /// and thieves that parked since raise no other (the same section); an
    /// idle worker anywhere means the records are better off visible.
    #[cold]
    #[inline(never)]
    fn share_when_full(&self) {
        let hungry = self.info().signals.hungry.load(Ordering::Relaxed);
        if !hungry && !self.registry.has_idle_workers() {
            return;
        }
        self.info().signals.hungry.store(false, Ordering::Relaxed);
        self.publish_spawns_and_wake();
    }

    /// Counts a task run inline as a plain call because the queue was full
    /// (an owner-written counter: load and store).
    #[inline]
    pub(crate) fn note_inlined(&self) {
        bump(&self.counters().inlined_spawns);
    }

    /// Whether a new task may be deferred (recorded as a latent spawn, or
    /// pushed): the worker holds fewer than `queue_capacity` tasks in its
    /// deque and latent spawns together (`local_len` counts both). When it
    /// may not, the caller runs the task inline as a plain call, and this
    /// counts it as an inlined spawn.
    ///
    /// The full path is: load the local length, compare, load this
    /// worker's published steal count and compare it with the last one seen
    /// (a thief took something: re-read the real length on the cold path),
    /// answer a hungry thief if latent spawns fill the capacity, bump the
    /// inlined counter (a plain load and store of an owner-written atomic).
    #[inline(always)]
    pub(super) fn reserve(&self) -> bool {
        if self.has_room() {
            return true;
        }
        if !self.latent_spawns.is_empty() {
            self.share_when_full();
        }
        self.note_inlined();
        false
    }

    /// Whether a `join` may record its second half as latent: the worker
    /// holds fewer than `queue_capacity` jobs in its deque and latent joins
    /// together, and fewer than `MAX_LATENT_JOINS` latent ones (see
    /// `scheduler/latent/join_chain.rs`, *How many*). When it may not, the join is a plain
    /// `(a(), b())`, counted as an inlined spawn. Latent joins count against
    /// the capacity because they are tasks the worker can still hand out.
    #[inline(always)]
    pub(super) fn reserve_join(&self) -> bool {
        let latent = self.latent.len();
        if latent < self.latent_limit && self.local_len.get() + latent < self.queue_capacity {
            return true;
        }
        if latent >= self.latent_limit {
            self.note_inlined();
            return false;
        }
        let stolen = self.info().signals.stolen.load(Ordering::Relaxed);
        if stolen != self.steals_seen.get() && self.resync_join_room() {
            return true;
        }
        self.note_inlined();
        false
    }

    /// `reserve_join`'s cold path: a steal may have made room in the deque.
    #[cold]
    #[inline(never)]
    fn resync_join_room(&self) -> bool {
        self.resync_room();
        self.local_len.get() + self.latent.len() < self.queue_capacity
    }

    /// Whether the deque holds fewer than `queue_capacity` jobs (up to a
    /// steal racing with the check): `reserve` without counting.
    #[inline(always)]
    pub(super) fn has_room(&self) -> bool {
        if self.local_len.get() < self.queue_capacity {
            return true;
        }
        let stolen = self.info().signals.stolen.load(Ordering::Relaxed);
        stolen != self.steals_seen.get() && self.resync_room()
    }

    /// Re-reads the real length after a steal; whether there is room now.
    #[cold]
    #[inline(never)]
    fn resync_room(&self) -> bool {
        // Acquire pairs with the thieves' Release increments: every steal
        // counted here is visible in the length read below.
        self.steals_seen
            .set(self.info().signals.stolen.load(Ordering::Acquire));
        let real = self.deque.len() + self.latent_spawns.len();
        self.local_len.set(real);
        real < self.queue_capacity
    }

    /// Pushes a job. Wakes a sleeping worker only when workers sleep and none
    /// is awake and idle (rayon's rule): an awake idle worker will find the
    /// job by itself, so during a burst of fine-grained work — where idle
    /// workers spin for [`SPIN_BEFORE_SLEEP`](crate::scheduler::sleep::SPIN_BEFORE_SLEEP) between jobs — no push pays for a
    /// futex call; only the first push after everyone went to sleep does.
    #[inline]
    pub(crate) fn push(&self, job: JobRef) {
        self.local_len.set(self.local_len.get() + 1);
        bump(&self.counters().spawns);
        self.enqueue(job);
    }

    /// Pushes a job where this worker takes its next one (see
    /// `TaskDeque::push_next`), counted and announced as [`push`](Self::push)
    /// does.
    #[inline]
    pub(crate) fn push_next(&self, job: JobRef) {
        self.local_len.set(self.local_len.get() + 1);
        bump(&self.counters().spawns);
        self.deque.push_next(job);
        self.registry.wake_one_if_none_idle();
    }

    /// Pushes a job that is counted already — in `local_len` and in the
    /// `spawns` counter: a latent spawn being published — and wakes a
    /// sleeper as [`push`](Self::push) does.
    #[inline]
    pub(super) fn enqueue(&self, job: JobRef) {
        self.deque.push(job);
        // A missed wake-up costs parallelism, never progress: the owner runs
        // its own deque.
        self.registry.wake_one_if_none_idle();
    }

    /// A latent spawn was recorded: counted like a push (room and the
    /// `spawns` counter).
    #[inline(always)]
    pub(super) fn note_recorded(&self) {
        self.local_len.set(self.local_len.get() + 1);
        bump(&self.counters().spawns);
    }

    /// Pushes `job`, a new job of the running task: pushing a new job is a
    /// fork of the current strand (`trace::fork`), which becomes the job's
    /// creator. [`push`](Self::push) is for jobs whose creator is set
    /// already.
    #[inline]
    pub(crate) fn push_forked(&self, job: JobRef) {
        self.push(job.created_by(trace::fork()));
    }

    pub(super) fn note_taken(&self) {
        self.local_len.set(self.local_len.get().saturating_sub(1));
    }

    /// Pushes `job` as [`push`](Self::push) does, but wakes no worker and
    /// counts no spawn: the unit test in `runtime.rs` forces a missed
    /// wake-up with it.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn push_unannounced(&self, job: JobRef) {
        self.deque.push(job);
        self.local_len.set(self.local_len.get() + 1);
    }
}
