//! What a deferred task of `spawn` shares with its [`TaskHandle`]: the
//! task's one allocation ([`SpawnJob`]), the job that runs the task into it,
//! and the detaching of a dropped handle's task (`spawn.rs` has the rest).
//!
//! [`TaskHandle`]: crate::TaskHandle
//!
//! The handle and the task share a [`HandleState`]: the task writes the result
//! and then moves the state to `DONE`; the handle either joins (waits on the
//! latch and takes the result) or is dropped, which detaches the task. A
//! detached task's panic goes to the runtime's panic handler — whichever of
//! "task finished" and "handle dropped" happens second delivers it, decided by
//! one atomic swap, so a panic is reported exactly once. A detached task's
//! result is dropped by that same side, under `catch_unwind`: a panic in its
//! `Drop` is the detached task's panic and goes to the handler too.
//!
//! # Invariants (checked by the loom models at the end of `spawn.rs`)
//! * The task writes `result` once, then swaps `state` to `DONE`; the
//!   handle's drop swaps it to `DETACHED`; a `join` never swaps. Each side
//!   swaps at most once, so the side whose swap returns the other's mark
//!   came second, and it alone takes the result; a joined handle never
//!   drops, so its joiner alone takes it. The result is taken — returned or
//!   disposed of — exactly once.
//! * The latch is set only by a task whose swap saw `RUNNING` (its handle
//!   is alive and may wait), after the result is written; a joiner takes
//!   the result only once it sees the latch set.
//! * Both swaps are `AcqRel`. The task's Release half and the drop's
//!   Acquire half order the write of the result before its disposal by a
//!   drop that sees `DONE`. A task that sees `DETACHED` disposes of what it
//!   wrote itself and needs nothing of the handle's: its Acquire half is
//!   not needed for the result. The latch orders the write before a
//!   joiner's take (`latch.rs`).

use crate::job::JobRef;
use crate::scheduler::latch::Latch;
use crate::scheduler::registry::{Registry, RegistryHandle};
use crate::sync::{self, AtomicU8};
use crate::trace::{self, AtomicStrandRef};
use crate::unwind::{try_drop, PanicPayload};
use std::cell::UnsafeCell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::Ordering;
use std::sync::Arc;

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const DETACHED: u8 = 2;

/// The state a deferred task shares with its handle (see the module docs).
pub(super) struct HandleState<T> {
    state: AtomicU8,
    /// A loom cell under `--cfg loom` (`crate::sync`): the models check
    /// that the task's write and the one take are ordered.
    result: sync::UnsafeCell<Option<Result<T, PanicPayload>>>,
    pub(super) latch: Latch,
    /// The runtime, for a detached task's panic: the spawning worker's
    /// `registry_handle` (a count of that worker's, not the registry's).
    registry: Arc<RegistryHandle>,
    /// The task's last strand (`trace`), written before `state` is DONE.
    pub(super) last_strand: AtomicStrandRef,
}

// SAFETY: `result` is written once by the task before `state` becomes DONE
// (AcqRel swap) and read only by the side that observed DONE second; T: Send
// moves the value between those threads.
unsafe impl<T: Send> Sync for HandleState<T> {}
// SAFETY: sending the state sends at most one `T` (the result, written once
// before DONE), which `T: Send` allows; the other fields are `Send`.
unsafe impl<T: Send> Send for HandleState<T> {}

/// A deferred task's one allocation: the state its handle shares, and the
/// closure, taken out when the job runs. The handle sees it as
/// `Arc<dyn SharedState<T>>` (the closure's type is not part of the handle's),
/// the deque as a `JobRef` to the same address, which owns one reference.
struct SpawnJob<T, F> {
    state: HandleState<T>,
    func: UnsafeCell<Option<F>>,
}

// SAFETY: `func` is taken once, by the job's one execution (`execute_spawn_job`),
// and never touched by the handle; `state` is Sync (above); F: Send moves the
// closure to the executing thread.
unsafe impl<T: Send, F: Send> Sync for SpawnJob<T, F> {}

/// What a handle reaches through its shared allocation, whatever the
/// closure's type.
pub(super) trait SharedState<T>: Send + Sync {
    /// The state the handle shares with the task.
    fn state(&self) -> &HandleState<T>;
}

impl<T: Send, F: Send> SharedState<T> for SpawnJob<T, F> {
    fn state(&self) -> &HandleState<T> {
        &self.state
    }
}

impl<T> HandleState<T> {
    /// Takes the result.
    ///
    /// # Safety
    /// The state is DONE, observed with Acquire, and the caller is the only
    /// one that takes it (the joiner, or whichever of task/handle-drop came
    /// second).
    pub(super) unsafe fn take(&self) -> Result<T, PanicPayload> {
        // SAFETY: the state is DONE, seen with Acquire, so the task's one
        // write of `result` happened before; and the caller is the one side
        // that takes it (this function's contract: the second to see DONE).
        self.result
            .with_mut(|result| unsafe { (*result).take() })
            .expect("task result missing")
    }
}

/// Detaches the deferred task of `shared`: whichever of "task finished"
/// and this comes second disposes of the result.
pub(super) fn detach_shared<T>(shared: Arc<dyn SharedState<T>>) {
    let state = shared.state();
    if state.state.swap(DETACHED, Ordering::AcqRel) == DONE {
        // SAFETY: DONE observed with Acquire; the task no longer touches
        // the result, and the handle is gone, so we are the only taker.
        let result = unsafe { state.take() };
        drop_detached_result(&state.registry, result);
    }
}

/// The shared state and the job of a deferred task, in one allocation; the
/// job is tagged with the allocation's address so that the handle's `join`
/// can claim it.
pub(super) fn deferred<F, T>(
    registry: &Arc<RegistryHandle>,
    f: F,
) -> (Arc<dyn SharedState<T>>, JobRef)
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let job = Arc::new(SpawnJob {
        state: HandleState {
            state: AtomicU8::new(RUNNING),
            result: sync::UnsafeCell::new(None),
            latch: Latch::new(),
            registry: registry.clone(),
            last_strand: AtomicStrandRef::new(),
        },
        func: UnsafeCell::new(Some(f)),
    });
    let pointer = Arc::into_raw(job.clone()) as *const ();
    // SAFETY: `execute_spawn_job::<T, F>` on `pointer` takes back the
    // reference `into_raw` leaked; a JobRef executes at most once, and the
    // allocation lives until that reference is dropped.
    let job_ref = unsafe { JobRef::with_owner(pointer, execute_spawn_job::<T, F>, pointer) };
    (job, job_ref)
}

/// Runs a deferred task: the `JobRef` of a [`SpawnJob`].
///
/// # Safety
/// `pointer` came from `Arc::into_raw` in [`deferred`], and this is the
/// job's one execution.
unsafe fn execute_spawn_job<T, F>(pointer: *const ())
where
    F: FnOnce() -> T,
{
    // SAFETY: contract: we own the reference `into_raw` leaked.
    let job = unsafe { Arc::from_raw(pointer as *const SpawnJob<T, F>) };
    // SAFETY: only this execution touches `func` (see `SpawnJob`'s Sync).
    let f = unsafe { (*job.func.get()).take() }.expect("a spawned task runs once");
    run_task(&job.state, f);
    // Dropping `job` runs no user code: the closure is gone, and the result
    // is with the handle or was disposed of by `run_task`.
}

fn run_task<F, T>(state: &HandleState<T>, f: F)
where
    F: FnOnce() -> T,
{
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    state.last_strand.store(trace::task_finish());
    // SAFETY: only the task writes the result, before publishing DONE.
    state
        .result
        .with_mut(|slot| unsafe { *slot = Some(result) });
    if state.state.swap(DONE, Ordering::AcqRel) == DETACHED {
        // SAFETY: DETACHED: the handle is gone and took nothing; we own it.
        let result = unsafe { state.take() };
        drop_detached_result(&state.registry, result);
        return;
    }
    // SAFETY: the latch lives in the allocation whose reference the job
    // holds until after this call; set once.
    unsafe { Latch::set(&state.latch) };
}

/// Disposes of a detached task's result: a panic goes to the panic handler,
/// and so does a panic in the `Drop` of a value it returned (this may run on a
/// worker, where nothing may unwind).
pub(super) fn drop_detached_result<T>(registry: &Registry, result: Result<T, PanicPayload>) {
    let payload = match result {
        Ok(value) => match try_drop(value) {
            Ok(()) => return,
            Err(payload) => payload,
        },
        Err(payload) => payload,
    };
    registry.handle_detached_panic(payload);
}
