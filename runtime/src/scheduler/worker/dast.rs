//! The worker's side of the DAST request queues (see `crate::dast`): the push
//! policies' decisions for this worker's graph requests (`dast_route_*`),
//! queuing them (`dast_push*`), draining the queues when idle, and where the
//! tasks that a worker's requests release go (its own deque: the worker is a
//! `ReadySink`).

use super::thread::WorkerThread;
use crate::counters::{add, bump};
use crate::dast::{ErasedRequest, PushPolicy, ReadySink, Route};
use crate::job::JobRef;
use crate::params::DastMode;
use std::sync::atomic::{AtomicU64, Ordering};

/// A worker that executes requests itself (inline, draining its full queue,
/// or idle and draining others' queues) keeps what they make ready: its own
/// deque, where thieves can take it.
impl ReadySink for WorkerThread {
    fn dispatch(&self, job: JobRef) {
        self.push(job);
    }
}

impl WorkerThread {
    /// The DAST mode of this worker's runtime.
    #[inline]
    fn dast_mode(&self) -> DastMode {
        self.registry.dast.mode()
    }

    /// Whether a new-task request of the scope at address `scope` is queued
    /// or executed inline (the new-task push policy), counted.
    #[inline]
    pub(crate) fn dast_route_new(&self, scope: usize) -> Route {
        let route = match self.dast_mode() {
            DastMode::Off => Route::Inline,
            DastMode::Forced => Route::Push,
            DastMode::Adaptive | DastMode::IdleWorkers => {
                let queue = self.registry.dast.queue(self.index);
                match self.dast_policy.route_new(scope, queue.completed()) {
                    Route::Push if !self.dast_consumer_available() => {
                        // Nobody would execute the request soon: run this
                        // worker's queued requests now (FIFO, so the
                        // scope's earlier submissions come first) and this
                        // one inline.
                        if queue.is_empty() || self.dast_drain_own_queue() {
                            Route::Inline
                        } else {
                            Route::Push
                        }
                    }
                    route => route,
                }
            }
        };
        let counters = self.counters();
        Self::note_route(route, &counters.dast_new_pushed, &counters.dast_new_inline)
    }

    /// Queues a new-task request of the scope at address `scope` (after
    /// [`dast_route_new`](Self::dast_route_new) said `Push`).
    ///
    /// # Safety
    /// As [`Request::execute`](crate::dast::Request::execute): what the
    /// request refers to stays alive until it is executed.
    pub(crate) unsafe fn dast_push_new(&self, scope: usize, request: ErasedRequest) {
        // SAFETY: the caller keeps what `request` refers to alive until it is
        // executed (this function's `# Safety`, invariant D4 of `dast`), all
        // `dast_push` asks.
        let position = unsafe { self.dast_push(request) };
        self.dast_policy.pushed_new(scope, position);
    }

    /// The done-task push policy, counted.
    #[inline]
    pub(crate) fn dast_route_done(&self) -> Route {
        let route = match self.dast_mode() {
            DastMode::Off => Route::Inline,
            DastMode::Forced => Route::Push,
            DastMode::Adaptive | DastMode::IdleWorkers => {
                let pending = self.registry.dast.queue(self.index).pending();
                let (route, doubled) = self.dast_policy.route_done(pending, self.local_len.get());
                if doubled {
                    bump(&self.counters().dast_bound_doublings);
                }
                // A queued request waits for a consumer; with none at hand
                // (no manager thread, no idle worker) it only delays the
                // successors, so execute it now.
                if route == Route::Push && !self.dast_consumer_available() {
                    Route::Inline
                } else {
                    route
                }
            }
        };
        let counters = self.counters();
        Self::note_route(
            route,
            &counters.dast_done_pushed,
            &counters.dast_done_inline,
        )
    }

    /// The delete-task push policy for a task whose done request was queued
    /// at `done_position` (`None`: executed inline), counted.
    #[inline]
    pub(crate) fn dast_route_delete(&self, done_position: Option<usize>) -> Route {
        let route = match (self.dast_mode(), done_position) {
            (DastMode::Off, _) | (_, None) => Route::Inline,
            (DastMode::Forced, Some(_)) => Route::Push,
            (DastMode::Adaptive | DastMode::IdleWorkers, done) => {
                PushPolicy::route_delete(done, self.registry.dast.queue(self.index).completed())
            }
        };
        let counters = self.counters();
        Self::note_route(
            route,
            &counters.dast_delete_pushed,
            &counters.dast_delete_inline,
        )
    }

    /// Queues a request on this worker's DAST queue and returns its position
    /// (draining the queue first if it is full), waking the manager thread
    /// or an idle worker for it.
    ///
    /// # Safety
    /// As [`Request::execute`](crate::dast::Request::execute): what the
    /// request refers to stays alive until it is executed.
    pub(crate) unsafe fn dast_push(&self, request: ErasedRequest) -> usize {
        let dast = &self.registry.dast;
        // SAFETY: this worker is its queue's one producer (invariant D1 of
        // `dast`), and the caller keeps what `request` refers to alive until
        // it is executed (D4, this function's `# Safety`).
        let (position, executed) = unsafe { dast.push(self.index, request, self) };
        self.note_executed_requests(executed);
        if dast.idle_workers_drain() {
            // Idle workers execute queued requests: make sure one looks.
            self.registry.wake_one_for_request();
        }
        position
    }

    /// Counts queued requests this worker executed (an owner-written
    /// counter).
    fn note_executed_requests(&self, executed: usize) {
        if executed > 0 {
            add(&self.counters().dast_executed_by_workers, executed as u64);
        }
    }

    /// Counts a push-policy decision in `pushed` or `inline`.
    #[inline]
    fn note_route(route: Route, pushed: &AtomicU64, inline: &AtomicU64) -> Route {
        bump(match route {
            Route::Push => pushed,
            Route::Inline => inline,
        });
        route
    }

    /// Whether a queued request would be executed soon: a manager thread
    /// runs, or a worker is idle and looking for work (it drains the queues
    /// before it parks). One shared load on the push path; without it,
    /// requests pushed while every worker is busy wait until one idles, and
    /// the tasks they release wait with them.
    #[inline]
    fn dast_consumer_available(&self) -> bool {
        self.registry.dast.has_manager_thread()
            || self.registry.idle_spinning.load(Ordering::Relaxed) > 0
    }

    /// Executes this worker's own queued requests (the tasks they release go
    /// to its deque). Returns `false` if another consumer holds the queue.
    #[cold]
    fn dast_drain_own_queue(&self) -> bool {
        match self
            .registry
            .dast
            .execute_queued(self.index, usize::MAX, self)
        {
            Some(executed) => {
                self.note_executed_requests(executed);
                true
            }
            None => false,
        }
    }

    /// An idle worker's turn at the DAST queues (when idle workers drain
    /// them): one round-robin round. Returns whether it executed anything.
    pub(super) fn drain_dast_requests(&self) -> bool {
        let dast = &self.registry.dast;
        if !dast.idle_workers_drain() {
            return false;
        }
        let mut next = self.dast_next_queue.get();
        let executed = dast.drain_round(&mut next, self, false);
        self.dast_next_queue.set(next);
        self.note_executed_requests(executed);
        if executed > 0 && dast.has_drainable_requests() {
            // This worker goes on to run what it released and leaves
            // requests behind (at most `MAX_REQ_COUNT` per queue and round):
            // make sure another worker looks at them.
            self.registry.wake_one_for_request();
        }
        executed > 0
    }
}
