//! Task-aware MPI (cargo feature `mpi`): a task that waits for an MPI
//! request suspends, and its worker runs other tasks until the request
//! completes — BSC's TAMPI "blocking mode", on the `mpi` crate (rsmpi).
//!
//! ```no_run
//! use mpi::topology::SimpleCommunicator;
//! use mpi::traits::*;
//!
//! let universe = prescient::mpi::initialize().expect("MPI with MPI_THREAD_MULTIPLE");
//! let world = universe.world();
//! let (rank, size) = (world.rank(), world.size());
//! let (left, right) = ((rank + size - 1) % size, (rank + 1) % size);
//! prescient::scope(|s| {
//!     s.spawn(move |_| {
//!         // rsmpi's communicators are not `Send`: a task takes the world
//!         // communicator itself (free).
//!         let world = SimpleCommunicator::world();
//!         let mut received = -1i32;
//!         mpi::request::scope(|scope| {
//!             let receive = world.process_at_rank(left).immediate_receive_into(scope, &mut received);
//!             // Suspends this task, not its worker, until the message is there.
//!             prescient::mpi::wait(receive);
//!         });
//!         assert_eq!(received, left);
//!     });
//!     s.spawn(move |_| {
//!         let world = SimpleCommunicator::world();
//!         mpi::request::scope(|scope| {
//!             prescient::mpi::wait(world.process_at_rank(right).immediate_send(scope, &rank));
//!         });
//!     });
//! });
//! ```
//!
//! # How it works
//!
//! [`wait`] and [`wait_all`] called from a task first test the requests
//! (`MPI_Testall`): if MPI finished them already (a send under the eager
//! limit, a message that arrived before its receive was posted) they return
//! at once. Otherwise they, and [`wait_any`], hand copies of the requests'
//! raw handles to a process-wide table (`pending.rs`) and wait on an
//! [`Event`](crate::Event), which suspends the task. The workers poll the
//! table (`MPI_Testsome` over the whole batch, `MPI_Testany` per any-wait)
//! through the runtime's progress hook (`progress.rs`): idle workers at
//! every spin round, and one of them with a short, growing park timeout
//! (10 µs to 2 ms, with a fine timer) while requests are pending; busy
//! workers between jobs at most every 20–200 µs (50 times what a poll costs:
//! 20 µs over shared memory, about 90 µs over TCP). With no request
//! pending, polling costs a load per job. A completed request's status is
//! stored, the event set, and the task resumes. Called outside any task,
//! they are MPI's own waits.
//!
//! # Binding requests to a dataflow task
//!
//! [`bind`] (TAMPI's non-blocking mode) hands requests to the same table
//! from a dataflow task's body, with a completion that counts down the
//! task's *external events* (`dataflow/external.rs`) instead of waking a
//! waiter: the body returns at once and the worker goes on, but the task
//! is finished — its successors released — only when the requests have
//! completed. Requests MPI finished already (the same `MPI_Testall` first)
//! are not bound at all: the task finishes as if it had bound nothing.
//! When the last request completes, the rest of the task's finish and the
//! tasks it releases are queued where the polling worker takes its next
//! job, ahead of the computation queued there: they are what the other
//! ranks wait for.
//!
//! A dataflow program that submits many iterations at once on few workers
//! per rank should defer its tasks (a runtime `queue_capacity` above the
//! tasks a scope queues at once, see [`dataflow`](crate::dataflow())):
//! under lazy task creation the submitter runs ready tasks inline once 16
//! are queued, and with one worker the communication tasks queued first
//! wait until the whole submission is over. A task that computes data a
//! neighbour needs is best the one that sends it (bound), so that the path
//! from a received halo to the next send is a single task.
//!
//! # Threading
//!
//! The workers make MPI calls from any worker thread, concurrently with the
//! tasks' own calls, so a task may wait only if MPI provides
//! `MPI_THREAD_MULTIPLE`. [`initialize`] asks for it and fails with
//! [`InitError::ThreadLevel`] otherwise; a program that initialised MPI
//! itself can check with [`check_threading`]. A task's wait panics with
//! that explanation when the level is lower.
//!
//! # Shutdown
//!
//! The [`Universe`] that [`initialize`] returns finalises MPI when dropped,
//! after checking that no task still waits for a request: finalising then
//! would leave those tasks suspended forever (and MPI's `MPI_Finalize`
//! waiting for their requests), so it panics with the count instead, and
//! leaves MPI initialised.

mod pending;

use crate::dataflow::external;
use crate::runtime::current_worker_index;
use mpi::environment::Threading;
use mpi::point_to_point::Status;
use mpi::raw::AsRaw;
use mpi::request::{Request, Scope};
use pending::{Completion, REQUESTS};
use std::fmt;
use std::sync::OnceLock;

/// Why [`initialize`] or [`check_threading`] failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InitError {
    /// MPI was initialised already (by the program or an earlier
    /// [`initialize`]); use [`check_threading`] to check its level.
    AlreadyInitialized,
    /// MPI is not initialised.
    NotInitialized,
    /// MPI provides this threading level, not `MPI_THREAD_MULTIPLE`, which
    /// suspending tasks need (the workers poll from any thread).
    ThreadLevel(Threading),
}

impl fmt::Display for InitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InitError::AlreadyInitialized => write!(f, "MPI is already initialised"),
            InitError::NotInitialized => write!(f, "MPI is not initialised"),
            InitError::ThreadLevel(level) => write!(
                f,
                "MPI provides the threading level {level:?}, but prescient::mpi needs \
                 MPI_THREAD_MULTIPLE: the runtime's workers poll requests from any thread \
                 (build or run MPI with thread support, e.g. Open MPI's default build)"
            ),
        }
    }
}

impl std::error::Error for InitError {}

/// MPI, initialised by [`initialize`]; finalised when dropped (see the
/// module docs, *Shutdown*). Dereferences to rsmpi's `Universe`
/// (`universe.world()`).
pub struct Universe {
    inner: Option<mpi::environment::Universe>,
}

impl std::ops::Deref for Universe {
    type Target = mpi::environment::Universe;

    fn deref(&self) -> &Self::Target {
        self.inner
            .as_ref()
            .expect("the universe lives until dropped")
    }
}

impl Drop for Universe {
    fn drop(&mut self) {
        let pending = REQUESTS.len();
        if pending != 0 {
            // Not finalised: `MPI_Finalize` with the requests still active
            // would wait for them, and their tasks would never resume.
            std::mem::forget(self.inner.take());
            if !std::thread::panicking() {
                panic!(
                    "prescient::mpi: MPI finalised while {pending} request(s) are still waited \
                     for by suspended tasks; complete (or cancel and wait for) every request \
                     before dropping the Universe (MPI is left initialised)"
                );
            }
        }
    }
}

/// Initialises MPI with `MPI_THREAD_MULTIPLE`, the level suspending tasks
/// need. Fails if MPI was initialised already, or provides less.
pub fn initialize() -> Result<Universe, InitError> {
    let (universe, level) =
        mpi::initialize_with_threading(Threading::Multiple).ok_or(InitError::AlreadyInitialized)?;
    if level != Threading::Multiple {
        return Err(InitError::ThreadLevel(level));
    }
    Ok(Universe {
        inner: Some(universe),
    })
}

/// Checks that MPI, initialised by the program, provides
/// `MPI_THREAD_MULTIPLE`.
pub fn check_threading() -> Result<(), InitError> {
    if !mpi::environment::is_initialized() {
        return Err(InitError::NotInitialized);
    }
    match mpi::environment::threading_support() {
        Threading::Multiple => Ok(()),
        level => Err(InitError::ThreadLevel(level)),
    }
}

/// Panics with the reason unless tasks may wait for requests (checked once;
/// the level cannot change while MPI is initialised).
fn require_thread_multiple() {
    static CHECKED: OnceLock<Result<(), InitError>> = OnceLock::new();
    if let Err(error) = CHECKED.get_or_init(check_threading) {
        panic!("prescient::mpi: a task cannot wait for MPI requests: {error}");
    }
}

/// Waits for `request` to complete and returns its status. In a task, the
/// task suspends and its worker runs other tasks meanwhile; outside any
/// task, it is `request.wait()`.
///
/// # Panics
/// In a task, if MPI does not provide `MPI_THREAD_MULTIPLE` (see
/// [`check_threading`]).
pub fn wait<'a, D: ?Sized, S: Scope<'a>>(request: Request<'a, D, S>) -> Status {
    wait_all(vec![request])
        .pop()
        .expect("one status per request")
}

/// Waits for every request to complete and returns their statuses, in the
/// order of `requests`. In a task, the task suspends until the last one
/// completes; outside any task, it is MPI's wait on each.
///
/// # Panics
/// In a task, if MPI does not provide `MPI_THREAD_MULTIPLE`.
pub fn wait_all<'a, D: ?Sized, S: Scope<'a>>(requests: Vec<Request<'a, D, S>>) -> Vec<Status> {
    if requests.is_empty() {
        return Vec::new();
    }
    if current_worker_index().is_none() {
        return requests.into_iter().map(Request::wait).collect();
    }
    require_thread_multiple();
    let mut raw: Vec<_> = requests.iter().map(|r| r.as_raw()).collect();
    let statuses = match pending::test_all(&mut raw) {
        // Finished already: no suspension.
        Some(statuses) => statuses,
        None => {
            let completion = Completion::new(raw.len());
            REQUESTS.watch_all(&raw, &completion);
            completion.wait();
            let state = completion.take();
            state
                .statuses
                .into_iter()
                .map(|status| status.expect("every request of an all-wait completed"))
                .collect()
        }
    };
    for request in requests {
        // `MPI_Testall` above or the poller's `MPI_Testsome` completed
        // this request, which freed it; rsmpi's `Request` would otherwise
        // panic in its `Drop`.
        // SAFETY: `into_raw` unregisters the request from its scope; the
        // buffers it borrowed are no longer used by MPI (it completed), so
        // nothing outlives them.
        let _ = unsafe { request.into_raw() };
    }
    statuses.into_iter().map(Status::from_raw).collect()
}

/// Waits for one of `requests` to complete, removes it from the vector and
/// returns its index and status; `None` if no request in the vector is
/// active (e.g. the vector is empty). In a task, the task suspends until
/// then; outside any task, it is `MPI_Waitany`.
///
/// # Panics
/// In a task, if MPI does not provide `MPI_THREAD_MULTIPLE`.
pub fn wait_any<'a, D, S: Scope<'a>>(
    requests: &mut Vec<Request<'a, D, S>>,
) -> Option<(usize, Status)> {
    if requests.is_empty() {
        return None;
    }
    if current_worker_index().is_none() {
        return mpi::request::wait_any(requests);
    }
    require_thread_multiple();
    let raw: Vec<_> = requests.iter().map(|r| r.as_raw()).collect();
    let completion = Completion::new(0);
    REQUESTS.watch_any(raw, &completion);
    completion.wait();
    let (index, status) = completion
        .take()
        .any
        .expect("an any-wait's event is set with its result");
    let index = index?;
    let request = requests.remove(index);
    // SAFETY: the table's first invariant (`pending.rs`): `MPI_Testany`
    // completed the table's copy of this request and freed it, so MPI no
    // longer uses its buffers and the handle must be forgotten, not freed.
    let _ = unsafe { request.into_raw() };
    Some((index, Status::from_raw(status)))
}

/// Binds the completion of the running dataflow task to `requests`
/// (TAMPI's non-blocking mode): the body goes on and returns at once, its
/// worker runs other tasks, and the task counts as finished — its
/// successors in the dependency graph are released, a `df.wait()` returns —
/// only once every request has completed. Called several times, the task
/// waits for all of them.
///
/// ```no_run
/// use mpi::traits::*;
/// # let _universe = prescient::mpi::initialize().unwrap();
/// prescient::dataflow(|df| {
///     let halo = df.data([0.0f64; 64]);
///     df.task(halo.out(), |halo: &mut [f64; 64]| {
///         let world = mpi::topology::SimpleCommunicator::world();
///         mpi::request::scope(|scope| {
///             let receive = world.process_at_rank(0).immediate_receive_into(scope, halo);
///             // SAFETY: the buffer is this task's own `out` data, which
///             // nobody else touches until the task completes (after the
///             // receive).
///             unsafe { prescient::mpi::bind(vec![receive]) };
///         });
///     });
///     df.task(halo.read(), |halo: &[f64; 64]| {
///         // Runs after the message arrived.
///         println!("{}", halo[0]);
///     });
/// });
/// ```
///
/// # Safety
/// MPI keeps writing or reading the requests' buffers after this returns,
/// until they complete. The caller must make sure the buffers stay valid and
/// that nothing but MPI touches them until the task completes. That holds
/// for buffers inside the task's own accesses (the borrows its body
/// received): the runtime keeps them for the task, and does not free them,
/// until its bound requests complete. The requests are taken out of their
/// rsmpi scope (`into_raw`), so the scope no longer checks them.
///
/// # Panics
/// Outside the body of a dataflow task (in a plain task, or on a thread
/// outside any runtime), or if MPI does not provide
/// `MPI_THREAD_MULTIPLE`.
pub unsafe fn bind<'a, D: ?Sized, S: Scope<'a>>(requests: Vec<Request<'a, D, S>>) {
    if requests.is_empty() {
        return;
    }
    require_thread_multiple();
    assert!(
        external::in_task_body(),
        "prescient::mpi::bind: called outside the body of a dataflow task"
    );
    let mut raw: Vec<_> = requests
        .into_iter()
        .map(|request| {
            // SAFETY: the raw handle is completed by the table's poll
            // before the task completes; the caller keeps the buffers valid
            // until then (this function's contract).
            let (raw, _data, _scope) = unsafe { request.into_raw() };
            raw
        })
        .collect();
    if pending::test_all(&mut raw).is_some() {
        // Finished already: the task completes as if it had bound nothing.
        return;
    }
    let events = external::bind_to_current_task().expect("checked above: in a task's body");
    let completion = Completion::bound(raw.len(), events);
    REQUESTS.watch_all(&raw, &completion);
}
