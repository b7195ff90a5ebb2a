//! Idle workers reach the parked state: measured from outside through
//! `/proc/self/task/*/stat`, a parked worker is in state `S` (sleeping on its
//! condvar) and burns no CPU time. Checked right after start, after a burst
//! of work, and while a task of theirs is suspended waiting on an event (a
//! suspended task is not work: its worker must park, and wake when the event
//! is set).

use prescient::{Event, QueuePolicy};
use prescient_tests::{threads_named, watchdog, ThreadInfo};
use std::sync::Arc;
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(60);

use prescient_tests::named_runtime as runtime;

fn workers_of(prefix: &str, n: usize) -> Vec<ThreadInfo> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let threads = threads_named(prefix);
        if threads.len() == n {
            return threads;
        }
        assert!(
            Instant::now() < deadline,
            "expected {n} threads named {prefix}*: {threads:?}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Waits (up to 5 s) until every worker sleeps, then checks that over the
/// next 100 ms they stay asleep and use (almost) no CPU time.
fn assert_parked(prefix: &str, n: usize, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let threads = workers_of(prefix, n);
        if threads.iter().all(|t| t.state == 'S') {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{what}: workers never all parked: {:?}",
            threads
                .iter()
                .map(|t| (&t.name, t.state))
                .collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    let before = workers_of(prefix, n);
    let mut samples = 0;
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(100) {
        let now = workers_of(prefix, n);
        let awake: Vec<_> = now.iter().filter(|t| t.state != 'S').collect();
        assert!(
            awake.is_empty(),
            "{what}: a parked worker woke up with nothing to do: {awake:?}"
        );
        samples += 1;
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(samples >= 3);
    let after = workers_of(prefix, n);
    let ticks: u64 = after.iter().map(|t| t.cpu_ticks).sum::<u64>()
        - before.iter().map(|t| t.cpu_ticks).sum::<u64>();
    // Clock ticks are 10 ms: one spinning worker would take ~10 per 100 ms.
    assert!(
        ticks <= 2,
        "{what}: idle workers used {ticks} ticks of CPU in 100 ms"
    );
}

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
