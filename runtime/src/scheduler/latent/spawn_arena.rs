//! Latent spawns: tasks that a `scope`, a `TaskGroup` or `spawn` gave this
//! worker and that no thief has seen yet — the spawn's counterpart of the
//! latent joins (`scheduler/latent/join_chain.rs`).
//!
//! # Why
//! A spawned task that enters the deque pays for a heap allocation, the
//! owner's count, a push, and a take-back at the scope's end that searches
//! the deque under its lock; in a recursion of small spawned tasks (nqueens,
//! a tree walk that spawns its children) nearly no task is ever stolen, and
//! each still paid all of it. Here a spawn *records* its task instead: the
//! closure is moved into this worker's arena (no allocation) and a record
//! tags it with its owner (the scope, group or handle it belongs to). The
//! owner's wait (a scope's end, a group's `wait`, a handle's `join`) runs
//! its own records inline, newest first, as a plain call; only when a thief
//! asks for work (the `hungry` flag, `registry.rs`) or before the running
//! task suspends is a record *published*: its task becomes the deferred job
//! it would have been (counted by its owner, boxed) and goes to the deque.
//! The oldest record is published first: the largest piece of work this
//! worker can give away, whatever the queue policy.
//!
//! The protocol and its invariants (S1–S5) are in `README.md`, the
//! `scheduler::latent` module's documentation.

use crate::job::JobRef;
use crate::trace::{self, StrandRef};
use std::cell::{Cell, UnsafeCell};
use std::mem::{align_of, size_of, MaybeUninit};

/// The largest task, in bytes, kept in a worker's arena; a larger one (or
/// one aligned to more than 16 bytes) is deferred to the deque at once.
/// Larger closures are rare, and copying them in and out would cost more
/// than the allocation the arena saves.
pub(crate) const MAX_LATENT_TASK_BYTES: usize = 256;

/// A task that can wait in the arena: what it does when its owner runs it
/// here, and what it becomes when it is published.
///
/// For the profiler (`trace`) a recorded task is a task either way: its
/// spawn is a fork, and the owner's wait runs it as a nested task
/// (`trace::run_nested`), as it runs a job it claims back from the deque.
pub(crate) trait LatentTask: Sized {
    /// Runs the task now, on this worker, as its owner's wait runs a job it
    /// claimed back (its panic is kept for its owner, its completion noted
    /// for the profiler), except that its owner never counted it, or (a
    /// group's) counted it already — whichever `into_job` assumes.
    fn run_here(self);

    /// Makes the task the deferred job it would have been without the
    /// arena: counted by its owner (if it was not already) and boxed. The
    /// caller pushes it to its deque.
    fn into_job(self) -> JobRef;
}

/// One 16-byte, 16-aligned unit of the arena.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Slot([u8; 16]);

/// A recorded task: where its bytes are and how to run or publish them.
#[derive(Clone, Copy)]
struct Record {
    owner: *const (),
    /// The strand that spawned the task (`trace`; zero-sized without it).
    creator: StrandRef,
    seq: u64,
    /// The task's first slot (it ends where the next record's begins, or at
    /// the arena's length).
    start: usize,
    ops: &'static Ops,
}

/// Runs a recorded task from its bytes ([`run_taken`]).
pub(crate) type RunFn = unsafe fn(*mut u8);

/// Makes a recorded task's job from its bytes ([`publish_taken`]).
pub(crate) type PublishFn = unsafe fn(*mut u8) -> JobRef;

/// How to run or publish a recorded task of one type.
struct Ops {
    run: RunFn,
    into_job: PublishFn,
}

/// The [`Ops`] of each task type, one static per type.
trait HasOps {
    const OPS: Ops;
}

impl<T: LatentTask> HasOps for T {
    const OPS: Ops = Ops {
        run: run_erased::<T>,
        into_job: into_job_erased::<T>,
    };
}

/// A worker's latent spawns (see the module docs): `records[base..]` are
/// unresolved, oldest first; their tasks are in `arena`, whose length is
/// the end of the newest record.
pub(crate) struct LatentSpawns {
    records: UnsafeCell<Vec<Record>>,
    arena: UnsafeCell<Vec<MaybeUninit<Slot>>>,
    /// Records below `base` were published; reset to 0 whenever the records
    /// run out.
    base: Cell<usize>,
    /// The `seq` of the next record.
    next_seq: Cell<u64>,
}

/// A task taken out of the arena, still in its bytes there: call it before
/// the arena is used again.
pub(crate) struct Taken<T> {
    /// The task's bytes (a handle's join writes its result slot there,
    /// `spawn.rs`, before running it).
    pub(crate) pointer: *mut u8,
    action: T,
    creator: StrandRef,
}

impl LatentSpawns {
    /// An empty arena with room for `records` records and `bytes` bytes of
    /// tasks before it grows.
    pub(crate) fn with_capacity(records: usize, bytes: usize) -> LatentSpawns {
        LatentSpawns {
            records: UnsafeCell::new(Vec::with_capacity(records)),
            arena: UnsafeCell::new(Vec::with_capacity(bytes.div_ceil(size_of::<Slot>()))),
            base: Cell::new(0),
            next_seq: Cell::new(0),
        }
    }

    /// Runs `f` on the records and the arena. `f` is one of this file's
    /// few statements, which call no user code and no other method here.
    #[inline(always)]
    fn with_parts<R>(
        &self,
        f: impl FnOnce(&mut Vec<Record>, &mut Vec<MaybeUninit<Slot>>) -> R,
    ) -> R {
        // SAFETY: owner-only (a field of a `!Sync` worker, so one thread),
        // and `f` never reenters this arena (above), so these are the only
        // references to the two vectors while they live.
        f(unsafe { &mut *self.records.get() }, unsafe {
            &mut *self.arena.get()
        })
    }

    /// The number of unresolved records.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.with_parts(|records, _| records.len()) - self.base.get()
    }

    /// Whether no record is unresolved.
    #[inline(always)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `seq` the next record will get: a scope that begins now owns
    /// only records from this one on.
    #[inline(always)]
    pub(crate) fn next_seq(&self) -> u64 {
        self.next_seq.get()
    }

    /// Whether a task of type `T` may be recorded (its size and alignment).
    #[inline(always)]
    pub(crate) const fn fits<T>() -> bool {
        size_of::<T>() <= MAX_LATENT_TASK_BYTES && align_of::<T>() <= align_of::<Slot>()
    }

    /// Records `task` of `owner` as the newest latent spawn.
    ///
    /// # Panics
    /// If `T` does not [`fit`](Self::fits) (a caller's bug: it checks first).
    #[inline(always)]
    pub(crate) fn push<T: LatentTask>(&self, owner: *const (), task: T) {
        assert!(Self::fits::<T>(), "a latent task too large for the arena");
        let seq = self.next_seq.get();
        self.next_seq.set(seq + 1);
        // The spawn is a fork, recorded or not (see `LatentTask`).
        let creator = trace::fork();
        self.with_parts(|records, arena| {
            let start = arena.len();
            let slots = size_of::<T>().div_ceil(size_of::<Slot>());
            arena.reserve(slots);
            // SAFETY: `reserve` made room for `slots` slots past `start`,
            // which hold `size_of::<T>()` bytes at an alignment of 16, at
            // least `T`'s (`fits`); `MaybeUninit` slots need no
            // initialisation, so the new length is sound once `task` is
            // written there. (A zero-sized `T` writes nothing, at a
            // non-null aligned address.)
            unsafe {
                arena.as_mut_ptr().add(start).cast::<T>().write(task);
                arena.set_len(start + slots);
            }
            records.push(Record {
                owner,
                creator,
                seq,
                start,
                ops: &<T as HasOps>::OPS,
            });
        });
    }

    /// Takes the newest record of `owner` made at or after `since` (see
    /// [`next_seq`](Self::next_seq)), for the caller to run with
    /// [`run_taken`].
    #[inline]
    pub(crate) fn take_newest_owned_by(
        &self,
        owner: *const (),
        since: u64,
    ) -> Option<Taken<RunFn>> {
        let base = self.base.get();
        self.with_parts(|records, arena| {
            let mut index = records.len();
            loop {
                if index == base {
                    return None;
                }
                index -= 1;
                let record = &records[index];
                if record.seq < since {
                    return None;
                }
                if record.owner == owner {
                    break;
                }
            }
            let newest = index + 1 == records.len();
            let record = if newest {
                records.pop().expect("the newest record")
            } else {
                records.remove(index)
            };
            Some(self.taken(records, arena, base, record, newest))
        })
    }

    /// The index of the unresolved record numbered `seq`, if it is here:
    /// the newest and the oldest are looked at first, then a binary search
    /// (records are in `seq` order).
    #[inline(always)]
    fn index_of(records: &[Record], base: usize, seq: u64) -> Option<usize> {
        // Only records from `base` up are unresolved.
        let newest = records.len().checked_sub(1).filter(|&n| n >= base)?;
        if records[newest].seq == seq {
            Some(newest)
        } else if records[base].seq == seq {
            Some(base)
        } else {
            records[base..]
                .binary_search_by_key(&seq, |record| record.seq)
                .ok()
                .map(|index| base + index)
        }
    }

    /// Where the task of the unresolved record numbered `seq` is, if it is
    /// still here: its bytes stay there until the record is taken.
    pub(crate) fn bytes_of(&self, seq: u64) -> Option<*mut u8> {
        let base = self.base.get();
        self.with_parts(|records, arena| {
            let record = records[Self::index_of(records, base, seq)?];
            Some(arena.as_mut_ptr().wrapping_add(record.start).cast::<u8>())
        })
    }

    /// Takes the record made with sequence number `seq` (a handle's own
    /// record, `spawn.rs`), if it is still here, for the caller to run with
    /// [`run_taken`]. Records are in `seq` order (a binary search), and a
    /// handle is taken in O(1) whether its handles are joined newest first
    /// (the newest record is popped) or in spawn order (the oldest one is
    /// skipped over, as a publication skips it); only one taken from the
    /// middle moves the newer records down.
    #[inline]
    pub(crate) fn take_seq(&self, seq: u64) -> Option<Taken<RunFn>> {
        let base = self.base.get();
        self.with_parts(|records, arena| {
            let index = Self::index_of(records, base, seq)?;
            let newest = index + 1 == records.len();
            let record = if newest {
                records.pop().expect("the newest record")
            } else if index == base {
                // Below `base` now, as a published record is: its slots
                // stay unused until every record above them is gone.
                self.base.set(base + 1);
                records[index]
            } else {
                records.remove(index)
            };
            Some(self.taken(records, arena, base, record, newest))
        })
    }

    /// Takes the oldest record, for the caller to publish with
    /// [`publish_taken`].
    pub(crate) fn take_oldest(&self) -> Option<Taken<PublishFn>> {
        let base = self.base.get();
        self.with_parts(|records, arena| {
            let record = records.get(base)?;
            let taken = Taken {
                pointer: arena.as_mut_ptr().wrapping_add(record.start).cast::<u8>(),
                action: record.ops.into_job,
                creator: record.creator,
            };
            self.base.set(base + 1);
            // Only an emptied arena shrinks here: the newest record stays.
            Self::shrink(records, arena, base + 1, &self.base, arena.len());
            Some(taken)
        })
    }

    /// What a take hands its caller for `record`, just removed from
    /// `records` (the newest one if `newest`, which shrinks the arena to
    /// its start): where its task is, and how to run it.
    #[inline(always)]
    fn taken(
        &self,
        records: &mut Vec<Record>,
        arena: &mut Vec<MaybeUninit<Slot>>,
        base: usize,
        record: Record,
        newest: bool,
    ) -> Taken<RunFn> {
        let pointer = arena.as_mut_ptr().wrapping_add(record.start).cast::<u8>();
        if newest {
            Self::shrink(records, arena, base, &self.base, record.start);
        }
        Taken {
            pointer,
            action: record.ops.run,
            creator: record.creator,
        }
    }

    /// After a record left: when no record is left, records and arena start
    /// again from the bottom; else the arena ends at `end` (the start of
    /// the newest record taken, whose bytes were the last in use; the slots
    /// of records taken from below it stay unused until everything above
    /// them is gone). Only lengths change, so the bytes of the record just
    /// taken stay where they are until the arena is next written.
    #[inline(always)]
    fn shrink(
        records: &mut Vec<Record>,
        arena: &mut Vec<MaybeUninit<Slot>>,
        base: usize,
        base_cell: &Cell<usize>,
        end: usize,
    ) {
        if records.len() == base {
            records.clear();
            base_cell.set(0);
            // SAFETY: `MaybeUninit` slots: shortening drops nothing.
            unsafe { arena.set_len(0) };
        } else {
            debug_assert!(end <= arena.len());
            // SAFETY: `MaybeUninit` slots: shortening drops nothing, and
            // `end` is within the length.
            unsafe { arena.set_len(end) };
        }
    }
}

impl Drop for LatentSpawns {
    fn drop(&mut self) {
        // A worker exits only between jobs, when every record is resolved;
        // a record left here would be a task lost (its bytes are leaked).
        // Not checked while unwinding: a second panic would abort the
        // process and hide the first.
        debug_assert!(
            self.is_empty() || std::thread::panicking(),
            "latent spawns left at a worker's exit"
        );
    }
}

/// Runs a task taken by [`LatentSpawns::take_newest_owned_by`], as a task
/// nested in the running one (for the profiler; see [`LatentTask`]).
///
/// # Safety
/// Called once per taken task, before the arena it came from is used again.
#[inline]
pub(crate) unsafe fn run_taken(taken: Taken<RunFn>) {
    // SAFETY: the bytes are the task's, untouched since it was taken
    // (contract): the nesting hook reads the clock and writes the trace
    // buffer, never the arena, before the task is read exactly once.
    trace::run_nested(taken.creator, || unsafe { (taken.action)(taken.pointer) })
}

/// Publishes a task taken by [`LatentSpawns::take_oldest`]: its job, created
/// by the strand that spawned it.
///
/// # Safety
/// As for [`run_taken`].
pub(crate) unsafe fn publish_taken(taken: Taken<PublishFn>) -> JobRef {
    // SAFETY: invariant S3 (`README.md`): the bytes are the task's, untouched
    // since it was taken, and this is their one use; `action` is the task
    // type's publish function, recorded with them.
    unsafe { (taken.action)(taken.pointer) }.created_by(taken.creator)
}

/// # Safety
/// `pointer` holds a `T` written by `push` and not read since.
unsafe fn run_erased<T: LatentTask>(pointer: *mut u8) {
    // SAFETY: `pointer` holds a `T` written by `push` and not read since
    // (this function's contract, invariant S3); it is moved out before any
    // user code runs.
    let task = unsafe { pointer.cast::<T>().read() };
    task.run_here();
}

/// # Safety
/// As for [`run_erased`].
unsafe fn into_job_erased<T: LatentTask>(pointer: *mut u8) -> JobRef {
    // SAFETY: `pointer` holds a `T` written by `push` and not read since
    // (this function's contract, invariant S3); moved out once.
    let task = unsafe { pointer.cast::<T>().read() };
    task.into_job()
}

/// Unit tests of the arena alone (no worker, no fiber): their names contain
/// `miri_`, the filter of CI's Miri stage, which checks every move in and
/// out of the arena's bytes, its growth while a taken task runs, and that
/// each task is dropped exactly once.
#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// A task that logs its value when run and when published.
    struct Logged {
        value: u64,
        padding: [u64; 3],
        log: Rc<RefCell<Vec<String>>>,
    }

    impl LatentTask for Logged {
        fn run_here(self) {
            let _ = self.padding;
            self.log.borrow_mut().push(format!("run {}", self.value));
        }

        fn into_job(self) -> JobRef {
            self.log
                .borrow_mut()
                .push(format!("publish {}", self.value));
            unsafe fn noop(_: *const ()) {}
            let address = std::ptr::without_provenance(self.value as usize);
            crate::job::tests_support::job_ref(address, noop)
        }
    }

    fn logged(value: u64, log: &Rc<RefCell<Vec<String>>>) -> Logged {
        Logged {
            value,
            padding: [value; 3],
            log: log.clone(),
        }
    }

    const A: *const () = std::ptr::without_provenance(0xA);
    const B: *const () = std::ptr::without_provenance(0xB);

    #[test]
    fn miri_owners_take_their_newest_and_publication_takes_the_oldest() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let spawns = LatentSpawns::with_capacity(1, 16);
        for value in 1..=4 {
            spawns.push(if value % 2 == 0 { B } else { A }, logged(value, &log));
        }
        assert_eq!(spawns.len(), 4);
        let taken = spawns.take_newest_owned_by(A, 0).unwrap();
        // SAFETY: taken just now; the arena was not used since.
        unsafe { run_taken(taken) };
        let oldest = spawns.take_oldest().unwrap();
        // SAFETY: taken just now; the arena was not used since.
        let job = unsafe { publish_taken(oldest) };
        assert_eq!(crate::job::tests_support::addr(job), 1);
        assert!(spawns.take_newest_owned_by(A, 0).is_none());
        // Records older than `since` are not searched.
        assert!(spawns.take_newest_owned_by(B, 4).is_none());
        for _ in 0..2 {
            let taken = spawns.take_newest_owned_by(B, 0).unwrap();
            // SAFETY: taken just now; the arena was not used since.
            unsafe { run_taken(taken) };
        }
        assert!(spawns.is_empty());
        assert_eq!(
            *log.borrow(),
            ["run 3", "publish 1", "run 4", "run 2"].map(String::from)
        );
        // Emptied: starts again from the bottom.
        spawns.push(A, logged(5, &log));
        assert_eq!(spawns.len(), 1);
        // SAFETY: taken just now; the arena was not used since.
        unsafe { run_taken(spawns.take_newest_owned_by(A, 0).unwrap()) };
        assert!(spawns.is_empty());
    }

    #[test]
    fn records_are_taken_by_their_sequence_number() {
        let log = Rc::new(RefCell::new(Vec::new()));
        let spawns = LatentSpawns::with_capacity(1, 16);
        // Sequence numbers 0..=5.
        for value in 0..6 {
            spawns.push(A, logged(value, &log));
        }
        assert!(spawns.bytes_of(2).is_some());
        assert!(spawns.bytes_of(6).is_none());
        let run = |seq| {
            let taken = spawns.take_seq(seq).expect("still recorded");
            // SAFETY: taken just now; the arena was not used since.
            unsafe { run_taken(taken) };
        };
        // The oldest published: no longer found by its number.
        // SAFETY: taken just now; the arena was not used since.
        unsafe { publish_taken(spawns.take_oldest().unwrap()) };
        assert!(spawns.take_seq(0).is_none());
        run(1); // the oldest unresolved
        run(5); // the newest
        run(3); // from the middle
        assert!(spawns.take_seq(3).is_none());
        assert!(spawns.bytes_of(3).is_none());
        assert!(spawns.take_seq(9).is_none());
        assert_eq!(spawns.len(), 2);
        // Owners still find theirs, oldest published first.
        run(4);
        // SAFETY: taken just now; the arena was not used since.
        unsafe { run_taken(spawns.take_newest_owned_by(A, 0).unwrap()) };
        assert!(spawns.is_empty());
        assert!(spawns.take_seq(2).is_none());
        assert_eq!(
            *log.borrow(),
            ["publish 0", "run 1", "run 5", "run 3", "run 4", "run 2"].map(String::from)
        );
        // Emptied: starts again from the bottom, numbers go on.
        spawns.push(B, logged(6, &log));
        run(6);
        assert!(spawns.is_empty());
    }

    /// A task taken out keeps its bytes while it runs and records more,
    /// which grows (moves) the arena.
    #[test]
    fn miri_a_running_task_may_grow_the_arena() {
        struct Nested<'a> {
            spawns: &'a LatentSpawns,
            depth: u32,
            sum: &'a Cell<u64>,
            payload: [u64; 8],
        }
        impl LatentTask for Nested<'_> {
            fn run_here(self) {
                self.sum
                    .set(self.sum.get() + self.payload.iter().sum::<u64>());
                if self.depth > 0 {
                    for _ in 0..3 {
                        self.spawns.push(
                            A,
                            Nested {
                                depth: self.depth - 1,
                                ..self
                            },
                        );
                    }
                }
            }
            fn into_job(self) -> JobRef {
                unreachable!()
            }
        }
        let spawns = LatentSpawns::with_capacity(0, 0);
        let sum = Cell::new(0);
        spawns.push(
            A,
            Nested {
                spawns: &spawns,
                depth: 4,
                sum: &sum,
                payload: [1; 8],
            },
        );
        let mut runs = 0;
        while let Some(taken) = spawns.take_newest_owned_by(A, 0) {
            // SAFETY: taken just now; the arena was not used since.
            unsafe { run_taken(taken) };
            runs += 1;
        }
        // 1 + 3 + 9 + 27 + 81 tasks, each adding 8.
        assert_eq!(runs, 121);
        assert_eq!(sum.get(), 121 * 8);
    }

    #[test]
    fn size_limits() {
        assert!(LatentSpawns::fits::<[u8; MAX_LATENT_TASK_BYTES]>());
        assert!(!LatentSpawns::fits::<[u8; MAX_LATENT_TASK_BYTES + 1]>());
        #[repr(align(64))]
        struct Wide;
        assert!(!LatentSpawns::fits::<Wide>());
        assert!(LatentSpawns::fits::<()>());
    }

    /// A task of `N` payload words, aligned to `align_of::<A>()`, that logs
    /// its id when run or published and counts its drops through its `Rc`
    /// (a heap value, so a task copied twice or never is a double free or a
    /// leak for Miri).
    struct Sized<const N: usize, A> {
        id: u64,
        payload: [u64; N],
        _align: [A; 0],
        log: Rc<RefCell<Vec<(&'static str, u64)>>>,
    }

    impl<const N: usize, A> LatentTask for Sized<N, A> {
        fn run_here(self) {
            assert!(self.payload.iter().all(|&word| word == self.id));
            self.log.borrow_mut().push(("run", self.id));
        }

        fn into_job(self) -> JobRef {
            assert!(self.payload.iter().all(|&word| word == self.id));
            self.log.borrow_mut().push(("publish", self.id));
            unsafe fn noop(_: *const ()) {}
            let address = std::ptr::without_provenance(self.id as usize);
            crate::job::tests_support::job_ref(address, noop)
        }
    }

    /// A zero-sized task: its records share one arena position.
    struct Empty;

    impl LatentTask for Empty {
        fn run_here(self) {}

        fn into_job(self) -> JobRef {
            unsafe fn noop(_: *const ()) {}
            crate::job::tests_support::job_ref(std::ptr::null(), noop)
        }
    }

    /// Pushes, takes by owner (newest, or from below the top, which leaves a
    /// hole in the arena) and publishes the oldest, in a pseudo-random mix
    /// of task sizes (0 to 248 bytes) and alignments (8 and 16), checked
    /// against a model of the unresolved records: each operation resolves
    /// the task the model expects, and each task is resolved (and dropped)
    /// exactly once.
    #[test]
    fn miri_mixed_tasks_are_each_resolved_once() {
        /// What the model knows of an unresolved record.
        struct Expected {
            owner: *const (),
            seq: u64,
            /// `None` for a zero-sized task, which cannot log.
            id: Option<u64>,
        }
        let log = Rc::new(RefCell::new(Vec::new()));
        let spawns = LatentSpawns::with_capacity(2, 32);
        let mut model: Vec<Expected> = Vec::new();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        // The task just resolved logged `what` (if it can log).
        let logged_last = |what: &'static str, expected: &Expected| {
            if let Some(id) = expected.id {
                assert_eq!(log.borrow().last(), Some(&(what, id)));
            }
        };
        let (mut pushed, mut resolved) = (0, 0);
        for id in 1..=300u64 {
            let choice = next();
            let owner = if choice & 1 == 0 { A } else { B };
            match (choice >> 1) % 6 {
                0..=2 => {
                    let seq = spawns.next_seq();
                    let log = log.clone();
                    let size = (choice >> 8) % 5;
                    match size {
                        0 => spawns.push(
                            owner,
                            Sized::<1, u64> {
                                id,
                                payload: [id; 1],
                                _align: [],
                                log,
                            },
                        ),
                        1 => spawns.push(
                            owner,
                            Sized::<3, u128> {
                                id,
                                payload: [id; 3],
                                _align: [],
                                log,
                            },
                        ),
                        2 => spawns.push(
                            owner,
                            Sized::<29, u64> {
                                id,
                                payload: [id; 29],
                                _align: [],
                                log,
                            },
                        ),
                        3 => spawns.push(
                            owner,
                            Sized::<8, u128> {
                                id,
                                payload: [id; 8],
                                _align: [],
                                log,
                            },
                        ),
                        _ => spawns.push(owner, Empty),
                    }
                    let id = (size < 4).then_some(id);
                    model.push(Expected { owner, seq, id });
                    pushed += 1;
                }
                3 | 4 => {
                    // The owner's newest record among the last few made
                    // (so that `since` stops some searches).
                    let since = spawns.next_seq().saturating_sub(next() % 8);
                    let taken = spawns.take_newest_owned_by(owner, since);
                    let expected = model
                        .iter()
                        .rposition(|e| e.owner == owner)
                        .filter(|&index| model[index..].iter().all(|e| e.seq >= since));
                    match (taken, expected) {
                        (None, None) => {}
                        (Some(taken), Some(index)) => {
                            // SAFETY: taken just now; the arena was not
                            // used since.
                            unsafe { run_taken(taken) };
                            logged_last("run", &model.remove(index));
                            resolved += 1;
                        }
                        (taken, expected) => panic!(
                            "take_newest_owned_by took {}, the model {expected:?}",
                            taken.is_some()
                        ),
                    }
                }
                _ => {
                    let taken = spawns.take_oldest();
                    assert_eq!(taken.is_some(), !model.is_empty());
                    if let Some(taken) = taken {
                        // SAFETY: taken just now; the arena was not used since.
                        unsafe { publish_taken(taken) };
                        logged_last("publish", &model.remove(0));
                        resolved += 1;
                    }
                }
            }
            assert_eq!(spawns.len(), model.len());
        }
        while let Some(taken) = spawns.take_oldest() {
            // SAFETY: taken just now; the arena was not used since.
            unsafe { publish_taken(taken) };
            logged_last("publish", &model.remove(0));
            resolved += 1;
        }
        assert!(spawns.is_empty() && model.is_empty());
        assert_eq!(resolved, pushed);
        // Every task dropped its clone of the log: only ours is left.
        assert_eq!(Rc::strong_count(&log), 1);
    }
}
