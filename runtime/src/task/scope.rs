//! `scope`: spawn tasks that borrow from the enclosing frame; the scope
//! returns only when all of them (and their nested spawns) have finished.
//!
//! # What a spawn costs
//! The [`Scope`] lives in `scope`'s own frame, not on the heap: creating a
//! scope allocates nothing. A spawn that runs inline (the worker's deque is
//! full: lazy task creation) is a plain call under `catch_unwind` — no count,
//! no allocation, no atomic read-modify-write — because it finishes before
//! `spawn` returns, while the scope is certainly alive. A spawn made on the
//! fiber that runs the scope's body is *latent* (`scheduler/latent/spawn_arena.rs`): its
//! closure is moved into the worker's arena, uncounted, and the scope's end
//! runs it there as a plain call unless a thief asked for it first. Only a
//! task that is published (a thief asked, or the body suspends) or spawned
//! from another fiber (a stolen task of the scope) is counted (`pending`)
//! and boxed, once (`HeapJob`: the closure and a pointer to the scope).
//!
//! # Why a latent task's scope is alive
//! Records are made only on the body's fiber, where the scope's end is still
//! ahead on the same stack; the end runs every record of the scope (records
//! made by the tasks it runs included) *before* it releases the body's
//! count, so a record published meanwhile is counted while a count is held
//! (`ScopeLatch::add`'s contract), and none can be made after: from then on
//! only the end's wait runs on that fiber. The fiber never switches out with
//! a record left (its worker publishes them before the body suspends).
//!
//! # Why the scope may live on the stack
//! A deferred task's last access to the scope is the release of its count
//! in the scope's [`ScopeLatch`], which is built for exactly this: the
//! scope's end returns only once every count is released, and a release
//! touches nothing after it (see `latch.rs`; loom models there and at the
//! bottom of this file, which run this file's end, deferred tasks and
//! latent spawns).
//!
//! # The scope's end claims its own tasks
//! When the body returns with deferred tasks pending, the scope first takes
//! back its own unstarted tasks from this worker's deque and runs them inline
//! (jobs carry the scope's address, `JobRef::owner`), and suspends only for
//! tasks another worker took: they are its own dependencies, not a scheduling
//! choice (see `WorkerThread::take_back_or_wait`). The address identifies the
//! scope for as long as any of its jobs exists, since the scope outlives them.

use crate::analysis::SpawnSite;
use crate::inlining::SiteKey;
use crate::job::{HeapJob, JobRef};
use crate::runtime::in_registry;
use crate::scheduler::latch::ScopeLatch;
use crate::scheduler::latent::spawn_arena::LatentTask;
use crate::scheduler::registry::Registry;
use crate::scheduler::worker::{self, on_worker, LatentMark, TaskPath, WorkerThread};
use crate::trace::{self, AtomicStrandRef};
use crate::unwind::{keep_first_panic, PanicPayload};
use parking_lot::Mutex;
use std::marker::PhantomData;
use std::panic::{self, AssertUnwindSafe, Location};

/// A scope of tasks that may borrow data living longer than `'scope`.
pub struct Scope<'scope> {
    /// The body's count while it runs, plus one per deferred task that has
    /// not finished (inline tasks are not counted); the task that brings it
    /// to zero sets the latch the scope's end waits for.
    pending: ScopeLatch,
    panic: Mutex<Option<PanicPayload>>,
    /// The last strand of a deferred task that finished (`trace`; the
    /// latest writer wins, see `trace`).
    last_finished: AtomicStrandRef,
    /// Where spawns from a thread outside the runtime go. The scope runs on
    /// a worker of this registry, which keeps it alive until the scope ends.
    registry: *const Registry,
    /// The fiber that runs the body and the first latent spawn the scope may
    /// own (module docs, *Why a latent task's scope is alive*).
    latent_mark: LatentMark,
    /// Invariant in `'scope`, like `std::thread::Scope`.
    marker: PhantomData<&'scope mut &'scope ()>,
}

// SAFETY: every field but `registry` and `latent_mark` is Sync and Send;
// `registry` points to a registry that outlives the scope (see the field)
// and is itself Sync; `latent_mark` is compared, never dereferenced.
unsafe impl Sync for Scope<'_> {}
// SAFETY: every field but `registry` and `latent_mark` is Send; `registry`
// points to a registry that outlives the scope and is itself Sync, so any
// thread may hold the pointer; `latent_mark` is compared, never
// dereferenced.
unsafe impl Send for Scope<'_> {}

/// A deferred task's pointer to its scope.
struct ScopePtr<'scope>(*const Scope<'scope>);

// SAFETY: `Scope` is Sync, and the scope outlives its deferred tasks (module
// docs), so the pointer may be used from the worker that runs the task.
unsafe impl Send for ScopePtr<'_> {}

/// Creates a scope, runs `body` in it, and waits for every task spawned in it.
///
/// A panic in the body or in any task is propagated after all tasks finished.
/// Waiting at the end of the scope first runs the scope's own unstarted tasks
/// that are still in this worker's deque, then *suspends* the calling task
/// until the others finish (see [`join`](fn@crate::join) about mutex guards and
/// thread-locals across waits).
///
/// ```
/// let mut counts = [0u32; 4];
/// prescient::scope(|s| {
///     for (i, slot) in counts.iter_mut().enumerate() {
///         s.spawn(move |_| *slot = i as u32 * 10);
///     }
/// });
/// assert_eq!(counts, [0, 10, 20, 30]);
/// ```
pub fn scope<'scope, F, R>(body: F) -> R
where
    F: FnOnce(&Scope<'scope>) -> R + Send,
    R: Send,
{
    in_registry(|registry| {
        let mut scope = Scope {
            pending: ScopeLatch::new(),
            panic: Mutex::new(None),
            last_finished: AtomicStrandRef::new(),
            registry,
            latent_mark: WorkerThread::with_current(|worker| {
                worker.map_or(LatentMark::NONE, WorkerThread::latent_mark)
            }),
            marker: PhantomData,
        };
        let result = panic::catch_unwind(AssertUnwindSafe(|| body(&scope)));
        scope.finish_body();
        // Every task has finished and the body returned: nothing else can
        // reach the scope, so no lock (a lock and an unlock per scope, which
        // a recursion of small scopes pays at every node).
        if let Some(payload) = scope.panic.get_mut().take() {
            panic::resume_unwind(payload);
        }
        match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    })
}

impl<'scope> Scope<'scope> {
    /// Spawns a task in this scope. It may borrow anything that outlives the
    /// scope, and receives the scope to spawn more.
    ///
    /// When this worker's deque is full the task runs right away, before
    /// `spawn` returns (lazy task creation), and so it does when the
    /// inliner measured this call site's tasks to be too short to be worth
    /// the scheduler ([`Inlining`](crate::tuning::Inlining)); a panic in it is kept
    /// for the scope's end either way.
    #[track_caller]
    pub fn spawn<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_routed(SiteKey::Location(Location::caller()), f);
    }

    /// [`spawn`](Self::spawn) at an analysed spawn site: `#[task_program]`
    /// rewrites the scope `spawn` calls it recognises to
    /// `scope.__spawn_at(&SITE, f)`, whose static is the site's identity for
    /// the inliner (seeded from its static effort). Not public API.
    #[doc(hidden)]
    pub fn __spawn_at<F>(&self, site: &'static SpawnSite, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.spawn_routed(SiteKey::Static(site.slot()), f);
    }

    fn spawn_routed<F>(&self, site: SiteKey, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        match WorkerThread::current_task_path(Some(site), false) {
            Some(TaskPath::Deferred | TaskPath::Kept) => self.spawn_deferred(f),
            Some(TaskPath::Plain) => self.run_inline(f),
            Some(TaskPath::Timed(id, deferred)) => {
                let timed =
                    move |scope: &Scope<'scope>| WorkerThread::timed_sample(id, || f(scope));
                if deferred {
                    self.spawn_deferred(timed);
                } else {
                    self.run_inline(timed);
                }
            }
            // A thread outside the runtime borrowed the scope: inject.
            None => {
                let job = self.deferred(f);
                // SAFETY: the scope runs on a worker of this registry, which
                // keeps it alive until the scope ends (field docs).
                unsafe { &*self.registry }.inject(job);
            }
        }
    }

    /// Defers `f`: as a latent spawn when this runs on the body's fiber,
    /// else to this worker's deque.
    fn spawn_deferred<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        let owner = self as *const Scope<'scope> as *const ();
        let recorded = on_worker(|worker| {
            if !worker.may_record_for(self.latent_mark) {
                return Err(f);
            }
            let task = LatentScopeTask {
                scope: ScopePtr(self),
                f,
            };
            worker.record_spawn(owner, task).map_err(|task| task.f)
        });
        if let Err(f) = recorded {
            let job = self.deferred(f);
            on_worker(|worker| worker.push_forked(job));
        }
    }

    /// Runs `f` now, as its spawner's inline child (lazy task creation or
    /// the inliner; timed as such by the profiler).
    #[inline]
    fn run_inline<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'scope>),
    {
        trace::inlined(|| self.run(f));
    }

    /// Runs `f` with this scope, keeping its panic for the scope's end.
    #[inline]
    fn run<F>(&self, f: F)
    where
        F: FnOnce(&Scope<'scope>),
    {
        if let Err(payload) = panic::catch_unwind(AssertUnwindSafe(|| f(self))) {
            keep_first_panic(&self.panic, payload);
        }
    }

    /// Counts `f` as pending and boxes it into a job tagged with this scope.
    fn deferred<F>(&self, f: F) -> crate::job::JobRef
    where
        F: FnOnce(&Scope<'scope>) + Send + 'scope,
    {
        self.pending.add();
        let scope = ScopePtr(self);
        let task = move || {
            let scope = scope;
            // SAFETY: the scope outlives its deferred tasks: it waits for
            // `pending`, which this task holds until `finish_task` below.
            let this = unsafe { &*scope.0 };
            this.run(f);
            this.last_finished.store(trace::task_finish());
            // SAFETY: this task's count, released once, as its last access.
            unsafe { Scope::finish_task(scope.0) };
        };
        // The job may borrow `'scope` data: `scope` does not return before
        // `pending` reaches zero, i.e. before this job has run.
        HeapJob::into_owned_job_ref(task, self as *const Scope<'scope> as *const ())
    }

    /// A deferred task finished: releases its count.
    ///
    /// # Safety
    /// `this` is alive, and the caller holds one count, released here; it
    /// does not touch the scope afterwards (the scope may return at once).
    unsafe fn finish_task(this: *const Scope<'scope>) {
        // SAFETY: alive while we hold our count (contract), which `release`
        // gives back as its last access (`ScopeLatch`).
        unsafe { ScopeLatch::release(&(*this).pending) };
    }

    /// The body returned: run this scope's own unstarted tasks that this
    /// worker holds (its latent spawns, its jobs in the deque), then release
    /// the body's count and wait for the rest. The count is held while they
    /// run (module docs, *Why a latent task's scope is alive*).
    fn finish_body(&self) {
        let since = self.latent_mark.since();
        // The common case of a scope whose tasks all ran inline: nothing
        // recorded since it began, nothing deferred.
        let recorded = WorkerThread::with_current(|worker| {
            worker.is_some_and(|worker| worker.recorded_since(since))
        });
        if recorded || !self.pending.is_idle() {
            worker::claim_own(self as *const Scope<'scope> as *const (), since, || {
                !self.pending.is_idle()
            });
        }
        if !self.pending.is_idle() && !self.pending.release_creator() {
            worker::wait_for(self.pending.done());
        }
        trace::joined(self.last_finished.load());
    }
}

/// A latent spawn of a scope (`scheduler/latent/spawn_arena.rs`): the closure and its scope,
/// which outlives the record (module docs).
struct LatentScopeTask<'scope, F> {
    scope: ScopePtr<'scope>,
    f: F,
}

impl<'scope, F> LatentTask for LatentScopeTask<'scope, F>
where
    F: FnOnce(&Scope<'scope>) + Send + 'scope,
{
    /// What a deferred task does (`deferred`), less the count it never
    /// took.
    fn run_here(self) {
        // SAFETY: the scope outlives its records (invariant S2 of
        // `scheduler/latent/README.md`).
        let scope = unsafe { &*self.scope.0 };
        scope.run(self.f);
        scope.last_finished.store(trace::task_finish());
    }

    fn into_job(self) -> JobRef {
        // SAFETY: the scope outlives its records (invariant S2 of
        // `scheduler/latent/README.md`: its end runs every record before it
        // returns); and the body's count is held until then (module docs), as
        // `deferred`'s count needs.
        unsafe { &*self.scope.0 }.deferred(self.f)
    }
}

/// Loom models (`--cfg loom`) of a scope's completion with its real code:
/// the count (`ScopeLatch`), deferred tasks as [`Scope::deferred`] makes
/// them, latent spawns as [`LatentScopeTask`] records in a real
/// `LatentSpawns` arena, and the scope's end, [`Scope::finish_body`], which
/// off a worker waits as a plain thread does (`latch::wait_on_thread`, with
/// loom's `park` under `--cfg loom`). Loom threads stand in for workers and
/// thieves, and `crate::sync::Inbox` (a locked queue under loom: push
/// releases, pop acquires, as a deque's push and steal do) for a deque. The
/// scope lives in a box that the creator frees as soon as its end returns
/// (`ScopeLatch::free_for_model` first): loom reports any task's access to
/// the count or the latch that does not happen before that, and each task's
/// write (a loom cell) that the creator does not see.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use crate::scheduler::latent::spawn_arena::{publish_taken, run_taken, LatentSpawns};
    use crate::sync::{AtomicBool, Inbox};
    use loom::cell::UnsafeCell;
    use loom::sync::Arc;
    use std::sync::atomic::Ordering;

    /// A scope as `scope` makes it, in a box (the creator's frame), with no
    /// registry (nothing here injects) and no latent mark (the model's
    /// arena stands in for the worker's).
    fn new_scope() -> *mut Scope<'static> {
        Box::into_raw(Box::new(Scope {
            pending: ScopeLatch::new(),
            panic: Mutex::new(None),
            last_finished: AtomicStrandRef::new(),
            registry: std::ptr::null(),
            latent_mark: LatentMark::NONE,
            marker: PhantomData,
        }))
    }

    /// One cell per task, which the task writes and the creator reads after
    /// the scope's end (loom checks that no two accesses are concurrent).
    struct Written(Vec<UnsafeCell<u32>>);

    // SAFETY: each cell is written by one task and read by the creator
    // after the task released its count; loom's cells check exactly that
    // these accesses are ordered.
    unsafe impl Sync for Written {}

    impl Written {
        fn new(tasks: usize) -> Arc<Written> {
            Arc::new(Written((0..tasks).map(|_| UnsafeCell::new(0)).collect()))
        }
    }

    /// The scope's end and the creator's return: `finish_body`, then the
    /// scope's memory goes. Then every task's write must be visible.
    ///
    /// # Safety
    /// `scope` came from [`new_scope`]; every thread that may still hold it
    /// is joined after this, before the model ends.
    unsafe fn end_and_free(scope: *mut Scope<'static>, written: &Written) {
        // SAFETY: alive until freed below (contract).
        unsafe { (*scope).finish_body() };
        // SAFETY: the creator's frame returns; no task may touch the scope
        // from here (what loom checks).
        unsafe {
            (*scope).pending.free_for_model();
            drop(Box::from_raw(scope));
        }
        for cell in &written.0 {
            // SAFETY: every task wrote before releasing its count.
            assert_eq!(cell.with(|value| unsafe { *value }), 1);
        }
    }

    /// A task's body: writes its cell (loom checks that no one else
    /// accesses it concurrently).
    fn write(written: &Written, index: usize) {
        // SAFETY: each cell is written by one task, read by the creator
        // after the task released its count.
        written.0[index].with_mut(|value| unsafe { *value = 1 });
    }

    /// A deferred job as a deque carries it to a thief.
    struct Job(JobRef);

    // SAFETY: a scope's job is sent to the thread that runs it, as a steal
    // does; the scope outlives it (what the models check).
    unsafe impl Send for Job {}

    /// (a) The completion latch with two deferred tasks, stolen by another
    /// worker, the first of which defers a nested task into the same scope
    /// while it holds its count (a spawn from a stolen task) and pushes it
    /// to the thief's own deque: the scope's end returns only after all
    /// three, and no task touches the scope afterwards. One thief runs the
    /// three one after another: with two, loom did not finish in 15
    /// minutes, and every release still races with the creator's end here.
    #[test]
    fn loom_scope_end_waits_for_deferred_and_nested_tasks() {
        loom::model(|| {
            let written = Written::new(3);
            let deque = Arc::new(Inbox::new());
            let scope = new_scope();
            // SAFETY: the scope is alive until `end_and_free`, which waits
            // for every job made here.
            let creator = unsafe { &*scope };
            let first = {
                let (written, deque) = (written.clone(), deque.clone());
                creator.deferred(move |scope: &Scope<'static>| {
                    write(&written, 0);
                    let written = written.clone();
                    let nested = scope.deferred(move |_: &Scope<'static>| write(&written, 2));
                    deque.push(Job(nested));
                })
            };
            let second = {
                let written = written.clone();
                creator.deferred(move |_: &Scope<'static>| write(&written, 1))
            };
            deque.push(Job(first));
            deque.push(Job(second));
            let thief = {
                let deque = deque.clone();
                loom::thread::spawn(move || {
                    let mut ran = 0;
                    while ran < 3 {
                        match deque.pop() {
                            Some(job) => {
                                // SAFETY: popped once, so it runs once.
                                unsafe { job.0.execute() };
                                ran += 1;
                            }
                            None => loom::thread::yield_now(),
                        }
                    }
                })
            };
            // SAFETY: the thief is joined below.
            unsafe { end_and_free(scope, &written) };
            thief.join().unwrap();
        });
    }

    /// (b) Latent spawns published to a thief: the body records two spawns
    /// in the worker's arena; a thief asks for work (the `hungry` flag), and
    /// the owner answers after each spawn as `record_spawn` does, publishing
    /// its oldest record (`take_oldest`, `publish_taken`: the record becomes
    /// the counted, boxed job `Scope::deferred` makes) to the deque, which
    /// the thief runs. The scope's end runs the records left, newest first,
    /// as `claim_own` does, then `finish_body` waits for the published one.
    /// Every task runs exactly once (its cell is written once, and loom
    /// would flag two writers), and the creator frees the scope only after
    /// the thief's last access.
    #[test]
    fn loom_latent_spawns_published_to_a_thief() {
        loom::model(|| {
            let written = Written::new(2);
            let deque: Arc<Inbox<JobRef>> = Arc::new(Inbox::new());
            let hungry = Arc::new(AtomicBool::new(false));
            let closed = Arc::new(AtomicBool::new(false));
            let thief = {
                let (deque, hungry, closed) = (deque.clone(), hungry.clone(), closed.clone());
                loom::thread::spawn(move || {
                    // `ThiefSignals::ask_for_work`, after a failed steal.
                    hungry.store(true, Ordering::Relaxed);
                    loop {
                        if let Some(job) = deque.pop() {
                            // SAFETY: a published job, stolen once.
                            unsafe { job.execute() };
                        } else if closed.load(Ordering::Acquire) {
                            return;
                        } else {
                            loom::thread::yield_now();
                        }
                    }
                })
            };
            let scope = new_scope();
            let owner = scope.cast_const().cast::<()>();
            let spawns = LatentSpawns::with_capacity(2, 64);
            for index in 0..2 {
                let written = written.clone();
                let task = LatentScopeTask {
                    scope: ScopePtr(scope),
                    f: move |_: &Scope<'static>| write(&written, index),
                };
                spawns.push(owner, task);
                // `WorkerThread::answer_if_hungry`, as `record_spawn` calls it.
                if hungry.load(Ordering::Relaxed) {
                    hungry.store(false, Ordering::Relaxed);
                    if let Some(taken) = spawns.take_oldest() {
                        // SAFETY: just taken; the arena was not used since.
                        deque.push(unsafe { publish_taken(taken) });
                    }
                }
            }
            while let Some(taken) = spawns.take_newest_owned_by(owner, 0) {
                // SAFETY: just taken; the arena was not used since.
                unsafe { run_taken(taken) };
            }
            // SAFETY: the thief is joined below.
            unsafe { end_and_free(scope, &written) };
            closed.store(true, Ordering::Release);
            thief.join().unwrap();
        });
    }
}
