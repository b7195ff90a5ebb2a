//! DAST: the decoupled dependency manager (Bosch et al., "Characterizing and
//! improving the performance of many-core task-based parallel programming
//! runtimes", §4), and its follow-up DDAST's idle-worker draining.
//!
//! # What it does
//! Every dataflow task costs three graph operations — the paper's requests
//! `new task` (find predecessors, link), `done task` (release successors)
//! and `delete task` (free the node). Without DAST the worker that submits
//! or finishes a task executes them under the scope graph's lock, so on a
//! many-core host every worker's graph work queues behind that lock and the
//! graph's cache lines travel between all cores. With DAST a worker may
//! instead *push* the request into its own [`queue::RequestQueue`], and a
//! manager executes it: the graph then stays in one cache, and the worker
//! goes back to running tasks at once.
//!
//! # The pieces (each in its own file)
//! * `queue.rs` — a worker's request queue: single producer (the worker),
//!   one consumer at a time, FIFO per worker (which is what correctness
//!   needs; see there).
//! * `policy.rs` — the paper's push policies, per worker: inline or push,
//!   for each of the three requests, and the done-task hysteresis.
//! * `manager.rs` — the manager thread's loop and its park/wake protocol.
//! * this file — [`Dast`], what a runtime holds (the queues, the manager's
//!   wake-up, the mode), the round-robin drain shared by the manager thread
//!   and idle workers ([`Dast::drain_round`]), and the two interfaces that
//!   keep this module below the dataflow code and the scheduler: a request
//!   is an [`ErasedRequest`] (the dataflow layer implements [`Request`] for
//!   its graph operations), and the tasks a request makes ready go to a
//!   [`ReadySink`] (the registry's least-loaded worker for the manager, a
//!   worker's own deque for a worker).
//!
//! # Who executes requests, per [`DastMode`]
//! * `Off` — no queues; workers execute every request inline.
//! * `Forced` — every request is pushed; a manager thread executes them.
//! * `Adaptive` — the push policies decide; pushed requests are executed by a
//!   manager thread when the host has a hardware thread to spare for it
//!   (more hardware threads than workers: the paper reserves a core for its
//!   manager, and a manager competing with the workers for the cores slows
//!   everything it was meant to speed up) and the runtime has at least two
//!   workers (one worker never contends for the graph, which is what the
//!   manager removes; measured on 2 cores, a manager beside one worker made
//!   an empty dependent task 1.5–1.8× as costly as `Off`), and by idle
//!   workers in any case.
//! * `IdleWorkers` — the push policies decide; no extra thread: a worker
//!   that finds no task drains request queues (DDAST).
//!
//! Without a manager thread a queued request waits for a worker to go idle,
//! and the tasks it would release wait with it; so in `Adaptive` and
//! `IdleWorkers` a worker pushes only while a consumer is at hand — a manager
//! thread, or an idle worker looking for work (one shared load) — and
//! otherwise executes the request inline (a new-task request after first
//! executing its own queue, so that its scope's submissions keep their
//! order). On a host whose workers are all busy, this makes those modes
//! behave like `Off`; the requests go to the queues exactly when some thread
//! has time for them.
//!
//! A pushed request is always executed: a producer whose ring is full drains
//! its own queue before it pushes, and a worker about to go idle drains
//! queues (when idle workers drain), so a scope's final wait — which
//! suspends its task and idles its worker — finds every request of its
//! scope executed.

mod manager;
mod policy;
mod queue;
#[cfg(feature = "dast-stats")]
pub(crate) mod stats;

pub(crate) use manager::run as run_manager;
pub(crate) use policy::{PushPolicy, Route};

use crate::job::JobRef;
use crate::params::DastMode;
use manager::ManagerWake;
use queue::RequestQueue;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, Ordering};

/// Slots of each worker's request queue.
pub(crate) const QUEUE_SLOTS: usize = 256;

/// The most requests a consumer executes from one worker's queue before it
/// moves on to the next (the paper's `MAX_REQ_COUNT`): bounds how long one
/// busy producer can keep the manager from the others.
pub(crate) const MAX_REQ_COUNT: usize = 16;

/// The request kinds, for the `dast-stats` timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    New = 0,
    Done = 1,
    Delete = 2,
}

/// Who executed a request, for the `dast-stats` timings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Executor {
    /// The worker that made it, at once.
    Inline = 0,
    /// From a queue: the manager thread or a draining worker.
    Queued = 1,
}

/// Runs `operation`, a graph request of `kind` executed by `executor`, timed
/// when the `dast-stats` feature is on (see `stats.rs`); a plain call
/// otherwise.
#[inline(always)]
pub(crate) fn time_request<R>(kind: Kind, executor: Executor, operation: impl FnOnce() -> R) -> R {
    #[cfg(feature = "dast-stats")]
    return stats::time_request(kind, executor, operation);
    #[cfg(not(feature = "dast-stats"))]
    {
        let _ = (kind, executor);
        operation()
    }
}

/// Runs `acquire`, which takes a graph lock, timed when the `dast-stats`
/// feature is on; a plain call otherwise.
#[inline(always)]
pub(crate) fn time_lock<G>(acquire: impl FnOnce() -> G) -> G {
    #[cfg(feature = "dast-stats")]
    return stats::time_lock(acquire);
    #[cfg(not(feature = "dast-stats"))]
    acquire()
}

/// Where the tasks that an executed request made ready go.
pub(crate) trait ReadySink {
    /// Queues a ready task.
    fn dispatch(&self, job: JobRef);
}

/// A graph request that a manager or a worker can execute. Implemented by
/// the dataflow layer; erased into an [`ErasedRequest`] for the queues.
pub(crate) trait Request: Send + Sized {
    /// Executes the request, sending the tasks it makes ready to `sink`.
    ///
    /// # Safety
    /// Called once per request; whatever the request refers to is alive —
    /// each implementation states how its pusher guarantees that.
    unsafe fn execute(self, sink: &dyn ReadySink);
}

/// The words an erased request may occupy.
const REQUEST_WORDS: usize = 14;
type RequestBlob = MaybeUninit<[usize; REQUEST_WORDS]>;

/// A [`Request`] with its type erased: a blob holding the request and the
/// function that executes it. Not executing one leaks the request (a
/// request is always executed; see the module documentation).
pub(crate) struct ErasedRequest {
    execute: unsafe fn(&mut RequestBlob, &dyn ReadySink),
    blob: RequestBlob,
}

// SAFETY: an `ErasedRequest` is only ever built from a `R: Request`, which
// is `Send`, and holds nothing else.
unsafe impl Send for ErasedRequest {}

impl ErasedRequest {
    /// Erases `request`.
    pub(crate) fn new<R: Request>(request: R) -> ErasedRequest {
        const {
            assert!(
                size_of::<R>() <= size_of::<RequestBlob>()
                    && align_of::<R>() <= align_of::<RequestBlob>(),
                "a DAST request does not fit its blob"
            );
        };
        let mut blob = RequestBlob::uninit();
        // SAFETY: the blob is large and aligned enough for `R` (checked at
        // compile time above) and uninitialised, so writing does not drop.
        unsafe { blob.as_mut_ptr().cast::<R>().write(request) };
        ErasedRequest {
            execute: execute_erased::<R>,
            blob,
        }
    }

    /// Executes the request.
    ///
    /// # Safety
    /// As [`Request::execute`] for the erased type.
    pub(crate) unsafe fn execute(mut self, sink: &dyn ReadySink) {
        // SAFETY: `execute` is `execute_erased::<R>` for the `R` that `new`
        // wrote into `blob`; this consumes `self`, so it runs once. Forwarded
        // contract.
        unsafe { (self.execute)(&mut self.blob, sink) }
    }
}

/// Reads the `R` back out of `blob` and executes it.
///
/// # Safety
/// `blob` holds an `R` written by `ErasedRequest::new`, read once; `R`'s
/// `execute` contract holds.
unsafe fn execute_erased<R: Request>(blob: &mut RequestBlob, sink: &dyn ReadySink) {
    // SAFETY: contract.
    let request = unsafe { blob.as_mut_ptr().cast::<R>().read() };
    // SAFETY: forwarded contract.
    unsafe { request.execute(sink) }
}

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
    /// whose holder was descheduled (measured: a 300-task chain on 32 workers
    /// took 30–300 ms instead of 1.5 ms in one round of seven while the other
    /// idle workers burnt the cores the holder needed). The holder executes
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
