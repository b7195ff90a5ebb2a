//! Work items: a type-erased [`JobRef`] that deques hold, and the
//! [`HeapJob`] that owns itself and is freed when it runs (`spawn`, scope and
//! group spawns). The other shape, a job living in the frame that waits for
//! it, is `stack_job::StackJob` (it needs a latch, a layer above).
//!
//! This is the lowest layer of the runtime: it knows nothing about workers.
//! A job's `execute` never unwinds: every job catches the panic of its body and
//! stores or forwards it, so a panic can never tear through a fiber's root.
//! The same goes for every user value the runtime drops on its own account (a
//! detached task's result, a panic payload nobody will see): it is dropped
//! with [`drop_caught`], because its `Drop` is user code too.

use crate::trace::StrandRef;
use parking_lot::Mutex;
use std::any::Any;
use std::panic::{self, AssertUnwindSafe};

/// The payload of a caught panic.
pub(crate) type PanicPayload = Box<dyn Any + Send + 'static>;

/// Drops `value` — a user value the runtime owns, such as a detached task's
/// result or a panic payload that nobody will receive — so that a panic in its
/// `Drop` cannot unwind into the runtime. Returns that panic's payload, if
/// any, for the caller to report (see [`drop_caught`] for the usual choice).
pub(crate) fn try_drop<T>(value: T) -> Result<(), PanicPayload> {
    panic::catch_unwind(AssertUnwindSafe(move || drop(value)))
}

/// Drops `value` like [`try_drop`]; a panic in its `Drop` is reported on
/// stderr and its payload leaked (dropping that payload could panic again,
/// and so on without end).
pub(crate) fn drop_caught<T>(value: T) {
    if let Err(payload) = try_drop(value) {
        report(format_args!(
            "a value dropped by the runtime panicked in its Drop; that panic is ignored"
        ));
        std::mem::forget(payload);
    }
}

/// Stores `payload` in `slot` if it is the first panic; a later one is
/// dropped outside the lock and under `catch_unwind` (its `Drop` is user
/// code). Scopes and task groups propagate only the first panic of their
/// tasks, as rayon's scopes do.
pub(crate) fn keep_first_panic(slot: &Mutex<Option<PanicPayload>>, payload: PanicPayload) {
    let mut first = slot.lock();
    if first.is_none() {
        *first = Some(payload);
        return;
    }
    drop(first);
    drop_caught(payload);
}

/// Writes one `prescient: …` line to stderr, and never panics: a write
/// error (stderr a closed pipe) is ignored, since the runtime has no better
/// place to report to.
///
/// Through `eprintln!`, not a write to `io::stderr()`: the macro's output
/// goes where the test harness captures the thread's output (worker threads
/// inherit their builder's), so a test that provokes a report on purpose
/// keeps it out of the output unless it fails, as it does the panic
/// messages of its own threads. The macro panics when stderr cannot be
/// written; that panic is caught here (a custom panic hook sees it). Where
/// panics abort, a failed write must not abort the process, so the plain
/// write is used.
pub(crate) fn report(message: std::fmt::Arguments<'_>) {
    #[cfg(panic = "unwind")]
    {
        let _ = panic::catch_unwind(AssertUnwindSafe(|| eprintln!("prescient: {message}")));
    }
    #[cfg(not(panic = "unwind"))]
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "prescient: {message}");
    }
}

/// A type-erased pointer to a job and the function that runs it.
///
/// Two `JobRef`s are equal when they point at the same job; `join` uses this to
/// recognise its own child when it takes a job back from its deque.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()),
    /// See [`JobRef::owner`]. A tag names exactly one scope, group or task
    /// handle for as long as the job exists: a scope outlives its jobs (it
    /// waits for them), and a group's or handle's job holds a reference to
    /// the shared state whose address it carries.
    owner: *const (),
    /// The strand that created the job, for the profiler (`trace`);
    /// zero-sized without the `trace` feature.
    creator: StrandRef,
}

impl PartialEq for JobRef {
    /// Jobs are identified by address alone (a live job has one address).
    fn eq(&self, other: &JobRef) -> bool {
        self.pointer == other.pointer
    }
}

impl Eq for JobRef {}

// SAFETY: a JobRef is only created from jobs whose closures are `Send`
// (`StackJob::new` and `HeapJob::new` require it), so running it on another
// thread is sound; the pointer itself is just an address.
unsafe impl Send for JobRef {}
// SAFETY: sharing a `&JobRef` only shares the address; executing requires a copy
// and the `unsafe` contract of `execute`.
unsafe impl Sync for JobRef {}

impl JobRef {
    /// A reference to a job of a kind defined elsewhere in the crate (the
    /// dataflow tasks, which own themselves like a `HeapJob` but carry more).
    ///
    /// # Safety
    /// `execute_fn(pointer)` is sound to call once, on any thread, for as long
    /// as the returned reference may be executed.
    #[inline]
    pub(crate) unsafe fn new(pointer: *const (), execute_fn: unsafe fn(*const ())) -> JobRef {
        JobRef {
            pointer,
            execute_fn,
            owner: std::ptr::null(),
            creator: StrandRef::NONE,
        }
    }

    /// [`new`](Self::new) for a job of the scope, group or task handle at
    /// `owner` (see [`owner`](Self::owner)).
    ///
    /// # Safety
    /// As for `new`; and `owner` names one scope, group or handle for as
    /// long as the job exists.
    #[inline]
    pub(crate) unsafe fn with_owner(
        pointer: *const (),
        execute_fn: unsafe fn(*const ()),
        owner: *const (),
    ) -> JobRef {
        JobRef {
            pointer,
            execute_fn,
            owner,
            creator: StrandRef::NONE,
        }
    }

    /// The job's address (its identity; what `StackJob::mark_published`
    /// casts back).
    #[inline]
    pub(crate) fn pointer(self) -> *const () {
        self.pointer
    }

    /// The scope, task group or task handle the job belongs to (the address
    /// of the scope or of the shared state), or null: what lets a scope's
    /// end, a group's wait or a handle's join recognise its own unstarted
    /// children in the worker's deque.
    #[inline]
    pub(crate) fn owner(self) -> *const () {
        self.owner
    }

    /// The job, created by the strand `creator` (see `trace`): its first
    /// strand records a create edge from it.
    #[inline(always)]
    pub(crate) fn created_by(self, creator: StrandRef) -> JobRef {
        JobRef { creator, ..self }
    }

    /// The strand that created the job ([`created_by`](Self::created_by)).
    #[inline(always)]
    pub(crate) fn creator(self) -> StrandRef {
        self.creator
    }

    /// Runs the job.
    ///
    /// # Safety
    /// Each `JobRef` is executed at most once, and the job it points at is
    /// still alive (a `StackJob`'s frame has not returned; a `HeapJob` has not
    /// run yet).
    #[inline]
    pub(crate) unsafe fn execute(self) {
        // SAFETY: forwarded from this function's contract.
        unsafe { (self.execute_fn)(self.pointer) }
    }
}

/// A job that owns itself on the heap and frees itself when it runs.
pub(crate) struct HeapJob<F> {
    func: F,
}

impl<F> HeapJob<F>
where
    F: FnOnce() + Send,
{
    /// Boxes `func` and returns a reference to it.
    ///
    /// `func` must catch its own panics (it runs inside `execute`, which must
    /// not unwind). It may borrow data shorter than `'static` only if the
    /// caller guarantees the job runs before that data dies (scopes do).
    pub(crate) fn into_job_ref(func: F) -> JobRef {
        Self::into_owned_job_ref(func, std::ptr::null())
    }

    /// [`into_job_ref`](Self::into_job_ref) for a job of the scope, group or
    /// task handle at `owner` (see [`JobRef::owner`]), which outlives the job
    /// or is kept alive by `func`.
    pub(crate) fn into_owned_job_ref(func: F, owner: *const ()) -> JobRef {
        let boxed = Box::new(HeapJob { func });
        JobRef {
            pointer: Box::into_raw(boxed) as *const (),
            execute_fn: Self::execute_erased,
            owner,
            creator: StrandRef::NONE,
        }
    }

    unsafe fn execute_erased(pointer: *const ()) {
        // SAFETY: `pointer` came from `Box::into_raw` in `into_job_ref` and a
        // JobRef executes at most once, so we own the box again.
        let this = unsafe { Box::from_raw(pointer as *mut Self) };
        (this.func)();
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    use super::{JobRef, StrandRef};

    /// A JobRef with an arbitrary address, for deque tests.
    pub(crate) fn job_ref(pointer: *const (), execute_fn: unsafe fn(*const ())) -> JobRef {
        JobRef {
            pointer,
            execute_fn,
            owner: std::ptr::null(),
            creator: StrandRef::NONE,
        }
    }

    /// The address of a JobRef made by `job_ref`.
    pub(crate) fn with_owner(job: JobRef, owner: usize) -> JobRef {
        JobRef {
            owner: owner as *const (),
            ..job
        }
    }

    pub(crate) fn addr(job: JobRef) -> usize {
        job.pointer as usize
    }
}
