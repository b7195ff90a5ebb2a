//! A job that lives in the frame of the `join` (or `Runtime::run`) that waits
//! for it: the closure, its result and the latch that says the result is
//! there. It sits above `job/mod.rs` and `latch.rs` because it combines them.

use crate::job::JobRef;

use crate::scheduler::latch::Latch;
use crate::trace::{self, AtomicStrandRef, StrandRef};
use crate::unwind::PanicPayload;
use std::cell::{Cell, UnsafeCell};
use std::panic::{self, AssertUnwindSafe};

/// A job that lives on the stack of the frame that waits for it.
///
/// The waiting frame (`join`, `Runtime::run`) does not return before either
/// running the job itself (`run_inline`) or seeing `latch` set, so the
/// pointer in its `JobRef` stays valid for as long as anyone can execute it.
#[repr(C)]
pub(crate) struct StackJob<F, R> {
    /// Whether a `join`'s worker published this job from its latent chain
    /// (`scheduler/latent/join_chain.rs`). First field of a `repr(C)` struct, so that the
    /// publisher, which holds only the type-erased `JobRef`, can set it
    /// ([`mark_published`]). Owner-only: thieves never touch it.
    published: Cell<bool>,
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<Result<R, PanicPayload>>>,
    /// Set after `result` is written by whoever executed the job.
    pub(crate) latch: Latch,
    /// The job's last strand when it ran as a task (`trace`), written
    /// before `latch` is set.
    last_strand: AtomicStrandRef,
}

impl<F, R> StackJob<F, R>
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    pub(crate) fn new(func: F) -> Self {
        StackJob {
            published: Cell::new(false),
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
            latch: Latch::new(),
            last_strand: AtomicStrandRef::new(),
        }
    }

    /// Whether this job was published from its worker's latent chain.
    #[inline(always)]
    pub(crate) fn is_published(&self) -> bool {
        self.published.get()
    }

    /// A reference that a deque can hold, and that any thread holding it may
    /// execute once.
    ///
    /// # Safety
    /// `self` stays alive and in place (not moved, its frame not popped)
    /// until the job has run and set its latch, or until its owner took the
    /// reference back from wherever it published it: the frame that waits
    /// for the job (see the type's documentation) must not return or unwind
    /// before one of the two.
    pub(crate) unsafe fn as_job_ref(&self) -> JobRef {
        // SAFETY: `execute_erased` may run once on any thread while `self`
        // lives in place (this function's contract); F and R are Send.
        unsafe { JobRef::new(self as *const Self as *const (), Self::execute_erased) }
    }

    unsafe fn execute_erased(pointer: *const ()) {
        // SAFETY: `pointer` came from `as_job_ref` on a live `StackJob<F, R>`
        // (JobRef::execute's contract), and the job runs at most once, so no
        // other reference to `func`/`result` is active.
        unsafe {
            let this = &*(pointer as *const Self);
            let func = (*this.func.get()).take().expect("StackJob executed twice");
            let result = panic::catch_unwind(AssertUnwindSafe(func));
            this.last_strand.store(trace::task_finish());
            *this.result.get() = Some(result);
            // After `set` the owner may pop its frame: `this` is not touched again.
            Latch::set(&this.latch);
        }
    }

    /// Runs the job on the current stack, when its owner took it back from the
    /// deque before anyone else could execute it. Panics propagate normally.
    ///
    /// # Safety
    /// The job was taken back from the deque (so no other thread holds its
    /// `JobRef`) and has not run.
    pub(crate) unsafe fn run_inline(&self) -> R {
        // SAFETY: by the contract nobody else can reach `func` now.
        let func = unsafe { (*self.func.get()).take() }.expect("StackJob already executed");
        func()
    }

    /// The job's last strand, once the latch was observed set after it ran
    /// as a task (the profiler's end edge into the joiner).
    pub(crate) fn last_strand(&self) -> StrandRef {
        self.last_strand.load()
    }

    /// The result after the latch was observed set.
    ///
    /// # Safety
    /// The latch is set (so the executing thread has written `result` and
    /// released it), and the result is taken once.
    pub(crate) unsafe fn take_result(&self) -> Result<R, PanicPayload> {
        // SAFETY: by the contract, the writer is done (latch set with Release,
        // observed with Acquire) and nobody else reads it.
        unsafe { (*self.result.get()).take() }.expect("StackJob result missing")
    }
}

/// Marks the `StackJob` behind `job` as published (see `scheduler/latent/join_chain.rs`).
///
/// # Safety
/// `job` came from [`StackJob::as_job_ref`] on a job that is still in place,
/// and the caller is that job's worker (the only thread that touches the
/// flag).
pub(crate) unsafe fn mark_published(job: JobRef) {
    // SAFETY: every `StackJob<F, R>` is `repr(C)` with the flag as its first
    // field, so the job's address is the flag's; it is alive and owner-only
    // (this function's contract).
    unsafe { (*(job.pointer() as *const Cell<bool>)).set(true) };
}
