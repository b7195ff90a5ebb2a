//! `spawn`: start a `'static` task and get a [`TaskHandle`] to its result.
//!
//! A task that runs inline (lazy task creation: the deque is full) leaves its
//! result in the handle itself: nothing is allocated or shared. A deferred
//! task is one allocation, a [`SpawnJob`]: the closure and the state the
//! handle shares; the deque holds a `JobRef` to the same address, which is
//! also the tag by which the handle's `join` claims the task back when it is
//! still unstarted in the joiner's deque.
//!
//! The handle and the task share a [`HandleState`]: the task writes the result
//! and then moves the state to `DONE`; the handle either joins (waits on the
//! latch and takes the result) or is dropped, which detaches the task. A
//! detached task's panic goes to the runtime's panic handler — whichever of
//! "task finished" and "handle dropped" happens second delivers it, decided by
//! one atomic swap, so a panic is reported exactly once. A detached task's
//! result is dropped by that same side, under `catch_unwind`: a panic in its
//! `Drop` is the detached task's panic and goes to the handler too.

use crate::analysis::SpawnSite;
use crate::inlining::SiteKey;
use crate::job::JobRef;
use crate::runtime::Runtime;
use crate::scheduler::latch::Latch;
use crate::scheduler::latent::spawn_arena::ReadyJob;
use crate::scheduler::registry::{Registry, RegistryHandle};
use crate::scheduler::worker::{self, on_worker, TaskPath, WorkerThread};
use crate::trace::{self, AtomicStrandRef};
use crate::unwind::{report, try_drop, PanicPayload};
use std::cell::UnsafeCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const DETACHED: u8 = 2;

struct HandleState<T> {
    state: AtomicU8,
    result: UnsafeCell<Option<Result<T, PanicPayload>>>,
    latch: Latch,
    /// The runtime, for a detached task's panic: the spawning worker's
    /// `registry_handle` (a count of that worker's, not the registry's).
    registry: Arc<RegistryHandle>,
    /// The task's last strand (`trace`), written before `state` is DONE.
    last_strand: AtomicStrandRef,
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
trait SharedState<T>: Send + Sync {
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
    unsafe fn take(&self) -> Result<T, PanicPayload> {
        // SAFETY: the state is DONE, seen with Acquire, so the task's one
        // write of `result` happened before; and the caller is the one side
        // that takes it (this function's contract: the second to see DONE).
        unsafe { (*self.result.get()).take() }.expect("task result missing")
    }
}

/// The result of a spawned task, to wait for with [`join`](TaskHandle::join).
///
/// Dropping the handle detaches the task: it still runs, and its panic (if
/// any) goes to the runtime's panic handler.
#[must_use = "dropping a TaskHandle detaches the task"]
pub struct TaskHandle<T> {
    inner: Option<HandleInner<T>>,
}

/// Where a handle's result is.
enum HandleInner<T> {
    /// The task ran inline (lazy task creation): the result is here already,
    /// and nothing was allocated or shared. A panicked task keeps its
    /// runtime, whose panic handler gets the panic if the handle is dropped.
    Ready(Result<T, PanicPayload>, Option<Arc<Registry>>),
    /// The task was deferred: it writes the result into the shared state.
    Shared(Arc<dyn SharedState<T>>),
}

impl<T> fmt::Debug for TaskHandle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskHandle")
            .field("finished", &self.is_finished())
            .finish()
    }
}

impl<T: Send + 'static> TaskHandle<T> {
    /// Waits for the task and returns its result; a panic in the task is
    /// propagated here.
    ///
    /// If the task has not started and sits in this worker's deque, `join`
    /// takes it back and runs it here, as a plain call. If another worker
    /// runs it, `join` inside a task *suspends* the task, not the worker
    /// (see [`join`](fn@crate::join) for what that means for mutex guards and
    /// thread-locals held across the wait); on a plain thread it blocks.
    pub fn join(mut self) -> T {
        let result = match self.inner.take().expect("handle already joined") {
            HandleInner::Ready(result, _) => result,
            HandleInner::Shared(shared) => {
                let state = shared.state();
                // The task's job is tagged with the shared allocation's
                // address, which the handle keeps alive: the tag names this
                // task alone.
                worker::claim_own_then_wait(
                    Arc::as_ptr(&shared) as *const (),
                    || !state.latch.is_set(),
                    &state.latch,
                );
                trace::joined(state.last_strand.load());
                // SAFETY: the latch is set only after the task stored the
                // result and swapped the state to DONE; we hold the handle, so
                // nobody else takes.
                unsafe { state.take() }
            }
        };
        match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    }
}

impl<T> TaskHandle<T> {
    /// Whether the task has finished.
    ///
    /// Each call makes its worker's unstarted tasks visible to other
    /// workers: a spawned task may wait unseen on its spawner's worker until
    /// the spawner joins, waits or spawns again, and a poll loop does none of
    /// those. Every call, not only those answering no: a loop polling this
    /// handle and, say, a flag set by a later spawn of the same task must
    /// not keep that later spawn to itself once this one has finished.
    pub fn is_finished(&self) -> bool {
        worker::publish_latent_spawns();
        match &self.inner {
            Some(HandleInner::Ready(..)) => true,
            Some(HandleInner::Shared(shared)) => shared.state().latch.is_set(),
            None => false,
        }
    }
}

impl<T> Drop for TaskHandle<T> {
    fn drop(&mut self) {
        let shared = match self.inner.take() {
            None => return,
            Some(HandleInner::Ready(result, registry)) => {
                drop_inline_result(result, registry);
                return;
            }
            Some(HandleInner::Shared(shared)) => shared,
        };
        let state = shared.state();
        if state.state.swap(DETACHED, Ordering::AcqRel) == DONE {
            // SAFETY: DONE observed with Acquire; the task no longer touches
            // the result, and the handle is gone, so we are the only taker.
            let result = unsafe { state.take() };
            drop_detached_result(&state.registry, result);
        }
    }
}

/// Starts `f` as a task and returns a handle to its result.
///
/// In a runtime, the task goes to this worker's deque (where other workers
/// may steal it) — or, when the deque already holds `queue_capacity` tasks,
/// runs right away as a plain call before `spawn` returns (lazy task creation,
/// like an undeferred OpenMP task): do not make such a task wait for something
/// the spawner does only after `spawn` returns. Outside any runtime it goes to
/// the global runtime.
///
/// Under [`Inlining::Baseline`](crate::tuning::Inlining::Baseline) or
/// [`Inlining::Adaptive`](crate::tuning::Inlining::Adaptive) (the default), the call
/// site is a spawn site of the inliner, identified by its source location:
/// when its tasks are measured to be too short to be worth the scheduler,
/// they run at once as plain calls too (except, now and then, when another
/// worker is hungry for work).
///
/// ```
/// let handle = prescient::spawn(|| 6 * 7);
/// assert_eq!(handle.join(), 42);
/// ```
#[track_caller]
pub fn spawn<F, T>(f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_routed(Some(SiteKey::Location(Location::caller())), f)
}

fn spawn_routed<F, T>(site: Option<SiteKey>, f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    match WorkerThread::current_task_path(site, false) {
        None => spawn_in(Runtime::global().registry(), f),
        Some(TaskPath::Deferred | TaskPath::Kept) => spawn_here(true, f),
        Some(TaskPath::Plain) => spawn_here(false, f),
        Some(TaskPath::Timed(id, deferred)) => {
            spawn_here(deferred, move || WorkerThread::timed_sample(id, f))
        }
    }
}

/// `spawn` on a worker: defer `f` to this worker's deque, or run it now.
fn spawn_here<F, T>(defer: bool, f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let inner = match defer {
        // `f` runs outside `with_current`'s closure (see there why).
        false => {
            let result = trace::inlined(|| panic::catch_unwind(AssertUnwindSafe(f)));
            // Only a panicked task pays for a reference to its runtime.
            let registry = result
                .is_err()
                .then(|| on_worker(|worker| worker.registry.clone()));
            HandleInner::Ready(result, registry)
        }
        // Latent (`scheduler/latent/spawn_arena.rs`): the handle's `join` on this worker
        // runs it from the arena; the allocation keeps what it needs alive.
        true => on_worker(|worker| {
            let (shared, job) = deferred(&worker.registry_handle, f);
            if let Err(ReadyJob(job)) = worker.record_spawn(job.owner(), ReadyJob(job)) {
                worker.push_forked(job);
            }
            HandleInner::Shared(shared)
        }),
    };
    TaskHandle { inner: Some(inner) }
}

/// [`spawn`] at an analysed spawn site: `#[task_program]` rewrites the
/// `spawn` calls it recognises to `spawn_at(&SITE, f)`, whose static is the
/// site's identity for the inliner (seeded from its static effort).
pub fn spawn_at<F, T>(site: &'static SpawnSite, f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    spawn_routed(Some(SiteKey::Static(site.slot())), f)
}

impl Runtime {
    /// Starts `f` as a task in this runtime (from any thread) and returns a
    /// handle to its result.
    #[track_caller]
    pub fn spawn<F, T>(&self, f: F) -> TaskHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        if worker::is_current(self.registry()) {
            return spawn(f);
        }
        spawn_in(self.registry(), f)
    }
}

fn spawn_in<F, T>(registry: &Arc<Registry>, f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let (shared, job) = deferred(&Arc::new(RegistryHandle(registry.clone())), f);
    registry.inject(job);
    TaskHandle {
        inner: Some(HandleInner::Shared(shared)),
    }
}

/// The shared state and the job of a deferred task, in one allocation; the
/// job is tagged with the allocation's address so that the handle's `join`
/// can claim it.
fn deferred<F, T>(registry: &Arc<RegistryHandle>, f: F) -> (Arc<dyn SharedState<T>>, JobRef)
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let job = Arc::new(SpawnJob {
        state: HandleState {
            state: AtomicU8::new(RUNNING),
            result: UnsafeCell::new(None),
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
    unsafe { *state.result.get() = Some(result) };
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

/// Disposes of the result of an inline task whose handle was dropped, like a
/// detached task's: its panic goes to the panic handler of the runtime it ran
/// in, a panic in the `Drop` of its value to that of the runtime the handle is
/// dropped in (reported on stderr outside any runtime).
fn drop_inline_result<T>(result: Result<T, PanicPayload>, registry: Option<Arc<Registry>>) {
    let registry = registry
        .or_else(|| WorkerThread::with_current(|w| w.map(|worker| worker.registry.clone())));
    match registry {
        Some(registry) => drop_detached_result(&registry, result),
        // A panicked task always kept its runtime: `result` is a value here.
        None => {
            if let Err(payload) = result.and_then(try_drop) {
                report(format_args!(
                    "the result of a dropped task handle panicked in its Drop; that panic is ignored"
                ));
                std::mem::forget(payload);
            }
        }
    }
}

/// Disposes of a detached task's result: a panic goes to the panic handler,
/// and so does a panic in the `Drop` of a value it returned (this may run on a
/// worker, where nothing may unwind).
fn drop_detached_result<T>(registry: &Registry, result: Result<T, PanicPayload>) {
    let payload = match result {
        Ok(value) => match try_drop(value) {
            Ok(()) => return,
            Err(payload) => payload,
        },
        Err(payload) => payload,
    };
    registry.handle_detached_panic(payload);
}
