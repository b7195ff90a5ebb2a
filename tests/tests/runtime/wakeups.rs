//! Wake-ups: parked workers must be woken for every kind of news — a job
//! injected from outside, a suspended task made ready by another thread, a
//! surplus of work in a busy worker's deque. Lost wake-ups show as hangs, so
//! every test runs under a watchdog, and the workers are made to park between
//! rounds (they park after ~200 µs without work) so that each round starts
//! from the parked state.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Runtime};
use prescient_tests::{spin_for, watchdog};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn runtime(policy: QueuePolicy, workers: usize) -> Runtime {
    Runtime::builder()
        .params(
            prescient::Params::DEFAULT
                .with_queue_policy(policy)
                .with_stack_size(128 << 10),
        )
        .num_workers(workers)
        .build()
        .unwrap()
}

use prescient_tests::fib_join as fib;

/// Bursts of work separated by pauses long enough for every worker to park.
#[test]
fn bursts_after_parking() {
    for policy in QueuePolicy::ALL {
        for workers in [2, 16] {
            let what = format!("bursts policy={policy} workers={workers}");
            let rt = runtime(policy, workers);
            watchdog(&what, LIMIT, || {
                for round in 0..30 {
                    std::thread::sleep(Duration::from_micros(500 + (round % 3) * 700));
                    assert_eq!(rt.run(|| fib(12)), 144, "{what}");
                }
            });
        }
    }
}

/// A plain thread and a task hand a token back and forth through events: each
/// hand-over wakes a parked worker (the task's own: it is tied to it) or the
/// parked plain thread.
#[test]
fn ping_pong_between_a_thread_and_a_task() {
    const ROUNDS: usize = 300;
    for policy in QueuePolicy::ALL {
        for workers in [1, 16] {
            let what = format!("ping-pong policy={policy} workers={workers}");
            let rt = runtime(policy, workers);
            watchdog(&what, LIMIT, || {
                let ping: Arc<Vec<Event>> = Arc::new((0..ROUNDS).map(|_| Event::new()).collect());
                let pong: Arc<Vec<Event>> = Arc::new((0..ROUNDS).map(|_| Event::new()).collect());
                let (pi, po) = (ping.clone(), pong.clone());
                let task = rt.spawn(move || {
                    let home = std::thread::current().id();
                    for i in 0..ROUNDS {
                        pi[i].wait();
                        assert_eq!(std::thread::current().id(), home);
                        po[i].set();
                    }
                });
                for i in 0..ROUNDS {
                    if i % 50 == 0 {
                        // Let the task's worker park before the next ping.
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    ping[i].set();
                    pong[i].wait();
                }
                task.join();
            });
        }
    }
}

/// Two tasks on (usually) different workers hand a token back and forth.
#[test]
fn ping_pong_between_tasks() {
    const ROUNDS: usize = 300;
    for policy in QueuePolicy::ALL {
        for workers in [1, 2, 16] {
            let what = format!("task ping-pong policy={policy} workers={workers}");
            let rt = runtime(policy, workers);
            watchdog(&what, LIMIT, || {
                let ping: Arc<Vec<Event>> = Arc::new((0..ROUNDS).map(|_| Event::new()).collect());
                let pong: Arc<Vec<Event>> = Arc::new((0..ROUNDS).map(|_| Event::new()).collect());
                let (pi, po) = (ping.clone(), pong.clone());
                let a = rt.spawn(move || {
                    for i in 0..ROUNDS {
                        pi[i].wait();
                        po[i].set();
                    }
                });
                let b = rt.spawn(move || {
                    for i in 0..ROUNDS {
                        ping[i].set();
                        pong[i].wait();
                    }
                });
                a.join();
                b.join();
            });
        }
    }
}

/// Many plain threads inject at once into a runtime whose workers keep
/// parking: every injected job runs.
#[test]
fn concurrent_injection() {
    for policy in QueuePolicy::ALL {
        let what = format!("injection policy={policy}");
        let rt = runtime(policy, 16);
        watchdog(&what, LIMIT, || {
            let count = Arc::new(AtomicUsize::new(0));
            std::thread::scope(|s| {
                for t in 0..4 {
                    let (rt, count) = (&rt, count.clone());
                    s.spawn(move || {
                        for i in 0..100 {
                            if (i + t) % 25 == 0 {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            let count = count.clone();
                            rt.spawn(move || count.fetch_add(1, Ordering::SeqCst))
                                .join();
                        }
                    });
                }
            });
            assert_eq!(count.load(Ordering::SeqCst), 400, "{what}");
        });
    }
}

/// `join(a, b)` with two long halves on an idle runtime: `b` sits alone in the
/// joining worker's deque while `a` runs for 100 ms, and the other worker,
/// parked, is never woken for it — `push` wakes a sleeper only when the
/// deque already held a job. Both halves run on one worker, one after the
/// other (200 ms instead of 100), every time; `Scope::spawn` of the same two
/// halves is parallel (its second push finds the first one in the deque).
#[test]
fn a_join_of_two_long_halves_after_idle_runs_in_parallel() {
    for policy in QueuePolicy::ALL {
        let rt = runtime(policy, 2);
        watchdog("two long halves", LIMIT, || {
            let mut parallel = 0;
            for _ in 0..3 {
                std::thread::sleep(Duration::from_millis(20));
                let (a, b) = rt.run(|| {
                    prescient::join(
                        || {
                            spin_for(Duration::from_millis(100));
                            prescient::current_worker_index()
                        },
                        || {
                            spin_for(Duration::from_millis(100));
                            prescient::current_worker_index()
                        },
                    )
                });
                parallel += usize::from(a != b);
            }
            assert!(
                parallel >= 2,
                "policy={policy}: b was stolen in {parallel} of 3 runs"
            );
        });
    }
}
