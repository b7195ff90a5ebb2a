//! A runtime's DAST state, [`Dast`]: one request queue per worker, the
//! manager's wake-up, who drains the queues, and the one place queued
//! requests are executed (by the manager thread, an idle worker or a
//! producer whose ring is full).

use super::interface::{ErasedRequest, ReadySink};
use super::queue::RequestQueue;
use super::wake::ManagerWake;
use crate::params::DastMode;
use std::sync::atomic::{AtomicU64, Ordering};

/// Slots of each worker's request queue.
pub(crate) const QUEUE_SLOTS: usize = 256;

/// The most requests a consumer executes from one worker's queue before it
/// moves on to the next (the paper's `MAX_REQ_COUNT`): bounds how long one
/// busy producer can keep the manager from the others.
pub(crate) const MAX_REQ_COUNT: usize = 16;

/// A runtime's DAST state: one request queue per worker (none when `Off`),
/// the manager's wake-up, and who drains the queues.
pub(crate) struct Dast {
    mode: DastMode,
    queues: Box<[RequestQueue<ErasedRequest>]>,
    pub(crate) manager: ManagerWake,
    manager_thread: bool,
    idle_workers_drain: bool,
    /// Requests the manager thread executed (a `Counters` field).
    pub(crate) executed_by_manager: AtomicU64,
}

impl Dast {
    /// The DAST state of a runtime with `num_workers` workers in `mode`, on a
    /// host with `hardware_threads` hardware threads.
    pub(crate) fn new(mode: DastMode, num_workers: usize, hardware_threads: usize) -> Dast {
        let queues = if mode == DastMode::Off {
            0
        } else {
            num_workers
        };
        Dast {
            mode,
            queues: (0..queues)
                .map(|_| RequestQueue::with_capacity(QUEUE_SLOTS))
                .collect(),
            manager: ManagerWake::new(),
            manager_thread: match mode {
                DastMode::Forced => true,
                DastMode::Adaptive => num_workers >= 2 && hardware_threads > num_workers,
                DastMode::Off | DastMode::IdleWorkers => false,
            },
            idle_workers_drain: matches!(mode, DastMode::Adaptive | DastMode::IdleWorkers),
            executed_by_manager: AtomicU64::new(0),
        }
    }

    /// The mode these queues serve.
    #[inline]
    pub(crate) fn mode(&self) -> DastMode {
        self.mode
    }

    /// Whether a manager thread executes requests.
    pub(crate) fn has_manager_thread(&self) -> bool {
        self.manager_thread
    }

    /// Whether workers that find no task drain the request queues.
    #[inline]
    pub(crate) fn idle_workers_drain(&self) -> bool {
        self.idle_workers_drain
    }

    /// Worker `index`'s request queue (not when `Off`).
    #[inline]
    pub(crate) fn queue(&self, index: usize) -> &RequestQueue<ErasedRequest> {
        &self.queues[index]
    }

    /// Whether any queue holds a request. O(workers): for the manager's and
    /// idle workers' park decisions only.
    pub(crate) fn has_requests(&self) -> bool {
        self.queues.iter().any(|queue| !queue.is_empty())
    }

    /// Whether any queue holds a request that no consumer is draining: what
    /// makes an idle worker come back from spinning or parking. A queue held
    /// by a consumer does not count, so that idle workers do not spin on one
    /// whose holder was descheduled and burn the cores it needs
    /// (docs/measurements.md, "DAST request queues"). The holder executes
    /// what it leaves: an idle worker or the manager comes back to the queue
    /// in its next round, a producer drains its whole ring. O(workers), on
    /// the idle path only.
    pub(crate) fn has_drainable_requests(&self) -> bool {
        self.queues.iter().any(RequestQueue::is_drainable)
    }

    /// Pushes `request` onto worker `index`'s queue, returning its position;
    /// if the ring is full, first executes the queue's requests itself
    /// (waiting for a consumer that holds it), sending what they make ready
    /// to `sink`. Then wakes the manager thread, if there is one. Returns the
    /// position and how many requests this call executed itself.
    ///
    /// # Safety
    /// Called by worker `index` only (the queue's one producer).
    pub(crate) unsafe fn push(
        &self,
        index: usize,
        request: ErasedRequest,
        sink: &dyn ReadySink,
    ) -> (usize, usize) {
        let queue = &self.queues[index];
        let mut request = request;
        let mut executed = 0;
        let position = loop {
            // SAFETY: the caller is the queue's producer (contract).
            match unsafe { queue.push(request) } {
                Ok(position) => break position,
                Err(back) => {
                    request = back;
                    match self.execute_queued(index, usize::MAX, sink) {
                        Some(count) => executed += count,
                        None => std::thread::yield_now(),
                    }
                }
            }
        };
        if self.manager_thread {
            self.manager.notify();
        }
        (position, executed)
    }

    /// If no other consumer holds worker `index`'s queue, executes up to
    /// `max` of its requests in FIFO order, sending what they release to
    /// `sink`; returns how many, or `None` if another consumer holds it. The
    /// one place queued requests are executed: by the manager, by an idle
    /// worker, and by a producer draining its own queue.
    pub(crate) fn execute_queued(
        &self,
        index: usize,
        max: usize,
        sink: &dyn ReadySink,
    ) -> Option<usize> {
        self.queues[index].try_drain(max, |request| {
            // SAFETY: every queued request was pushed under its contract
            // (`push`), which holds until it is executed, and `try_drain`
            // hands each out once.
            unsafe { request.execute(sink) }
        })
    }

    /// Visits every queue once, round-robin from `*next`, executing at most
    /// [`MAX_REQ_COUNT`] requests from each whose consumer lock is free, and
    /// returns how many it executed; `*next` moves on by one so that the
    /// next round starts elsewhere. `by_manager` says who counts them.
    pub(crate) fn drain_round(
        &self,
        next: &mut usize,
        sink: &dyn ReadySink,
        by_manager: bool,
    ) -> usize {
        let n = self.queues.len();
        if n == 0 {
            return 0;
        }
        let start = *next % n;
        *next = start + 1;
        let mut executed = 0;
        for offset in 0..n {
            let index = (start + offset) % n;
            if self.queues[index].is_empty() {
                continue;
            }
            if let Some(count) = self.execute_queued(index, MAX_REQ_COUNT, sink) {
                executed += count;
            }
        }
        if by_manager && executed > 0 {
            self.executed_by_manager
                .fetch_add(executed as u64, Ordering::Relaxed);
        }
        executed
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::dast::interface::Request;
    use crate::job::JobRef;
    use std::cell::RefCell;
    use std::sync::Arc;

    struct Record(Arc<std::sync::Mutex<Vec<usize>>>, usize);

    impl Request for Record {
        unsafe fn execute(self, _sink: &dyn ReadySink) {
            self.0.lock().unwrap().push(self.1);
        }
    }

    struct NoSink(RefCell<usize>);
    impl ReadySink for NoSink {
        fn dispatch(&self, _job: JobRef) {
            *self.0.borrow_mut() += 1;
        }
    }

    #[test]
    fn modes_choose_their_executors() {
        let off = Dast::new(DastMode::Off, 4, 16);
        assert!(!off.has_manager_thread() && !off.idle_workers_drain() && !off.has_requests());
        assert!(Dast::new(DastMode::Forced, 4, 2).has_manager_thread());
        assert!(!Dast::new(DastMode::Forced, 4, 2).idle_workers_drain());
        assert!(Dast::new(DastMode::Adaptive, 4, 16).has_manager_thread());
        assert!(!Dast::new(DastMode::Adaptive, 2, 2).has_manager_thread());
        assert!(!Dast::new(DastMode::Adaptive, 1, 16).has_manager_thread());
        assert!(Dast::new(DastMode::Adaptive, 2, 2).idle_workers_drain());
        assert!(!Dast::new(DastMode::IdleWorkers, 4, 16).has_manager_thread());
    }

    #[test]
    fn a_full_ring_is_drained_by_its_producer_and_rounds_are_fair() {
        let dast = Dast::new(DastMode::IdleWorkers, 2, 2);
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = NoSink(RefCell::new(0));
        for i in 0..QUEUE_SLOTS + 1 {
            // SAFETY: this thread is queue 0's only producer.
            let (position, executed) =
                unsafe { dast.push(0, ErasedRequest::new(Record(log.clone(), i)), &sink) };
            assert_eq!(position, i);
            assert_eq!(executed, if i == QUEUE_SLOTS { QUEUE_SLOTS } else { 0 });
        }
        assert_eq!(log.lock().unwrap().len(), QUEUE_SLOTS);
        for i in 0..3 {
            // SAFETY: queue 1's only producer.
            unsafe { dast.push(1, ErasedRequest::new(Record(log.clone(), 1000 + i)), &sink) };
        }
        let mut next = 0;
        // One round: the last request of queue 0, and queue 1's three.
        assert_eq!(dast.drain_round(&mut next, &sink, true), 4);
        assert_eq!(dast.executed_by_manager.load(Ordering::Relaxed), 4);
        assert!(!dast.has_requests());
        let log = log.lock().unwrap();
        assert!(log
            .windows(2)
            .take(QUEUE_SLOTS)
            .all(|w| w[0] < w[1] || w[0] >= 1000));
    }
}
