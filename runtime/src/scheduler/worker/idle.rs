//! The worker's main loop, and what the worker does when it finds nothing to
//! do: look for work (its resume inbox, own deque, mailbox, the injector,
//! steals, DAST requests), spin with backoff, then park — after trimming its
//! pooled stacks — until there is work again, or until the runtime
//! terminates and the worker may exit (see `sleep.rs` for the parking
//! protocol and its timeout backstop).

use super::thread::WorkerThread;
use crate::counters::{add, bump};
use crate::job::JobRef;
use crate::progress;
use crate::scheduler::registry::MAX_IDLE_SPIN;
use crate::scheduler::sleep::{
    with_fine_timer, PARK_TIMEOUT_MAX, PARK_TIMEOUT_MIN, SPIN_BEFORE_SLEEP,
};
use std::sync::atomic::Ordering;
use std::time::Instant;

impl WorkerThread {
    /// The worker thread's main loop: resume ready fibers, else run new jobs
    /// (own deque, injector, steal), else spin, then park. Returns when the
    /// runtime terminates and this worker has nothing left.
    pub(super) fn main_loop(&self) {
        loop {
            // External operations (MPI requests) waited for by suspended
            // tasks: polled between jobs at a bounded rate (`progress.rs`);
            // one load when none is pending.
            progress::poll_if_due();
            if let Some(fiber) = self.wake().pop_ready() {
                self.resume_ready(fiber);
                continue;
            }
            if self.at_stack_cap() && !self.wait_at_cap() {
                continue;
            }
            if let Some(job) = self.find_job() {
                self.run_job(job);
                continue;
            }
            if self.drain_dast_requests() {
                continue;
            }
            if !self.idle() {
                return;
            }
        }
    }

    fn find_job(&self) -> Option<JobRef> {
        if let Some(job) = self.deque.pop() {
            self.note_taken();
            return Some(job);
        }
        if let Some(job) = self.info().mailbox.pop() {
            return Some(job);
        }
        if let Some(job) = self.registry.take_injected() {
            self.keep_a_thief_looking();
            return Some(job);
        }
        let job = self.registry.steal_from_others(self.index, &self.rng)?;
        bump(&self.counters().steals);
        self.keep_a_thief_looking();
        Some(job)
    }

    /// This worker just took a job from outside its own deque (the injector
    /// or a steal): if workers sleep and none is awake looking for work, wake
    /// one (tokio's rule for the last searching worker).
    ///
    /// Why: a `join` does not push its second half; it keeps it latent until
    /// a thief raises the worker's `hungry` flag, and only a thief that is
    /// awake raises it. Without this, a job injected while the other workers
    /// sleep (`Runtime::run` after a pause longer than the idle spin) ran on
    /// one worker for as long as it made only joins: nothing was pushed, so
    /// nothing woke a sleeper, and a 2-worker fib could run at sequential
    /// speed. The woken worker spins, finds the deque empty,
    /// raises the flag, and the next join publishes; its own steal then wakes
    /// the next sleeper, so a many-core pool fills in a chain of steals. Cost:
    /// two loads per injected or stolen job; the futex call only when a worker
    /// sleeps and none spins.
    #[inline]
    fn keep_a_thief_looking(&self) {
        self.registry.wake_one_if_none_idle();
    }

    /// Spins with exponential backoff, then parks. Returns `false` when the
    /// worker should exit.
    ///
    /// The backoff matters on fine grains: every look at another worker's
    /// deque pulls its cache lines over here, and the owner's next push then
    /// pays a cache miss. Between looks an idle worker waits 1, 2, 4, … up to
    /// [`MAX_IDLE_SPIN`] spin hints (then yields the CPU between looks), so an
    /// idle worker costs a busy owner at most one miss per few microseconds.
    fn idle(&self) -> bool {
        // The last park timed out with nothing to do: this worker is idle for
        // a while, not between two bursts, so it goes straight back to sleep.
        // (Spinning after every timed-out park made an idle runtime burn a
        // full spin phase per worker at every wake-up of the backoff.)
        if self.park_timeout.get() > PARK_TIMEOUT_MIN {
            self.registry.ask_for_latent_work(self.index);
            return self.park();
        }
        let spinning = &self.registry.idle_spinning;
        spinning.fetch_add(1, Ordering::SeqCst);
        let start = Instant::now();
        let mut spins: u32 = 1;
        loop {
            // A completion resumes its waiter here or on its home worker.
            progress::poll();
            if self.has_work() {
                spinning.fetch_sub(1, Ordering::SeqCst);
                self.park_timeout.set(PARK_TIMEOUT_MIN);
                return true;
            }
            if self.can_exit() {
                spinning.fetch_sub(1, Ordering::SeqCst);
                return false;
            }
            if spins < MAX_IDLE_SPIN {
                for _ in 0..spins {
                    std::hint::spin_loop();
                }
                spins *= 2;
            } else {
                std::thread::yield_now();
                if start.elapsed() > SPIN_BEFORE_SLEEP {
                    break;
                }
            }
        }
        spinning.fetch_sub(1, Ordering::SeqCst);
        self.registry.ask_for_latent_work(self.index);
        self.park()
    }

    /// Parks until there is work, or — once the runtime terminates — until
    /// this worker may exit; doubles the park timeout when it passes with
    /// nothing found (see `sleep.rs`). Returns `true`: the caller looks for
    /// work again and comes back to `idle` if there is none.
    fn park(&self) -> bool {
        self.trim_pooled_stacks();
        // Not "until terminate is set": a terminating runtime with a suspended
        // task (waiting for an event set later) must not spin its workers
        // while it waits.
        // While external operations are pending, one idle worker parks with
        // the poll interval instead, and polls when it wakes (`progress.rs`).
        let polling = progress::begin_polling_sleep();
        let sleep = |timeout| {
            self.wake()
                .sleep(|| self.has_work() || self.can_exit(), timeout)
        };
        if let Some(interval) = polling {
            // The polling sleeper's timeouts are tens of microseconds: the
            // timer's default slack would add as much again to each.
            with_fine_timer(|| sleep(interval));
            progress::end_polling_sleep();
            bump(&self.counters().parks);
            return true;
        }
        let timeout = self.park_timeout.get();
        let parked_at = Instant::now();
        let timed_out = sleep(timeout);
        let counters = self.counters();
        bump(&counters.parks);
        add(
            &counters.parked_micros,
            parked_at
                .elapsed()
                .as_micros()
                .try_into()
                .unwrap_or(u64::MAX),
        );
        if timed_out && self.has_work() {
            bump(&counters.missed_wakeups);
        }
        self.park_timeout.set(if timed_out {
            (timeout * 2).min(PARK_TIMEOUT_MAX)
        } else {
            PARK_TIMEOUT_MIN
        });
        true
    }

    /// Before parking: trims every pooled stack that ran a job since its
    /// last trim back to its commitment (see `stack.rs`: the canary check at
    /// each job's end can miss a frame that spans it). One `madvise` per such
    /// stack, only when the worker is about to sleep, so what a deep phase
    /// leaves in the pool is returned when the phase ends. It visits only the
    /// pool above its low-water mark: a fiber runs only after it is popped,
    /// and returns on top, so those below have not run since the last trim.
    fn trim_pooled_stacks(&self) {
        let mut trimmed = 0;
        let mut pool = self.fiber_pool.borrow_mut();
        let low_water = self.pool_low_water.get().min(pool.len());
        for fiber in pool[low_water..].iter_mut() {
            trimmed += u64::from(fiber.trim_if_used());
        }
        self.pool_low_water.set(pool.len());
        if trimmed != 0 {
            add(&self.counters().stack_trims, trimmed);
        }
    }

    fn has_work(&self) -> bool {
        self.wake().has_ready()
            || !self.deque.is_empty()
            || !self.info().mailbox.is_empty()
            || self.registry.any_stealable(self.index)
            || (self.registry.dast.idle_workers_drain()
                && self.registry.dast.has_drainable_requests())
    }

    fn can_exit(&self) -> bool {
        self.registry.terminate.load(Ordering::SeqCst)
            && self.suspended.get() == 0
            && !self.wake().has_ready()
            && self.deque.is_empty()
            && self.info().mailbox.is_empty()
            && self.registry.injector.is_empty()
    }
}
