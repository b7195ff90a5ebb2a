//! Work items: a type-erased [`JobRef`] that deques hold, and the two job
//! shapes behind it — a [`StackJob`] that lives in the frame of the `join` (or
//! `Runtime::run`) that waits for it, and a [`HeapJob`] that owns itself and is
//! freed when it runs (`spawn`, scope and group spawns).
//!
//! This is the lowest layer of the runtime: it knows nothing about workers.
//! A job's `execute` never unwinds: every job catches the panic of its body and
//! stores or forwards it, so a panic can never tear through a fiber's root.

use crate::latch::Latch;
use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};

/// The payload of a caught panic.
pub(crate) type PanicPayload = Box<dyn Any + Send + 'static>;

/// A type-erased pointer to a job and the function that runs it.
///
/// Two `JobRef`s are equal when they point at the same job; `join` uses this to
/// recognise its own child when it takes a job back from its deque.
#[derive(Clone, Copy, Debug)]
pub(crate) struct JobRef {
    pointer: *const (),
    execute_fn: unsafe fn(*const ()),
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
    pub(crate) unsafe fn new(pointer: *const (), execute_fn: unsafe fn(*const ())) -> JobRef {
        JobRef {
            pointer,
            execute_fn,
        }
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

/// A job that lives on the stack of the frame that waits for it.
///
/// The waiting frame (`join`, `Runtime::run`) does not return before either
/// running the job itself (`run_inline`) or seeing `latch` set, so the
/// pointer in its `JobRef` stays valid for as long as anyone can execute it.
pub(crate) struct StackJob<F, R> {
    func: UnsafeCell<Option<F>>,
    result: UnsafeCell<Option<Result<R, PanicPayload>>>,
    /// Set after `result` is written by whoever executed the job.
    pub(crate) latch: Latch,
}

impl<F, R> StackJob<F, R>
where
    F: FnOnce() -> R + Send,
    R: Send,
{
    pub(crate) fn new(func: F) -> Self {
        StackJob {
            func: UnsafeCell::new(Some(func)),
            result: UnsafeCell::new(None),
            latch: Latch::new(),
        }
    }

    /// A reference that a deque can hold.
    ///
    /// The caller must keep `self` alive and in place until the job has run
    /// (see the type's documentation).
    pub(crate) fn as_job_ref(&self) -> JobRef {
        JobRef {
            pointer: self as *const Self as *const (),
            execute_fn: Self::execute_erased,
        }
    }

    unsafe fn execute_erased(pointer: *const ()) {
        // SAFETY: `pointer` came from `as_job_ref` on a live `StackJob<F, R>`
        // (JobRef::execute's contract), and the job runs at most once, so no
        // other reference to `func`/`result` is active.
        unsafe {
            let this = &*(pointer as *const Self);
            let func = (*this.func.get()).take().expect("StackJob executed twice");
            let result = panic::catch_unwind(AssertUnwindSafe(func));
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
        let boxed = Box::new(HeapJob { func });
        JobRef {
            pointer: Box::into_raw(boxed) as *const (),
            execute_fn: Self::execute_erased,
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
    use super::JobRef;

    /// A JobRef with an arbitrary address, for deque tests.
    pub(crate) fn job_ref(pointer: *const (), execute_fn: unsafe fn(*const ())) -> JobRef {
        JobRef {
            pointer,
            execute_fn,
        }
    }

    /// The address of a JobRef made by `job_ref`.
    pub(crate) fn addr(job: JobRef) -> usize {
        job.pointer as usize
    }
}
