//! A dataflow scope's graph operations as DAST requests (`new task`, `done
//! task`, `delete task`; see the `dast` module): one interface through which
//! the same operation is executed inline by the worker that submits or
//! finishes a task, by the manager thread, or by an idle worker.
//!
//! The worker-side entry points ([`submit`], [`finish_registered`]) ask
//! the worker's push policy whether to queue a request or to execute it
//! inline; [`GraphRequest::execute`] is what a manager or a draining worker
//! runs for a queued one.
//!
//! # Why a queued request's scope is alive when it executes
//! A request belongs to a task that is counted live in its scope
//! (`LiveCount`) from before its `new` request is made until its `delete`
//! request has executed: the executor of the `delete` uncounts the task as
//! its very last access to the scope, exactly as a worker finishing a task
//! inline does. The scope's frame does not return while a task is live, so
//! every queued request's scope is alive when it executes.

use super::graph_ops::{GraphTaskId, ReadyList};
use super::state::{LiveCount, Shared, TaskRef};
use crate::dast::{time_request, ErasedRequest, Executor, Kind, ReadySink, Request, Route};
use crate::scheduler::worker::WorkerThread;
use crate::trace::{self, StrandRef};
use prescient_graph::{AccessMode, RegionId};
use std::cell::Cell;
use std::ptr;

thread_local! {
    /// A reusable buffer for the tasks a graph operation releases, so that
    /// finishing a task does not allocate.
    static READY: Cell<ReadyList<TaskRef>> = const { Cell::new(Vec::new()) };
}

/// Takes this thread's ready-list buffer (empty; an empty `Vec` if it is in
/// use further up the stack).
fn take_ready_buffer() -> ReadyList<TaskRef> {
    READY.with(Cell::take)
}

/// Gives a drained ready-list buffer back for reuse.
fn return_ready_buffer(ready: ReadyList<TaskRef>) {
    debug_assert!(ready.is_empty());
    READY.with(|cell| cell.set(ready));
}

/// Runs a graph `operation` with this thread's ready-list buffer, then
/// queues every task it released on `sink`, as created by the strand
/// `creator` (the submitter's, or the finished predecessor's last: see
/// `trace`).
///
/// # Safety
/// `operation` appends only tasks the graph handed out under their ids, and
/// their scope is alive.
unsafe fn release_to(
    sink: &dyn ReadySink,
    creator: StrandRef,
    operation: impl FnOnce(&mut ReadyList<TaskRef>),
) {
    let mut ready = take_ready_buffer();
    operation(&mut ready);
    for (id, task) in ready.drain(..) {
        // SAFETY: handed out under `id` (contract); it runs once, from the job.
        sink.dispatch(unsafe { task.into_job(id) }.created_by(creator));
    }
    return_ready_buffer(ready);
}

/// Where a finishing task's worker queues the tasks its finish releases.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Release {
    /// At the end of its deque that the queue policy inserts at: the usual
    /// order.
    Queued,
    /// Where the worker takes its next job (`WorkerThread::push_next`),
    /// whatever the policy: the finish of a task whose bound MPI requests
    /// completed, whose successors are what other ranks wait for
    /// (`task::queue_continuation`).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    Next,
}

/// A worker as the sink of [`Release::Next`] tasks.
struct RunNext<'a>(&'a WorkerThread);

impl ReadySink for RunNext<'_> {
    fn dispatch(&self, job: crate::job::JobRef) {
        self.0.push_next(job);
    }
}

/// How many accesses a new-task request carries without an allocation.
const INLINE_ACCESSES: usize = 4;

/// A new task's accesses, carried by its request.
enum AccessList {
    Inline {
        len: u8,
        items: [(RegionId, AccessMode); INLINE_ACCESSES],
    },
    Boxed(Box<[(RegionId, AccessMode)]>),
}

impl AccessList {
    fn new(accesses: &[(RegionId, AccessMode)]) -> AccessList {
        if accesses.len() <= INLINE_ACCESSES {
            let mut items = [(RegionId(0), AccessMode::In); INLINE_ACCESSES];
            items[..accesses.len()].copy_from_slice(accesses);
            AccessList::Inline {
                len: accesses.len() as u8,
                items,
            }
        } else {
            AccessList::Boxed(accesses.into())
        }
    }

    fn as_slice(&self) -> &[(RegionId, AccessMode)] {
        match self {
            AccessList::Inline { len, items } => &items[..usize::from(*len)],
            AccessList::Boxed(items) => items,
        }
    }
}

/// One graph operation of one scope's task.
enum Operation {
    /// `creator`: the submitter's strand (`trace`).
    New {
        task: TaskRef,
        accesses: AccessList,
        creator: StrandRef,
    },
    /// With the finished task's last strand (`trace`).
    Done(GraphTaskId, StrandRef),
    Delete(GraphTaskId),
}

/// A graph request: an operation and the scope whose graph it applies to.
pub(crate) struct GraphRequest {
    scope: *const Shared,
    operation: Operation,
}

// SAFETY: the scope pointer is an address into a `Sync` scope state that
// outlives the request (module documentation); `TaskRef` is `Send`.
unsafe impl Send for GraphRequest {}

impl Request for GraphRequest {
    /// Executes the operation on the scope's graph; the tasks it releases go
    /// to `sink`. A `delete` then uncounts its task — its last access to the
    /// scope.
    ///
    /// # Safety
    /// The request's task is still counted live in its scope (module
    /// documentation), and the request executes once.
    unsafe fn execute(self, sink: &dyn ReadySink) {
        let shared = self.scope;
        // SAFETY: alive (contract) until a `delete`'s decrement below, after
        // which this reference is not used.
        let scope = unsafe { &*shared };
        match self.operation {
            Operation::New {
                task,
                accesses,
                creator,
            } => {
                let ready = time_request(Kind::New, Executor::Queued, || {
                    scope.graph.new_task(accesses.as_slice(), task)
                });
                if let Some((id, task)) = ready {
                    // SAFETY: the graph handed the task out under `id`; it
                    // runs once, from the job; the scope is alive (above).
                    sink.dispatch(unsafe { task.into_job(id) }.created_by(creator));
                }
            }
            Operation::Done(id, last) => {
                let done = |ready: &mut ReadyList<TaskRef>| {
                    time_request(Kind::Done, Executor::Queued, || {
                        // SAFETY: the graph handed the task out under `id`,
                        // and this is its one done request.
                        unsafe { scope.graph.done_task(id, ready) }
                    })
                };
                // SAFETY: `done_task` appends only tasks the graph handed
                // out; the scope is alive (above).
                unsafe { release_to(sink, last, done) }
            }
            Operation::Delete(id) => {
                time_request(Kind::Delete, Executor::Queued, || {
                    // SAFETY: its done request executed before (FIFO), and
                    // this is its one delete.
                    unsafe { scope.graph.delete_task(id) }
                });
                // SAFETY: the task was live until now; this is its last
                // access to the scope, and we return at once.
                unsafe { LiveCount::decrement(ptr::addr_of!((*shared).live)) };
            }
        }
    }
}

/// Submits a registered task (counted live, boxed as `task`) with its
/// `accesses`: queues its new-task request if the worker's push policy says
/// so, and returns `None`; otherwise returns the task for the caller to
/// register inline (`LockedGraph::new_task`).
///
/// # Safety
/// Called by the scope's owner on its worker; the task is counted live in
/// `scope` (so the scope outlives the request).
pub(crate) unsafe fn submit(
    scope: &Shared,
    task: TaskRef,
    accesses: &[(RegionId, AccessMode)],
) -> Option<TaskRef> {
    let scope_addr = scope as *const Shared as usize;
    WorkerThread::with_current(|worker| {
        let Some(worker) = worker else {
            return Some(task);
        };
        match worker.dast_route_new(scope_addr) {
            Route::Inline => Some(task),
            Route::Push => {
                let request = ErasedRequest::new(GraphRequest {
                    scope,
                    operation: Operation::New {
                        task,
                        accesses: AccessList::new(accesses),
                        creator: trace::fork(),
                    },
                });
                // SAFETY: the task is counted live (contract), so the scope
                // outlives its requests (module documentation).
                unsafe { worker.dast_push_new(scope_addr, request) };
                None
            }
        }
    })
}

/// Reports a finished registered task (handed out under `id`, its last
/// strand `last`) to its scope's graph: `done` then `delete`, each inline or queued as the
/// worker's push policies say. Tasks it releases inline go to this worker's
/// deque (stealable; locality: they read what this task wrote), where
/// `release` says.
///
/// Returns `true` if the task is uncounted already or will be by the
/// executor of its queued `delete` — the caller must not touch the scope
/// again — and `false` if the caller must uncount it (its last access).
///
/// # Safety
/// The graph handed the task out under `id`; it has finished running, is
/// still counted live in `shared`, and is finished once.
pub(crate) unsafe fn finish_registered(
    shared: *const Shared,
    id: GraphTaskId,
    last: StrandRef,
    release: Release,
) -> bool {
    // SAFETY: alive (contract) until the task is uncounted.
    let scope = unsafe { &*shared };
    WorkerThread::with_current(|worker| {
        let route = worker.map_or(Route::Inline, WorkerThread::dast_route_done);
        match (worker, route) {
            (Some(worker), Route::Push) => {
                let done = ErasedRequest::new(GraphRequest {
                    scope: shared,
                    operation: Operation::Done(id, last),
                });
                // SAFETY: the task is live until its delete executes.
                let position = unsafe { worker.dast_push(done) };
                match worker.dast_route_delete(Some(position)) {
                    Route::Push => {
                        let delete = ErasedRequest::new(GraphRequest {
                            scope: shared,
                            operation: Operation::Delete(id),
                        });
                        // SAFETY: the task is live until its delete executes
                        // (the module's lifetime rule, invariant D4 of
                        // `dast`): the delete's executor uncounts it.
                        unsafe { worker.dast_push(delete) };
                        true
                    }
                    Route::Inline => {
                        // The done request has executed (FIFO: it was
                        // completed before this check), so delete may.
                        time_request(Kind::Delete, Executor::Inline, || {
                            // SAFETY: handed out under `id`, done (above),
                            // deleted once.
                            unsafe { scope.graph.delete_task(id) }
                        });
                        false
                    }
                }
            }
            (worker, _) => {
                if let Some(worker) = worker {
                    worker.dast_route_delete(None);
                }
                let next;
                let sink: &dyn ReadySink = match (worker, release) {
                    (Some(worker), Release::Queued) => worker,
                    (Some(worker), Release::Next) => {
                        next = RunNext(worker);
                        &next
                    }
                    (None, _) => &*scope.registry,
                };
                // Done and delete in one lock round trip: timed as `done`.
                let finish = |ready: &mut ReadyList<TaskRef>| {
                    time_request(Kind::Done, Executor::Inline, || {
                        // SAFETY: the graph handed the task out under `id`,
                        // and this is its one finish.
                        unsafe { scope.graph.finish_task(id, ready) }
                    })
                };
                // SAFETY: `finish_task` appends only tasks the graph handed
                // out; the scope is alive (this task is still counted live).
                unsafe { release_to(sink, last, finish) };
                false
            }
        }
    })
}
