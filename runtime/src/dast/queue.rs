//! A worker's DAST request queue: a bounded ring that exactly one thread
//! appends to (the worker that owns it) and that one consumer at a time (the
//! manager thread, an idle worker, or the owner itself when the ring is full)
//! drains, in FIFO order.
//!
//! # Invariants
//! * `tail` counts the requests ever pushed; only the producer writes it.
//! * `head` counts the requests ever *completed* — taken out **and
//!   executed**; only the consumer holding `consumer` writes it. So
//!   `head <= tail` and `tail - head <= capacity` at all times, the slots
//!   `head .. tail` (mod capacity) hold requests, the others are free.
//! * At most one consumer at a time: `consumer` is a try-lock, and a
//!   consumer executes each request *before* it advances `head`. Hence the
//!   requests of one queue are executed one after the other, in the order the
//!   producer pushed them — the per-worker FIFO that the dependency graph's
//!   correctness needs (a task's `delete` after its `done`, a scope's
//!   `new`s in program order) — and "request number `p` is still queued" is
//!   exactly `completed() <= p`, which the delete-task push policy reads.
//!
//! # Orderings
//! * Producer: writes the slot, then `tail.store(Release)`. A consumer's
//!   `tail.load(Acquire)` that sees the new count therefore sees the slot's
//!   contents.
//! * Consumer: reads the slot (moving the request out), executes it, then
//!   `head.store(Release)`. The producer's `head.load(Acquire)` that sees the
//!   slot free therefore comes after the consumer's read of it: the producer
//!   never overwrites a request that is being read.
//! * The consumer lock: `swap(true, Acquire)` / `store(false, Release)`, so a
//!   consumer sees `head` as the previous consumer left it (head is written
//!   only under the lock; its Release store is for the producer).
//!
//! Loom models at the bottom run this code (the `crate::sync` types) with a
//! producer and two competing consumers.

use crate::sync::{AtomicBool, AtomicUsize, UnsafeCell};
use crossbeam_utils::CachePadded;
use std::mem::MaybeUninit;
use std::sync::atomic::Ordering;

/// A bounded single-producer queue with one consumer at a time.
pub(crate) struct RequestQueue<T> {
    /// Requests ever pushed. Producer only; Release.
    tail: CachePadded<AtomicUsize>,
    /// Requests ever completed (executed). Consumer (under `consumer`) only;
    /// Release.
    head: CachePadded<AtomicUsize>,
    /// Held by the one thread draining the queue.
    consumer: CachePadded<AtomicBool>,
    slots: Box<[UnsafeCell<MaybeUninit<T>>]>,
}

// SAFETY: requests move from the producer to a consumer through the slots
// (so `T: Send` is needed and enough); the protocol above makes each slot
// accessed by one thread at a time.
unsafe impl<T: Send> Sync for RequestQueue<T> {}
// SAFETY: sending the queue sends the requests in its slots, which
// `T: Send` allows; the counters are atomics.
unsafe impl<T: Send> Send for RequestQueue<T> {}

impl<T> RequestQueue<T> {
    /// An empty queue of `capacity` slots (at least 1).
    pub(crate) fn with_capacity(capacity: usize) -> RequestQueue<T> {
        assert!(capacity > 0, "a request queue needs a slot");
        RequestQueue {
            tail: CachePadded::new(AtomicUsize::new(0)),
            head: CachePadded::new(AtomicUsize::new(0)),
            consumer: CachePadded::new(AtomicBool::new(false)),
            slots: (0..capacity)
                .map(|_| UnsafeCell::new(MaybeUninit::uninit()))
                .collect(),
        }
    }

    /// Appends `request`; returns its position (the number of requests pushed
    /// before it), or the request back if the ring is full.
    ///
    /// # Safety
    /// Called by the queue's one producer thread only.
    pub(crate) unsafe fn push(&self, request: T) -> Result<usize, T> {
        // Only this thread writes `tail`.
        let tail = self.tail.load(Ordering::Relaxed);
        let head = self.head.load(Ordering::Acquire);
        if tail - head == self.slots.len() {
            return Err(request);
        }
        let slot = &self.slots[tail % self.slots.len()];
        // SAFETY: the slot is free (`head <= tail - capacity` is false, and
        // the Acquire load of `head` orders the last consumer's read of it
        // before this write); only the producer writes free slots.
        slot.with_mut(|slot| unsafe { (*slot).write(request) });
        self.tail.store(tail + 1, Ordering::Release);
        Ok(tail)
    }

    /// Requests pushed and not yet completed. Exact for the producer (which
    /// alone pushes); a snapshot for anyone else.
    pub(crate) fn pending(&self) -> usize {
        let head = self.head.load(Ordering::Acquire);
        let tail = self.tail.load(Ordering::Acquire);
        tail.saturating_sub(head)
    }

    /// Whether no request waits (a snapshot).
    pub(crate) fn is_empty(&self) -> bool {
        self.pending() == 0
    }

    /// Whether requests wait and no consumer holds the queue: what an idle
    /// worker looks for (a held queue is being drained by its holder, which
    /// goes on until it is empty or returns to it).
    pub(crate) fn is_drainable(&self) -> bool {
        !self.consumer.load(Ordering::Relaxed) && !self.is_empty()
    }

    /// Requests completed so far: request number `p` has been executed iff
    /// `completed() > p`.
    pub(crate) fn completed(&self) -> usize {
        self.head.load(Ordering::Acquire)
    }

    /// If no other consumer holds the queue, takes out and executes (with
    /// `execute`) up to `max` requests in FIFO order, and returns how many;
    /// `None` if another consumer holds it.
    ///
    /// `execute` must not push to this queue (it would not deadlock, since
    /// pushing never waits, but a full ring would lose the request).
    pub(crate) fn try_drain(&self, max: usize, mut execute: impl FnMut(T)) -> Option<usize> {
        if self.consumer.load(Ordering::Relaxed) || self.consumer.swap(true, Ordering::Acquire) {
            return None;
        }
        // Unlock even if `execute` unwinds (it does not: graph errors abort),
        // so that a bug there cannot wedge the queue silently.
        struct Unlock<'a>(&'a AtomicBool);
        impl Drop for Unlock<'_> {
            fn drop(&mut self) {
                self.0.store(false, Ordering::Release);
            }
        }
        let _unlock = Unlock(&self.consumer);
        // Written only under the lock, which we hold.
        let mut head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Acquire);
        let count = (tail - head).min(max);
        for _ in 0..count {
            let slot = &self.slots[head % self.slots.len()];
            // SAFETY: `head < tail`, so the producer wrote this slot before
            // its Release store of `tail`, which our Acquire load saw; the
            // slot stays ours until we advance `head` past it, and each
            // position is read once (we hold the consumer lock).
            let request = slot.with(|slot| unsafe { (*slot).assume_init_read() });
            execute(request);
            head += 1;
            self.head.store(head, Ordering::Release);
        }
        Some(count)
    }
}

impl<T> Drop for RequestQueue<T> {
    fn drop(&mut self) {
        // Requests are always executed before their runtime ends (a request
        // belongs to a live task, and the runtime outlives its tasks); drop
        // any left anyway rather than leak them.
        let head = self.head.load(Ordering::Relaxed);
        let tail = self.tail.load(Ordering::Relaxed);
        for position in head..tail {
            let slot = &self.slots[position % self.slots.len()];
            // SAFETY: `&mut self`: no other thread; positions `head..tail`
            // hold initialised requests, each dropped once.
            slot.with_mut(|slot| unsafe { (*slot).assume_init_drop() });
        }
    }
}

/// Unit tests, without a runtime: their names contain `miri_`, the filter of
/// CI's Miri stage, whose data-race detector and borrow checks watch the
/// slots' hand-off between real threads.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn miri_fifo_positions_and_full_ring() {
        let queue = RequestQueue::with_capacity(3);
        // SAFETY: this thread is the only producer.
        unsafe {
            assert_eq!(queue.push(10), Ok(0));
            assert_eq!(queue.push(11), Ok(1));
            assert_eq!(queue.push(12), Ok(2));
            assert_eq!(queue.push(13), Err(13));
        }
        assert_eq!(queue.pending(), 3);
        let mut seen = Vec::new();
        assert_eq!(queue.try_drain(2, |r| seen.push(r)), Some(2));
        assert_eq!(seen, [10, 11]);
        assert_eq!(queue.completed(), 2);
        // SAFETY: this thread is still the only producer.
        unsafe {
            assert_eq!(queue.push(13), Ok(3));
            assert_eq!(queue.push(14), Ok(4));
        }
        assert_eq!(queue.try_drain(usize::MAX, |r| seen.push(r)), Some(3));
        assert_eq!(seen, [10, 11, 12, 13, 14]);
        assert!(queue.is_empty());
    }

    #[test]
    fn miri_one_consumer_at_a_time_and_leftovers_are_dropped() {
        let queue = RequestQueue::with_capacity(4);
        let witness = std::sync::Arc::new(());
        // SAFETY: only producer.
        unsafe {
            queue.push(witness.clone()).unwrap();
            queue.push(witness.clone()).unwrap();
        }
        let mut nested = None;
        queue.try_drain(1, |_| nested = Some(queue.try_drain(1, |_| ())));
        assert_eq!(nested, Some(None), "a second consumer must be refused");
        drop(queue);
        assert_eq!(std::sync::Arc::strong_count(&witness), 1);
    }

    /// A producer thread pushes boxed requests into a small ring (helping
    /// to drain it when it is full, as a worker does) while two consumer
    /// threads compete to drain it: every request is executed once, in push
    /// order, and freed once.
    #[test]
    fn miri_producer_and_competing_consumers() {
        use std::sync::atomic::AtomicUsize as Count;
        use std::sync::{Arc, Mutex};
        const REQUESTS: usize = 24;
        let queue = Arc::new(RequestQueue::<Box<usize>>::with_capacity(3));
        let executed = Arc::new(Mutex::new(Vec::new()));
        let done = Arc::new(Count::new(0));
        let drain = {
            let (executed, done) = (executed.clone(), done.clone());
            move |queue: &RequestQueue<Box<usize>>| {
                queue.try_drain(usize::MAX, |request| {
                    executed.lock().unwrap().push(*request);
                    done.fetch_add(1, Ordering::Relaxed);
                })
            }
        };
        let consumers: Vec<_> = (0..2)
            .map(|_| {
                let (queue, done, drain) = (queue.clone(), done.clone(), drain.clone());
                std::thread::spawn(move || {
                    while done.load(Ordering::Relaxed) < REQUESTS {
                        drain(&queue);
                        std::thread::yield_now();
                    }
                })
            })
            .collect();
        for request in 0..REQUESTS {
            let mut request = Box::new(request);
            // SAFETY: this thread is the only producer.
            while let Err(back) = unsafe { queue.push(request) } {
                request = back;
                drain(&queue);
                std::thread::yield_now();
            }
        }
        for consumer in consumers {
            consumer.join().unwrap();
        }
        assert!(queue.is_empty());
        assert!(executed.lock().unwrap().iter().copied().eq(0..REQUESTS));
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use loom::sync::Arc;

    /// The preemption bound of the hand-off model.
    const PREEMPTIONS: usize = 3;

    /// The hand-off: a producer pushes three requests into a two-slot ring
    /// (retrying while it is full) while two consumers compete to drain it.
    /// Every request is executed exactly once, in push order, and never
    /// overwritten while being read (loom checks the slot accesses).
    ///
    /// Three threads with unbounded preemptions did not finish in 12 minutes,
    /// so the model is bounded to [`PREEMPTIONS`] preemptions (about 10 s;
    /// 4 passes too, in about a minute). The bugs of this protocol — a slot
    /// reused while it is read, a request run twice or out of order — take
    /// one or two preemptions inside a push or a drain; e.g. advancing `head`
    /// before reading the slot is caught at this bound.
    ///
    /// Under loom the consumer lock's `swap` runs as a compare-exchange (see
    /// `crate::sync::AtomicBool`): loom 0.7 let a losing consumer's
    /// `swap(true)` land after the holder's release, leaving the queue locked
    /// by nobody — the model then spun forever in its final drain. No real
    /// execution can do that (an RMW writes right after what it read).
    #[test]
    fn loom_request_queue_hand_off() {
        let mut model = loom::model::Builder::new();
        // `LOOM_MAX_PREEMPTIONS` explores deeper (4: about a minute).
        model.preemption_bound.get_or_insert(PREEMPTIONS);
        model.check(|| {
            let queue = Arc::new(RequestQueue::<usize>::with_capacity(2));
            let executed = Arc::new(loom::sync::Mutex::new(Vec::new()));
            let consumers: Vec<_> = (0..2)
                .map(|_| {
                    let queue = queue.clone();
                    let executed = executed.clone();
                    loom::thread::spawn(move || {
                        let _ = queue.try_drain(usize::MAX, |r| executed.lock().unwrap().push(r));
                    })
                })
                .collect();
            for request in 0..3 {
                let mut request = request;
                loop {
                    // SAFETY: this thread is the only producer.
                    match unsafe { queue.push(request) } {
                        Ok(_) => break,
                        Err(back) => {
                            request = back;
                            // Help, as a worker with a full ring does.
                            let _ =
                                queue.try_drain(usize::MAX, |r| executed.lock().unwrap().push(r));
                            loom::thread::yield_now();
                        }
                    }
                }
            }
            for consumer in consumers {
                consumer.join().unwrap();
            }
            while queue.try_drain(usize::MAX, |r| executed.lock().unwrap().push(r)) != Some(0) {}
            assert_eq!(*executed.lock().unwrap(), [0, 1, 2]);
        });
    }
}
