//! The worker's fibers: the pool of idle fibers with their task stacks, running
//! a job on one, resuming a ready one, and what the worker does with a fiber
//! that yields (`drive`: back to the pool when its job is done, registered
//! with what it waits for when it waits); and the live-stack cap.
//!
//! # The live-stack cap
//! Each mapped stack costs two memory mappings (Linux allows about 65k per
//! process), so a worker keeps at most `live_stack_cap` stacks. When it needs a
//! new one at the cap it first resumes ready fibers, and takes no new job while
//! one of its tasks may still become ready; it maps a stack beyond the cap only
//! when nothing arrived for [`CAP_GRACE`] (counted in `stacks_beyond_cap`).
//! A joining task whose child is still unstarted in its own deque takes the
//! child back and runs it inline (its own child: that is the sequential order,
//! not helping). Nothing unrelated is ever run nested on a waiting task's
//! stack, so no wait depends on a task buried beneath it.
//!
//! # Trimming pooled stacks
//! A fiber that finished a job goes back to the pool; if its job went below
//! the stack's commitment (the canary under it changed, `stack.rs`) the
//! stack is trimmed back to it first, and before the worker parks it trims
//! every pooled stack used since its last park (a frame can span the canary
//! without writing it). Both are `madvise` calls on this worker's own idle
//! stacks: no other worker is involved, and a shallow job pays one load.
//! (The pre-park trim is `WorkerThread::trim_pooled_stacks`, `idle.rs`.)

use super::thread::WorkerThread;
use crate::counters::bump;
use crate::job::JobRef;
use crate::scheduler::fiber::{Fiber, FiberInput, FiberPtr, FiberYield};
use crate::unwind::report;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long a worker at its live-stack cap waits for one of its tasks to
/// become ready before it maps a stack beyond the cap.
pub(crate) const CAP_GRACE: Duration = Duration::from_millis(2);

impl WorkerThread {
    pub(super) fn at_stack_cap(&self) -> bool {
        self.fiber_pool.borrow().is_empty() && self.stacks.get() >= self.registry.live_stack_cap
    }

    /// At the live-stack cap: wait for a ready fiber up to `CAP_GRACE`.
    /// Returns `true` if the worker may take a new job (which maps a stack
    /// beyond the cap, counted in `take_fiber`), `false` if a fiber became
    /// ready.
    pub(super) fn wait_at_cap(&self) -> bool {
        let deadline = Instant::now() + CAP_GRACE;
        loop {
            if self.wake().has_ready() {
                return false;
            }
            if Instant::now() >= deadline {
                break;
            }
            std::thread::yield_now();
        }
        true
    }

    fn take_fiber(&self) -> Box<Fiber> {
        let mut pool = self.fiber_pool.borrow_mut();
        if let Some(fiber) = pool.pop() {
            self.pool_low_water
                .set(self.pool_low_water.get().min(pool.len()));
            return fiber;
        }
        drop(pool);
        let params = &self.registry.params;
        let stack_size = params.stack_size;
        match Fiber::new(
            stack_size,
            params.effective_committed_stack_size(),
            self.wake.clone(),
        ) {
            Ok(fiber) => {
                if self.stacks.get() >= self.registry.live_stack_cap {
                    bump(&self.counters().stacks_beyond_cap);
                }
                self.stacks.set(self.stacks.get() + 1);
                bump(&self.counters().live_stacks);
                fiber
            }
            Err(error) => {
                report(format_args!(
                    "cannot map a task stack of {stack_size} bytes: {error} \
                     ({} stacks mapped by worker {}; see Runtime::max_live_stacks)",
                    self.stacks.get(),
                    self.index
                ));
                std::process::abort();
            }
        }
    }

    pub(super) fn run_job(&self, job: JobRef) {
        let fiber = self.take_fiber();
        self.drive(fiber, FiberInput::Run(job));
    }

    pub(super) fn resume_ready(&self, fiber: FiberPtr) {
        self.suspended.set(self.suspended.get() - 1);
        // SAFETY: the fiber was suspended by this worker (`drive` leaked its
        // box into the waiter), and the inbox hands it out exactly once.
        let fiber = unsafe { Box::from_raw(fiber.0) };
        self.drive(fiber, FiberInput::Resume);
    }

    /// Resumes `fiber` and handles what it yields.
    fn drive(&self, mut fiber: Box<Fiber>, input: FiberInput) {
        let yielded = fiber.resume(input);
        debug_assert!(
            self.latent.is_empty(),
            "a fiber switched out with latent joins"
        );
        match yielded {
            Some(FiberYield::Done) => {
                self.publish_leftover_spawns();
                if fiber.recycle() {
                    bump(&self.counters().stack_trims);
                }
                self.fiber_pool.borrow_mut().push(fiber);
            }
            Some(FiberYield::Wait { target }) => {
                debug_assert!(
                    self.latent_spawns.is_empty(),
                    "a fiber suspended with latent spawns"
                );
                bump(&self.counters().suspensions);
                let suspended = self.suspended.get() + 1;
                self.suspended.set(suspended);
                let peak = &self.counters().peak_live_stacks;
                if suspended as u64 > peak.load(Ordering::Relaxed) {
                    peak.store(suspended as u64, Ordering::Relaxed);
                }
                let fiber_ptr = FiberPtr(Box::into_raw(fiber));
                // SAFETY: the waiting task's frame keeps `target` alive while
                // its fiber is suspended, and the fiber has switched out, so
                // registering it cannot race with its own code.
                let registered = unsafe { (*target).register_fiber(fiber_ptr) };
                if !registered {
                    // Already satisfied: ready at once.
                    self.wake().push_ready_local(fiber_ptr);
                }
            }
            None => unreachable!("a fiber returned without being told to exit"),
        }
    }
}
