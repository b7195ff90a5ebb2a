//! Idle workers reach the parked state: measured from outside through
//! `/proc/self/task/*/stat`, a parked worker is in state `S` (sleeping on its
//! condvar) and burns no CPU time. (A parked worker does wake now and then:
//! the park timeout that repairs a missed wake-up, a few microseconds each
//! time, growing to one wake-up per half second; so the check is on CPU time,
//! not on never being seen awake.) Checked right after start, after a burst
//! of work, and while a task of theirs is suspended waiting on an event (a
//! suspended task is not work: its worker must park, and wake when the event
//! is set).

use prescient::tuning::QueuePolicy;
use prescient::Event;
use prescient_tests::{assert_parked, watchdog};
use std::sync::Arc;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

use prescient_tests::named_runtime as runtime;

use prescient_tests::fib_join as fib;

#[test]
fn idle_workers_park() {
    for (k, policy) in QueuePolicy::ALL.into_iter().enumerate() {
        for workers in [1, 2, 16] {
            // Distinct prefixes: tests of this file run in parallel.
            let prefix: &'static str = Box::leak(format!("pk{k}w{workers}-").into_boxed_str());
            let what = format!("policy={policy} workers={workers}");
            watchdog(&what, LIMIT, || {
                let rt = runtime(policy, workers, prefix);
                // Right after start.
                assert_parked(prefix, workers, &format!("{what}, fresh"));
                // After a burst of work.
                assert_eq!(rt.run(|| fib(18)), 2584);
                assert_parked(prefix, workers, &format!("{what}, after work"));
                // While tasks are suspended on an event.
                let gate = Arc::new(Event::new());
                let handles: Vec<_> = (0..2 * workers)
                    .map(|_| {
                        let gate = gate.clone();
                        rt.spawn(move || {
                            gate.wait();
                            fib(10)
                        })
                    })
                    .collect();
                assert_parked(prefix, workers, &format!("{what}, tasks suspended"));
                gate.set();
                for h in handles {
                    assert_eq!(h.join(), 55, "{what}");
                }
                assert_parked(prefix, workers, &format!("{what}, after the wake-up"));
            });
        }
    }
}
