//! The DAST manager thread's loop ([`run`]): drain the workers' request
//! queues round-robin, then spin a little, then park (see `wake.rs` for the
//! park/wake protocol and why no wake-up is lost).

use super::interface::ReadySink;
use super::state::Dast;

/// How long the manager polls its queues after the last request before it
/// parks: rounds of draining with an exponential `spin_loop` backoff up to
/// this many spins per round, then a few `yield_now`s.
const SPINS_BEFORE_PARK: u32 = 1 << 10;
/// The yields after the spin phase.
const YIELDS_BEFORE_PARK: u32 = 16;

/// The manager thread's body: executes requests until `stop` says the
/// runtime is gone and no request is left. `sink` receives the tasks the
/// requests make ready (the least-loaded worker, see `registry.rs`).
pub(crate) fn run(dast: &Dast, sink: &dyn ReadySink, stop: impl Fn() -> bool) {
    let mut next_queue = 0;
    loop {
        let mut spins: u32 = 1;
        let mut yields = 0;
        loop {
            if dast.drain_round(&mut next_queue, sink, true) > 0 {
                spins = 1;
                yields = 0;
                continue;
            }
            if spins < SPINS_BEFORE_PARK {
                for _ in 0..spins {
                    std::hint::spin_loop();
                }
                spins *= 2;
            } else if yields < YIELDS_BEFORE_PARK {
                std::thread::yield_now();
                yields += 1;
            } else {
                break;
            }
        }
        if stop() && !dast.has_requests() {
            return;
        }
        dast.manager.park_unless(|| dast.has_requests() || stop());
    }
}

#[cfg(all(test, loom))]
mod loom_models {
    use super::*;
    use crate::sync::{AtomicBool, AtomicUsize};
    use loom::sync::Arc;
    use std::sync::atomic::Ordering;

    /// The preemption bound of the loop model (`LOOM_MAX_PREEMPTIONS`
    /// overrides it).
    const PREEMPTIONS: usize = 5;

    /// A request that counts its execution.
    struct Count(Arc<AtomicUsize>);

    impl crate::dast::interface::Request for Count {
        unsafe fn execute(self, _sink: &dyn ReadySink) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    struct NoSink;

    impl ReadySink for NoSink {
        fn dispatch(&self, _job: crate::job::JobRef) {
            unreachable!("a counting request makes nothing ready");
        }
    }

    /// The manager's loop against a producer, with the real queue and wake
    /// code (`Dast::push`, which notifies; `Dast::drain_round`;
    /// `park_unless` over `Dast::has_requests`; the loop of [`run`] without
    /// its spin phase, which only delays the park): the producer pushes two
    /// requests, the second possibly while the manager parks after the
    /// first, then stops the runtime (as `Runtime::drop` does once the
    /// workers are gone: its stop flag, then a notification). The manager
    /// executes both requests and then exits; a lost wake-up is a deadlock
    /// here (loom's park never times out).
    ///
    /// Unbounded, the model runs for many minutes; bounded to
    /// [`PREEMPTIONS`] preemptions it takes seconds. At this bound it catches
    /// a `notify` without its fence and a `park_unless` that does not
    /// re-check after announcing its park.
    #[test]
    fn loom_manager_executes_every_request_then_stops() {
        let mut model = loom::model::Builder::new();
        model.preemption_bound.get_or_insert(PREEMPTIONS);
        model.check(|| {
            let dast = Arc::new(Dast::new(crate::params::DastMode::Forced, 1, 1));
            assert!(dast.has_manager_thread());
            let stop = Arc::new(AtomicBool::new(false));
            let executed = Arc::new(AtomicUsize::new(0));
            let producer = {
                let (dast, stop, executed) = (dast.clone(), stop.clone(), executed.clone());
                loom::thread::spawn(move || {
                    for _ in 0..2 {
                        let request =
                            crate::dast::interface::ErasedRequest::new(Count(executed.clone()));
                        // SAFETY: this thread is queue 0's only producer; a
                        // `Count` refers to nothing that could go away.
                        unsafe { dast.push(0, request, &NoSink) };
                    }
                    stop.store(true, Ordering::SeqCst);
                    dast.manager.notify();
                })
            };
            let mut next = 0;
            let mut drained = 0;
            loop {
                drained += dast.drain_round(&mut next, &NoSink, true);
                if stop.load(Ordering::SeqCst) && !dast.has_requests() {
                    break;
                }
                dast.manager
                    .park_unless(|| dast.has_requests() || stop.load(Ordering::SeqCst));
            }
            producer.join().unwrap();
            assert_eq!(drained, 2);
            assert_eq!(executed.load(Ordering::Relaxed), 2);
        });
    }
}
