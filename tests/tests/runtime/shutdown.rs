//! Shutdown: dropping a runtime drains every task — queued, suspended, and
//! spawned while it drains — then runs the exit handlers and joins the
//! worker threads. Nothing is lost, nothing leaks, and an idle runtime drops
//! quickly.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Runtime, TaskGroup};
use prescient_tests::{assert_threads_gone, watchdog, workers_of, WORKERS};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(60);

use prescient_tests::named_runtime as runtime;

fn spawn_tree(done: Arc<AtomicUsize>, depth: u32) {
    done.fetch_add(1, Ordering::SeqCst);
    if depth > 0 {
        for _ in 0..2 {
            let done = done.clone();
            drop(prescient::spawn(move || spawn_tree(done, depth - 1)));
        }
    }
}

#[test]
fn drop_drains_pending_suspended_and_late_spawned_tasks() {
    for policy in QueuePolicy::ALL {
        for workers in WORKERS {
            let what = format!("policy={policy} workers={workers}");
            watchdog(&what, LIMIT, || {
                let exited = Arc::new(Mutex::new(Vec::new()));
                let done = Arc::new(AtomicUsize::new(0));
                let e = exited.clone();
                let d = done.clone();
                let rt = Runtime::builder()
                    .params(
                        prescient::Params::DEFAULT
                            .with_queue_policy(policy)
                            .with_stack_size(128 << 10),
                    )
                    .num_workers(workers)
                    .exit_handler(move |i| e.lock().unwrap().push((i, d.load(Ordering::SeqCst))))
                    .build()
                    .unwrap();
                // Pending: queued, detached tasks.
                for _ in 0..100 {
                    let done = done.clone();
                    drop(rt.spawn(move || {
                        std::thread::yield_now();
                        done.fetch_add(1, Ordering::SeqCst);
                    }));
                }
                // Suspended: tasks waiting on an event that a plain thread
                // sets only after the drop has begun.
                let gate = Arc::new(Event::new());
                for _ in 0..20 {
                    let (done, gate) = (done.clone(), gate.clone());
                    drop(rt.spawn(move || {
                        gate.wait();
                        done.fetch_add(1, Ordering::SeqCst);
                    }));
                }
                // Suspended in a group wait whose tasks are still queued, and
                // trees that spawn more tasks while the runtime drains.
                for _ in 0..4 {
                    let done = done.clone();
                    drop(rt.spawn(move || {
                        let group = TaskGroup::new();
                        for _ in 0..10 {
                            let done = done.clone();
                            group.spawn(move || {
                                done.fetch_add(1, Ordering::SeqCst);
                            });
                        }
                        group.wait();
                        spawn_tree(done.clone(), 4);
                        done.fetch_add(1, Ordering::SeqCst);
                    }));
                }
                // The clock starts before the setter's 30 ms do, so that a
                // preemption here cannot make a waiting drop look short.
                let start = Instant::now();
                let setter = {
                    let gate = gate.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_millis(30));
                        gate.set();
                    })
                };
                drop(rt);
                let took = start.elapsed();
                setter.join().unwrap();
                let expected = 100 + 20 + 4 * (10 + 31 + 1);
                assert_eq!(done.load(Ordering::SeqCst), expected, "{what}: tasks lost");
                assert!(
                    took >= Duration::from_millis(20),
                    "{what}: drop returned before the suspended tasks could finish ({took:?})"
                );
                // Every worker ran its exit handler once. (A worker exits as
                // soon as it has nothing of its own left, so a handler may run
                // while other workers still drain: only the count is checked.)
                let mut exited: Vec<usize> =
                    exited.lock().unwrap().iter().map(|&(i, _)| i).collect();
                exited.sort_unstable();
                assert_eq!(exited, (0..workers).collect::<Vec<_>>(), "{what}");
            });
        }
    }
}

#[test]
fn dropping_joins_the_worker_threads() {
    watchdog("threads joined", LIMIT, || {
        for round in 0..20 {
            let rt = runtime(QueuePolicy::ALL[round % 4], 16, "sdj-");
            // A thread names itself when it starts: wait for all 16.
            workers_of("sdj-", 16);
            if round % 2 == 0 {
                rt.run(|| prescient::join(|| (), || ()));
            }
            let start = Instant::now();
            drop(rt);
            // An idle runtime drops fast (parked workers are woken at once).
            assert!(
                start.elapsed() < Duration::from_secs(2),
                "round {round}: {:?}",
                start.elapsed()
            );
            // `join` returns when the kernel clears the thread's tid, a moment
            // before its `/proc/self/task` entry goes: allow that moment.
            assert_threads_gone("sdj-", Duration::from_secs(2), &format!("round {round}"));
        }
    });
}

/// A task still waiting on its join children when the runtime is dropped:
/// the children are deep in the deques, the joiner is suspended.
#[test]
fn drop_while_a_join_tree_is_in_flight() {
    fn tree(depth: u32, sum: &AtomicUsize) {
        if depth == 0 {
            std::thread::yield_now();
            sum.fetch_add(1, Ordering::SeqCst);
            return;
        }
        prescient::join(|| tree(depth - 1, sum), || tree(depth - 1, sum));
    }
    for policy in QueuePolicy::ALL {
        for workers in [1, 2, 16] {
            let what = format!("in flight policy={policy} workers={workers}");
            watchdog(&what, LIMIT, || {
                let rt = runtime(policy, workers, "sdf-");
                let sum = Arc::new(AtomicUsize::new(0));
                for _ in 0..4 {
                    let sum = sum.clone();
                    drop(rt.spawn(move || tree(8, &sum)));
                }
                drop(rt);
                assert_eq!(sum.load(Ordering::SeqCst), 4 * 256, "{what}");
            });
        }
    }
}

/// The last `Arc<Runtime>` dropped inside one of the runtime's own tasks (a
/// detached task that owns the runtime, as a server's shutdown task might):
/// `Drop` joins every worker thread, including the one it runs on, and
/// `JoinHandle::join` on the current thread fails with EDEADLK — the task
/// panics with "failed to join thread: Resource deadlock avoided" and never
/// finishes. (rayon's `ThreadPool` drop only signals its workers.)
#[test]
fn dropping_the_runtime_inside_its_own_task() {
    let panics: Arc<Mutex<Vec<String>>> = Arc::default();
    let p = panics.clone();
    let rt = Arc::new(
        Runtime::builder()
            .num_workers(2)
            .panic_handler(move |payload| {
                let message = payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                p.lock().unwrap().push(message);
            })
            .build()
            .unwrap(),
    );
    let done = Arc::new(AtomicUsize::new(0));
    let (owner, d) = (rt.clone(), done.clone());
    let handle = rt.spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        drop(owner); // the last reference: `Runtime::drop` runs on a worker
        d.fetch_add(1, Ordering::SeqCst);
    });
    drop(rt);
    drop(handle);
    let deadline = Instant::now() + Duration::from_secs(10);
    while done.load(Ordering::SeqCst) == 0 && panics.lock().unwrap().is_empty() {
        assert!(Instant::now() < deadline, "neither finished nor panicked");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert_eq!(*panics.lock().unwrap(), Vec::<String>::new());
    assert_eq!(done.load(Ordering::SeqCst), 1);
}

/// A start handler that panics kills its worker thread before the worker's
/// loop starts; the runtime does not notice. On one worker every later
/// `run` hangs forever (the injected job has no worker), and `Drop` would
/// hang too. Expected: the panic is caught (reported, like a detached task's)
/// and the worker goes on — or `build` fails.
#[test]
fn a_panicking_start_handler_does_not_lose_the_worker() {
    let rt = Runtime::builder()
        .num_workers(1)
        .start_handler(|_| panic!("expected: start handler"))
        .build();
    let Ok(rt) = rt else {
        return; // refusing to build is fine too
    };
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let v = rt.run(|| 1);
        tx.send(v).unwrap();
    });
    // On failure the helper thread stays blocked in `run` (leaked).
    assert_eq!(
        rx.recv_timeout(Duration::from_secs(5)),
        Ok(1),
        "run hangs: the only worker is dead"
    );
}

/// Panicking start and exit handlers reach the panic handler, as rayon
/// routes them, with their payloads; the workers go on and drop joins them.
#[test]
fn handler_panics_reach_the_panic_handler() {
    let payloads = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = payloads.clone();
    let rt = Runtime::builder()
        .num_workers(2)
        .thread_name(|i| format!("handlerpanics-{i}"))
        .start_handler(|i| panic!("start handler {i}"))
        .exit_handler(|i| std::panic::panic_any(format!("exit handler {i}")))
        .panic_handler(move |payload| {
            let text = match payload.downcast::<String>() {
                Ok(text) => *text,
                Err(payload) => payload
                    .downcast::<&str>()
                    .map_or_else(|_| "?".to_string(), |s| s.to_string()),
            };
            seen.lock().unwrap().push(text);
        })
        .build()
        .unwrap();
    assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2));
    drop(rt);
    let mut got = payloads.lock().unwrap().clone();
    got.sort();
    assert_eq!(
        got,
        [
            "exit handler 0",
            "exit handler 1",
            "start handler 0",
            "start handler 1"
        ]
    );
}
