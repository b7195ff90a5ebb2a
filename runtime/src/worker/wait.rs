//! How a task waits for what it depends on. A `join` waits for its second
//! half ([`WorkerThread::end_latent`]), and a scope, group or task handle for
//! its own tasks ([`claim_own_then_wait`]); each first takes its own
//! unstarted children back from the deque and runs them inline, as
//! sequential code would. What is left to wait for, it waits for through
//! [`WorkerThread::wait_until`] (the task suspends; its worker runs other
//! work) or, off a worker's fibers, by parking the thread ([`wait_for`]).

use super::thread::WorkerThread;
use crate::deque::TakeOwn;
use crate::fiber::{self, FiberYield, WaitTarget};
use crate::job::JobRef;
use crate::latch::{self, Latch, Waitable};
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
    /// newest under `DEF`) get the smallest tasks — `DEF` fib then ran slower
    /// than sequential. The child is the joiner's own dependency, not a
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
            TakeOwn::Empty => self.local_len.set(0),
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
        // SAFETY: transmuting only the trait object's lifetime bound; see above.
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

/// How a scope's end, a group's wait and a handle's join wait for their own
/// tasks: while `pending()` holds, takes the unstarted jobs tagged `owner`
/// (see `JobRef::owner`) back from this worker's deque and runs them inline,
/// one at a time (its own children, see `WorkerThread::take_back_or_wait`);
/// at the first search that finds none, or off a worker, it waits for
/// `waitable` instead. `pending` lets the common case — everything claimed,
/// nothing stolen — end without a search that finds nothing.
pub(crate) fn claim_own_then_wait<W: Waitable>(
    owner: *const (),
    pending: impl Fn() -> bool,
    waitable: &W,
) {
    while pending() {
        let Some(job) =
            WorkerThread::with_current(|worker| worker.and_then(|w| w.claim_owned_by(owner)))
        else {
            break;
        };
        // SAFETY: taken out of the deque, so it runs exactly once, here; a
        // scope's, group's or handle's job is alive until it runs.
        trace::run_nested(job.creator(), || unsafe { job.execute() });
    }
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
