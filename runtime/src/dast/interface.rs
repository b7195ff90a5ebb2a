//! What DAST executes and where the result goes, as interfaces that keep
//! `dast` below the dataflow code and the scheduler: a graph request is a
//! [`Request`] (implemented by the dataflow layer), erased into a fixed-size
//! [`ErasedRequest`] for the queues, and the tasks an executed request makes
//! ready go to a [`ReadySink`] (implemented by the registry and by a
//! worker). Also the request kinds and executors the `dast-stats` timings
//! are kept by.

use crate::job::JobRef;
use std::mem::MaybeUninit;

/// The request kinds, for the `dast-stats` timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    New = 0,
    Done = 1,
    Delete = 2,
}

/// Who executed a request, for the `dast-stats` timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Executor {
    /// The worker that made it, at once.
    Inline = 0,
    /// From a queue: the manager thread or a draining worker.
    Queued = 1,
}

/// Where the tasks that an executed request made ready go.
pub(crate) trait ReadySink {
    /// Queues a ready task.
    fn dispatch(&self, job: JobRef);
}

/// A graph request that a manager or a worker can execute. Implemented by
/// the dataflow layer; erased into an [`ErasedRequest`] for the queues.
pub(crate) trait Request: Send + Sized {
    /// Executes the request, sending the tasks it makes ready to `sink`.
    ///
    /// # Safety
    /// Called once per request; whatever the request refers to is alive —
    /// each implementation states how its pusher guarantees that.
    unsafe fn execute(self, sink: &dyn ReadySink);
}

/// The words an erased request may occupy.
const REQUEST_WORDS: usize = 14;
type RequestBlob = MaybeUninit<[usize; REQUEST_WORDS]>;

/// A [`Request`] with its type erased: a blob holding the request and the
/// function that executes it. Not executing one leaks the request (a
/// request is always executed; see the module documentation).
pub(crate) struct ErasedRequest {
    execute: unsafe fn(&mut RequestBlob, &dyn ReadySink),
    blob: RequestBlob,
}

// SAFETY: an `ErasedRequest` is only ever built from a `R: Request`, which
// is `Send`, and holds nothing else.
unsafe impl Send for ErasedRequest {}

impl ErasedRequest {
    /// Erases `request`.
    pub(crate) fn new<R: Request>(request: R) -> ErasedRequest {
        const {
            assert!(
                size_of::<R>() <= size_of::<RequestBlob>()
                    && align_of::<R>() <= align_of::<RequestBlob>(),
                "a DAST request does not fit its blob"
            );
        };
        let mut blob = RequestBlob::uninit();
        // SAFETY: the blob is large and aligned enough for `R` (checked at
        // compile time above) and uninitialised, so writing does not drop.
        unsafe { blob.as_mut_ptr().cast::<R>().write(request) };
        ErasedRequest {
            execute: execute_erased::<R>,
            blob,
        }
    }

    /// Executes the request.
    ///
    /// # Safety
    /// As [`Request::execute`] for the erased type.
    pub(crate) unsafe fn execute(mut self, sink: &dyn ReadySink) {
        // SAFETY: `execute` is `execute_erased::<R>` for the `R` that `new`
        // wrote into `blob`; this consumes `self`, so it runs once; and the
        // caller keeps what the request refers to alive until now (this
        // function's `# Safety`, invariant D4 of the module).
        unsafe { (self.execute)(&mut self.blob, sink) }
    }
}

/// Reads the `R` back out of `blob` and executes it.
///
/// # Safety
/// `blob` holds an `R` written by `ErasedRequest::new`, read once; `R`'s
/// `execute` contract holds.
unsafe fn execute_erased<R: Request>(blob: &mut RequestBlob, sink: &dyn ReadySink) {
    // SAFETY: `blob` holds an `R` written by `ErasedRequest::new`, and this
    // is its one read (this function's contract).
    let request = unsafe { blob.as_mut_ptr().cast::<R>().read() };
    // SAFETY: what the request refers to is alive until it is executed
    // (invariant D4 of the module: `R::execute`'s contract, which this
    // function's caller upholds).
    unsafe { request.execute(sink) }
}
