//! `spawn`: start a `'static` task and get a [`TaskHandle`] to its result.
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
use crate::job::{try_drop, HeapJob, PanicPayload};
use crate::latch::Latch;
use crate::registry::{self, on_worker, Registry, WorkerThread};
use crate::runtime::Runtime;
use std::cell::UnsafeCell;
use std::fmt;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

const RUNNING: u8 = 0;
const DONE: u8 = 1;
const DETACHED: u8 = 2;

struct HandleState<T> {
    state: AtomicU8,
    result: UnsafeCell<Option<Result<T, PanicPayload>>>,
    latch: Latch,
    registry: Arc<Registry>,
}

// SAFETY: `result` is written once by the task before `state` becomes DONE
// (AcqRel swap) and read only by the side that observed DONE second; T: Send
// moves the value between those threads.
unsafe impl<T: Send> Sync for HandleState<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Send for HandleState<T> {}

impl<T> HandleState<T> {
    /// Takes the result.
    ///
    /// # Safety
    /// The state is DONE, observed with Acquire, and the caller is the only
    /// one that takes it (the joiner, or whichever of task/handle-drop came
    /// second).
    unsafe fn take(&self) -> Result<T, PanicPayload> {
        // SAFETY: contract.
        unsafe { (*self.result.get()).take() }.expect("task result missing")
    }
}

/// The result of a spawned task, to wait for with [`join`](TaskHandle::join).
///
/// Dropping the handle detaches the task: it still runs, and its panic (if
/// any) goes to the runtime's panic handler.
#[must_use = "dropping a TaskHandle detaches the task"]
pub struct TaskHandle<T> {
    state: Option<Arc<HandleState<T>>>,
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
    /// Inside a task this *suspends* the task, not the worker (see
    /// [`join`](crate::join) for what that means for mutex guards and
    /// thread-locals held across the wait); on a plain thread it blocks.
    pub fn join(mut self) -> T {
        let state = self.state.take().expect("handle already joined");
        registry::wait_for(&state.latch);
        // SAFETY: the latch is set only after the task stored the result and
        // swapped the state to DONE; we hold the handle, so nobody else takes.
        match unsafe { state.take() } {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    }
}

impl<T> TaskHandle<T> {
    /// Whether the task has finished.
    pub fn is_finished(&self) -> bool {
        self.state.as_ref().is_some_and(|s| s.latch.is_set())
    }
}

impl<T> Drop for TaskHandle<T> {
    fn drop(&mut self) {
        let Some(state) = self.state.take() else {
            return;
        };
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
/// ```
/// let handle = prescient::spawn(|| 6 * 7);
/// assert_eq!(handle.join(), 42);
/// ```
pub fn spawn<F, T>(f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let reserved = WorkerThread::with_current(|worker| {
        worker.map(|worker| (new_state(&worker.registry), worker.reserve()))
    });
    let Some((state, room)) = reserved else {
        return spawn_in(Runtime::global().registry(), f);
    };
    if room {
        let task_state = state.clone();
        let job = HeapJob::into_job_ref(move || run_task(&task_state, f));
        on_worker(|worker| worker.push(job));
    } else {
        // `f` runs outside `with_current`'s closure (see there why).
        run_task(&state, f);
    }
    TaskHandle { state: Some(state) }
}

/// [`spawn`] at an analysed spawn site: `#[task_program]` rewrites the
/// `spawn` calls it recognises to `spawn_at(&SITE, f)`. The runtime does not
/// use `site` yet: this is exactly `spawn(f)`.
pub fn spawn_at<F, T>(site: &'static SpawnSite, f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let _ = site;
    spawn(f)
}

impl Runtime {
    /// Starts `f` as a task in this runtime (from any thread) and returns a
    /// handle to its result.
    pub fn spawn<F, T>(&self, f: F) -> TaskHandle<T>
    where
        F: FnOnce() -> T + Send + 'static,
        T: Send + 'static,
    {
        if self.registry().is_current() {
            return spawn(f);
        }
        spawn_in(self.registry(), f)
    }
}

fn new_state<T>(registry: &Arc<Registry>) -> Arc<HandleState<T>> {
    Arc::new(HandleState {
        state: AtomicU8::new(RUNNING),
        result: UnsafeCell::new(None),
        latch: Latch::new(),
        registry: registry.clone(),
    })
}

fn spawn_in<F, T>(registry: &Arc<Registry>, f: F) -> TaskHandle<T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let state = new_state(registry);
    let task_state = state.clone();
    registry.inject(HeapJob::into_job_ref(move || run_task(&task_state, f)));
    TaskHandle { state: Some(state) }
}

fn run_task<F, T>(state: &Arc<HandleState<T>>, f: F)
where
    F: FnOnce() -> T,
{
    let result = panic::catch_unwind(AssertUnwindSafe(f));
    // SAFETY: only the task writes the result, before publishing DONE.
    unsafe { *state.result.get() = Some(result) };
    if state.state.swap(DONE, Ordering::AcqRel) == DETACHED {
        // SAFETY: DETACHED: the handle is gone and took nothing; we own it.
        let result = unsafe { state.take() };
        drop_detached_result(&state.registry, result);
        return;
    }
    // SAFETY: the latch lives in the Arc we hold, set once.
    unsafe { Latch::set(&state.latch) };
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
