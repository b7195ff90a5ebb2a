//! Waking and dropping across runtimes and plain threads.
//!
//! * A fiber woken from a thread that holds no reference to its runtime (a
//!   plain thread's `Event::set`, a task of another runtime finishing what it
//!   waits for) while that runtime is being dropped: the waker must not touch
//!   the runtime after the woken task could have let it go (run these under
//!   AddressSanitizer: see the README).
//! * Dropping runtime B inside a task of runtime A suspends that task instead
//!   of blocking A's worker thread, which B's tasks may need.
//! * A dropping runtime whose task waits for an event parks its workers
//!   instead of spinning them.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Runtime};
use prescient_tests::{assert_parked, named_runtime, threads_named, watchdog};
use std::sync::Arc;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(120);
const ROUNDS: usize = 300;

fn small(workers: usize) -> Runtime {
    Runtime::builder()
        .params(prescient::Params::DEFAULT.with_stack_size(64 << 10))
        .num_workers(workers)
        .build()
        .unwrap()
}

#[test]
fn fibers_woken_from_plain_threads_while_their_runtime_drops() {
    watchdog("plain-thread wakers vs. drop", LIMIT, || {
        for round in 0..ROUNDS {
            let rt = small(1 + round % 3);
            let event = Arc::new(Event::new());
            for _ in 0..4 {
                let event = event.clone();
                drop(rt.spawn(move || event.wait()));
            }
            // Give the tasks a chance to suspend on the event first.
            if round % 2 == 0 {
                std::thread::yield_now();
            }
            let setter = {
                let event = event.clone();
                std::thread::spawn(move || event.set())
            };
            // Returns once the tasks finished: possibly while the setter is
            // still inside its wake-up of the last fiber.
            drop(rt);
            setter.join().unwrap();
        }
    });
}

#[test]
fn fibers_woken_by_another_runtime_while_their_runtime_drops() {
    watchdog("cross-runtime wakers vs. drop", LIMIT, || {
        let b = small(2);
        for round in 0..ROUNDS {
            let a = small(1 + round % 2);
            // A's task suspends in `b.run`; B's worker sets the latch and
            // wakes A's fiber, then A is dropped at once.
            assert_eq!(a.run(|| b.run(|| round * 2)), round * 2);
            // The same through a handle of B joined in a task of A.
            let b_ref = &b;
            assert_eq!(a.run(|| b_ref.spawn(move || round + 1).join()), round + 1);
            drop(a);
        }
    });
}

/// B's task waits for an event that a task queued on A's only worker sets.
/// Dropping B inside a task of A used to block that worker thread in the
/// thread joins: a deadlock. It must suspend the task instead.
#[test]
fn dropping_a_runtime_inside_a_task_of_another_suspends() {
    let a = small(1);
    let done = watchdog("drop B inside a task of A", LIMIT, || {
        a.run(|| {
            let b = small(1);
            let event = Arc::new(Event::new());
            let waiting = event.clone();
            drop(b.spawn(move || waiting.wait()));
            // Queued on A's worker; runs only if that worker is free.
            let setting = event.clone();
            let setter = prescient::spawn(move || setting.set());
            drop(b);
            setter.join();
            event.is_set()
        })
    });
    assert!(done);
}

/// While `drop(rt)` waits for a suspended task, the workers park (they used
/// to spin at full speed until the event was set).
#[test]
fn a_dropping_runtime_parks_while_a_task_waits() {
    const PREFIX: &str = "dropping-";
    const WORKERS: usize = 2;
    let rt = named_runtime(QueuePolicy::InsertBackStealBack, WORKERS, PREFIX);
    let event = Arc::new(Event::new());
    let waiting = event.clone();
    drop(rt.spawn(move || waiting.wait()));
    watchdog("drop while a task waits", LIMIT, || {
        let dropper = std::thread::spawn(move || drop(rt));
        // The worker without a suspended task exits; the other one waits
        // for its task, parked.
        assert_parked(PREFIX, 1, "dropping, a task waiting for an event");
        event.set();
        dropper.join().unwrap();
        assert!(threads_named(PREFIX).is_empty());
    });
}
