//! `join`: fork two closures, possibly in parallel, and wait for both.
//!
//! `b` becomes a job in this frame and is recorded as *latent* (`scheduler/latent/join_chain.rs`):
//! known to this worker, invisible to thieves. `a` runs; if no worker asked
//! for work meanwhile, `b` is taken off the record and run inline — a few
//! plain stores more than `(a(), b())`. When a thief found this worker's
//! deque empty, the worker's next `join` publishes its oldest latent `b` to
//! the deque, where thieves take it by the queue policy; the `join` that owns
//! a published `b` claims it back if it is still unstarted in its own deque
//! (under every policy) and otherwise suspends until the thief finished it.
//! When the deque already holds `queue_capacity` jobs, nothing can be
//! published, and `join(a, b)` is exactly `(a(), b())`.
//!
//! Each `join` call site is also a spawn site of the inliner (`inlining`):
//! `join_at` by its `#[task_program]` static, `join` by its
//! `#[track_caller]` location. A site the inliner decided to inline runs
//! `(a(), b())` without recording `b`, except at its periodic checks, where
//! it takes the path above once if a thief is hungry (or nothing is
//! recorded for thieves), and times `b` at its sampled executions.

use crate::analysis::SpawnSite;
use crate::inlining::{SiteId, SiteKey};
use crate::runtime::Runtime;
use crate::scheduler::stack_job::StackJob;
use crate::scheduler::worker::{on_worker, TaskPath, WorkerThread};
use crate::unwind::{drop_caught, PanicPayload};
use std::panic::{self, AssertUnwindSafe, Location};

/// Runs `a` and `b`, potentially in parallel, and returns both results.
///
/// A panic in either closure is propagated to the caller once neither is
/// running (`a`'s payload if both panic). When this worker's deque is full,
/// `join` is exactly `(a(), b())`, so there a panic in `a` skips `b`, as in
/// sequential code; when `b` was deferred it runs even if `a` panics.
///
/// Called outside any runtime, it runs in the global runtime.
///
/// Under [`Inlining::Baseline`](crate::tuning::Inlining::Baseline) or
/// [`Inlining::Adaptive`](crate::tuning::Inlining::Adaptive) (the default), the call
/// site is a spawn site of the inliner, identified by its source location:
/// when its `b`s are measured to be too short to be worth a thief, `join` is
/// `(a(), b())` at nearly the cost of the two calls, handing out work only
/// when another worker is hungry.
///
/// # Waiting inside a task
/// If `b` was stolen, the calling task *suspends* until `b` finishes and its
/// worker runs other tasks meanwhile; the task resumes on the same thread.
/// Other tasks therefore interleave on this thread while the join waits: do
/// not hold a `Mutex` guard across `join` that another task on this worker may
/// need (it would hang), and do not rely on set/restore of a thread-local
/// across it (`scoped-tls` style); use [`task_local!`](macro@crate::task_local).
///
/// ```
/// fn fib(n: u64) -> u64 {
///     if n < 2 { return n; }
///     let (a, b) = prescient::join(|| fib(n - 1), || fib(n - 2));
///     a + b
/// }
/// assert_eq!(fib(20), 6765);
/// ```
// Release: `inline(never)`, so that a recursion through `join` is one frame
// per level of this function, with the caller's (small) function inlined
// into the closures: a leaf's test (`n < 2`) then runs here, before the
// recursive call, and a leaf costs no call at all, where inlined into its
// caller `join` made every leaf pay the caller's whole prologue (the
// closures capture the caller's arguments by reference, so the caller
// spills them on entry). Left to LLVM, which of the two happened changed
// with unrelated edits in the calling crate; on one thread fib(37) took
// 0.99 x the sequential time this way and 1.24 x the other (CPU time,
// docs/measurements.md, "The join fast path"). The fast path and the
// routed path are both in this frame. Debug: `inline`, as before.
#[cfg_attr(not(debug_assertions), inline(never))]
#[cfg_attr(debug_assertions, inline)]
#[track_caller]
pub fn join<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let site = SiteKey::Location(Location::caller());
    if WorkerThread::join_inlines_at(site) {
        return (a(), b());
    }
    join_routed(Some(site), a, b)
}

/// [`join`] at an analysed spawn site: `#[task_program]` rewrites the `join`
/// calls it recognises to `join_at(&SITE, a, b)`, where `SITE` is the
/// site's [`SpawnSite`] static: its identity for the analysis (see
/// [`analysis`](crate::analysis)) and for the inliner, which seeds the
/// site's decision from the static effort it carries.
// Release: `inline(never)`, as `join` (see there).
#[cfg_attr(not(debug_assertions), inline(never))]
#[cfg_attr(debug_assertions, inline)]
pub fn join_at<A, B, RA, RB>(site: &'static SpawnSite, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let site = SiteKey::Static(site.slot());
    if WorkerThread::join_inlines_at(site) {
        return (a(), b());
    }
    join_routed(Some(site), a, b)
}

/// A `join` that is no spawn site of its own: the halving joins of the
/// range loop, which split only on request already.
#[inline]
pub(crate) fn join_unrouted<A, B, RA, RB>(a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    join_routed(None, a, b)
}

// `inline(always)`: `join` and `join_at` hold their fast path (an inlined
// site's plain call) and this, the routed path, in one frame, so that the
// caller's recursion is one frame of theirs per level whichever path a
// level takes. Kept out of line, a missed fast path called this function,
// which called the closures, which called the caller: two frames per
// level, and under `Inlining::Never` 70 instructions per join of fib where
// one frame took 41 (callgrind). Debug: inlined too, so that the
// unoptimised frame of this function is not one more frame per join level
// (`tests/tests/stacks/join_frame.rs`).
#[inline(always)]
fn join_routed<A, B, RA, RB>(site: Option<SiteKey>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // `a` and `b` run outside `with_current`'s closure (see there why).
    match WorkerThread::current_task_path(site, true) {
        Some(TaskPath::Deferred) => join_deferred(a, b, true),
        Some(TaskPath::Kept) => join_deferred(a, b, false),
        Some(TaskPath::Plain) => (a(), b()),
        Some(TaskPath::Timed(id, deferred)) => join_timed(id, deferred, a, b),
        // Outside any runtime: join again on a worker of the global runtime.
        None => join_outside(site, a, b),
    }
}

#[cold]
#[inline(never)]
fn join_outside<A, B, RA, RB>(site: Option<SiteKey>, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    Runtime::global().run(|| join_routed(site, a, b))
}

/// A sampled execution: `b` timed wherever it runs (a thief records it in
/// its own worker's table).
#[cold]
#[inline(never)]
fn join_timed<A, B, RA, RB>(id: SiteId, deferred: bool, a: A, b: B) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    let timed_b = move || WorkerThread::timed_sample(id, b);
    if deferred {
        join_deferred(a, timed_b, true)
    } else {
        (a(), timed_b())
    }
}

#[inline(never)]
fn join_deferred<A, B, RA, RB>(a: A, b: B, answer_hungry: bool) -> (RA, RB)
where
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
    RA: Send,
    RB: Send,
{
    // This frame is live during `a`, so in a recursion it is paid once per
    // level: everything that happens after `a` lives in `finish_join`, whose
    // temporaries (in an unoptimised build every one has its own slot) are
    // then not part of the recursive frame.
    let job_b = StackJob::new(b);
    // SAFETY: `job_b` stays in this frame until `finish_join` ends the
    // latent join, on every path: `a`'s panic is caught, and nothing else
    // here unwinds.
    on_worker(|worker| unsafe { worker.begin_latent(job_b.as_job_ref(), answer_hungry) });
    // `b` borrows this frame: even if `a` panics, `b` must be finished or
    // taken back before this frame unwinds.
    let result_a = panic::catch_unwind(AssertUnwindSafe(a));
    // By reference: the recorded `JobRef` points at `job_b` here, so it must
    // not move.
    finish_join(result_a, &job_b)
}

#[cfg_attr(debug_assertions, inline(never))]
#[cfg_attr(not(debug_assertions), inline(always))]
fn finish_join<B, RA, RB>(result_a: Result<RA, PanicPayload>, job_b: &StackJob<B, RB>) -> (RA, RB)
where
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    let published = job_b.is_published();
    // SAFETY: `job_b` is the caller's, in place until this function returns;
    // `end_latent` either takes the job back or returns once its latch is
    // set, and every path below finishes `b` before returning or unwinding.
    let job_ref = unsafe { job_b.as_job_ref() };
    if on_worker(|worker| worker.end_latent(job_ref, published, &job_b.latch)) {
        return match result_a {
            // SAFETY: taken back from the deque, not run yet.
            Ok(ra) => (ra, unsafe { job_b.run_inline() }),
            Err(payload) => run_b_then_unwind(job_b, payload),
        };
    }
    crate::trace::joined(job_b.last_strand());
    // SAFETY: `end_latent` returned false only after the latch is set.
    let result_b = unsafe { job_b.take_result() };
    match (result_a, result_b) {
        (Ok(ra), Ok(rb)) => (ra, rb),
        (Err(payload), other) => unwind_dropping(other, payload),
        (Ok(ra), Err(payload)) => unwind_dropping(ra, payload),
    }
}

/// `a` panicked and `b` was taken back: `b` still runs (the documented
/// contract), but `a`'s panic is the one that propagates. Out of line so that
/// the deferred join's frame — paid once per level of a deep recursion — does
/// not grow by this rare path's unwinding state.
#[cold]
#[inline(never)]
fn run_b_then_unwind<B, RB>(job_b: &StackJob<B, RB>, payload: PanicPayload) -> !
where
    B: FnOnce() -> RB + Send,
    RB: Send,
{
    // SAFETY: the caller took `job_b` back from the deque and did not run it.
    let result_b = panic::catch_unwind(AssertUnwindSafe(|| unsafe { job_b.run_inline() }));
    unwind_dropping(result_b, payload)
}

/// Propagates `payload` after dropping the other half's result — under
/// `catch_unwind`, so that a panic in its `Drop` neither replaces `payload`
/// nor aborts the process by panicking during the unwind.
#[cold]
#[inline(never)]
fn unwind_dropping<T>(other: T, payload: PanicPayload) -> ! {
    drop_caught(other);
    panic::resume_unwind(payload)
}
