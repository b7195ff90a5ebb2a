//! Task groups (INSPIRE's `merge`/`merge_all`, OpenMP's `taskgroup`): spawn
//! any number of `'static` tasks into a group and wait for all of them.
//!
//! The group's state is shared (`Arc`): a group is `'static`, clonable and
//! may be waited for from several places. Only deferred tasks pay for that —
//! a count and a reference each, and one allocation for the job; a task run
//! inline (lazy task creation) is a plain call under `catch_unwind`. A wait
//! first runs the group's own unstarted tasks still in this worker's deque
//! (jobs carry the state's address, `JobRef::owner`; a job keeps the state
//! alive, so the address names this group while the job exists).

use crate::analysis::SpawnSite;
use crate::inlining::SiteKey;
use crate::job::{drop_caught, keep_first_panic, HeapJob, JobRef, PanicPayload};
use crate::latch::CountLatch;
use crate::runtime::Runtime;
use crate::trace::{self, AtomicStrandRef};
use crate::worker::{self, on_worker, TaskPath, WorkerThread};
use parking_lot::Mutex;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::Arc;

struct GroupState {
    pending: CountLatch,
    panic: Mutex<Option<PanicPayload>>,
    /// The last strand of a task that finished since the last wait
    /// (`trace`; the latest writer wins, see `trace`).
    last_finished: AtomicStrandRef,
}

/// A set of tasks to wait for together.
///
/// Clones share the group, so a task may spawn more tasks into the group it
/// belongs to; [`wait`](TaskGroup::wait) returns when every task spawned so
/// far, and every task they spawned into the group, has finished.
///
/// ```
/// use std::sync::atomic::{AtomicUsize, Ordering};
/// use std::sync::Arc;
/// let sum = Arc::new(AtomicUsize::new(0));
/// let group = prescient::TaskGroup::new();
/// for i in 1..=10 {
///     let sum = sum.clone();
///     group.spawn(move || { sum.fetch_add(i, Ordering::Relaxed); });
/// }
/// group.wait();
/// assert_eq!(sum.load(Ordering::Relaxed), 55);
/// ```
#[derive(Clone)]
pub struct TaskGroup {
    state: Arc<GroupState>,
}

impl Default for TaskGroup {
    fn default() -> Self {
        TaskGroup::new()
    }
}

impl std::fmt::Debug for TaskGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskGroup")
            .field("pending", &self.state.pending.pending())
            .finish()
    }
}

impl TaskGroup {
    /// An empty group.
    pub fn new() -> TaskGroup {
        TaskGroup {
            state: Arc::new(GroupState {
                pending: CountLatch::new(0),
                panic: Mutex::new(None),
                last_finished: AtomicStrandRef::new(),
            }),
        }
    }

    /// Spawns `f` into the group: on this worker's deque inside a runtime
    /// (inline right away when the deque is full, or when the inliner
    /// measured this call site's tasks to be too short to be worth the
    /// scheduler, see [`Inlining`](crate::Inlining)), into the global
    /// runtime outside.
    #[track_caller]
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.spawn_routed(SiteKey::Location(Location::caller()), f);
    }

    /// [`spawn`](Self::spawn) at an analysed spawn site: `#[task_program]`
    /// rewrites the group `spawn` calls it recognises to
    /// `group.__spawn_at(&SITE, f)`, whose static is the site's identity for
    /// the inliner (seeded from its static effort). Not public API.
    #[doc(hidden)]
    pub fn __spawn_at<F>(&self, site: &'static SpawnSite, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        self.spawn_routed(SiteKey::Static(site.slot()), f);
    }

    fn spawn_routed<F>(&self, site: SiteKey, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        match WorkerThread::current_task_path(Some(site), false) {
            Some(TaskPath::Deferred | TaskPath::Kept) => self.spawn_deferred(f),
            Some(TaskPath::Plain) => self.run_inline(f),
            Some(TaskPath::Timed(id, deferred)) => {
                let timed = move || WorkerThread::timed_sample(id, f);
                if deferred {
                    self.spawn_deferred(timed);
                } else {
                    self.run_inline(timed);
                }
            }
            None => Runtime::global().registry().inject(self.deferred(f)),
        }
    }

    /// Defers `f` to this worker's deque.
    fn spawn_deferred<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        let job = self.deferred(f);
        on_worker(|worker| worker.push_forked(job));
    }

    /// Runs `f` now. It finishes before `spawn` returns, while `self` keeps
    /// the group alive, so it is neither counted nor given a reference.
    fn run_inline<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        let result = trace::inlined(|| panic::catch_unwind(AssertUnwindSafe(f)));
        if let Err(payload) = result {
            keep_first_panic(&self.state.panic, payload);
        }
    }

    /// Counts `f` as pending and boxes it into a job tagged with this group
    /// (the address of its shared state, which the job keeps alive).
    fn deferred<F>(&self, f: F) -> JobRef
    where
        F: FnOnce() + Send + 'static,
    {
        self.state.pending.increment();
        let state = self.state.clone();
        let tag = Arc::as_ptr(&state) as *const ();
        let task = move || {
            if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
                keep_first_panic(&state.panic, payload);
            }
            state.last_finished.store(trace::task_finish());
            state.pending.decrement();
            // Possibly the last reference to the group (dropped without a
            // wait, holding an unobserved panic): nothing of it may unwind
            // into the worker.
            drop_caught(state);
        };
        HeapJob::into_owned_job_ref(task, tag)
    }

    /// The number of tasks spawned and not yet finished.
    pub fn pending(&self) -> usize {
        self.state.pending.pending()
    }

    /// Waits for every task of the group, then propagates the first panic of
    /// any of them (once). The group's tasks still unstarted in this
    /// worker's deque run here, inline; for tasks other workers run, a wait
    /// inside a task *suspends* the task (see [`join`](fn@crate::join) about
    /// mutex guards and thread-locals across waits). The group can be used
    /// again afterwards.
    pub fn wait(&self) {
        // The group's own unstarted tasks in this worker's deque run here,
        // inline (see `scope`'s end): only tasks other workers took are
        // waited for.
        worker::claim_own_then_wait(
            Arc::as_ptr(&self.state) as *const (),
            || self.state.pending.pending() != 0,
            &self.state.pending,
        );
        trace::joined(self.state.last_finished.take());
        if let Some(payload) = self.state.panic.lock().take() {
            panic::resume_unwind(payload);
        }
    }
}
