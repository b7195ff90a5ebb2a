//! Stack switching, isolated behind a small safe-to-use API: a [`Fiber`] is a
//! corosensei coroutine on a [`TaskStack`] (the `stack_size` reserve, the
//! runtime's headroom and a guard page; see `stack.rs`), whose body runs one
//! job after another. The worker's main loop resumes a fiber with a
//! job; the fiber answers [`FiberYield::Done`] when the job finished, or
//! [`FiberYield::Wait`] when a task on it must wait (see
//! `worker::WorkerThread::wait_until`, `worker/wait.rs`).
//!
//! # Assumptions (written down as corosensei asks)
//! * A fiber is created, resumed and dropped only on its home worker's thread
//!   (tasks are tied): `Fiber` is `!Send`, and a suspended fiber travels
//!   between threads only as a [`FiberPtr`] inside a waiter, which nobody but
//!   the home worker resumes.
//! * A fiber is never dropped while suspended inside a job: workers exit only
//!   when no fiber of theirs is waiting, and idle fibers (between jobs) are
//!   told to return with [`FiberInput::Exit`] before they are dropped, so
//!   corosensei never has to force-unwind a stack.
//! * Jobs never unwind (`job/mod.rs`), so no panic crosses the coroutine root. Should
//!   one ever try (a bug in the runtime), an [`AbortOnUnwind`] guard at the
//!   root aborts with a message: unwinding on would end the worker's main
//!   loop and strand its suspended tasks, a silent hang.
//! * Stack overflow hits the guard page below `limit`; `overflow.rs` turns it
//!   into an abort that names the stack reserve.
//! * Between jobs a fiber is idle: its only frames are the body loop's and
//!   its suspension's, at the top of the stack. Where they end is measured
//!   (a local of the loop, less [`IDLE_FRAMES_MARGIN`]), and the worker
//!   trims the stack below its commitment ([`Fiber::recycle`]) only where
//!   that is below the measured end (`StackRegion::trim` checks it).

#[cfg(unix)]
pub(crate) mod overflow;
#[cfg(not(unix))]
#[path = "overflow_fallback.rs"]
pub(crate) mod overflow;
pub(crate) mod stack;

use crate::job::JobRef;
use crate::scheduler::fiber::stack::{StackRegion, TaskStack};
use crate::unwind::AbortOnUnwind;
use corosensei::{Coroutine, CoroutineResult, Yielder};
use std::any::Any;
use std::cell::Cell;
use std::io;
use std::sync::Arc;

thread_local! {
    /// The fiber running on this thread (null on a worker's main stack and on
    /// threads outside any runtime). Set by the worker's main loop before each
    /// resume; task code reads it to wait and to find its task-locals.
    static CURRENT_FIBER: Cell<*mut Fiber> = const { Cell::new(std::ptr::null_mut()) };
}

/// The fiber running on this thread, or null.
#[inline]
pub(crate) fn current_fiber() -> *mut Fiber {
    CURRENT_FIBER.with(Cell::get)
}

/// What the main loop sends into a fiber.
pub(crate) enum FiberInput {
    /// Run this job.
    Run(JobRef),
    /// Continue after a wait.
    Resume,
    /// Return from the body (the fiber is idle and about to be dropped).
    Exit,
}

/// What a fiber sends back to the main loop.
pub(crate) enum FiberYield {
    /// The job finished; the fiber is idle and can take another one.
    Done,
    /// The running task waits for `target`. The main loop registers the
    /// fiber as its waiter after the switch (see `latch.rs`).
    Wait {
        target: *const (dyn WaitTarget + 'static),
    },
}

/// Where a fiber goes when it becomes ready: its home worker's resume inbox
/// (`sleep::WorkerWake` implements it, a layer above).
///
/// A fiber holds its home by `Arc`, and whoever makes it ready clones that
/// `Arc` *before* publishing the fiber ([`FiberPtr::make_ready`]): once the
/// fiber is in the inbox its worker may resume it without being woken, the
/// task may finish and its runtime be dropped, so the waker's own reference
/// is what keeps the inbox alive until its wake-up call returns.
pub(crate) trait FiberHome: Send + Sync {
    /// Queues `fiber` (suspended, tied to this home) as ready and wakes the
    /// home worker if it sleeps.
    fn push_ready(&self, fiber: FiberPtr);
}

/// What a suspended task waits for, as the worker's main loop sees it.
/// Implemented (in `latch.rs`) by everything a task can wait on.
pub(crate) trait WaitTarget {
    /// Registers `fiber` — suspended, its `home` set — to be made ready when
    /// the awaited condition holds. Returns `false`, keeping no reference, if
    /// it holds already (the fiber is then ready at once).
    fn register_fiber(&self, fiber: FiberPtr) -> bool;
}

type FiberCoroutine = Coroutine<FiberInput, FiberYield, (), TaskStack>;

/// How far below the local the body loop measures ([`Fiber::idle_low`]) an
/// idle fiber's frames may reach: the rest of the loop's frame and
/// corosensei's suspension and context switch. The test
/// `the_idle_frames_stay_within_the_margin` bounds how deep they write and
/// checks the bound against this margin, in debug and in release (the
/// figures are in `docs/measurements.md`: several times smaller). A larger
/// margin costs nothing while the canary of the smallest commitment
/// (`MIN_STACK_SIZE`) stays below it.
pub(crate) const IDLE_FRAMES_MARGIN: usize = 8 * 1024;

/// A stack plus the coroutine running on it.
pub(crate) struct Fiber {
    coroutine: FiberCoroutine,
    /// The fiber's yielder, valid while the coroutine body runs (it lives on
    /// the fiber's own stack). Null until the first `Run`.
    yielder: *const Yielder<FiberInput, FiberYield>,
    /// Where this fiber's stack lies (the coroutine owns the stack itself):
    /// its guard page for `overflow.rs`, its commitment for trimming.
    stack: StackRegion,
    /// The stack ran a job since it was last trimmed (or made).
    used_since_trim: bool,
    /// The coroutine is between jobs (not started, or answered `Done`): no
    /// task frame is on the stack, so it may be trimmed.
    idle: bool,
    /// The lowest address the idle fiber's frames may occupy: a local of
    /// the body loop, measured before each `Done`, less
    /// [`IDLE_FRAMES_MARGIN`]; 0 until a job ran or when it cannot be
    /// measured (the local lives on ASan's fake stack), and then no trim.
    idle_low: usize,
    /// The resume inbox of the worker this fiber is tied to; whoever makes
    /// the fiber ready pushes it there (see [`FiberPtr::make_ready`]).
    home: Arc<dyn FiberHome>,
    /// Head of the task-local frames of the task running on this fiber, saved
    /// while the fiber is switched out (see `task/local.rs`); null when none.
    pub(crate) task_locals: *const TaskLocalFrame,
}

/// One value bound to a task-local key by `LocalKey::scope`: a node of the
/// list whose head the running fiber holds ([`Fiber::task_locals`]). The
/// frames are `task/local.rs`'s (it creates, links and reads them, on the
/// binding task's own stack); the type is defined here, in the lower layer,
/// so that the fiber holds the head with its type and neither module casts it.
pub(crate) struct TaskLocalFrame {
    /// The key's identity: the address of the key's `static`.
    pub(crate) key: *const u8,
    /// The bound value, alive while the frame is linked.
    pub(crate) value: *const dyn Any,
    /// The next older frame, or null.
    pub(crate) previous: *const TaskLocalFrame,
}

/// A suspended fiber in transit to its home worker's resume inbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FiberPtr(pub(crate) *mut Fiber);

// SAFETY: a FiberPtr is only an address while it travels through a latch and
// an inbox; it is dereferenced for resumption only by the home worker's thread
// (module assumptions), and for writing `home` only by the registering worker,
// which owns the suspended fiber at that moment.
unsafe impl Send for FiberPtr {}

impl FiberPtr {
    /// Hands the suspended fiber to its home worker's resume inbox and wakes
    /// that worker. Called by whoever completes what the fiber waits for, on
    /// any thread, including threads of no runtime or of another runtime.
    ///
    /// # Safety
    /// The fiber is suspended in a wait and registered with the caller's
    /// waitable, and this is its one wake-up (so nobody resumes or frees it
    /// before the push below publishes it).
    pub(crate) unsafe fn make_ready(self) {
        // Clone the home *before* publishing: after `push_ready` puts the
        // fiber in the inbox, its worker may resume it, the task may finish
        // and the runtime (which owns the other references to the inbox) may
        // be dropped while `push_ready` still runs its wake-up. Our clone keeps
        // the inbox alive until then. (Reading `home` races with nothing: the
        // fiber is suspended and unpublished, so no thread touches it.)
        // SAFETY: by the contract the fiber is alive and suspended.
        let home = unsafe { Arc::clone(&(*self.0).home) };
        home.push_ready(self);
    }
}

impl Fiber {
    /// Maps a new stack (a `reserve` of usable bytes, the runtime's headroom
    /// and a guard page; `committed` bytes pre-faulted, see `stack.rs`) and
    /// prepares a coroutine on it. Costs a few microseconds plus the
    /// commitment's page faults: pooled by workers.
    pub(crate) fn new(
        reserve: usize,
        committed: usize,
        home: Arc<dyn FiberHome>,
    ) -> io::Result<Box<Fiber>> {
        let stack = TaskStack::new(reserve, committed)?;
        let region = stack.region();
        let stack_base = region.base();
        let (stack_low, _) = region.guard_range();
        let coroutine = FiberCoroutine::with_stack(stack, move |yielder, mut input| loop {
            match input {
                FiberInput::Run(job) => {
                    let me = current_fiber();
                    // SAFETY: the main loop set CURRENT_FIBER to this fiber before
                    // resuming it, and only this thread touches it.
                    unsafe { (*me).yielder = yielder };
                    let escape = AbortOnUnwind("a task's job");
                    crate::trace::task_start(job.creator());
                    // SAFETY: the main loop hands each job to exactly one fiber
                    // once (it came out of a deque, an injector or a `next`).
                    unsafe { job.execute() };
                    crate::trace::task_end();
                    std::mem::forget(escape);
                    // Where the idle frames end (module assumptions),
                    // measured where they are deepest, just before the
                    // suspension. A local on AddressSanitizer's fake stack
                    // (off this stack) measures nothing: 0, no trim.
                    let idle_frame = 0u8;
                    let address = std::ptr::addr_of!(idle_frame) as usize;
                    let idle_low = if (stack_low..stack_base).contains(&address) {
                        address.saturating_sub(IDLE_FRAMES_MARGIN)
                    } else {
                        0
                    };
                    // SAFETY: `me` is this fiber (CURRENT_FIBER, set by the
                    // main loop for this job), touched only by this thread.
                    unsafe { (*me).idle_low = idle_low };
                    input = yielder.suspend(FiberYield::Done);
                }
                FiberInput::Resume => unreachable!("resumed an idle fiber"),
                FiberInput::Exit => return,
            }
        });
        Ok(Box::new(Fiber {
            coroutine,
            yielder: std::ptr::null(),
            stack: region,
            used_since_trim: false,
            idle: true,
            idle_low: 0,
            home,
            task_locals: std::ptr::null(),
        }))
    }

    /// Switches into the fiber (on its home thread). Returns what it
    /// yielded, or `None` when it returned after `Exit`.
    pub(crate) fn resume(self: &mut Box<Self>, input: FiberInput) -> Option<FiberYield> {
        let me: *mut Fiber = &mut **self;
        let previous = CURRENT_FIBER.with(|c| c.replace(me));
        let (guard_start, guard_end) = self.stack.guard_range();
        overflow::set_current_task_stack(guard_start, guard_end, self.stack.reserve());
        self.idle = false;
        let out = self.coroutine.resume(input);
        overflow::clear_current_task_stack();
        CURRENT_FIBER.with(|c| c.set(previous));
        self.idle = matches!(out, CoroutineResult::Yield(FiberYield::Done));
        match out {
            CoroutineResult::Yield(out) => Some(out),
            CoroutineResult::Return(()) => None,
        }
    }

    /// Called when the fiber finished a job and goes back to the pool: if the
    /// job went below the stack's commitment (its canary changed), returns
    /// those pages to the kernel now. Returns whether it trimmed.
    pub(crate) fn recycle(&mut self) -> bool {
        if !self.idle {
            return false;
        }
        self.used_since_trim = true;
        // SAFETY: the fiber is idle between jobs (checked): its stack is
        // mapped (the coroutine owns it) and no task runs on it.
        let went_deep = unsafe { self.stack.went_past_commitment() };
        went_deep && self.trim()
    }

    /// Trims the idle fiber's stack back to its commitment if it ran a job
    /// since the last trim, whether or not its canary saw the job go deep
    /// (a frame can span the canary without writing it). One system call;
    /// workers call it before they park. Returns whether it trimmed.
    pub(crate) fn trim_if_used(&mut self) -> bool {
        self.used_since_trim && self.trim()
    }

    /// Trims the idle fiber's stack back to its commitment (nothing without
    /// one, while a job is on it, or where the commitment does not clear
    /// the idle frames). Returns whether it trimmed.
    fn trim(&mut self) -> bool {
        if !self.idle {
            return false;
        }
        self.used_since_trim = false;
        // SAFETY: the fiber is idle between jobs (checked above), so the
        // stack is mapped and its only frames are the idle ones, above
        // `idle_low` (measured with its margin at the last `Done`; 0, which
        // trims nothing, before one): invariants R1 and R2 of `stack.rs`.
        unsafe { self.stack.trim(self.idle_low) }
    }
}

/// Suspends the fiber running on this thread with `request` and returns when
/// the main loop resumes it.
///
/// # Safety
/// Called from task code running on a fiber (`current_fiber()` is non-null),
/// and whatever `request` points to stays alive until the fiber is resumed.
pub(crate) unsafe fn suspend_current(request: FiberYield) {
    let fiber = current_fiber();
    debug_assert!(!fiber.is_null(), "suspend outside a fiber");
    // SAFETY: by the contract we run on `fiber`'s stack, so its yielder (set at
    // the start of the current job) lives on this very stack.
    let yielder = unsafe { (*fiber).yielder };
    // SAFETY: the yielder lives on this fiber's stack, which stays mapped
    // while the fiber is suspended; `suspend` switches back to the main loop,
    // which resumes us later on this same thread (tasks are tied).
    match unsafe { (*yielder).suspend(request) } {
        FiberInput::Resume => {}
        FiberInput::Run(_) | FiberInput::Exit => unreachable!("a waiting fiber got a new job"),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::job::HeapJob;

    /// A home nobody is sent to: these fibers never wait.
    struct NoHome;

    impl FiberHome for NoHome {
        fn push_ready(&self, _: FiberPtr) {
            unreachable!("a test fiber never waits")
        }
    }

    /// Recursion with 256-byte frames, `depth` levels.
    #[inline(never)]
    fn recurse(depth: u32) -> u32 {
        let frame = std::hint::black_box([depth as u8; 256]);
        if depth == 0 {
            return 0;
        }
        recurse(depth - 1) + u32::from(std::hint::black_box(frame)[1] & 1)
    }

    fn run(fiber: &mut Box<Fiber>, depth: u32) {
        let job = HeapJob::into_job_ref(move || {
            std::hint::black_box(recurse(depth));
        });
        assert!(matches!(
            fiber.resume(FiberInput::Run(job)),
            Some(FiberYield::Done)
        ));
    }

    #[test]
    fn a_job_below_the_commitment_is_trimmed_when_it_ends_and_a_shallow_one_is_not() {
        let mut fiber = Fiber::new(8 << 20, 32 << 10, Arc::new(NoHome)).unwrap();
        // Nothing ran yet: nothing to trim.
        assert!(!fiber.trim_if_used());
        // Over 256 KiB deep: the canary below the commitment is overwritten.
        run(&mut fiber, 2048);
        assert!(fiber.recycle(), "the canary saw the deep job");
        assert!(!fiber.trim_if_used(), "already trimmed");
        // A shallow job leaves the canary alone: no trim at its end, one
        // before parking.
        run(&mut fiber, 4);
        assert!(!fiber.recycle());
        assert!(fiber.trim_if_used());
        assert!(!fiber.trim_if_used());
        assert!(fiber.resume(FiberInput::Exit).is_none());
    }

    /// Measures how deep below the body loop's local the idle fiber's
    /// frames reach, and checks it against [`IDLE_FRAMES_MARGIN`]: a job
    /// paints 64 KiB below its own frame with a pattern and returns; what
    /// the fiber then writes there before it is idle (the end of the job,
    /// the loop, the suspension and its context switch) overwrites the
    /// pattern. The lowest overwritten word — or the top of the painting,
    /// if none — bounds the idle frames from below. Run in debug and in
    /// release (`.ci/run`'s release stage), where the frames differ.
    #[test]
    fn the_idle_frames_stay_within_the_margin() {
        const PATTERN: u64 = 0x1d1e_f4a3_e5c0_ffee;
        const PAINTED: usize = 64 << 10;
        /// Paints `PAINTED` bytes starting 512 bytes below this frame's
        /// local (past any red zone); returns the painted range.
        #[inline(never)]
        fn paint_below_here() -> (usize, usize) {
            let here = std::hint::black_box(0u8);
            let top = (std::ptr::addr_of!(here) as usize - 512) & !7;
            let mut address = top - PAINTED;
            while address < top {
                // SAFETY: unused stack below this frame (and its red zone),
                // above the guard page: an 8 MiB reserve, 64 KiB painted.
                unsafe { std::ptr::write_volatile(address as *mut u64, PATTERN) };
                address += 8;
            }
            (top - PAINTED, top)
        }
        let mut fiber = Fiber::new(8 << 20, 0, Arc::new(NoHome)).unwrap();
        let painted = Arc::new(std::sync::Mutex::new((0, 0)));
        let job = {
            let painted = painted.clone();
            HeapJob::into_job_ref(move || *painted.lock().unwrap() = paint_below_here())
        };
        assert!(matches!(
            fiber.resume(FiberInput::Run(job)),
            Some(FiberYield::Done)
        ));
        let (low, top) = *painted.lock().unwrap();
        assert!(fiber.idle_low != 0, "the idle frames were measured");
        let local = fiber.idle_low + IDLE_FRAMES_MARGIN;
        assert!(top < local, "the job painted below the loop's frame");
        let mut lowest_written = top;
        let mut address = low;
        while address < top {
            // SAFETY: the painted range of the idle fiber's stack, mapped.
            if unsafe { std::ptr::read_volatile(address as *const u64) } != PATTERN {
                lowest_written = address;
                break;
            }
            address += 8;
        }
        let depth = local - lowest_written;
        println!(
            "idle frames: {depth} bytes below the loop's local (at most; {}), {} below \
             the stack's base; margin {IDLE_FRAMES_MARGIN}",
            if lowest_written < top {
                "the pattern was overwritten"
            } else {
                "the painting's top"
            },
            fiber.stack.base() - lowest_written
        );
        assert!(
            depth < IDLE_FRAMES_MARGIN,
            "the idle frames reach {depth} bytes below the measured local"
        );
        // The smallest commitment's canary stays clear of them: trims work.
        assert!(fiber.stack.base() - fiber.idle_low < crate::params::MIN_STACK_SIZE);
        assert!(fiber.resume(FiberInput::Exit).is_none());
    }

    /// With the smallest commitment, a deep job is trimmed (its canary is
    /// below the measured idle frames), and the fiber runs on after it.
    #[test]
    fn the_smallest_commitment_clears_the_idle_frames() {
        let mut fiber =
            Fiber::new(8 << 20, crate::params::MIN_STACK_SIZE, Arc::new(NoHome)).unwrap();
        for _ in 0..3 {
            run(&mut fiber, 2048);
            assert!(fiber.recycle(), "trimmed after a deep job");
        }
        assert!(fiber.resume(FiberInput::Exit).is_none());
    }

    #[test]
    fn a_stack_without_commitment_is_never_trimmed() {
        let mut fiber = Fiber::new(8 << 20, 0, Arc::new(NoHome)).unwrap();
        run(&mut fiber, 2048);
        assert!(!fiber.recycle());
        assert!(!fiber.trim_if_used());
        assert!(fiber.resume(FiberInput::Exit).is_none());
    }
}
