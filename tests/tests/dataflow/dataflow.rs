//! Dataflow tasks: ordering, handles named twice, tiles, nesting, waiting,
//! panics (poison + cancel) and where ready tasks are queued.
//!
//! Every test that builds a runtime runs once per DAST mode
//! ([`prescient::tuning::DastMode`]: who updates the dependency graph — see
//! `per_dast_mode!`), as `test_name::off`, `::forced`, `::adaptive` and
//! `::idle_workers`. A test whose assertion depends on the graph being
//! updated by the submitting worker itself (lazy task creation decided at
//! submission, ready tasks queued on the releasing worker's deque) keeps its
//! exact assertions where the mode guarantees them and checks only what no
//! mode changes (a blocked task never runs at submission, ordering, final
//! values) in the others. DAST's own counters and the manager thread are
//! tested in `dast.rs`.
//!
//! The randomized comparison against a sequential run is in
//! `dataflow_random.rs`; the compile-fail tests are the `ui` binary's
//! `ui_dataflow/` cases.

use prescient::dataflow::Dataflow;
use prescient::tuning::{DastMode, QueuePolicy};
use prescient::{dataflow, Params, Runtime};
use prescient_tests::{
    message as panic_message, per_dast_mode, quiet_panics_containing, runtime_with,
};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

fn runtime(workers: usize, mode: DastMode) -> Runtime {
    runtime_with(workers, Params::DEFAULT.with_dast(mode))
}

/// Runs `f` with the panics these tests cause on purpose kept off stderr:
/// their own (`expected: …`) and the runtime's rejections they provoke.
fn quiet_panics<R>(f: impl FnOnce() -> R) -> R {
    quiet_panics_containing(&["names the same data twice", "poisoned"]);
    f()
}

/// Runs `body` as a dataflow scope in `rt`, quietly, and catches the panic
/// the scope ends with.
fn caught_dataflow<'env, R: Send>(
    rt: &Runtime,
    body: impl for<'df> FnOnce(&'df Dataflow<'df, 'env>) -> R + Send,
) -> std::thread::Result<R> {
    quiet_panics(|| panic::catch_unwind(AssertUnwindSafe(|| rt.run(|| dataflow(body)))))
}

fn readers_wait_for_the_writer_and_the_next_writer_waits_for_them(mode: DastMode) {
    let rt = runtime(4, mode);
    let log = Mutex::new(Vec::new());
    rt.run(|| {
        dataflow(|df| {
            let mut a = df.data(0u32);
            let log = &log;
            df.task(a.out(), move |a: &mut u32| {
                std::thread::sleep(Duration::from_millis(20));
                *a = 1;
                log.lock().unwrap().push("w1");
            });
            for _ in 0..3 {
                df.task(a.read(), move |a: &u32| {
                    assert_eq!(*a, 1, "a reader ran before the writer finished");
                    std::thread::sleep(Duration::from_millis(10));
                    log.lock().unwrap().push("r");
                });
            }
            df.task(a.inout(), move |a: &mut u32| {
                *a = 2;
                log.lock().unwrap().push("w2");
            });
            df.wait();
            assert_eq!(*a.get_mut(), 2);
        });
    });
    assert_eq!(*log.lock().unwrap(), ["w1", "r", "r", "r", "w2"]);
}
per_dast_mode!(readers_wait_for_the_writer_and_the_next_writer_waits_for_them);

fn readers_of_one_version_run_concurrently(mode: DastMode) {
    let rt = runtime(2, mode);
    let inside = AtomicUsize::new(0);
    let overlapped = AtomicBool::new(false);
    rt.run(|| {
        dataflow(|df| {
            let a = df.data(7u32);
            for _ in 0..2 {
                let (inside, overlapped) = (&inside, &overlapped);
                df.task(a.read(), move |a: &u32| {
                    assert_eq!(*a, 7);
                    inside.fetch_add(1, Ordering::SeqCst);
                    for _ in 0..200 {
                        if inside.load(Ordering::SeqCst) == 2 {
                            overlapped.store(true, Ordering::SeqCst);
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(1));
                    }
                });
            }
        });
    });
    assert!(
        overlapped.load(Ordering::SeqCst),
        "two readers never ran at once"
    );
}
per_dast_mode!(readers_of_one_version_run_concurrently);

fn a_handle_named_twice_for_reading_gives_two_shared_borrows(mode: DastMode) {
    let rt = runtime(2, mode);
    let total = rt.run(|| {
        dataflow(|df| {
            let a = df.data(21u64);
            let sum = df.data(0u64);
            df.task(
                (a.read(), a.read(), sum.out()),
                |(x, y, sum): (&u64, &u64, &mut u64)| {
                    assert!(std::ptr::eq(x, y), "both borrows are of the one value");
                    *sum = x + y;
                },
            );
            // The merged `in` access still orders a later writer after it.
            df.task(a.inout(), |a: &mut u64| *a = 0);
            sum.into_inner()
        })
    });
    assert_eq!(total, 42);
}
per_dast_mode!(a_handle_named_twice_for_reading_gives_two_shared_borrows);

fn a_handle_named_twice_with_a_write_is_rejected_before_it_is_submitted(mode: DastMode) {
    let rt = runtime(2, mode);
    let ran = AtomicBool::new(false);
    let outcome = quiet_panics(|| {
        rt.run(|| {
            dataflow(|df| {
                let a = df.data(1u64);
                let ran = &ran;
                let rejected = panic::catch_unwind(AssertUnwindSafe(|| {
                    df.task((a.read(), a.inout()), move |(_x, _y): (&u64, &mut u64)| {
                        ran.store(true, Ordering::SeqCst);
                    });
                }));
                let message = panic_message(rejected.expect_err("the task was accepted"));
                // The scope is still usable, and nothing was registered: a
                // later writer is not blocked behind a phantom task.
                df.task(a.inout(), |a: &mut u64| *a += 1);
                (message, a.into_inner())
            })
        })
    });
    let (message, value) = outcome;
    assert!(message.contains("names the same data twice"), "{message}");
    assert!(
        message.contains("`in`") && message.contains("`inout`"),
        "{message}"
    );
    assert!(!ran.load(Ordering::SeqCst), "the rejected body ran");
    assert_eq!(value, 2);
}
per_dast_mode!(a_handle_named_twice_with_a_write_is_rejected_before_it_is_submitted);

fn a_tile_named_twice_with_a_write_is_rejected_and_other_tiles_are_fine(mode: DastMode) {
    let rt = runtime(2, mode);
    let mut v = vec![1u32; 10];
    let message = quiet_panics(|| {
        rt.run(|| {
            dataflow(|df| {
                let t = df.tiles(&mut v, 4);
                assert_eq!((t.len(), t.tile_len()), (3, 4));
                df.task((t.read(0), t.inout(1)), |(a, b): (&[u32], &mut [u32])| {
                    b.iter_mut().zip(a).for_each(|(b, a)| *b += a);
                });
                let rejected = panic::catch_unwind(AssertUnwindSafe(|| {
                    df.task((t.out(2), t.out(2)), |_| {});
                }));
                df.task(t.inout(2), |c: &mut [u32]| {
                    assert_eq!(c.len(), 2, "the last tile is shorter");
                    c.fill(9);
                });
                panic_message(rejected.expect_err("the task was accepted"))
            })
        })
    });
    assert!(message.contains("`out`"), "{message}");
    assert_eq!(v, [1, 1, 1, 1, 2, 2, 2, 2, 9, 9]);
}
per_dast_mode!(a_tile_named_twice_with_a_write_is_rejected_and_other_tiles_are_fine);

fn tasks_without_accesses_and_multiple_waits(mode: DastMode) {
    let rt = runtime(2, mode);
    let count = AtomicUsize::new(0);
    rt.run(|| {
        dataflow(|df| {
            let mut a = df.data(Vec::new());
            for round in 0..3u32 {
                for i in 0..10 {
                    let count = &count;
                    df.task((), move |()| {
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                    df.task(a.inout(), move |a: &mut Vec<u32>| a.push(round * 10 + i));
                }
                df.wait();
                assert_eq!(df.live_tasks(), 0);
                assert_eq!(count.load(Ordering::Relaxed), (round as usize + 1) * 10);
                let a = a.get_mut();
                assert_eq!(a.len(), (round as usize + 1) * 10);
                assert!(
                    a.windows(2).all(|w| w[0] < w[1]),
                    "inout chain out of order"
                );
            }
        });
    });
}
per_dast_mode!(tasks_without_accesses_and_multiple_waits);

/// Not per mode: the global runtime is built once per process with
/// `Params::DEFAULT` (so its mode is the default, `Adaptive`), and no API
/// chooses its parameters.
#[test]
fn dataflow_outside_a_runtime_uses_the_global_runtime() {
    let v = dataflow(|df| {
        let a = df.data(2u64);
        df.task(a.inout(), |a: &mut u64| {
            assert!(prescient::current_worker_index().is_some());
            *a *= 21;
        });
        a.into_inner()
    });
    assert_eq!(v, 42);
}

fn nested_dataflow_works_on_split_tiles_of_its_borrow(mode: DastMode) {
    let rt = runtime(4, mode);
    let mut data: Vec<u64> = (0..64).collect();
    rt.run(|| {
        dataflow(|df| {
            let outer = df.tiles(&mut data, 16);
            for i in 0..outer.len() {
                df.task(outer.inout(i), |tile: &mut [u64]| {
                    // The nested scope's handles are the task's own tile,
                    // split again: it never aliases anything outside.
                    dataflow(|inner| {
                        let sub = inner.tiles(tile, 4);
                        for j in 0..sub.len() {
                            inner.task(sub.inout(j), |s: &mut [u64]| {
                                s.iter_mut().for_each(|x| *x *= 2)
                            });
                        }
                        for j in 1..sub.len() {
                            inner.task(
                                (sub.read(j - 1), sub.inout(j)),
                                |(prev, s): (&[u64], &mut [u64])| {
                                    s[0] += prev[3];
                                },
                            );
                        }
                    });
                });
            }
            for i in 1..outer.len() {
                df.task(
                    (outer.read(i - 1), outer.inout(i)),
                    |(prev, t): (&[u64], &mut [u64])| {
                        t[0] += prev[15];
                    },
                );
            }
        });
    });
    // Sequential reference.
    let mut expected: Vec<u64> = (0..64).collect();
    for tile in expected.chunks_mut(16) {
        tile.iter_mut().for_each(|x| *x *= 2);
        for j in 1..4 {
            let prev = tile[j * 4 - 1];
            tile[j * 4] += prev;
        }
    }
    for i in 1..4 {
        let prev = expected[i * 16 - 1];
        expected[i * 16] += prev;
    }
    assert_eq!(data, expected);
}
per_dast_mode!(nested_dataflow_works_on_split_tiles_of_its_borrow);

fn outer_successors_of_a_task_wait_for_its_nested_tasks(mode: DastMode) {
    let rt = runtime(4, mode);
    rt.run(|| {
        dataflow(|df| {
            let a = df.data(vec![0u32; 8]);
            df.task(a.inout(), |v: &mut Vec<u32>| {
                dataflow(|inner| {
                    let parts = inner.tiles(&mut v[..], 1);
                    for i in 0..parts.len() {
                        inner.task(parts.out(i), move |p: &mut [u32]| {
                            // Slow nested tasks: an outer successor that did
                            // not wait for them would see zeros.
                            std::thread::sleep(Duration::from_millis(5 + i as u64));
                            p[0] = i as u32 + 1;
                        });
                    }
                    // No explicit wait: the nested scope's implicit one must
                    // hold back the outer task's completion.
                });
            });
            df.task(a.read(), |v: &Vec<u32>| {
                assert_eq!(
                    *v,
                    [1, 2, 3, 4, 5, 6, 7, 8],
                    "an outer successor ran before nested tasks finished"
                );
            });
            df.wait();
        });
    });
}
per_dast_mode!(outer_successors_of_a_task_wait_for_its_nested_tasks);

fn a_task_panic_reaches_the_waiter_after_all_tasks_finished(mode: DastMode) {
    let rt = runtime(2, mode);
    let others = AtomicUsize::new(0);
    let result = caught_dataflow(&rt, |df| {
        let a = df.data(0u32);
        df.task(a.inout(), |_a: &mut u32| {
            panic!("expected: task failed on purpose")
        });
        for _ in 0..20 {
            let others = &others;
            df.task((), move |()| {
                std::thread::sleep(Duration::from_millis(1));
                others.fetch_add(1, Ordering::SeqCst);
            });
        }
        df.wait();
        unreachable!("wait must re-raise the task's panic");
    });
    let payload = result.expect_err("the panic was lost");
    assert_eq!(panic_message(payload), "expected: task failed on purpose");
    assert_eq!(others.load(Ordering::SeqCst), 20, "a task was lost");
    // The runtime is still usable.
    assert_eq!(rt.run(|| dataflow(|df| df.data(5).into_inner())), 5);
}
per_dast_mode!(a_task_panic_reaches_the_waiter_after_all_tasks_finished);

fn a_panic_poisons_what_the_task_writes_and_cancels_its_dependents(mode: DastMode) {
    let rt = runtime(2, mode);
    let ran = Mutex::new(Vec::new());
    let (message, poisoned, b_value) = quiet_panics(|| {
        rt.run(|| {
            dataflow(|df| {
                let a = df.data(1u32); // written by the failing task
                let b = df.data(1u32); // unrelated
                let c = df.data(1u32); // written from poisoned `a`
                let d = df.data(1u32); // read-only input of the failing task
                let ran = &ran;
                df.task((d.read(), a.inout()), move |(_d, a): (&u32, &mut u32)| {
                    *a = 99; // half-written ...
                    panic!("expected: boom");
                });
                df.task(a.read(), move |_a: &u32| {
                    ran.lock().unwrap().push("reads a")
                });
                df.task(b.inout(), move |b: &mut u32| {
                    *b += 1;
                    ran.lock().unwrap().push("writes b");
                });
                df.task((a.read(), c.out()), move |(_a, c): (&u32, &mut u32)| {
                    *c = 5;
                    ran.lock().unwrap().push("writes c from a");
                });
                df.task(c.read(), move |_c: &u32| {
                    ran.lock().unwrap().push("reads c")
                });
                df.task(d.read(), move |_d: &u32| {
                    ran.lock().unwrap().push("reads d")
                });
                df.task(b.inout(), move |b: &mut u32| {
                    *b += 1;
                    ran.lock().unwrap().push("writes b again");
                });
                let waited = panic::catch_unwind(AssertUnwindSafe(|| df.wait()));
                let message = panic_message(waited.expect_err("the panic was lost"));
                let poisoned = [
                    a.is_poisoned(),
                    b.is_poisoned(),
                    c.is_poisoned(),
                    d.is_poisoned(),
                ];
                // Poisoned data cannot be read back ...
                let read_a = panic::catch_unwind(AssertUnwindSafe(|| a.into_inner()));
                assert!(
                    panic_message(read_a.expect_err("read poisoned data")).contains("poisoned")
                );
                // ... unless the poison is cleared explicitly.
                let mut c = c;
                c.clear_poison();
                assert_eq!(*c.get_mut(), 1, "the cancelled task did not run");
                (message, poisoned, b.into_inner())
            })
        })
    });
    assert_eq!(message, "expected: boom");
    assert_eq!(poisoned, [true, false, true, false]);
    assert_eq!(b_value, 3);
    let mut ran = ran.into_inner().unwrap();
    ran.sort_unstable();
    assert_eq!(ran, ["reads d", "writes b", "writes b again"]);
}
per_dast_mode!(a_panic_poisons_what_the_task_writes_and_cancels_its_dependents);

fn a_panic_in_a_nested_task_poisons_the_outer_task_data(mode: DastMode) {
    let rt = runtime(2, mode);
    let result = caught_dataflow(&rt, |df| {
        let mut v = vec![0u8; 4];
        let outer = df.data(0u32);
        df.task(outer.inout(), move |_o: &mut u32| {
            dataflow(|inner| {
                let t = inner.tiles(&mut v, 2);
                inner.task(t.inout(1), |_t: &mut [u8]| panic!("expected: nested boom"));
            });
        });
        let flag = df.data(false);
        df.task((outer.read(), flag.out()), |(_o, f): (&u32, &mut bool)| {
            *f = true
        });
        let _ = panic::catch_unwind(AssertUnwindSafe(|| df.wait()));
        assert!(outer.is_poisoned());
        assert!(flag.is_poisoned(), "the outer successor was not cancelled");
    });
    // The panic was re-raised by the explicit wait and caught there.
    assert!(result.is_ok());
}
per_dast_mode!(a_panic_in_a_nested_task_poisons_the_outer_task_data);

fn a_body_panic_waits_for_submitted_tasks_and_wins(mode: DastMode) {
    let rt = runtime(2, mode);
    let done = AtomicUsize::new(0);
    let result = caught_dataflow(&rt, |df| {
        let a = df.data(0u32);
        for _ in 0..10 {
            let done = &done;
            df.task(a.inout(), move |a: &mut u32| {
                std::thread::sleep(Duration::from_millis(2));
                *a += 1;
                done.fetch_add(1, Ordering::SeqCst);
            });
        }
        df.task((), |()| panic!("expected: task panic"));
        // `a` is dropped during unwinding while its tasks still run:
        // its value is retired, not freed.
        panic!("expected: body panic");
    });
    assert_eq!(
        panic_message(result.expect_err("lost")),
        "expected: body panic"
    );
    assert_eq!(done.load(Ordering::SeqCst), 10);
}
per_dast_mode!(a_body_panic_waits_for_submitted_tasks_and_wins);

fn a_dropped_handle_is_freed_once_after_its_tasks(mode: DastMode) {
    struct Counted<'a>(&'a AtomicUsize, u64);
    impl Drop for Counted<'_> {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    let rt = runtime(2, mode);
    let drops = AtomicUsize::new(0);
    rt.run(|| {
        dataflow(|df| {
            let a = df.data(Counted(&drops, 0));
            for _ in 0..50 {
                df.task(a.inout(), |a: &mut Counted<'_>| {
                    std::hint::black_box(&mut a.1);
                    a.1 += 1;
                });
            }
            drop(a);
            assert_eq!(
                drops.load(Ordering::SeqCst),
                0,
                "freed while tasks were live"
            );
            df.wait();
            assert_eq!(drops.load(Ordering::SeqCst), 1);
        });
    });
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}
per_dast_mode!(a_dropped_handle_is_freed_once_after_its_tasks);

fn ready_tasks_are_deferred_while_the_deque_has_room_and_inlined_when_full(mode: DastMode) {
    // The tasks without accesses never enter the graph, in any mode: they
    // are pushed (or run at once) by the submitter. The tasks with an access
    // are made ready by whoever executes their graph requests: with `Off`
    // the submitting or finishing worker, which pushes them to its deque (a
    // spawn); otherwise possibly the manager thread, which puts them in a
    // worker's mailbox (not a spawn).
    let deferring = runtime_with(
        1,
        Params::DEFAULT
            .with_queue_capacity(prescient::tuning::MAX_QUEUE_CAPACITY)
            .with_dast(mode),
    );
    let before = deferring.counters();
    let total = deferring.run(|| {
        dataflow(|df| {
            let a = df.data(0u32);
            for _ in 0..100 {
                df.task((), |()| {});
                df.task(a.inout(), |a: &mut u32| *a += 1);
            }
            a.into_inner()
        })
    });
    assert_eq!(total, 100);
    let delta = deferring.counters().since(&before);
    assert_eq!(delta.inlined_spawns, 0, "{delta:?}");
    let spawned_at_least = if mode == DastMode::Off { 200 } else { 100 };
    assert!(delta.spawns >= spawned_at_least, "{delta:?}");

    let inlining = runtime_with(1, Params::DEFAULT.with_queue_capacity(1).with_dast(mode));
    let before = inlining.counters();
    inlining.run(|| {
        dataflow(|df| {
            for _ in 0..100 {
                df.task((), |()| {});
            }
        })
    });
    let delta = inlining.counters().since(&before);
    assert!(delta.inlined_spawns >= 90, "{delta:?}");
}
per_dast_mode!(ready_tasks_are_deferred_while_the_deque_has_room_and_inlined_when_full);

/// With `Off` the worker that finishes the writer executes its done
/// request, so the readers it releases go to its deque. So they do with
/// `Adaptive` and `IdleWorkers`: a worker with no ready task of its own
/// executes its done requests inline (the push policy's `MIN_TASKS`), and
/// the writer's worker has none. With `Forced` the manager thread executes
/// the done request and sends the readers to the least-loaded workers'
/// mailboxes: only the mode-independent facts are checked.
fn released_tasks_are_queued_on_the_releasing_worker_and_stealable(mode: DastMode) {
    for policy in QueuePolicy::ALL {
        let rt = runtime_with(
            2,
            Params::DEFAULT
                .with_queue_policy(policy)
                .with_queue_capacity(64)
                .with_dast(mode),
        );
        let writer_worker = AtomicUsize::new(usize::MAX);
        let reader_workers = Mutex::new(Vec::new());
        rt.run(|| {
            dataflow(|df| {
                let a = df.data(0u32);
                let writer_worker = &writer_worker;
                df.task(a.out(), move |a: &mut u32| {
                    std::thread::sleep(Duration::from_millis(20));
                    *a = 1;
                    writer_worker
                        .store(prescient::current_worker_index().unwrap(), Ordering::SeqCst);
                });
                for _ in 0..8 {
                    let reader_workers = &reader_workers;
                    df.task(a.read(), move |a: &u32| {
                        assert_eq!(*a, 1, "a reader ran before the writer");
                        reader_workers
                            .lock()
                            .unwrap()
                            .push(prescient::current_worker_index().unwrap());
                        std::thread::sleep(Duration::from_millis(10));
                    });
                }
            })
        });
        let writer = writer_worker.load(Ordering::SeqCst);
        let readers = reader_workers.into_inner().unwrap();
        assert_eq!(readers.len(), 8);
        assert!(writer < 2, "{policy}: the writer did not run");
        if mode == DastMode::Forced {
            continue;
        }
        assert!(
            readers.contains(&writer),
            "{policy}: no reader ran where the writer finished: {readers:?}"
        );
        assert!(
            readers.iter().any(|&w| w != writer),
            "{policy}: no reader was stolen: {readers:?}"
        );
    }
}
per_dast_mode!(released_tasks_are_queued_on_the_releasing_worker_and_stealable);

fn a_full_deque_runs_ready_tasks_at_once_but_never_a_blocked_one(mode: DastMode) {
    // Lazy creation at submission is decided on the submitting worker, so
    // the exact sequence needs the graph updated inline (`Off`): a queued
    // new-task request makes its task ready later, on whichever thread
    // executes it — so whether the scope's two queued tasks fill the deque
    // (capacity 2) when `write b` is submitted depends on when the manager
    // got to `write a`. In every mode: the blocked reader and the deferred
    // writer never run at submission, and only `write b` (ready, on idle
    // data) may.
    let rt = runtime_with(1, Params::DEFAULT.with_queue_capacity(2).with_dast(mode));
    let log = Mutex::new(Vec::new());
    rt.run(|| {
        dataflow(|df| {
            let a = df.data(0u32);
            let b = df.data(0u32);
            let log = &log;
            // Ready, room in the deque: deferred.
            df.task(a.out(), move |a: &mut u32| {
                *a = 1;
                log.lock().unwrap().push("write a");
            });
            df.task((), move |()| log.lock().unwrap().push("empty"));
            assert_eq!(df.live_tasks(), 2);
            // Blocked behind the pending writer: the deque is full, but it
            // must not run now.
            df.task(a.read(), move |a: &u32| {
                assert_eq!(*a, 1);
                log.lock().unwrap().push("read a");
            });
            assert_eq!(df.live_tasks(), 3);
            assert!(log.lock().unwrap().is_empty(), "a task ran at submission");
            // Ready, on data no unfinished task touches, deque full: runs
            // now, without entering the graph.
            df.task(b.inout(), move |b: &mut u32| {
                *b = 7;
                log.lock().unwrap().push("write b");
            });
            if mode == DastMode::Off {
                assert_eq!(*log.lock().unwrap(), ["write b"]);
                assert_eq!(df.live_tasks(), 3);
            } else {
                // Run now (deque full: the manager already made `write a`
                // ready) or queued like the others.
                let log = log.lock().unwrap().clone();
                assert!(log.is_empty() || log == ["write b"], "{mode}: {log:?}");
                let live = df.live_tasks();
                assert_eq!(live, if log.is_empty() { 4 } else { 3 }, "{mode}");
            }
            df.wait();
            assert_eq!(b.into_inner(), 7);
        });
    });
    let log = log.into_inner().unwrap();
    assert_eq!(log.len(), 4);
    let position = |s: &str| log.iter().position(|&l| l == s).unwrap();
    assert!(position("write a") < position("read a"), "{log:?}");
}
per_dast_mode!(a_full_deque_runs_ready_tasks_at_once_but_never_a_blocked_one);
