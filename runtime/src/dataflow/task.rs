//! A submitted dataflow task: how it is stored while the graph holds it,
//! how it runs (or is cancelled), and what its worker does when it finishes
//! (report done and delete to the graph, inline or as DAST requests, and
//! uncount itself).
//!
//! # The safety invariant behind `&mut T`
//! A task body receives `&mut T` / `&mut [T]` (for `out`/`inout`) and `&T` /
//! `&[T]` (for `in`) made from raw pointers, in [`execute`] (through
//! `TaskArgs::borrow`). Nothing checks these borrows at run time; they are
//! sound because of the following chain, each link of which is kept by the
//! code named:
//!
//! 1. **The graph's exclusivity** (`prescient_graph::DependencyGraph`, the
//!    invariant at the top of its `graph.rs`): a task is handed out — returned
//!    ready by `new_task` or `done_task` — only when every earlier task of the
//!    scope with a conflicting access to a shared region is done. So two tasks
//!    that are handed out and not done never conflict on a region. A bug
//!    there is undefined behaviour here; that crate forbids `unsafe` and is
//!    tested against a brute-force model.
//! 2. **Bodies run only between hand-out and done**: a registered task's
//!    body runs only on a payload the graph returned ([`TaskRef`] is created
//!    at submission by [`boxed`] and run once, from its hand-out), and [`finish`]
//!    reports the task done only after the body returned — after any
//!    dataflow scope nested in the body ended, since `dataflow` returns only
//!    when its tasks finished. The one task that skips the graph is a task
//!    the owner runs at once at submission ([`run_unregistered`]): it does so
//!    only when its regions' live counts (`count_live` at registration,
//!    `uncount_live` after the body, Release/Acquire) show that no
//!    registered, unfinished task conflicts with it, and it finishes before
//!    the owner — the only thread that submits to the scope — submits
//!    anything else; so no task can conflict with it while it runs, and no
//!    later task needs to wait for it. (If its body bound external events,
//!    the owner registers a bodiless stand-in on its accesses before
//!    submitting anything else, [`boxed_bound`]: later tasks then wait for
//!    the events in the graph, as for a registered task's.)
//! 3. **Regions are values**: each [`Data`](crate::dataflow::Data) handle and each tile
//!    of [`Tiles`](crate::dataflow::Tiles) has its own region id (a per-scope counter),
//!    a handle's value lives in its own allocation, and tiles are disjoint
//!    ranges of one slice. Non-conflicting regions are non-aliasing memory.
//! 4. **One borrow per written region per task**: `access::check_duplicates`
//!    rejects, before submission, a task that names a region twice when
//!    either access writes it; two `in` accesses yield two shared borrows.
//! 5. **No other access path while tasks live**: handles are `!Send` (task
//!    bodies cannot capture them), their values are reachable outside tasks
//!    only through `get_mut`/`into_inner`, which wait until no task of the
//!    scope is live and borrow the handle mutably (no new task on it while the
//!    borrow lasts), and the `'df` brand keeps handles inside their scope.
//! 6. **Borrows end with the task**: the body's borrow lifetime is
//!    higher-ranked (`for<'t>`), so the body cannot store it anywhere that
//!    outlives the call.
//! 7. **Values outlive their tasks**: a handle dropped while tasks are live
//!    is retired to the scope and freed only at its next wait; the scope's
//!    frame returns only after its last task finished (`state::LiveCount`).
//!
//! Tasks that declare no access skip the graph (they conflict with nothing)
//! and receive no borrows.

use super::access::TaskArgs;
#[cfg(feature = "mpi")]
use super::external;
use super::graph_ops::GraphTaskId;
use super::graph_requests::{self, Release};
use super::state::{Header, LiveCount, Shared, TaskRef};
#[cfg(feature = "mpi")]
use crate::job::HeapJob;
use crate::trace::{self, StrandRef};
use std::panic::{self, AssertUnwindSafe};
use std::ptr::{self, NonNull};

/// A task waiting in the graph: its raw accesses and its body, behind the
/// type-erased [`Header`] that a [`TaskRef`] points to.
#[repr(C)]
struct TaskBox<R, F> {
    /// First field (`repr(C)`), so a pointer to the box is a pointer to it.
    header: Header,
    raw: R,
    func: F,
}

/// Boxes a task of the scope `shared` and returns the graph's payload for it.
pub(crate) fn boxed<R, F>(shared: &Shared, raw: R, func: F) -> TaskRef
where
    R: for<'t> TaskArgs<'t> + Send,
    F: for<'t> FnOnce(<R as TaskArgs<'t>>::Args) + Send,
{
    let task = Box::new(TaskBox {
        header: Header::new(run_boxed::<R, F>, shared),
        raw,
        func,
    });
    // SAFETY: `Box::into_raw` is never null; `header` is the first field of a
    // `repr(C)` struct, so the cast is to it; `run_boxed::<R, F>` frees the box
    // with its real type; `R` and `F` are `Send`; the box is owned by nobody
    // else.
    unsafe { TaskRef::from_box(NonNull::new_unchecked(Box::into_raw(task).cast::<Header>())) }
}

/// Runs a boxed task.
///
/// # Safety
/// `header` came from `boxed::<R, F>` and is run once; `TaskRef::run`'s
/// contract holds.
unsafe fn run_boxed<R, F>(header: NonNull<Header>, id: GraphTaskId)
where
    R: for<'t> TaskArgs<'t> + Send,
    F: for<'t> FnOnce(<R as TaskArgs<'t>>::Args) + Send,
{
    // SAFETY: the box was made by `boxed::<R, F>` (contract).
    let task = unsafe { Box::from_raw(header.cast::<TaskBox<R, F>>().as_ptr()) };
    let TaskBox { header, raw, func } = *task;
    // Queued as a job (`TaskRef::into_job` set the id), not run inline by
    // its submitter.
    let as_task = header.is_queued();
    // SAFETY: the graph handed the task out under `id` and its scope is
    // alive (this function's contract: links 1, 2 and 7), what `execute`
    // asks.
    unsafe { execute(header.shared, raw, func, Some(id), as_task) }
}

/// Runs a task's body, or cancels it if data it accesses is poisoned (its
/// own outputs are then poisoned in turn, so its successors are cancelled
/// too). A panic poisons what the task writes and is recorded in the scope.
///
/// # Safety
/// The task may run now: the graph handed it out (or it declares no access,
/// or it runs unregistered on the owner's thread with no conflicting task
/// live); it runs once; the scope and the handles' values are alive.
unsafe fn run_body<R, F>(shared: *const Shared, raw: &mut R, func: F)
where
    R: for<'t> TaskArgs<'t> + Send,
    F: for<'t> FnOnce(<R as TaskArgs<'t>>::Args) + Send,
{
    // SAFETY: the handles' values and states outlive every live task of the
    // scope (module invariant, link 7), and this task is live.
    let outcome = if unsafe { raw.any_poisoned() } {
        // Cancelled. Dropping the body may run user destructors.
        // SAFETY: the handles' states outlive every live task (link 7), and
        // this task is live.
        unsafe { raw.poison_writes() };
        panic::catch_unwind(AssertUnwindSafe(move || drop(func)))
    } else {
        panic::catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: the module invariant: no live task holds a conflicting
            // access to this task's regions, it names each written region
            // once, and the borrow's lifetime ends with the body.
            func(unsafe { raw.borrow() })
        }))
    };
    if let Err(payload) = outcome {
        // SAFETY: the handles' states outlive every live task (link 7), and
        // this task is still live.
        unsafe { raw.poison_writes() };
        // SAFETY: the scope is alive: this task is still live.
        unsafe { (*shared).record_panic(payload) };
    }
}

/// Runs a task the graph handed out under `id` (or, with `id == None`, a
/// task without accesses), then finishes it: see [`finish`]. `as_task`:
/// it runs as a job of its own, not inline in its submitter (`trace`).
///
/// # Safety
/// As for [`run_body`]; the task is counted as live in its scope, and, if
/// registered (`id` is some), counted on its regions (`count_live`).
pub(crate) unsafe fn execute<R, F>(
    shared: *const Shared,
    mut raw: R,
    func: F,
    id: Option<GraphTaskId>,
    as_task: bool,
) where
    R: for<'t> TaskArgs<'t> + Send,
    F: for<'t> FnOnce(<R as TaskArgs<'t>>::Args) + Send,
{
    #[cfg(feature = "mpi")]
    {
        // The body may bind external events (MPI requests) to the task's
        // completion (`external.rs`). Whatever the body did after binding —
        // returned or panicked (`run_body` caught it and poisoned the
        // task's writes) — the events come back here, and the task
        // completes only after them.
        // SAFETY: the task was handed out (or runs unregistered, link 2) and
        // its scope is alive (link 7): this function's contract, which is
        // `run_body`'s.
        let events = external::run_with_slot(|| unsafe { run_body(shared, &mut raw, func) });
        if let Some(events) = events {
            // SAFETY: the task has run once (its body returned or panicked),
            // is still counted live, and this function touches nothing of
            // the scope after: `complete_after`'s contract.
            unsafe { complete_after(shared, raw, id, as_task, events) };
            return;
        }
    }
    #[cfg(not(feature = "mpi"))]
    // SAFETY: the task was handed out (or runs unregistered, link 2) and its
    // scope is alive (link 7): this function's contract, which is
    // `run_body`'s.
    unsafe {
        run_body(shared, &mut raw, func)
    };
    let last = finish_strand(as_task);
    // SAFETY: the task has run once, is still counted live, and touches
    // nothing of the scope after.
    unsafe { complete(shared, raw, id, last, Release::Queued) }
}

/// The rest of a task's finish once its body is over with `events` bound:
/// installs [`complete`] as the events' continuation (queued as a job on
/// the scope's runtime when the last event happens) and drops the body's
/// hold on them. Until then the task stays counted live in its scope and on
/// its regions, so its data is neither handed to another task nor freed.
///
/// # Safety
/// As for [`complete`]: the task has run (or been cancelled) once, is still
/// counted live, is completed once, and the caller does not touch the scope
/// afterwards.
#[cfg(feature = "mpi")]
unsafe fn complete_after<R>(
    shared: *const Shared,
    raw: R,
    id: Option<GraphTaskId>,
    as_task: bool,
    events: BoundEvents,
) where
    R: for<'t> TaskArgs<'t> + Send,
{
    let last = finish_strand(as_task);
    let shared_addr = shared as usize;
    let continuation = move || {
        let job = HeapJob::into_job_ref(move || {
            // SAFETY: the task is still counted live (its finish is
            // what runs here), so its scope and regions are alive;
            // it is finished once.
            unsafe { complete(shared_addr as *const Shared, raw, id, last, Release::Next) }
        });
        // SAFETY: the task is still counted live (its finish is the job
        // just made), so its scope is alive (link 7).
        queue_continuation(unsafe { &*(shared_addr as *const Shared) }, job);
    };
    let continuation: Box<dyn FnOnce() + Send + '_> = Box::new(continuation);
    // Erasing the borrows' lifetime: what the continuation captures
    // (the task's accesses, `R`) borrows the scope's handles.
    // SAFETY: the scope outlives every task counted live in it
    // (link 7), and this task stays counted until the
    // continuation's job has run; the box's layout does not depend
    // on the lifetime.
    let continuation: external::Continuation = unsafe {
        std::mem::transmute::<Box<dyn FnOnce() + Send + '_>, external::Continuation>(continuation)
    };
    external::finish_after(events, continuation);
}

/// Queues the rest of a task's finish whose bound external events have all
/// happened (`external.rs`), on the scope's own runtime: the thread that
/// saw the last event complete may be a worker of another runtime, or none.
///
/// On a worker of the scope's runtime (the usual case: a worker polling
/// MPI between its jobs or while idle) the job goes where that worker takes
/// its next job (`push_next`), whatever the queue policy, and so do the
/// tasks the finish releases (`Release::Next`): they are the tasks that
/// waited for the messages, and what the other ranks wait for in turn. A
/// plain push would queue them behind every job of the deque under the
/// default policy (insert at the back, the owner takes the front): in the
/// heat example at 2 ranks of one worker a halo's consumer then ran a
/// whole wave of interior blocks (about 1.5 ms) after its message was
/// seen (`docs/measurements.md`). The injector would be later still.
#[cfg(feature = "mpi")]
fn queue_continuation(shared: &Shared, job: crate::job::JobRef) {
    if crate::scheduler::worker::is_current(&shared.registry) {
        crate::scheduler::worker::on_worker(|worker| worker.push_next(job));
    } else {
        shared.registry.inject(job);
    }
}

/// Ends the running task's strand (`trace`) if it runs as a job of its
/// own; the strand the graph's `done` reports.
fn finish_strand(as_task: bool) -> StrandRef {
    if as_task {
        trace::task_finish()
    } else {
        StrandRef::NONE
    }
}

/// After the body (and, with bound external events, after those): lets
/// later tasks on the task's regions run, then finishes it.
///
/// # Safety
/// The task has run once and is still counted live (in its scope and, if
/// registered, on its regions); it is completed once, and the caller does
/// not touch the scope afterwards.
unsafe fn complete<R>(
    shared: *const Shared,
    raw: R,
    id: Option<GraphTaskId>,
    last: StrandRef,
    release: Release,
) where
    R: for<'t> TaskArgs<'t> + Send,
{
    if id.is_some() {
        // The body is over: later tasks on these regions may run (Release).
        // SAFETY: the regions' states are alive (the task is still live).
        unsafe { raw.uncount_live() };
    }
    // SAFETY: the task has run once and is still counted live, so its scope
    // is alive (link 7): this function's contract, which is `finish`'s.
    unsafe { finish(shared, id, last, release) }
}

/// What an unregistered task's body bound (`external.rs`): its pending
/// external events (none can exist without the `mpi` feature).
#[cfg(feature = "mpi")]
pub(crate) type BoundEvents = std::sync::Arc<external::ExternalEvents>;
/// What an unregistered task's body bound (`external.rs`): its pending
/// external events (none can exist without the `mpi` feature).
#[cfg(not(feature = "mpi"))]
pub(crate) type BoundEvents = std::convert::Infallible;

/// Runs a ready task at once on the owner's thread without registering it:
/// the submission fast path (see `Dataflow::task`). It is never in the graph
/// and never counted as live, since it finishes before the owner submits
/// anything else — unless its body bound external events (feature `mpi`):
/// then its accesses come back with them, and the submitter registers it
/// after all, as a stand-in without a body that completes once the events
/// happened ([`boxed_bound`]), so that later tasks wait for them in the
/// graph and the scope keeps its data alive — whether the body returned or
/// panicked after binding.
///
/// # Safety
/// Called by the scope's owner thread from submission, with no registered
/// unfinished task conflicting with these accesses (`is_idle` held), so no
/// other task can access these regions until it returns; the handles are
/// alive (borrowed by the caller).
pub(crate) unsafe fn run_unregistered<R, F>(
    shared: &Shared,
    mut raw: R,
    func: F,
) -> Option<(R, BoundEvents)>
where
    R: for<'t> TaskArgs<'t> + Send,
    F: for<'t> FnOnce(<R as TaskArgs<'t>>::Args) + Send,
{
    #[cfg(feature = "mpi")]
    {
        // SAFETY: no registered, unfinished task conflicts with this one
        // (`is_idle`, and the owner is the only submitter: link 2), and the
        // scope is alive (link 7), this function's contract.
        let events = external::run_with_slot(|| unsafe { run_body(shared, &mut raw, func) });
        events.map(|events| (raw, events))
    }
    #[cfg(not(feature = "mpi"))]
    {
        // SAFETY: no registered, unfinished task conflicts with this one
        // (`is_idle`, and the owner is the only submitter: link 2), and the
        // scope is alive (link 7), this function's contract.
        unsafe { run_body(shared, &mut raw, func) };
        None
    }
}

/// Boxes the registered stand-in for a task whose unregistered run
/// ([`run_unregistered`]) bound `events`: a task of the scope `shared` on
/// the same accesses `raw` with no body. When the graph hands it out it
/// does not run anything and cannot be cancelled: it goes straight to
/// `complete_after`, so it completes — and its successors run, and its
/// data may be freed — only after the events happened.
///
/// Why no body, and no cancellation: the unregistered run's body may have
/// panicked after binding, which poisoned these very regions; a stand-in
/// with a body would then be cancelled as a poisoned task, complete at
/// once, and let the scope free data that MPI still writes into.
/// And a body would receive a fresh `&mut T` over a buffer that MPI is
/// writing meanwhile; with none, no borrow of the data is formed until the
/// events happened.
pub(crate) fn boxed_bound<R>(shared: &Shared, raw: R, events: BoundEvents) -> TaskRef
where
    R: for<'t> TaskArgs<'t> + Send,
{
    let task = Box::new(TaskBox {
        header: Header::new(run_bound::<R>, shared),
        raw,
        func: events,
    });
    // SAFETY: as in `boxed`: not null; `header` is the first field of a
    // `repr(C)` struct; `run_bound::<R>` frees the box with its real type;
    // `R` and the events (an `Arc` of a `Sync` state) are `Send`; the box is
    // owned by nobody else.
    unsafe { TaskRef::from_box(NonNull::new_unchecked(Box::into_raw(task).cast::<Header>())) }
}

/// Runs a box made by [`boxed_bound`]: completes the task once its events
/// happened.
///
/// # Safety
/// `header` came from `boxed_bound::<R>` and is run once; `TaskRef::run`'s
/// contract holds.
unsafe fn run_bound<R>(header: NonNull<Header>, id: GraphTaskId)
where
    R: for<'t> TaskArgs<'t> + Send,
{
    // SAFETY: the box was made by `boxed_bound::<R>` (contract).
    let task = unsafe { Box::from_raw(header.cast::<TaskBox<R, BoundEvents>>().as_ptr()) };
    let TaskBox { header, raw, func } = *task;
    #[cfg(feature = "mpi")]
    // SAFETY: the graph handed the task out under `id` and it runs once, so
    // it is counted live in its scope and on its regions (registered), and
    // nothing else completes it.
    unsafe {
        complete_after(header.shared, raw, Some(id), header.is_queued(), func)
    };
    #[cfg(not(feature = "mpi"))]
    {
        let _ = (header, raw, id);
        match func {}
    }
}

/// Reports a finished task to the graph — `done` and `delete`, each inline
/// or queued for the DAST manager as the worker's push policies say (see
/// `graph_requests.rs`) — and uncounts it, its last access to its scope, unless
/// the executor of its queued `delete` will.
///
/// # Safety
/// The task (handed out under `id`, or without accesses and `id == None`) has
/// finished running, its scope is alive, and the caller does not touch the
/// scope afterwards.
unsafe fn finish(
    shared: *const Shared,
    id: Option<GraphTaskId>,
    last: StrandRef,
    release: Release,
) {
    // SAFETY: the scope is alive: the task is still counted live.
    unsafe { (*shared).last_finished.store(last) };
    if let Some(id) = id {
        // SAFETY: the task was handed out under `id`, has finished its body
        // and is still counted live, so its scope is alive (link 7): what
        // `finish_registered` asks.
        if unsafe { graph_requests::finish_registered(shared, id, last, release) } {
            return;
        }
    }
    // SAFETY: the scope is alive until this decrement, and we return at once.
    unsafe { LiveCount::decrement(ptr::addr_of!((*shared).live)) };
}
