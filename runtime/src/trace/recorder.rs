//! The recording side of the profiler: per-worker event buffers, the
//! thread's open strand, and the hooks the scheduler and the public API
//! call at task operations.
//!
//! # What is recorded
//! A *strand* is a serial piece of one task on one worker between two task
//! operations; an *edge* says why a strand could not start earlier (see
//! `prescient_graph::critical_path`). Each worker thread has at most one open
//! strand at a time: a task's strand ends before the task suspends, and a
//! task run nested inside another (a scope claiming its own child) ends the
//! outer strand first (`run_nested`). So strands of one worker never
//! overlap, and a strand's index in its worker's buffer is known when it
//! begins: it is appended when it ends, and nothing else is appended to
//! the strand list in between.
//!
//! A strand is named by a [`StrandRef`], a `u64` id unique for the life of
//! the process (0 is "none"). Jobs carry the strand that created them
//! (`JobRef::creator`), completions carry the strand that finished the
//! task, so edges are recorded by the worker that runs their target and
//! need no shared state.
//!
//! # Strand ids
//! Objects keep strand references across sessions: an `Event` its setter's
//! strand for ever, a `TaskGroup` its last finisher until the next wait, a
//! `TaskHandle` its task's last strand, a task suspended across sessions
//! its paused strand (`Paused`), a queued job its creator. So an id must
//! never be handed out twice while the process lives, or an old reference
//! passes for a strand of the current session (a bogus edge, or a cycle).
//!
//! Ids come in blocks of [`BLOCK_LEN`] from one process-wide counter,
//! [`NEXT_BLOCK`], which only grows. A worker's buffer lists the blocks it
//! took, in order; the strand at index `i` of the buffer has id
//! `blocks[i / BLOCK_LEN] * BLOCK_LEN + i % BLOCK_LEN`. A worker takes a
//! block (one `fetch_add`, in a cold path) when its first strand of a
//! session begins and every [`BLOCK_LEN`] strands after; the hot path is
//! an add to the buffer's index and a compare. Block 0 is never handed out,
//! so no strand has id 0.
//!
//! Which session a reference belongs to:
//! * at record time, [`Tracer::start`] reads the counter with every
//!   worker's lock held and keeps it as the session's *floor* (as an id).
//!   Every block of an earlier session of this runtime was taken under a
//!   worker's lock while that session was active, and `stop` took every
//!   lock after it ended, so all of them lie below the floor; the hooks
//!   record an edge, continue a resumed task or split at a wait only from
//!   a strand at or above it.
//! * a reference from another runtime's session that runs at the same time
//!   may lie above the floor (its blocks interleave with ours), so it
//!   passes that check. The collector (`collect.rs`) maps only the blocks
//!   of this session's buffers; it finds none for such a reference and
//!   drops the edge (counted in `TraceStats::dropped_edges`).
//!
//! The counter yields 2^52 blocks: at least one per worker per session and
//! one per 4096 strands, so even one new block every 10 ns, process-wide,
//! would last 1.4 years. Should it ever run out, the process aborts rather
//! than hand out an id twice.
//!
//! # Who may write a buffer
//! Worker `w` appends to buffer `w` only while it holds `slots[w].lock`.
//! It takes the lock when a job starts or a suspended task resumes while a
//! session is active, and releases it when the job ends or the task
//! suspends — once per job, not per event, so the hot path is a thread-local
//! read and a plain append. The collector ([`Tracer::stop`]) clears `active`
//! and then takes every worker's lock: it waits for jobs that started
//! during the session to end or suspend, and after it no worker appends
//! (a worker that read `active` before it was cleared re-checks it under
//! the lock). Nobody else touches a buffer, so the `UnsafeCell` is sound.
//!
//! # Cost
//! With the `trace` feature off this module is not compiled and every hook
//! is an empty inline function (`off.rs`). With it on and no session
//! active, a hook costs a thread-local read and a branch; job starts and
//! resumptions also load the tracer's `active` flag. During a session, a
//! strand costs one clock read at each end and a 40-byte record, an edge a
//! 24-byte record; every 4096th strand of a worker takes a block of ids
//! (an atomic add on a process-wide counter) and 8 bytes in the buffer's
//! block list.

use super::buffer::ChunkedVec;
use super::clock;
use parking_lot::lock_api::RawMutex as _;
use parking_lot::{Mutex, RawMutex};
use prescient_graph::critical_path::EdgeKind;
use std::cell::{Cell, UnsafeCell};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Strand ids per block: a power of two, so that an id splits into block
/// and offset by a shift and a mask. Larger blocks mean fewer atomic adds on
/// the shared counter and a smaller table in the collector; smaller ones
/// fewer ids left unused at a session's end. Neither matters at 4096.
pub(crate) const BLOCK_SHIFT: u32 = 12;
pub(crate) const BLOCK_LEN: usize = 1 << BLOCK_SHIFT;
const OFFSET_MASK: u64 = (1 << BLOCK_SHIFT) - 1;
/// The largest block whose ids fit in a `u64`.
const MAX_BLOCK: u64 = u64::MAX >> BLOCK_SHIFT;

/// The next block of strand ids, for every tracer of the process (module
/// documentation). It starts at 1 so that no strand has id 0 ("none").
static NEXT_BLOCK: AtomicU64 = AtomicU64::new(1);

/// Takes a block of ids that no strand of the process had or will have.
#[cold]
#[inline(never)]
fn take_block() -> u64 {
    // Relaxed: uniqueness needs only the counter's modification order; the
    // floor argument (module documentation) is ordered by the slot locks.
    let block = NEXT_BLOCK.fetch_add(1, Ordering::Relaxed);
    if block > MAX_BLOCK {
        // Unreachable in practice (module documentation); wrapping would
        // hand out ids of live references again.
        crate::unwind::report(format_args!(
            "the profiler's strand ids are exhausted ({MAX_BLOCK} blocks of {BLOCK_LEN}); aborting"
        ));
        std::process::abort();
    }
    block
}

/// The block of a raw strand id.
#[inline]
pub(crate) fn block_of(raw: u64) -> u64 {
    raw >> BLOCK_SHIFT
}

/// The offset of a raw strand id in its block.
#[inline]
pub(crate) fn offset_in_block(raw: u64) -> u64 {
    raw & OFFSET_MASK
}

/// A recorded strand: an id unique for the life of the process (module
/// documentation); 0 is "none". Carried by jobs (their creator),
/// completions (the task's last strand) and waits.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct StrandRef(u64);

impl StrandRef {
    /// No strand: nothing was recorded.
    pub(crate) const NONE: StrandRef = StrandRef(0);

    #[cfg(test)]
    pub(crate) fn raw(self) -> u64 {
        self.0
    }

    pub(crate) fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// A [`StrandRef`] shared between threads. Relaxed: every reader is ordered
/// after the writer by the latch, counter or queue that publishes the
/// completion it belongs to.
#[derive(Debug, Default)]
pub(crate) struct AtomicStrandRef(AtomicU64);

impl AtomicStrandRef {
    pub(crate) const fn new() -> AtomicStrandRef {
        AtomicStrandRef(AtomicU64::new(0))
    }

    pub(crate) fn load(&self) -> StrandRef {
        StrandRef(self.0.load(Ordering::Relaxed))
    }

    pub(crate) fn store(&self, strand: StrandRef) {
        if !strand.is_none() {
            self.0.store(strand.0, Ordering::Relaxed);
        }
    }

    /// Stores `strand` unless a strand is stored already (the first setter
    /// of an `Event` wins).
    pub(crate) fn store_first(&self, strand: StrandRef) {
        if !strand.is_none() {
            let _ = self
                .0
                .compare_exchange(0, strand.0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }

    /// Takes the stored strand, leaving none (a task group's next wait
    /// must not see this wait's children).
    pub(crate) fn take(&self) -> StrandRef {
        StrandRef(self.0.swap(0, Ordering::Relaxed))
    }
}

/// A strand as recorded: times in clock ticks; `task` is the raw
/// [`StrandRef`] of the task's first strand; `inlined` the ticks of it
/// spent running children inline (`inlined`), `inlined_children` how many
/// such children began in it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct StrandRecord {
    pub(crate) start: u64,
    pub(crate) end: u64,
    pub(crate) task: u64,
    pub(crate) inlined: u64,
    pub(crate) inlined_children: u32,
}

/// An edge as recorded, between raw [`StrandRef`]s.
#[derive(Clone, Copy, Debug)]
pub(crate) struct EdgeRecord {
    pub(crate) from: u64,
    pub(crate) to: u64,
    pub(crate) kind: EdgeKind,
}

/// One worker's recording.
pub(crate) struct WorkerBuffer {
    pub(crate) strands: ChunkedVec<StrandRecord>,
    pub(crate) edges: ChunkedVec<EdgeRecord>,
    /// The blocks of ids its strands have, in the order taken: strand `i`
    /// has id `blocks[i >> BLOCK_SHIFT] << BLOCK_SHIFT | i & OFFSET_MASK`.
    pub(crate) blocks: Vec<u64>,
    /// Strands below this index have ids in `blocks`.
    ids_until: usize,
    /// Id minus index for the strands of the last block.
    id_delta: u64,
}

impl WorkerBuffer {
    const fn new() -> WorkerBuffer {
        WorkerBuffer {
            strands: ChunkedVec::new(),
            edges: ChunkedVec::new(),
            blocks: Vec::new(),
            ids_until: 0,
            id_delta: 0,
        }
    }

    /// The id of the strand appended next, taking a block if it needs one.
    #[inline]
    fn next_id(&mut self) -> u64 {
        let index = self.strands.len();
        if index >= self.ids_until {
            self.grow_ids(index);
        }
        index as u64 + self.id_delta
    }

    #[cold]
    #[inline(never)]
    fn grow_ids(&mut self, index: usize) {
        let block = index >> BLOCK_SHIFT;
        while self.blocks.len() <= block {
            self.blocks.push(take_block());
        }
        self.ids_until = (block + 1) << BLOCK_SHIFT;
        // Blocks are taken in increasing order from 1, so `blocks[block]`
        // is above `block`: no underflow, and no id is 0.
        self.id_delta = (self.blocks[block] - block as u64) << BLOCK_SHIFT;
    }

    /// The id of the strand at `index` (which has begun: its block is
    /// taken).
    #[cfg(test)]
    pub(crate) fn id_of(&self, index: usize) -> u64 {
        (self.blocks[index >> BLOCK_SHIFT] << BLOCK_SHIFT) | (index as u64 & OFFSET_MASK)
    }
}

struct WorkerSlot {
    lock: RawMutex,
    /// Written only by its worker under `lock`; read by the collector
    /// under `lock` (module documentation).
    buffer: UnsafeCell<WorkerBuffer>,
}

/// A runtime's trace state: one buffer per worker, whether a session is
/// recording, and the session's clock readings. `Send` by its fields.
pub(crate) struct Tracer {
    active: AtomicBool,
    /// The current session's floor: ids below it belong to earlier sessions
    /// (module documentation). Written by `start` under every slot lock.
    floor: AtomicU64,
    slots: Box<[WorkerSlot]>,
    /// Strands reserved per worker before each session.
    capacity: usize,
    /// The session in progress (its start reading); serialises sessions.
    session: Mutex<Option<clock::Reading>>,
}

// SAFETY: a slot's buffer is only touched under its lock (module
// documentation); everything else is atomic or behind a mutex.
unsafe impl Sync for Tracer {}

/// What [`Tracer::stop`] hands over: every worker's buffer and the clock.
pub(crate) struct Recording {
    pub(crate) buffers: Vec<WorkerBuffer>,
    pub(crate) conversion: clock::Conversion,
}

/// Why a session could not start.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum StartError {
    /// Another session of this runtime is recording.
    Busy,
}

impl Tracer {
    /// A tracer for `workers` workers that reserves `capacity` strands (and
    /// twice as many edges) per worker before each session.
    pub(crate) fn new(workers: usize, capacity: usize) -> Tracer {
        let slots = (0..workers)
            .map(|_| WorkerSlot {
                lock: RawMutex::INIT,
                buffer: UnsafeCell::new(WorkerBuffer::new()),
            })
            .collect();
        Tracer {
            active: AtomicBool::new(false),
            floor: AtomicU64::new(u64::MAX),
            slots,
            capacity,
            session: Mutex::new(None),
        }
    }

    /// Takes every worker's slot lock, in index order, until the guard
    /// drops. Only `start` and `stop` take more than one lock, and both
    /// hold `session` first, so two of these never interleave.
    fn lock_all(&self) -> AllSlotsLocked<'_> {
        for slot in self.slots.iter() {
            slot.lock.lock();
        }
        AllSlotsLocked { tracer: self }
    }

    /// Starts a session: reserves every buffer, then records.
    /// Waits for jobs still running from an earlier session's end.
    pub(crate) fn start(&self) -> Result<(), StartError> {
        let mut session = self.session.lock();
        if session.is_some() {
            return Err(StartError::Busy);
        }
        clock::init();
        let mut locked = self.lock_all();
        for buffer in locked.buffers() {
            // Empty and unallocated: `new` built it so, `stop` left an
            // empty one in its place, and workers append only under the
            // lock while `active` (re-checked in `lock_slow`), which it is
            // not between a `stop` and this `start`.
            debug_assert!(
                buffer.strands.allocated_bytes() == 0
                    && buffer.edges.allocated_bytes() == 0
                    && buffer.blocks.is_empty(),
                "a trace buffer outlived its session"
            );
            buffer.strands.reserve(self.capacity);
            // Saturating: the builder bounds the capacity, but an overflow
            // here would panic with every lock held.
            buffer.edges.reserve(self.capacity.saturating_mul(2));
        }
        // Every block an earlier session of this runtime took was taken
        // under a slot lock while it was active, so before its `stop` took
        // these locks: below this reading. (Saturating: past the last block
        // no id is handed out anyway, `take_block`.)
        let floor = NEXT_BLOCK
            .load(Ordering::Relaxed)
            .saturating_mul(BLOCK_LEN as u64);
        self.floor.store(floor, Ordering::Relaxed);
        *session = Some(clock::Reading::take());
        self.active.store(true, Ordering::Relaxed);
        // Releasing the locks publishes the floor and the reserved buffers to
        // each worker's next acquisition.
        drop(locked);
        Ok(())
    }

    /// Ends the session and takes its buffers; `None` if none was started.
    pub(crate) fn stop(&self) -> Option<Recording> {
        let mut session = self.session.lock();
        let start = session.take()?;
        self.active.store(false, Ordering::Relaxed);
        // Every worker's lock: jobs that started during the session have
        // ended or suspended, and their strands are in the buffers.
        let mut locked = self.lock_all();
        let end = clock::Reading::take();
        let buffers = locked
            .buffers()
            .map(|buffer| std::mem::replace(buffer, WorkerBuffer::new()))
            .collect();
        drop(locked);
        Some(Recording {
            buffers,
            conversion: clock::Conversion::between(start, end),
        })
    }
}

/// Every slot lock of one tracer, held by this thread ([`Tracer::lock_all`]);
/// dropping it releases them. While it lives no worker appends to any buffer
/// (module documentation), so it may hand out the buffers mutably.
struct AllSlotsLocked<'a> {
    tracer: &'a Tracer,
}

impl AllSlotsLocked<'_> {
    /// Every worker's buffer. `&mut self`: one borrow of the buffers at a
    /// time.
    fn buffers(&mut self) -> impl Iterator<Item = &mut WorkerBuffer> + '_ {
        self.tracer.slots.iter().map(|slot| {
            // SAFETY: this guard holds the slot's lock, so no worker touches
            // the buffer (module documentation), and `&mut self` keeps this
            // the only reference made through the guard.
            unsafe { &mut *slot.buffer.get() }
        })
    }
}

impl Drop for AllSlotsLocked<'_> {
    fn drop(&mut self) {
        for slot in self.tracer.slots.iter() {
            // SAFETY: `lock_all` took every lock on this thread and built this
            // guard, the only one, which releases them once.
            unsafe { slot.lock.unlock() };
        }
    }
}

/// The recording state of this thread: which tracer and worker it records
/// for, and its open strand.
struct ThreadState {
    tracer: Cell<*const Tracer>,
    worker: Cell<usize>,
    /// This thread holds its slot's lock.
    locked: Cell<bool>,
    /// The session's floor (`Tracer::floor`), read when the lock is taken.
    floor: Cell<u64>,
    /// The open strand (raw `StrandRef`), 0 if none.
    open: Cell<u64>,
    open_start: Cell<u64>,
    /// The task of the open strand (or of the last one, across a fork).
    task: Cell<u64>,
    /// The strand that ended last on this thread.
    last_ended: Cell<u64>,
    /// Nesting of inline children (`inlined`) in the running task: only the
    /// outermost is timed. Per task: saved across suspensions and nested
    /// runs.
    inline_depth: Cell<u32>,
    /// When the outermost inline child began, or the open strand began
    /// inside it.
    inline_start: Cell<u64>,
    /// The open strand's inline ticks and children so far.
    open_inlined: Cell<u64>,
    open_inlined_children: Cell<u32>,
    /// The open strand began when a suspended task resumed, and nothing
    /// else happened since: whatever woke the task ended before it began.
    /// Read only while a strand is open; `begin_at` clears it, `resume`
    /// sets it after its strand begins.
    just_resumed: Cell<bool>,
}

thread_local! {
    static THREAD: ThreadState = const {
        ThreadState {
            tracer: Cell::new(std::ptr::null()),
            worker: Cell::new(0),
            locked: Cell::new(false),
            floor: Cell::new(u64::MAX),
            open: Cell::new(0),
            open_start: Cell::new(0),
            task: Cell::new(0),
            last_ended: Cell::new(0),
            inline_depth: Cell::new(0),
            inline_start: Cell::new(0),
            open_inlined: Cell::new(0),
            open_inlined_children: Cell::new(0),
            just_resumed: Cell::new(false),
        }
    };
}

/// Makes this thread worker `worker` of `tracer`'s runtime.
///
/// # Safety
/// `tracer` outlives this thread's use of it: [`uninstall`] is called
/// before it is dropped (the worker's registry reference keeps it alive).
pub(crate) unsafe fn install(tracer: &Tracer, worker: usize) {
    THREAD.with(|t| {
        t.tracer.set(tracer);
        t.worker.set(worker);
    });
}

/// This thread records no more.
pub(crate) fn uninstall() {
    THREAD.with(|t| {
        t.unlock();
        t.tracer.set(std::ptr::null());
    });
}

impl ThreadState {
    #[inline]
    fn slot(&self) -> &WorkerSlot {
        // SAFETY: called only with a tracer installed (`locked` implies it),
        // which outlives the installation (`install`'s contract).
        let tracer = unsafe { &*self.tracer.get() };
        &tracer.slots[self.worker.get()]
    }

    /// Takes this worker's lock if a session is recording; whether this
    /// thread may record now.
    #[inline]
    fn try_lock(&self) -> bool {
        if self.locked.get() {
            return true;
        }
        let tracer = self.tracer.get();
        if tracer.is_null() {
            return false;
        }
        // SAFETY: installed, so alive (`install`'s contract).
        let tracer = unsafe { &*tracer };
        if !tracer.active.load(Ordering::Relaxed) {
            return false;
        }
        self.lock_slow(tracer)
    }

    #[cold]
    #[inline(never)]
    fn lock_slow(&self, tracer: &Tracer) -> bool {
        let slot = &tracer.slots[self.worker.get()];
        slot.lock.lock();
        // Re-checked under the lock: the collector clears `active` before
        // it takes the locks, so a session that ended meanwhile is seen.
        if !tracer.active.load(Ordering::Relaxed) {
            // SAFETY: taken just above.
            unsafe { slot.lock.unlock() };
            return false;
        }
        self.floor.set(tracer.floor.load(Ordering::Relaxed));
        // No strand is open: `open` is set only while `locked`, and `unlock`
        // clears both.
        debug_assert_eq!(self.open.get(), 0);
        self.locked.set(true);
        true
    }

    fn unlock(&self) {
        if self.locked.replace(false) {
            self.open.set(0);
            // SAFETY: `locked` says this thread holds the slot's lock.
            unsafe { self.slot().lock.unlock() };
        }
    }

    #[allow(clippy::mut_from_ref)]
    #[inline]
    fn buffer(&self) -> &mut WorkerBuffer {
        debug_assert!(self.locked.get());
        // SAFETY: this thread holds the slot's lock (callers check
        // `locked`), and no hook holds the reference across another call.
        unsafe { &mut *self.slot().buffer.get() }
    }

    /// Begins a strand of `task` (0: a new task, named by this strand) at
    /// `now`; returns its raw reference.
    #[inline]
    fn begin_at(&self, task: u64, now: u64) -> u64 {
        let strand = self.buffer().next_id();
        self.open.set(strand);
        self.open_start.set(now);
        // `resume` sets it again after its strand begins.
        self.just_resumed.set(false);
        self.task.set(if task == 0 { strand } else { task });
        self.open_inlined.set(0);
        self.open_inlined_children.set(0);
        if self.inline_depth.get() > 0 {
            self.inline_start.set(now);
        }
        strand
    }

    /// Ends the open strand at `now`; returns it (0 if none was open).
    #[inline]
    fn end_at(&self, now: u64) -> u64 {
        let strand = self.open.replace(0);
        if strand != 0 {
            let mut inlined = self.open_inlined.get();
            if self.inline_depth.get() > 0 {
                inlined += now.saturating_sub(self.inline_start.get());
            }
            let record = StrandRecord {
                start: self.open_start.get(),
                end: now,
                task: self.task.get(),
                inlined,
                inlined_children: self.open_inlined_children.get(),
            };
            self.buffer().strands.push(record);
            self.last_ended.set(strand);
        }
        strand
    }

    /// Records an edge unless `from` is none or of an earlier session
    /// (below the floor, which is above 0). `to` is a strand this session
    /// began.
    #[inline]
    fn edge(&self, from: u64, to: u64, kind: EdgeKind) {
        debug_assert_ne!(to, 0);
        if from >= self.floor.get() {
            self.buffer().edges.push(EdgeRecord { from, to, kind });
        }
    }

    /// Ends the open strand and begins the next of the same task at one
    /// instant, joined by an edge of `kind`; returns (ended, begun).
    #[inline]
    fn split(&self, kind: EdgeKind) -> (u64, u64) {
        let now = clock::now();
        let ended = self.end_at(now);
        let begun = self.begin_at(self.task.get(), now);
        self.edge(ended, begun, kind);
        (ended, begun)
    }

    /// Begins the first strand of a new task at `now`, created by
    /// `creator` (a create edge).
    #[inline]
    fn start_task(&self, creator: StrandRef, now: u64) {
        let begun = self.begin_at(0, now);
        self.edge(creator.0, begun, EdgeKind::Create);
    }
}

/// A job starts on this worker (the root of a fiber): its first strand
/// begins, created by `creator`.
#[inline]
pub(crate) fn task_start(creator: StrandRef) {
    THREAD.with(|t| {
        if !t.try_lock() {
            return;
        }
        debug_assert_eq!(t.open.get(), 0, "a job started inside a strand");
        t.start_task(creator, clock::now());
    });
}

/// The job started by [`task_start`] returned: its strand ends if still
/// open, and the worker stops writing its buffer until the next job.
#[inline]
pub(crate) fn task_end() {
    THREAD.with(|t| {
        if t.locked.get() {
            t.end_at(clock::now());
            t.unlock();
        }
    });
}

/// The running task is finishing: ends its last strand and returns it, for
/// the completion to carry to whoever waits for the task.
#[inline]
pub(crate) fn task_finish() -> StrandRef {
    THREAD.with(|t| {
        if t.open.get() == 0 {
            return StrandRef::NONE;
        }
        StrandRef(t.end_at(clock::now()))
    })
}

/// The running task creates a task (or signals an event): its strand ends
/// here and its continuation begins (a create-continue edge). Returns the
/// ended strand: the new task's creator.
#[inline]
pub(crate) fn fork() -> StrandRef {
    THREAD.with(|t| {
        if t.open.get() == 0 {
            return StrandRef::NONE;
        }
        StrandRef(t.split(EdgeKind::CreateContinue).0)
    })
}

/// A suspended task's last strand and its task, kept in the suspended frame
/// until it resumes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Paused {
    strand: u64,
    task: u64,
    /// The task's nesting of inline children when it suspended.
    inline_depth: u32,
}

/// The running task suspends: its strand ends, and this worker stops
/// writing its buffer until a job starts or a task resumes.
#[inline]
pub(crate) fn suspend() -> Paused {
    THREAD.with(|t| {
        let (strand, task) = if t.locked.get() {
            let task = t.task.get();
            // Ended with the suspended task's depth, so its inline time
            // counts.
            let strand = t.end_at(clock::now());
            t.unlock();
            (strand, task)
        } else {
            (0, 0)
        };
        Paused {
            strand,
            task,
            // Saved with the task; the worker's next job starts at depth 0.
            inline_depth: t.inline_depth.replace(0),
        }
    })
}

/// The task suspended with `paused` resumes: a new strand begins, after the
/// paused one (a wait-continue edge).
#[inline]
pub(crate) fn resume(paused: Paused) {
    THREAD.with(|t| {
        t.inline_depth.set(paused.inline_depth);
        if !t.try_lock() {
            return;
        }
        // The floor is above 0, so a task that did not record is a new one.
        let same_session = paused.strand >= t.floor.get();
        let task = if same_session { paused.task } else { 0 };
        let begun = t.begin_at(task, clock::now());
        t.edge(paused.strand, begun, EdgeKind::WaitContinue);
        t.just_resumed.set(same_session);
    });
}

/// A wait of the running task completed, and `from` is the last strand of
/// what it waited for (a child's, or an event setter's): an end edge into
/// the waiter's current strand, which begins here unless it just began at
/// the wake-up.
#[inline]
pub(crate) fn joined(from: StrandRef) {
    if from.is_none() {
        return;
    }
    THREAD.with(|t| {
        // A strand of an earlier session: no edge (nor a strand split for
        // it). One of another runtime's session passes, and the collector
        // drops its edge.
        if t.open.get() == 0 || from.0 < t.floor.get() {
            return;
        }
        let current = if t.just_resumed.replace(false) {
            // The strand that began at the wake-up goes on; something
            // happened in it now, so a later wait's end begins a new one.
            t.open.get()
        } else {
            // A new strand begins (`begin_at` clears the flag).
            t.split(EdgeKind::WaitContinue).1
        };
        t.edge(from.0, current, EdgeKind::End);
    });
}

/// Runs `job`, a task created by `creator`, inside the running task (a
/// scope, group or handle claiming its own unstarted child): the running
/// strand ends, the child's strands are recorded as its own task, and the
/// running task goes on in a new strand after it — after its own previous
/// strand (wait-continue) and after the child's last (end): it waited for
/// the child by running it.
pub(crate) fn run_nested<R>(creator: StrandRef, job: impl FnOnce() -> R) -> R {
    let outer = THREAD.with(|t| {
        if !t.try_lock() {
            return None;
        }
        let now = clock::now();
        let task = t.task.get();
        let ended = t.end_at(now);
        // The child is a task of its own, not an inline child of ours.
        let inline_depth = t.inline_depth.replace(0);
        t.start_task(creator, now);
        Some((ended, task, inline_depth))
    });
    let result = job();
    if let Some((ended, task, inline_depth)) = outer {
        THREAD.with(|t| {
            t.inline_depth.set(inline_depth);
            if !t.locked.get() {
                return;
            }
            let now = clock::now();
            // The child's last strand: still open, or ended by its
            // completion (`task_finish`).
            t.end_at(now);
            let child_last = t.last_ended.get();
            if ended != 0 {
                let begun = t.begin_at(task, now);
                t.edge(ended, begun, EdgeKind::WaitContinue);
                if child_last != ended {
                    t.edge(child_last, begun, EdgeKind::End);
                }
            }
        });
    }
    result
}

/// Runs `child`, a spawned child that its spawner runs itself, inline (lazy
/// task creation with a full deque, or the inliner's decision): no task and
/// no edge, but its time is counted in the running strand's inline time
/// (outermost children only), so that the report can tell a spawner's own
/// work from the children it ran. `child` must not unwind (callers pass
/// closures that catch their panics).
#[inline]
pub(crate) fn inlined<R>(child: impl FnOnce() -> R) -> R {
    // Whether the child counts in the depth, and whether it is timed:
    // neither unless this thread records, so the hook is then one
    // thread-local check (a child entered before a session began is not
    // timed, and its own inline children may be).
    let (entered, timed) = THREAD.with(|t| {
        if !t.locked.get() {
            return (false, false);
        }
        let depth = t.inline_depth.get();
        t.inline_depth.set(depth + 1);
        if depth > 0 || t.open.get() == 0 {
            return (true, false);
        }
        t.inline_start.set(clock::now());
        t.open_inlined_children
            .set(t.open_inlined_children.get() + 1);
        (true, true)
    });
    let result = child();
    if entered {
        THREAD.with(|t| {
            let depth = t.inline_depth.get();
            t.inline_depth.set(depth.saturating_sub(1));
            if timed && depth == 1 && t.open.get() != 0 {
                let elapsed = clock::now().saturating_sub(t.inline_start.get());
                t.open_inlined.set(t.open_inlined.get() + elapsed);
            }
        });
    }
    result
}
