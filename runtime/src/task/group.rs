//! Task groups (INSPIRE's `merge`/`merge_all`, OpenMP's `taskgroup`): spawn
//! any number of `'static` tasks into a group and wait for all of them.
//!
//! The group's state is shared (`Arc`): a group is `'static`, clonable and
//! may be waited for from several places. Only deferred tasks pay for that —
//! a count and a reference each; a task run inline (lazy task creation) is
//! a plain call under `catch_unwind`. A deferred task is first *latent*
//! (`scheduler/latent/spawn_arena.rs`): kept in its worker's arena, with no allocation and
//! no deque operation, until a thief asks for it, the spawning task
//! suspends or ends, or a wait on this worker runs it. A wait first runs
//! the group's own unstarted tasks this worker holds — latent ones, then
//! those still in its deque (jobs and records carry the state's address,
//! `JobRef::owner`; each keeps the state alive, so the address names this
//! group while it exists). The count is taken when the task is recorded,
//! because a wait elsewhere must see it.

use crate::analysis::SpawnSite;
use crate::inlining::SiteKey;
use crate::job::{HeapJob, JobRef};
use crate::runtime::Runtime;
use crate::scheduler::latch::CountLatch;
use crate::scheduler::latent::spawn_arena::LatentTask;
use crate::scheduler::worker::{self, on_worker, TaskPath, WorkerThread};
use crate::trace::{self, AtomicStrandRef};
use crate::unwind::{drop_caught, keep_first_panic, PanicPayload};
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
    /// scheduler, see [`Inlining`](crate::tuning::Inlining)), into the global
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

    /// Defers `f`: as a latent spawn of this worker, or (too large for its
    /// arena) to its deque.
    fn spawn_deferred<F>(&self, f: F)
    where
        F: FnOnce() + Send + 'static,
    {
        let task = self.counted(f);
        let owner = Arc::as_ptr(&self.state) as *const ();
        on_worker(|worker| {
            if let Err(task) = worker.record_spawn(owner, task) {
                worker.push_forked(task.into_job());
            }
        });
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

    /// Counts `f` as pending, with a reference to the group's state.
    fn counted<F>(&self, f: F) -> GroupTask<F>
    where
        F: FnOnce() + Send + 'static,
    {
        self.state.pending.increment();
        GroupTask {
            state: self.state.clone(),
            f,
        }
    }

    /// Counts `f` as pending and boxes it into a job tagged with this group
    /// (the address of its shared state, which the job keeps alive).
    fn deferred<F>(&self, f: F) -> JobRef
    where
        F: FnOnce() + Send + 'static,
    {
        self.counted(f).into_job()
    }

    /// The number of tasks spawned and not yet finished.
    ///
    /// Each call makes its worker's unstarted tasks visible to other
    /// workers, so that a task polling it (instead of waiting) does not keep
    /// its own spawns to itself (see
    /// [`TaskHandle::is_finished`](crate::TaskHandle::is_finished)).
    pub fn pending(&self) -> usize {
        worker::publish_latent_spawns();
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

/// A counted task of a group: what a deferred task carries, whether it
/// waits in its worker's arena or runs as a job.
struct GroupTask<F> {
    state: Arc<GroupState>,
    f: F,
}

impl<F: FnOnce() + Send + 'static> GroupTask<F> {
    /// Runs the task, keeps its panic for the group and releases its count
    /// and its reference.
    fn run(self, finished: impl FnOnce(&GroupState)) {
        let GroupTask { state, f } = self;
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(f)) {
            keep_first_panic(&state.panic, payload);
        }
        finished(&state);
        state.pending.decrement();
        // Possibly the last reference to the group (dropped without a wait,
        // holding an unobserved panic): nothing of it may unwind into the
        // worker.
        drop_caught(state);
    }
}

impl<F: FnOnce() + Send + 'static> LatentTask for GroupTask<F> {
    /// Run by a wait on the spawning worker: what its job does.
    fn run_here(self) {
        self.run(|state| state.last_finished.store(trace::task_finish()));
    }

    fn into_job(self) -> JobRef {
        let tag = Arc::as_ptr(&self.state) as *const ();
        HeapJob::into_owned_job_ref(
            move || {
                self.run(|state| state.last_finished.store(trace::task_finish()));
            },
            tag,
        )
    }
}
