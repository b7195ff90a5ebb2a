//! How a task waits for what it depends on. A `join` waits for its second
//! half ([`WorkerThread::end_latent`]), and a scope, group or task handle for
//! its own tasks ([`claim_own`], [`claim_own_then_wait`]); each first runs
//! its own unstarted children inline, as sequential code would — its latent
//! spawns, then the jobs it finds in the deque. What is left to wait for,
//! it waits for through [`WorkerThread::wait_until`] (the task suspends; its
//! worker runs other work) or, off a worker's fibers, by parking the thread
//! ([`wait_for`]).

use super::thread::WorkerThread;
use crate::job::deque::TakeOwn;
use crate::job::JobRef;
use crate::scheduler::fiber::{self, FiberYield, WaitTarget};
use crate::scheduler::latch::{self, Latch, Waitable};
use crate::scheduler::latent::spawn_arena::{run_taken, RunFn, Taken};
use crate::trace;

impl WorkerThread {
    /// `join`'s second half, after its first half: returns `true` if the
    /// caller runs the child inline — it stayed latent, or it was published
    /// and is still unstarted in this worker's deque (its own child: the
    /// joiner claims it under every policy) — and `false` once the child
    /// finished elsewhere (a thief took it; the task suspended meanwhile).
    /// `published` is the child's `StackJob::is_published`.
    #[inline(always)]
    pub(crate) fn end_latent(&self, job: JobRef, published: bool, latch: &Latch) -> bool {
        if !published {
            self.latent.pop_newest(job);
            self.latent_joins_changed();
            return true;
        }
        self.take_back_or_wait(job, latch)
    }

    /// Gets the child `job` done: takes it back and returns `true` (run it
    /// inline) if it is still unstarted in this worker's deque, else waits on
    /// `latch` and returns `false`.
    ///
    /// Claiming the child under every policy is a deliberate departure from
    /// Insieme, whose joiner under insert-back policies suspends here and
    /// lets the worker take its *oldest* job: a fine-grained recursion then
    /// expands breadth-first, every join suspends, and thieves (who take the
    /// newest under `DEF`) get the smallest tasks (docs/measurements.md,
    /// "Claiming one's own child"). The child is the joiner's own dependency, not a
    /// scheduling choice; the policy still decides where new jobs go, which
    /// job the owner takes when it looks for work, and which end thieves
    /// take.
    #[cold]
    #[inline(never)]
    fn take_back_or_wait(&self, job: JobRef, latch: &Latch) -> bool {
        // Published joins are the oldest, and newer ones have ended.
        debug_assert!(
            self.latent.is_empty(),
            "a published join ended before a latent one"
        );
        match self.deque.take_own(job) {
            TakeOwn::Taken => {
                self.note_taken();
                return true;
            }
            TakeOwn::Empty => self.local_len.set(self.latent_spawns.len()),
            TakeOwn::NotFound => {}
        }
        self.wait_until(latch);
        false
    }

    /// Takes an unstarted job of the scope, group or task handle `owner`
    /// back from this worker's deque, for [`claim_own_then_wait`] to run
    /// inline.
    fn claim_owned_by(&self, owner: *const ()) -> Option<JobRef> {
        let job = self.deque.take_owned_by(owner)?;
        self.note_taken();
        Some(job)
    }

    /// Suspends the current task until `waitable` holds; the worker runs other
    /// work meanwhile. Returns at once if it holds.
    ///
    /// Must be called from task code on this worker's thread. Callers whose
    /// condition can become false again (counters) re-check and call again.
    ///
    /// # Panics
    /// If it must wait and the caller does not run on a fiber. Task code
    /// always does; code that may not waits through [`wait_for`], which
    /// parks the thread instead.
    pub(crate) fn wait_until<W: Waitable>(&self, waitable: &W) {
        if waitable.probe() {
            return;
        }
        // Suspending needs the running fiber (`fiber::suspend_current`'s
        // contract, which only debug builds check there). Checked here, on
        // the way to a fiber switch, where one thread-local load and a
        // branch cost nothing that shows; before anything is published, so
        // a failed check leaves the worker as it was.
        assert!(
            !fiber::current_fiber().is_null(),
            "a task may wait only on a fiber"
        );
        self.publish_all_latent();
        // Erase the lifetime: the waitable lives in this task's frame or is
        // kept alive by it, and the frame is suspended (not popped) until the
        // main loop resumes us, which happens only after the waiter is woken.
        let target: *const (dyn WaitTarget + '_) = waitable;
        // SAFETY: transmuting only the trait object's lifetime bound (same
        // layout): the waitable outlives the suspension, since it lives in
        // or is kept alive by this task's frame, suspended until the waiter
        // is woken.
        let target: *const (dyn WaitTarget + 'static) = unsafe { std::mem::transmute(target) };
        let paused = trace::suspend();
        // SAFETY: we run on a fiber (asserted above), this worker's: a fiber
        // runs only under its home worker's main loop, on its thread, and
        // `self` is this thread's worker (`WorkerThread` is `!Sync`, and a
        // thread has one); the waitable outlives the suspension (above).
        unsafe { fiber::suspend_current(FiberYield::Wait { target }) };
        trace::resume(paused);
    }
}

/// One of its own tasks that an owner found to run here.
enum Claimed {
    /// A latent spawn, taken out of the worker's arena.
    Latent(Taken<RunFn>),
    /// A job taken back from the worker's deque.
    Queued(JobRef),
}

/// Runs here, inline and one at a time, the unstarted tasks of `owner` (a
/// scope, group or handle: the tag of its jobs, see `JobRef::owner`) that
/// this worker holds: its latent spawns recorded since `since` (newest
/// first; they are not counted by the owner, so they are looked for
/// first), then — while `queued()` says tasks are pending — its jobs in
/// this worker's deque (its own children, see
/// `WorkerThread::take_back_or_wait`). Returns at the first look that finds
/// neither. Tasks run here may record or push more of the owner's tasks,
/// which the next look finds. Off a worker it does nothing.
pub(crate) fn claim_own(owner: *const (), since: u64, queued: impl Fn() -> bool) {
    loop {
        let claimed = WorkerThread::with_current(|worker| {
            let worker = worker?;
            // Before taking: answering may publish the oldest record, and
            // a taken task must run before the arena is used again.
            worker.answer_if_hungry();
            if let Some(taken) = worker.take_latent_owned_by(owner, since) {
                return Some(Claimed::Latent(taken));
            }
            if !queued() {
                return None;
            }
            worker.claim_owned_by(owner).map(Claimed::Queued)
        });
        match claimed {
            // SAFETY: just taken, and the worker's arena was not used since.
            Some(Claimed::Latent(taken)) => unsafe { run_taken(taken) },
            Some(Claimed::Queued(job)) => {
                // SAFETY: taken out of the deque, so it runs exactly once,
                // here; a scope's, group's or handle's job is alive until it
                // runs.
                trace::run_nested(job.creator(), || unsafe { job.execute() });
            }
            None => return,
        }
    }
}

/// How a group's wait and a handle's join wait for their own tasks: runs
/// the ones this worker holds ([`claim_own`]; `pending` lets the common
/// case — everything claimed, nothing stolen — end without a search of the
/// deque that finds nothing), then waits for `waitable`.
pub(crate) fn claim_own_then_wait<W: Waitable>(
    owner: *const (),
    pending: impl Fn() -> bool,
    waitable: &W,
) {
    claim_own(owner, 0, pending);
    wait_for(waitable);
}

/// Waits until `waitable` holds: suspends the task when called on a worker,
/// parks the thread otherwise. Re-checks after every wake-up.
pub(crate) fn wait_for<W: Waitable>(waitable: &W) {
    while !waitable.probe() {
        WorkerThread::with_current(|worker| match worker {
            Some(worker) if !fiber::current_fiber().is_null() => worker.wait_until(waitable),
            _ => latch::wait_on_thread(waitable),
        });
    }
}
