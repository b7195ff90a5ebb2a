//! Panic propagation through `join`, `spawn` (joined and detached), `scope`,
//! task groups and `Runtime::run`, under every policy on 1 and 2 workers: a
//! panic reaches whoever waits for the task, with its payload, only after
//! everything that borrows the panicking frame has finished; the runtime
//! stays usable and loses no other task.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Runtime, TaskGroup};
use prescient_tests::{message, quiet_expected_panics, small_stack_runtime, watchdog, CAPACITIES};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(60);

fn each(test: &str, f: impl Fn(&str, &Runtime)) {
    quiet_expected_panics();
    for policy in QueuePolicy::ALL {
        for capacity in CAPACITIES {
            for workers in [1, 2] {
                let what =
                    format!("{test} [policy={policy} capacity={capacity} workers={workers}]");
                let rt = small_stack_runtime(policy, capacity, workers);
                watchdog(&what, LIMIT, || {
                    f(&what, &rt);
                    // The runtime is still usable afterwards.
                    assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2), "{what}");
                });
            }
        }
    }
}

#[test]
fn join_propagates_after_both_sides_finished() {
    each("join", |what, rt| {
        // `a` panics while `b` (which borrows this frame) is still running:
        // the panic surfaces only after `b` finished.
        let b_done = AtomicBool::new(false);
        let r = rt.run(|| {
            catch_unwind(AssertUnwindSafe(|| {
                prescient::join(
                    || -> () { panic!("expected: a") },
                    || {
                        std::thread::sleep(Duration::from_millis(1));
                        b_done.store(true, Ordering::SeqCst);
                    },
                )
            }))
        });
        assert_eq!(message(r.unwrap_err()), "expected: a", "{what}");
        assert!(
            b_done.load(Ordering::SeqCst),
            "{what}: unwound before b finished"
        );

        // `b` panics.
        let r =
            rt.run(|| catch_unwind(|| prescient::join(|| 1, || -> u32 { panic!("expected: b") })));
        assert_eq!(message(r.unwrap_err()), "expected: b", "{what}");

        // Both panic: see the `BUG` tests below for which payload wins.
        let r = rt.run(|| {
            catch_unwind(|| {
                prescient::join(
                    || -> () { panic!("expected: a2") },
                    || -> () { panic!("expected: b2") },
                )
            })
        });
        let m = message(r.unwrap_err());
        assert!(m == "expected: a2" || m == "expected: b2", "{what}: {m}");

        // A panic deep in a join tree reaches the root; siblings complete.
        let leaves = AtomicUsize::new(0);
        fn tree(depth: u32, leaves: &AtomicUsize) {
            if depth == 0 {
                leaves.fetch_add(1, Ordering::SeqCst);
                return;
            }
            if depth == 3 && leaves.load(Ordering::SeqCst) > 4 {
                panic!("expected: deep");
            }
            prescient::join(|| tree(depth - 1, leaves), || tree(depth - 1, leaves));
        }
        let r = rt.run(|| catch_unwind(AssertUnwindSafe(|| tree(8, &leaves))));
        assert_eq!(message(r.unwrap_err()), "expected: deep", "{what}");
        assert!(leaves.load(Ordering::SeqCst) < 256, "{what}");
    });
}

#[test]
fn spawn_propagates_to_the_joiner_and_detached_panics_reach_the_handler() {
    quiet_expected_panics();
    for policy in QueuePolicy::ALL {
        for workers in [1, 2] {
            let what = format!("spawn [policy={policy} workers={workers}]");
            let reported: Arc<Mutex<Vec<String>>> = Arc::default();
            let r2 = reported.clone();
            let rt = Runtime::builder()
                .params(
                    prescient::Params::DEFAULT
                        .with_queue_policy(policy)
                        .with_stack_size(256 << 10),
                )
                .num_workers(workers)
                .panic_handler(move |payload| r2.lock().unwrap().push(message(payload)))
                .build()
                .unwrap();
            watchdog(&what, LIMIT, || {
                // Joined from a plain thread.
                let h = rt.spawn(|| -> u32 { panic!("expected: joined outside") });
                let r = catch_unwind(AssertUnwindSafe(|| h.join()));
                assert_eq!(
                    message(r.unwrap_err()),
                    "expected: joined outside",
                    "{what}"
                );
                // Joined from a task.
                let r = rt.run(|| {
                    let h = prescient::spawn(|| -> u32 { panic!("expected: joined inside") });
                    catch_unwind(AssertUnwindSafe(|| h.join()))
                });
                assert_eq!(message(r.unwrap_err()), "expected: joined inside", "{what}");
                // A String payload survives too.
                let h = rt.spawn(|| -> () { std::panic::panic_any(format!("expected: {}", 42)) });
                assert_eq!(
                    message(catch_unwind(AssertUnwindSafe(|| h.join())).unwrap_err()),
                    "expected: 42"
                );

                // Detached, handle dropped before the task finished.
                let gate = Arc::new(Event::new());
                let g = gate.clone();
                let h = rt.spawn(move || {
                    g.wait();
                    panic!("expected: detached late")
                });
                drop(h);
                gate.set();
                // Detached, handle dropped after the task finished.
                let h = rt.spawn(|| -> () { panic!("expected: detached early") });
                while !h.is_finished() {
                    std::thread::yield_now();
                }
                drop(h);
                // Detached inside a task.
                rt.run(|| {
                    drop(prescient::spawn(|| -> () {
                        panic!("expected: detached inside")
                    }))
                });
                // Wait until the late one was reported (it is asynchronous).
                let deadline = std::time::Instant::now() + Duration::from_secs(20);
                while reported.lock().unwrap().len() < 3 {
                    assert!(
                        std::time::Instant::now() < deadline,
                        "{what}: {:?}",
                        reported.lock().unwrap()
                    );
                    std::thread::sleep(Duration::from_millis(1));
                }
                drop(rt);
                let mut got = reported.lock().unwrap().clone();
                got.sort();
                // Exactly once each, and never a joined one.
                assert_eq!(
                    got,
                    [
                        "expected: detached early",
                        "expected: detached inside",
                        "expected: detached late"
                    ],
                    "{what}"
                );
            });
        }
    }
}

#[test]
fn a_panicking_panic_handler_does_not_take_the_worker_down() {
    quiet_expected_panics();
    let calls = Arc::new(AtomicUsize::new(0));
    let c = calls.clone();
    let rt = Runtime::builder()
        .num_workers(1)
        .panic_handler(move |_| {
            c.fetch_add(1, Ordering::SeqCst);
            panic!("expected: handler")
        })
        .build()
        .unwrap();
    watchdog("panicking handler", LIMIT, || {
        for _ in 0..3 {
            let h = rt.spawn(|| -> () { panic!("expected: detached") });
            drop(h);
        }
        // The only worker still runs tasks.
        assert_eq!(rt.run(|| prescient::join(|| 3, || 4)), (3, 4));
        drop(rt);
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    });
}

#[test]
fn detached_panics_without_a_handler_do_not_lose_tasks() {
    quiet_expected_panics();
    let rt = Runtime::builder().num_workers(2).build().unwrap();
    watchdog("no handler", LIMIT, || {
        let done = Arc::new(AtomicUsize::new(0));
        for i in 0..20 {
            let done = done.clone();
            drop(rt.spawn(move || {
                if i % 3 == 0 {
                    panic!("expected: detached {i}");
                }
                done.fetch_add(1, Ordering::SeqCst);
            }));
        }
        drop(rt);
        assert_eq!(done.load(Ordering::SeqCst), 13);
    });
}

#[test]
fn scope_propagates_after_every_task_finished() {
    each("scope", |what, rt| {
        let finished = AtomicUsize::new(0);
        let r = rt.run(|| {
            catch_unwind(AssertUnwindSafe(|| {
                prescient::scope(|s| {
                    for i in 0..10 {
                        let finished = &finished;
                        s.spawn(move |_| {
                            if i == 3 {
                                panic!("expected: scope task");
                            }
                            std::thread::yield_now();
                            finished.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                })
            }))
        });
        assert_eq!(message(r.unwrap_err()), "expected: scope task", "{what}");
        assert_eq!(
            finished.load(Ordering::SeqCst),
            9,
            "{what}: a task was lost"
        );

        // The body panics after spawning: the tasks still all finish first.
        let finished = AtomicUsize::new(0);
        let r = rt.run(|| {
            catch_unwind(AssertUnwindSafe(|| {
                prescient::scope(|s| {
                    for _ in 0..10 {
                        s.spawn(|_| {
                            std::thread::yield_now();
                            finished.fetch_add(1, Ordering::SeqCst);
                        });
                    }
                    panic!("expected: scope body");
                })
            }))
        });
        assert_eq!(message(r.unwrap_err()), "expected: scope body", "{what}");
        assert_eq!(
            finished.load(Ordering::SeqCst),
            10,
            "{what}: a task was lost"
        );

        // Nested: a panic in an inner scope's task crosses both scopes.
        let r = rt.run(|| {
            catch_unwind(|| {
                prescient::scope(|s| {
                    s.spawn(|_| prescient::scope(|s2| s2.spawn(|_| panic!("expected: inner"))));
                })
            })
        });
        assert_eq!(message(r.unwrap_err()), "expected: inner", "{what}");
    });
}

#[test]
fn group_wait_propagates_the_first_panic_once() {
    each("group", |what, rt| {
        let finished = Arc::new(AtomicUsize::new(0));
        let f = finished.clone();
        let (first, second) = rt.run(move || {
            let group = TaskGroup::new();
            for i in 0..10 {
                let f = f.clone();
                group.spawn(move || {
                    if i == 5 {
                        panic!("expected: group task");
                    }
                    f.fetch_add(1, Ordering::SeqCst);
                });
            }
            let first = catch_unwind(AssertUnwindSafe(|| group.wait()));
            // The payload was taken: a second wait does not panic again.
            let second = catch_unwind(AssertUnwindSafe(|| group.wait()));
            // Reusable.
            let f2 = f.clone();
            group.spawn(move || {
                f2.fetch_add(100, Ordering::SeqCst);
            });
            group.wait();
            (first.map_err(message), second.is_ok())
        });
        assert_eq!(first, Err("expected: group task".to_owned()), "{what}");
        assert!(second, "{what}: the panic was delivered twice");
        assert_eq!(finished.load(Ordering::SeqCst), 109, "{what}");

        // Waiting from a plain thread.
        let group = TaskGroup::new();
        let g = group.clone();
        rt.run(move || g.spawn(|| panic!("expected: group outside")));
        let r = catch_unwind(AssertUnwindSafe(|| group.wait()));
        assert_eq!(message(r.unwrap_err()), "expected: group outside", "{what}");
    });
}

#[test]
fn run_propagates_and_the_runtime_stays_usable() {
    each("run", |what, rt| {
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.run(|| -> () { panic!("expected: run") })
        }));
        assert_eq!(message(r.unwrap_err()), "expected: run", "{what}");
        // From inside a task of another runtime: the panic crosses back.
        let other = Runtime::builder().num_workers(1).build().unwrap();
        let r = other.run(|| {
            catch_unwind(AssertUnwindSafe(|| {
                rt.run(|| -> () { panic!("expected: nested run") })
            }))
        });
        assert_eq!(message(r.unwrap_err()), "expected: nested run", "{what}");
        // A panic inside a task-local scope restores the outer value.
        prescient::task_local! { static K: u32; }
        let seen = rt.run(|| {
            K.scope(1, || {
                let _ = catch_unwind(|| K.scope(2, || -> () { panic!("expected: in scope") }));
                K.with(|k| *k)
            })
        });
        assert_eq!(seen, 1, "{what}");
    });
}

/// `join`'s documentation: "A panic in either closure is propagated to the
/// caller after both have finished (the first one's, if both panic)" — as
/// rayon's `join` ("both closures will always be executed"; "if both
/// closures panic, join() will panic with the panic value from the first
/// closure").
///
/// When `b` was not stolen and the joining task takes it back, `b` runs
/// inline through `StackJob::run_inline`, whose panic is not caught: if `a`
/// panicked too, `b`'s payload propagates and `a`'s is dropped.
#[test]
fn join_both_panic_propagates_the_first_closures_payload() {
    quiet_expected_panics();
    for policy in QueuePolicy::ALL {
        let rt = Runtime::builder()
            .params(prescient::Params::DEFAULT.with_queue_policy(policy))
            .num_workers(1)
            .build()
            .unwrap();
        let r = rt.run(|| {
            catch_unwind(|| {
                prescient::join(
                    || -> () { panic!("expected: a") },
                    || -> () { panic!("expected: b") },
                )
            })
        });
        assert_eq!(message(r.unwrap_err()), "expected: a", "policy={policy}");
    }
}

/// At full capacity `join(a, b)` is `(a(), b())`: when `a` panics, `b` never
/// runs, exactly as in the sequential code (documented on `join`); the panic
/// still propagates and the runtime stays usable. Fails if the inline path
/// starts running `b` (or swallows `a`'s panic).
#[test]
fn join_at_full_capacity_skips_b_when_a_panics_like_sequential_code() {
    quiet_expected_panics();
    for policy in QueuePolicy::ALL {
        let rt = Runtime::builder()
            .params(
                prescient::Params::DEFAULT
                    .with_queue_policy(policy)
                    .with_queue_capacity(1),
            )
            .num_workers(1)
            .build()
            .unwrap();
        let b_ran = AtomicBool::new(false);
        rt.run(|| {
            // Fill the only slot of the deque, so the join below is inlined.
            let filler = prescient::spawn(|| ());
            let r = catch_unwind(AssertUnwindSafe(|| {
                prescient::join(
                    || -> () { panic!("expected: a") },
                    || b_ran.store(true, Ordering::SeqCst),
                )
            }));
            assert!(r.is_err());
            filler.join();
        });
        assert!(
            !b_ran.load(Ordering::SeqCst),
            "policy={policy}: the inlined join ran b after a panicked"
        );
        assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2));
    }
}
