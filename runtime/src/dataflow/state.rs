//! What the tasks of one dataflow scope share with it: the graph, the count
//! of live tasks that the scope's waits wait for, and the first panic; and the
//! type-erased task, [`TaskRef`], that the graph holds (it points back to the
//! scope, so it lives beside [`Shared`]; `task.rs` makes and runs the typed
//! box behind it).
//!
//! [`Shared`] lives inside the `Dataflow` value in the frame of the
//! `dataflow` call, and tasks reach it through a raw pointer (no reference
//! count per task). That is sound because the frame does not return before
//! [`LiveCount`] says every task has finished, and a finishing task's *last*
//! access to the scope is its decrement of that count — see [`LiveCount`] for
//! why the decrement itself cannot touch freed memory.

use super::graph_ops::{GraphPool, GraphTaskId, LockedGraph, MAX_SHARDS};
use crate::job::JobRef;
use crate::scheduler::latch::Latch;
use crate::scheduler::registry::Registry;
use crate::trace::AtomicStrandRef;
use crate::unwind::{keep_first_panic, PanicPayload};
use parking_lot::Mutex;
use std::cell::{RefCell, UnsafeCell};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

thread_local! {
    /// Empty graphs kept for the next scope of this thread (see
    /// `LockedGraph::new`).
    static GRAPH_POOL: GraphPool<TaskRef> = const { RefCell::new(Vec::new()) };
}

/// The part of a dataflow scope that its tasks touch, from any worker.
pub(crate) struct Shared {
    /// The dependency graph, sharded by region; its operations run inline
    /// on the worker that submits or finishes a task, or as DAST requests
    /// (see `graph_requests.rs`), under the locks of the task's shards.
    pub(crate) graph: LockedGraph<TaskRef>,
    /// Tasks submitted and not finished.
    pub(crate) live: LiveCount,
    /// Tasks of this scope pushed to a deque and not started yet (exact:
    /// a task uncounts itself when it starts, wherever it was stolen to).
    queued: AtomicUsize,
    /// `Params::queue_capacity`: the submitter runs a ready task at once
    /// instead of pushing it while this many of the scope's tasks are queued.
    capacity: usize,
    /// The first panic of a task since the last wait.
    panic: Mutex<Option<PanicPayload>>,
    /// The last strand of a task that finished since the last wait
    /// (`trace`; the latest writer wins).
    pub(crate) last_finished: AtomicStrandRef,
    /// Where ready tasks go when no worker is at hand (never, in practice:
    /// tasks are submitted and finished on workers).
    pub(crate) registry: Arc<Registry>,
}

impl Shared {
    /// The state of a new scope of the runtime `registry`.
    pub(crate) fn new(registry: Arc<Registry>) -> Shared {
        // Graph shards: 1 for one worker (one lock, no multi-shard tasks),
        // else the next power of two at or above the worker count (a mask
        // picks a region's shard), at most `MAX_SHARDS`.
        let shards = registry.num_workers().next_power_of_two().min(MAX_SHARDS);
        Shared {
            graph: LockedGraph::new(registry.params.dependency_buckets, shards, &GRAPH_POOL),
            live: LiveCount::new(),
            queued: AtomicUsize::new(0),
            capacity: registry.params.queue_capacity,
            panic: Mutex::new(None),
            last_finished: AtomicStrandRef::new(),
            registry,
        }
    }

    /// Whether a ready task should be pushed (deferred) rather than run at
    /// once by the submitter: fewer than `queue_capacity` tasks of this scope
    /// wait in deques. Lazy task creation, counted per scope across all
    /// workers (a dataflow task is released by whichever worker finishes its
    /// last predecessor, so the submitting worker's own deque length
    /// (`WorkerThread::reserve`) says little about how many of the scope's
    /// tasks are waiting).
    #[inline]
    pub(crate) fn has_room(&self) -> bool {
        self.queued.load(Ordering::Relaxed) < self.capacity
    }

    /// Counts a task about to be pushed to a deque.
    #[inline]
    pub(crate) fn note_queued(&self) {
        self.queued.fetch_add(1, Ordering::Relaxed);
    }

    /// Uncounts a queued task that starts running.
    #[inline]
    pub(crate) fn note_started(&self) {
        self.queued.fetch_sub(1, Ordering::Relaxed);
    }

    /// Records a task's panic; the first one since the last wait is kept, a
    /// later one dropped safely (see `unwind::keep_first_panic`).
    pub(crate) fn record_panic(&self, payload: PanicPayload) {
        keep_first_panic(&self.panic, payload);
    }

    /// Takes the first panic recorded since the last call.
    pub(crate) fn take_panic(&self) -> Option<PanicPayload> {
        self.panic.lock().take()
    }
}

/// The type-erased part at the start of every task box (`task::TaskBox`).
pub(crate) struct Header {
    /// Runs (or cancels) the task and frees its box.
    run: unsafe fn(NonNull<Header>, GraphTaskId),
    /// The scope the task belongs to.
    pub(crate) shared: *const Shared,
    /// The id the graph handed the task out under, written by
    /// [`TaskRef::into_job`] before the box is queued as a job (so that the
    /// box itself is the job: one allocation per task, no wrapper).
    id: Option<GraphTaskId>,
}

impl Header {
    /// The header of a new task box of the scope `shared`, whose `run` runs
    /// and frees the box it heads.
    pub(crate) fn new(run: unsafe fn(NonNull<Header>, GraphTaskId), shared: &Shared) -> Header {
        Header {
            run,
            shared,
            id: None,
        }
    }

    /// Whether [`TaskRef::into_job`] queued the task (else its submitter
    /// runs it inline, with [`TaskRef::run`]).
    pub(crate) fn is_queued(&self) -> bool {
        self.id.is_some()
    }
}

/// A submitted task, type-erased: the payload the dependency graph holds
/// until the task may run. Made by `task::boxed`.
pub(crate) struct TaskRef(NonNull<Header>);

// SAFETY: a TaskRef owns a task box whose raw accesses and body are `Send`
// (`TaskRef::from_box`'s contract); the header's scope pointer is only an
// address into a `Sync` scope state.
unsafe impl Send for TaskRef {}

impl TaskRef {
    /// Takes ownership of a leaked task box through its header.
    ///
    /// # Safety
    /// `header` points to a [`Header`] made by [`Header::new`] that is the
    /// first field of a `repr(C)` box leaked with `Box::into_raw`; the header's
    /// `run` frees that box with its real type; the box's other contents are
    /// `Send`; and nothing else owns the box.
    pub(crate) unsafe fn from_box(header: NonNull<Header>) -> TaskRef {
        TaskRef(header)
    }

    /// Runs the task with the id the graph gave it, on this thread.
    ///
    /// # Safety
    /// The graph handed this task out under `id` (see the invariant in
    /// `task.rs`), and its scope is alive.
    pub(crate) unsafe fn run(self, id: GraphTaskId) {
        // SAFETY: the header is alive until `run` frees the box.
        let run = unsafe { self.0.as_ref().run };
        // SAFETY: the graph handed this task out under `id` and its scope is
        // alive (this function's contract: links 1, 2 and 7 of `task.rs`);
        // `run` matches the box's type (`from_box`'s contract).
        unsafe { run(self.0, id) }
    }

    /// Wraps the task in a job for a deque, counted as queued in its scope
    /// until it starts.
    ///
    /// # Safety
    /// As for [`run`](Self::run).
    pub(crate) unsafe fn into_job(self, id: GraphTaskId) -> JobRef {
        let header = self.0.as_ptr();
        // SAFETY: this `TaskRef` owns the box (nobody else can reach it until
        // the job is queued), so writing its header is exclusive; the scope is
        // alive (contract).
        unsafe {
            (*header).id = Some(id);
            (*(*header).shared).note_queued();
        }
        // SAFETY: `execute_job` runs the box once, on any thread: the box and
        // its body are `Send` (`from_box`), it stays allocated until
        // `execute_job` runs it, and a queued job is executed exactly once.
        unsafe { JobRef::new(header.cast_const().cast::<()>(), execute_job) }
    }
}

/// The `JobRef` entry point of a queued task box: uncounts it as queued and
/// runs it under the id [`TaskRef::into_job`] stored.
///
/// # Safety
/// `pointer` came from `TaskRef::into_job` and is executed once; the contract
/// of [`TaskRef::run`] holds for the stored id.
unsafe fn execute_job(pointer: *const ()) {
    let header = pointer.cast_mut().cast::<Header>();
    // SAFETY: the box is alive until `run` frees it, and its scope is alive
    // while the task is live (contract); `into_job` wrote `id` before the
    // job was queued, and the queue's hand-off orders that write before
    // this read.
    // `pointer` is non-null: it came from `Box::into_raw`; and it owns the
    // box again (the job runs once).
    unsafe {
        let id = (*header).id.expect("a queued dataflow task has an id");
        (*(*header).shared).note_started();
        TaskRef(NonNull::new_unchecked(header)).run(id);
    }
}

/// One task in the count word (bit 0 is [`WAITING`]).
const ONE: usize = 2;
/// How many task counts the owner adds to the word at a time (see
/// [`LiveCount`]).
const RESERVE: usize = 64;
/// Set by the owner when it sleeps on its latch until the count is zero.
const WAITING: usize = 1;

/// A count of live tasks with one waiter (the scope's owner), built so that
/// the task whose decrement reaches zero never touches the count afterwards
/// unless the owner is asleep waiting for exactly that decrement.
///
/// The word is `2 * (count + reserved) + waiting`. Only the owner
/// increments and waits.
/// * The owner counts tasks out of a reservation: when it has none left it
///   adds [`RESERVE`] counts to the word at once, and each task it submits
///   takes one of them (an owner-only cell). So the word's cache line is
///   written by the submitter once per [`RESERVE`] tasks rather than per
///   task, and stays with the workers that finish tasks; unused counts only
///   keep the word above zero, which no finishing task can then reach.
/// * A finishing task subtracts [`ONE`]. If the previous word was
///   `ONE | WAITING` the owner is asleep on its latch: the task reads the
///   latch pointer (the owner cannot return, so the scope is alive) and sets
///   the latch, which does not touch the latch after the swap that wakes the
///   owner. Any other previous word: the task does nothing more.
/// * The owner first gives its unused reservation back (AcqRel, so that a
///   zero it leaves is a zero the tasks' decrements reached). It returns at
///   once if the word is then 0 (Acquire: every finished task's writes are
///   visible, the decrements form a release sequence). Otherwise it stores its latch pointer and sets [`WAITING`] with a CAS
///   that fails if the count reached zero meanwhile; then it sleeps on the
///   latch, and clears the bit once woken.
///
/// So when the owner sees zero without sleeping, the task that reached zero
/// saw `WAITING` clear and stopped touching the scope at its `fetch_sub`; and
/// when it sleeps, it resumes only after the last task's final access.
///
/// Aligned to 128 bytes (two cache lines, as `crossbeam_utils::CachePadded`
/// on x86-64, for the adjacent-line prefetcher), so that the scope's other
/// shared words — the queued-task count the submitter reads and writes for
/// every task — are not on its line: the workers that finish tasks keep it.
#[repr(align(128))]
pub(crate) struct LiveCount {
    word: AtomicUsize,
    /// The owner's latch while [`WAITING`] is set; written by the owner before
    /// the CAS that sets the bit (Release), read by the task whose
    /// decrement observes the bit (AcqRel).
    waiter: UnsafeCell<*const Latch>,
    /// Counts the owner added to the word and no task took yet (owner
    /// only; zero while it waits).
    reserved: UnsafeCell<usize>,
}

// SAFETY: `waiter` is written only by the owner while WAITING is clear (no
// task reads it then) and read only by the one task whose decrement observed
// WAITING with a zero count; the CAS/fetch_sub pair orders the two.
// `reserved` is read and written only by the owner (the scope's one
// submitter and waiter: `Dataflow` is `!Sync` and its handles `!Send`).
unsafe impl Sync for LiveCount {}
// SAFETY: the raw pointer in `waiter` is only an address, dereferenced
// only under the WAITING protocol described for `Sync` (which does not
// depend on the thread that owns the count); the count is an atomic.
unsafe impl Send for LiveCount {}

impl LiveCount {
    fn new() -> LiveCount {
        LiveCount {
            word: AtomicUsize::new(0),
            waiter: UnsafeCell::new(std::ptr::null()),
            reserved: UnsafeCell::new(0),
        }
    }

    /// The owner's unused reservation. Owner only.
    #[inline]
    fn reserved(&self) -> usize {
        // SAFETY: only the owner touches `reserved` (see `Sync`), and this
        // is the owner.
        unsafe { *self.reserved.get() }
    }

    /// Sets the owner's unused reservation. Owner only.
    #[inline]
    fn set_reserved(&self, reserved: usize) {
        // SAFETY: only the owner touches `reserved` (see `Sync`), and this
        // is the owner.
        unsafe { *self.reserved.get() = reserved };
    }

    /// Counts a submitted task, out of the owner's reservation (refilled
    /// with [`RESERVE`] counts when empty). Owner only.
    #[inline]
    pub(crate) fn increment(&self) {
        let reserved = match self.reserved() {
            0 => {
                // Relaxed as before: the count only needs to be above zero
                // before the task can finish, and the task is published to
                // other threads after this (its queue's hand-off orders it).
                self.word.fetch_add(ONE * RESERVE, Ordering::Relaxed);
                RESERVE
            }
            reserved => reserved,
        };
        self.set_reserved(reserved - 1);
    }

    /// Whether no task is live (Acquire: their effects are visible). Owner
    /// only (it discounts the owner's reservation).
    #[inline]
    pub(crate) fn is_zero(&self) -> bool {
        self.word.load(Ordering::Acquire) == ONE * self.reserved()
    }

    /// The number of live tasks (diagnostics). Owner only.
    pub(crate) fn count(&self) -> usize {
        self.word.load(Ordering::Acquire) / ONE - self.reserved()
    }

    /// Uncounts a finished task; wakes the owner if it waits for this one.
    ///
    /// # Safety
    /// `this` points to the live count of a scope whose owner has not seen
    /// this task finish (so the scope is alive until this call's `fetch_sub`),
    /// and the caller does not touch the scope after this call.
    #[inline]
    pub(crate) unsafe fn decrement(this: *const LiveCount) {
        // SAFETY: alive until the fetch_sub (contract).
        let previous = unsafe { (*this).word.fetch_sub(ONE, Ordering::AcqRel) };
        if previous == ONE | WAITING {
            // SAFETY: the owner set WAITING with a nonzero count and sleeps on
            // its latch until it is set, so the scope and the latch are alive;
            // the owner wrote `waiter` before setting WAITING (Release), which
            // our AcqRel fetch_sub read.
            unsafe {
                let latch = *(*this).waiter.get();
                Latch::set(latch);
            }
        }
    }

    /// Waits until no task is live: suspends the calling task (its worker
    /// runs other work), or parks a plain thread. Owner only.
    pub(crate) fn wait(&self) {
        // Give the unused reservation back: afterwards the word counts live
        // tasks only, so a finishing task can bring it to zero.
        let reserved = self.reserved();
        let mut word = if reserved == 0 {
            self.word.load(Ordering::Acquire)
        } else {
            self.set_reserved(0);
            // AcqRel: a zero left here is one the tasks' decrements reached,
            // whose effects the owner must see (as the Acquire load's).
            self.word.fetch_sub(ONE * reserved, Ordering::AcqRel) - ONE * reserved
        };
        if word == 0 {
            return;
        }
        let latch = Latch::new();
        // SAFETY: owner only, and WAITING is clear, so no task reads `waiter`.
        unsafe { *self.waiter.get() = &latch };
        loop {
            debug_assert_eq!(word & WAITING, 0);
            if word == 0 {
                return;
            }
            match self.word.compare_exchange_weak(
                word,
                word | WAITING,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => break,
                Err(current) => word = current,
            }
        }
        crate::scheduler::worker::wait_for(&latch);
        // The last task left the word at WAITING and will not touch it again.
        self.word.fetch_and(!WAITING, Ordering::Relaxed);
        debug_assert_eq!(self.word.load(Ordering::Relaxed), 0);
    }
}
