//! `spawn`: start a `'static` task and get a [`TaskHandle`] to its result.
//!
//! A task that runs inline (lazy task creation: the deque is full) leaves its
//! result in the handle itself: nothing is allocated or shared. A deferred
//! task on a worker is a *latent spawn* (`scheduler/latent/spawn_arena.rs`): its closure
//! goes to the worker's arena in a [`HandleTask`], and the handle knows it
//! only by the worker's `uid` and the record's sequence number. The
//! handle's `join` on that worker, while the record is still there (nobody
//! else saw the task), takes it and runs it straight into the joiner: no
//! allocation, no reference count, no latch. Only a record that is
//! *published* (a thief asked, its task suspended or ended) becomes what a
//! deferred task was before: one allocation, a `SpawnJob` — the closure
//! and the state the handle shares — whose `JobRef` the deque holds, tagged
//! with the allocation's address so that the handle's `join` can claim it
//! back when it is still unstarted in the joiner's deque. The publisher
//! leaves the shared state in a process-wide table (`published`), keyed by
//! the record's identity, where the handle takes it; a task spawned from
//! outside any worker is a `SpawnJob` from the start.
//!
//! The handle and the task share a `HandleState` (`handle_state.rs`, with
//! the invariants of its protocol); the `published` table keeps its
//! invariants at its module.

use crate::analysis::SpawnSite;
use crate::inlining::SiteKey;
use crate::job::JobRef;
use crate::runtime::Runtime;
use crate::scheduler::latent::spawn_arena::{run_taken, LatentTask};
use crate::scheduler::registry::{Registry, RegistryHandle};
use crate::scheduler::worker::{self, on_worker, TaskPath, WorkerThread};
use crate::task::handle_state::{deferred, detach_shared, drop_detached_result, SharedState};
use crate::trace::{self, StrandRef};
use crate::unwind::{report, try_drop, PanicPayload};
use std::fmt;
use std::panic::{self, AssertUnwindSafe, Location};
use std::sync::Arc;

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
    /// The task was recorded as a latent spawn (see the module docs).
    Latent(LatentHandle),
}

/// Where a latent handle's record is: the worker that made it (its
/// `WorkerThread::uid`) and its sequence number there. Unique in the
/// process: the key of the record's shared state once it is published.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct LatentHandle {
    home: u64,
    seq: u64,
}

/// The owner tag of every handle's latent spawn: a handle's record is
/// taken by its sequence number, never by owner, and no scope or group
/// lives at this address.
static HANDLE_OWNER: u8 = 0;

/// A latent handle task's `out` once its handle was dropped on its worker:
/// its publication detaches it (never dereferenced).
const DETACHED_OUT: usize = 1;

/// What a handle's join gets from a record it ran itself: the result and
/// the task's last strand (`trace`).
type Outcome<T> = (Result<T, PanicPayload>, StrandRef);

/// A spawned task in a worker's arena (a latent spawn of a handle).
/// `repr(C)` with `out` first: the handle, which knows `T` but not `F`,
/// writes `out` through the record's bytes — its join right before it runs
/// the task, its drop to mark it detached.
#[repr(C)]
struct HandleTask<F, T> {
    /// Where [`run_here`](LatentTask::run_here) leaves the outcome: the
    /// joiner's slot, written by the joiner right before it runs the task
    /// (`LatentHandle::run_here`). Null until then; [`DETACHED_OUT`] once
    /// the handle was dropped on the task's worker.
    out: *mut Option<Outcome<T>>,
    handle: LatentHandle,
    f: F,
}

impl<F, T> LatentTask for HandleTask<F, T>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    fn run_here(self) {
        let result = panic::catch_unwind(AssertUnwindSafe(self.f));
        let outcome = (result, trace::task_finish());
        if self.out.is_null() || self.out as usize == DETACHED_OUT {
            // Only the handle's join runs a handle's record (its owner tag
            // is nobody's), and it sets `out` first; should that ever
            // change, the result is disposed of as a detached task's.
            debug_assert!(false, "a handle's record ran without its joiner");
            if let Some(registry) = WorkerThread::with_current(|w| w.map(|w| w.registry.clone())) {
                drop_detached_result(&registry, outcome.0);
            }
            return;
        }
        // SAFETY: `out` is the joiner's slot, which lives in the joiner's
        // frame until `run_taken` returns (`LatentHandle::run_here`); the
        // joiner is the handle of this task, whose `T` it names. The slot
        // holds `None`: nothing to drop.
        unsafe { self.out.write(Some(outcome)) };
    }

    fn into_job(self) -> JobRef {
        // Published by the worker that recorded it (publication happens on
        // the record's worker): the shared state keeps that worker's
        // registry handle, as a task deferred at its spawn did.
        let (shared, job) = on_worker(|worker| deferred(&worker.registry_handle, self.f));
        if self.out as usize == DETACHED_OUT {
            // Its handle was dropped: the job alone keeps the state.
            detach_shared(shared);
        } else {
            published::publish(self.handle, shared);
        }
        job
    }
}

impl LatentHandle {
    /// Runs the handle's record here if it is still in this worker's
    /// arena: the handle is joined on the worker that recorded it, in the
    /// task that did (a fiber never switches out with records left) or a
    /// task that task runs inline. `None` if the record was published (or
    /// this is another worker or thread): its shared state is then in, or
    /// on its way to, the `published` table.
    #[inline]
    fn run_here<T: Send + 'static>(self) -> Option<Outcome<T>> {
        let taken = WorkerThread::with_current(|worker| {
            let worker = worker.filter(|worker| worker.uid == self.home)?;
            // Before taking: answering may publish the oldest record (this
            // one, possibly), and a taken task must run before the arena
            // is used again.
            worker.answer_if_hungry();
            worker.take_latent_seq(self.seq)
        })?;
        let mut out: Option<Outcome<T>> = None;
        // The record's `T` and layout are its handle's (below).
        // SAFETY: the record numbered `seq` on worker `home` is this
        // handle's `HandleTask<F, T>` (the pair is unique in the process),
        // `repr(C)` with `out` first; its bytes are untouched since it was
        // taken (just now), and `out` outlives the run below.
        unsafe {
            taken
                .pointer
                .cast::<*mut Option<Outcome<T>>>()
                .write(&mut out)
        };
        // SAFETY: just taken, and the worker's arena was not used since.
        unsafe { run_taken(taken) };
        Some(out.expect("a handle's record leaves its outcome"))
    }

    /// The handle is dropped on its task's worker while the record is
    /// still there: marks it detached in place, for its publication (its
    /// task's end at the latest) to make it a detached job; whether it
    /// did. Touches only this worker's arena, never the `published` table.
    fn detach_here<T>(self) -> bool {
        WorkerThread::with_current(|worker| {
            let Some(bytes) = worker
                .filter(|worker| worker.uid == self.home)
                .and_then(|worker| worker.latent_spawn_bytes(self.seq))
            else {
                return false;
            };
            // SAFETY: as in `run_here`: the record numbered `seq` on worker
            // `home` is this handle's `HandleTask<F, T>`, `repr(C)` with
            // `out` first, and its bytes stay in place until it is taken;
            // nothing else writes `out` (its join is not running: the
            // handle is being dropped).
            unsafe {
                bytes
                    .cast::<*mut Option<Outcome<T>>>()
                    .write(DETACHED_OUT as *mut Option<Outcome<T>>)
            };
            true
        })
    }
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
        let inner = self.inner.take().expect("handle already joined");
        // Nothing left to drop: skip `Drop`, which would find nothing.
        std::mem::forget(self);
        let result = match inner {
            HandleInner::Ready(result, _) => result,
            HandleInner::Shared(shared) => join_shared(shared),
            HandleInner::Latent(latent) => match latent.run_here::<T>() {
                Some((result, last_strand)) => {
                    trace::joined(last_strand);
                    result
                }
                None => join_shared(published::wait_for::<T>(latent)),
            },
        };
        match result {
            Ok(value) => value,
            Err(payload) => panic::resume_unwind(payload),
        }
    }
}

/// Waits for the deferred task of `shared` (claiming it back if it is
/// still unstarted in this worker's deque) and takes its result.
fn join_shared<T>(shared: Arc<dyn SharedState<T>>) -> Result<T, PanicPayload> {
    let state = shared.state();
    // The task's job is tagged with the shared allocation's address, which
    // the handle keeps alive: the tag names this task alone.
    worker::claim_own_then_wait(
        Arc::as_ptr(&shared) as *const (),
        || !state.latch.is_set(),
        &state.latch,
    );
    trace::joined(state.last_strand.load());
    // SAFETY: the latch is set only after the task stored the result and
    // swapped the state to DONE; we hold the handle, so nobody else takes.
    unsafe { state.take() }
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
            Some(HandleInner::Latent(latent)) => published::is_finished::<T>(*latent),
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
            Some(HandleInner::Latent(latent)) => {
                if latent.detach_here::<T>() {
                    return;
                }
                match published::detach::<T>(latent) {
                    // The record is still latent on its worker: its
                    // publication detaches it.
                    None => return,
                    Some(shared) => shared,
                }
            }
        };
        detach_shared(shared);
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
        // Latent (`scheduler/latent/spawn_arena.rs`): the handle's `join` on
        // this worker runs it from the arena; a publication allocates its
        // shared state.
        true => on_worker(|worker| {
            let handle = LatentHandle {
                home: worker.uid,
                seq: worker.next_spawn_seq(),
            };
            let task = HandleTask {
                out: std::ptr::null_mut(),
                handle,
                f,
            };
            let owner: *const u8 = &HANDLE_OWNER;
            match worker.record_spawn(owner.cast(), task) {
                Ok(()) => HandleInner::Latent(handle),
                // Too large for the arena: deferred to the deque at once.
                Err(task) => {
                    let (shared, job) = deferred(&worker.registry_handle, task.f);
                    worker.push_forked(job);
                    HandleInner::Shared(shared)
                }
            }
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

/// The shared states of published handle records, until their handles take
/// them: a process-wide table keyed by the record's [`LatentHandle`],
/// sharded by it so that publishers and joiners of different records rarely
/// meet on one lock. Only the slow paths come here — a publication (a thief
/// asked, the spawning task suspended or ended: an allocation and a push
/// already) and the join, drop or poll of a handle whose record was
/// published — never a spawn, nor the join of a record still latent on its
/// own worker.
///
/// Process-wide rather than per runtime: a handle may outlive its runtime
/// (every task has run by then: its shared state is here), and it knows its
/// record only by the key.
///
/// # Invariants (checked by the loom models at the end of this file)
/// * A record is published once (`publish`), and its handle is joined
///   (`wait_for`) or dropped (`detach`) once, on one thread: per key, at
///   most one taker meets the one publisher.
/// * Every update of a key's entry is one `remove` and at most one `insert`
///   under its shard's lock, and the entry moves only so: `publish`
///   absent → `Published`, `Awaited` → `Published` (then sets the event),
///   `Detached` → absent (then detaches the task); `wait_for` `Published` →
///   absent (takes the state), absent → `Awaited` (then waits and retries);
///   `detach` `Published` → absent (the caller detaches the task), absent →
///   `Detached`. So once the publication and the handle's join or drop have
///   both returned, the table holds nothing for the key, and a dropped
///   handle's task was detached exactly once: by `publish` if the drop came
///   first, else by `detach`'s caller.
/// * No lost wake-up: a joiner inserts `Awaited` under the lock before it
///   waits, so the publication after it finds the event and sets it; the
///   set comes after `Published` is in (and the lock released), so the woken
///   joiner's retry finds the state.
/// * Orderings: only the shard's lock. Its release by the publisher and
///   acquisition by the taker order the shared state's publication before
///   the taker's use of it; the task's result is ordered by `HandleState`'s
///   own protocol (its latch and its state's swaps).
mod published {
    use super::{detach_shared, LatentHandle, SharedState};
    use crate::sync::{Mutex, MutexGuard};
    use crate::task::event::Event;
    use std::collections::HashMap;
    use std::sync::Arc;

    /// What the table holds for a record.
    enum Entry {
        /// The published task's shared state, for its handle to take.
        Published(Erased),
        /// The handle waits elsewhere for the publication (another thread
        /// joined it while its record was latent on its worker).
        Awaited(Arc<Event>),
        /// The handle was dropped while its record was latent: the
        /// publication detaches the task.
        Detached,
    }

    /// An `Arc<dyn SharedState<T>>`, boxed and type-erased: a handle of
    /// type `T` takes it back as such (its key names a record of its own
    /// type).
    struct Erased {
        state: *mut (),
        /// Drops the box, for an entry nobody takes (a leaked handle's, at
        /// process exit: never run in practice).
        drop: unsafe fn(*mut ()),
    }

    // SAFETY: `state` owns a `Box<Arc<dyn SharedState<T>>>`, which is Send
    // (`SharedState<T>: Send + Sync`); nothing else is shared.
    unsafe impl Send for Erased {}

    impl Erased {
        fn new<T>(state: Arc<dyn SharedState<T>>) -> Erased {
            /// # Safety
            /// `state` came from `Erased::new::<T>` and is dropped once.
            unsafe fn drop_boxed<T>(state: *mut ()) {
                // SAFETY: contract.
                drop(unsafe { Box::from_raw(state.cast::<Arc<dyn SharedState<T>>>()) });
            }
            Erased {
                state: Box::into_raw(Box::new(state)).cast(),
                drop: drop_boxed::<T>,
            }
        }

        /// # Safety
        /// `self` was made by `Erased::new::<T>` with this `T`.
        unsafe fn into_state<T>(self) -> Arc<dyn SharedState<T>> {
            let state = self.state;
            std::mem::forget(self);
            // SAFETY: contract; taken once (`self` is consumed and forgotten).
            *unsafe { Box::from_raw(state.cast::<Arc<dyn SharedState<T>>>()) }
        }

        /// # Safety
        /// As for [`into_state`](Self::into_state).
        unsafe fn state<T>(&self) -> &Arc<dyn SharedState<T>> {
            // SAFETY: contract; the box lives as long as `self`.
            unsafe { &*self.state.cast::<Arc<dyn SharedState<T>>>() }
        }
    }

    impl Drop for Erased {
        fn drop(&mut self) {
            // SAFETY: made by `Erased::new`, whose `drop` matches its type;
            // `into_state` forgets `self` instead of dropping it.
            unsafe { (self.drop)(self.state) }
        }
    }

    /// The lock is `crate::sync`'s: parking_lot's (no poisoning: every
    /// update is one insert or remove, so a panic under the lock — an
    /// allocation failure — cannot leave a shard half updated), loom's under
    /// `--cfg loom`.
    type Shard = Mutex<Option<HashMap<LatentHandle, Entry>>>;

    const SHARDS: usize = 64;

    #[cfg(not(loom))]
    static TABLE: [Shard; SHARDS] = [const { Mutex::new(None) }; SHARDS];

    // loom's `Mutex::new` is not `const`: under loom the table is a lazy
    // static, which loom makes afresh for each execution of a model.
    #[cfg(loom)]
    loom::lazy_static! {
        static ref TABLE: [Shard; SHARDS] = std::array::from_fn(|_| Mutex::new(None));
    }

    /// The shard of `key`, locked.
    fn shard(key: LatentHandle) -> MutexGuard<'static, Option<HashMap<LatentHandle, Entry>>> {
        let hash = (key.home.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ key.seq)
            .wrapping_mul(0xBF58_476D_1CE4_E5B9);
        TABLE[(hash >> 58) as usize % SHARDS].lock()
    }

    /// Empties the table and returns how many entries it held (the models
    /// check that none is left behind). What it held is dropped here, while
    /// the model runs: an entry left in loom's lazy static would be dropped
    /// after a failed model's execution, which aborts the test instead of
    /// reporting the failure.
    #[cfg(all(test, loom))]
    pub(super) fn drain() -> usize {
        TABLE
            .iter()
            .map(|shard| shard.lock().take().map_or(0, |map| map.len()))
            .sum()
    }

    /// The worker that recorded `key` publishes it with `state`: leaves it
    /// for its handle (waking a handle that waits for it), or detaches it
    /// if the handle was dropped.
    pub(super) fn publish<T>(key: LatentHandle, state: Arc<dyn SharedState<T>>) {
        let mut shard = shard(key);
        let map = shard.get_or_insert_with(HashMap::new);
        match map.remove(&key) {
            None => {
                map.insert(key, Entry::Published(Erased::new(state)));
            }
            Some(Entry::Awaited(event)) => {
                map.insert(key, Entry::Published(Erased::new(state)));
                drop(shard);
                event.set();
            }
            Some(Entry::Detached) => {
                drop(shard);
                detach_shared(state);
            }
            Some(Entry::Published(_)) => unreachable!("a record published twice"),
        }
    }

    /// The shared state of `key`'s record, once it is published: waits
    /// for the publication if the record is still latent on its worker
    /// (which publishes it when a thief asks, or when its task suspends or
    /// ends: a task must wait for its own spawns through the runtime).
    pub(super) fn wait_for<T>(key: LatentHandle) -> Arc<dyn SharedState<T>> {
        loop {
            let event = {
                let mut shard = shard(key);
                let map = shard.get_or_insert_with(HashMap::new);
                match map.remove(&key) {
                    // SAFETY: `key` names a record of this handle's `T`.
                    Some(Entry::Published(erased)) => return unsafe { erased.into_state() },
                    Some(Entry::Awaited(event)) => {
                        map.insert(key, Entry::Awaited(event.clone()));
                        event
                    }
                    None => {
                        let event = Arc::new(Event::new());
                        map.insert(key, Entry::Awaited(event.clone()));
                        event
                    }
                    Some(Entry::Detached) => unreachable!("a joined handle was dropped"),
                }
            };
            event.wait();
        }
    }

    /// The handle of `key` is dropped: the shared state if the record was
    /// published (for the caller to detach), else `None` after noting that
    /// its publication detaches it.
    pub(super) fn detach<T>(key: LatentHandle) -> Option<Arc<dyn SharedState<T>>> {
        let mut shard = shard(key);
        let map = shard.get_or_insert_with(HashMap::new);
        match map.remove(&key) {
            // SAFETY: `key` names a record of this handle's `T`.
            Some(Entry::Published(erased)) => Some(unsafe { erased.into_state() }),
            None => {
                map.insert(key, Entry::Detached);
                None
            }
            Some(Entry::Awaited(_)) => unreachable!("a handle dropped while it is joined"),
            Some(Entry::Detached) => unreachable!("a handle dropped twice"),
        }
    }

    /// Whether the task of `key` has finished: its record was published
    /// and its latch is set.
    pub(super) fn is_finished<T>(key: LatentHandle) -> bool {
        match shard(key).as_ref().and_then(|map| map.get(&key)) {
            // SAFETY: `key` names a record of this handle's `T`.
            Some(Entry::Published(erased)) => unsafe { erased.state::<T>() }.state().latch.is_set(),
            _ => false,
        }
    }
}

/// Loom models of the handle protocols (`--cfg loom`), on the real code:
/// `HandleState`'s swap and result cell (`crate::sync`'s `AtomicU8` and
/// `UnsafeCell`, loom's under loom), its latch, the `published` table (a
/// loom lazy static of loom mutexes), `TaskHandle`'s `join` and `Drop`,
/// `deferred`, `execute_spawn_job` and `run_task`. A plain loom thread stands
/// in for each worker, thief and joiner: off a worker, `join` and `Event::wait`
/// wait as a plain thread does (`latch::wait_on_thread`, whose thread handle
/// and `park` are loom's), and the worker-local steps (`run_here`,
/// `detach_here`, claiming a job back from the deque) find no worker and do
/// nothing, as on a thread outside any runtime.
///
/// Not covered: the worker-local half of a latent spawn — recording it,
/// `LatentHandle::run_here`, `detach_here` and `HandleTask::into_job`'s
/// `DETACHED_OUT` branch, which one worker does alone on its own arena
/// (`into_job` needs a worker; the models call `published::publish` with
/// the state it makes, which is its other branch); a joiner suspended as a
/// fiber (`worker/wait.rs`, whose wake-up the latch and sleep models cover);
/// `TaskHandle::is_finished` (one read under the shard's lock); a task that
/// panics (the same protocol, with a payload where the value was); and
/// `Event`'s inside: its flag and wait list are std's and parking_lot's
/// (`Event::new` is a public `const fn`, which loom's types cannot make), so
/// loom takes each access to them as one indivisible, sequentially
/// consistent step; the wake-up of the parked joiner (`ThreadWaiter`'s flag
/// and `park`) is loom's.
#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use crate::sync::AtomicUsize;
    use loom::sync::Arc as LoomArc;
    use std::sync::atomic::Ordering;

    /// A result that counts its drops.
    struct Counted(LoomArc<AtomicUsize>);

    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// How many `Counted` were dropped; read after the threads that may
    /// drop one were joined (the join orders their drops before).
    fn count(dropped: &AtomicUsize) -> usize {
        dropped.load(Ordering::Relaxed)
    }

    /// A deferred task's job, as a deque carries it to a thief.
    struct Job(JobRef);

    // SAFETY: a spawned task's job owns a reference to its allocation and
    // may run on any thread, as a steal does.
    unsafe impl Send for Job {}

    impl Job {
        /// Runs the job: a thief that stole it.
        fn run(self) {
            // SAFETY: the job was made by `deferred` and is run once, here.
            unsafe { self.0.execute() }
        }
    }

    /// A runtime's registry handle with no workers (none start).
    fn registry() -> Arc<RegistryHandle> {
        Arc::new(RegistryHandle(Registry::without_threads(0)))
    }

    /// A task returning a [`Counted`] as `spawn_in` makes it (deferred at
    /// its spawn): the shared state its handle holds, its job, and a
    /// witness reference to that state, which keeps the allocation, and any
    /// result still in it, alive until the model checks it.
    fn spawned(
        dropped: &LoomArc<AtomicUsize>,
    ) -> (
        Arc<dyn SharedState<Counted>>,
        Job,
        Arc<dyn SharedState<Counted>>,
    ) {
        let dropped = dropped.clone();
        let (shared, job) = deferred(&registry(), move || Counted(dropped));
        let witness = shared.clone();
        (shared, Job(job), witness)
    }

    /// (1) The task ends on a thief while its handle is dropped: whichever
    /// swap comes second disposes of the result, once. The witness keeps the
    /// allocation alive, so a result that neither side disposed of would
    /// still be in it (counted zero drops); two disposals would take an
    /// empty slot (a panic) or race on the cell (loom reports it).
    #[test]
    fn loom_detached_result_is_disposed_of_once() {
        loom::model(|| {
            let dropped = LoomArc::new(AtomicUsize::new(0));
            let (shared, job, witness) = spawned(&dropped);
            let handle = TaskHandle {
                inner: Some(HandleInner::Shared(shared)),
            };
            let thief = loom::thread::spawn(move || job.run());
            drop(handle);
            thief.join().unwrap();
            assert_eq!(count(&dropped), 1, "disposed of by the detach protocol");
            assert_eq!(Arc::strong_count(&witness), 1);
            drop(witness);
            assert_eq!(count(&dropped), 1);
        });
    }

    /// (1) The task ends on a thief while its handle is joined on another
    /// thread: the joiner waits on the latch and gets the value, which
    /// loom's cell checks was written before it is taken.
    #[test]
    fn loom_joiner_gets_the_result_of_a_task_run_elsewhere() {
        loom::model(|| {
            let dropped = LoomArc::new(AtomicUsize::new(0));
            let (shared, job, witness) = spawned(&dropped);
            let handle = TaskHandle {
                inner: Some(HandleInner::Shared(shared)),
            };
            let thief = loom::thread::spawn(move || job.run());
            let value = handle.join();
            assert_eq!(count(&dropped), 0);
            drop(value);
            thief.join().unwrap();
            assert_eq!(Arc::strong_count(&witness), 1);
            drop(witness);
            assert_eq!(count(&dropped), 1);
        });
    }

    /// The key of the models' latent record.
    const KEY: LatentHandle = LatentHandle { home: 1, seq: 1 };

    /// The worker that recorded `KEY` publishes it (`HandleTask::into_job`
    /// with a live handle: `published::publish`), then runs its job (the
    /// job went to its deque, where it stays: a thief would run it the
    /// same way). Returns the witness.
    fn publish_and_run(dropped: LoomArc<AtomicUsize>) -> Arc<dyn SharedState<Counted>> {
        let (shared, job, witness) = spawned(&dropped);
        published::publish(KEY, shared);
        job.run();
        witness
    }

    /// (2) A latent record's handle is joined on another thread while its
    /// worker publishes it: the joiner gets the published state (waiting on
    /// its event if it came first: a lost wake-up is a deadlock here, since
    /// loom's `park` never times out), then the value, and no entry is left
    /// in the table.
    #[test]
    fn loom_handle_joined_elsewhere_gets_the_published_state() {
        loom::model(|| {
            let dropped = LoomArc::new(AtomicUsize::new(0));
            let worker = {
                let dropped = dropped.clone();
                loom::thread::spawn(move || publish_and_run(dropped))
            };
            let handle: TaskHandle<Counted> = TaskHandle {
                inner: Some(HandleInner::Latent(KEY)),
            };
            let value = handle.join();
            assert_eq!(count(&dropped), 0);
            drop(value);
            let witness = worker.join().unwrap();
            assert_eq!(published::drain(), 0, "an entry was left behind");
            assert_eq!(Arc::strong_count(&witness), 1);
            drop(witness);
            assert_eq!(count(&dropped), 1);
        });
    }

    /// (2) A latent record's handle is dropped on another thread while its
    /// worker publishes it: whichever comes first, the task is detached
    /// once — its result is disposed of by the detach protocol while the
    /// witness keeps the allocation — and no entry is left in the table.
    #[test]
    fn loom_handle_dropped_elsewhere_detaches_the_published_task_once() {
        loom::model(|| {
            let dropped = LoomArc::new(AtomicUsize::new(0));
            let worker = {
                let dropped = dropped.clone();
                loom::thread::spawn(move || publish_and_run(dropped))
            };
            let handle: TaskHandle<Counted> = TaskHandle {
                inner: Some(HandleInner::Latent(KEY)),
            };
            drop(handle);
            let witness = worker.join().unwrap();
            assert_eq!(published::drain(), 0, "an entry was left behind");
            assert_eq!(count(&dropped), 1, "disposed of by the detach protocol");
            assert_eq!(Arc::strong_count(&witness), 1);
            drop(witness);
            assert_eq!(count(&dropped), 1);
        });
    }
}
