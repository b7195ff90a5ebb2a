//! Latent spawns: a scope's, group's or `spawn`'s deferred task is first
//! recorded in its worker's arena, where thieves cannot see it, and reaches
//! the deque only when another worker asks for work, when the spawning task
//! suspends, or (groups and handles) when its job ends without a wait on
//! that worker. These tests pin each path down:
//!
//! * **run by the owner** — on one worker, every deferred task of a scope,
//!   group or handle runs at the owner's wait without a deque operation
//!   (`published_spawns` stays 0) and without a suspension;
//! * **on request** — a scope's body spins until the task it recorded has
//!   run elsewhere: only a thief can run it, and only after publication (the
//!   watchdog fails a hang);
//! * **before a suspension** — on one worker, a scope's body waits for an
//!   event that its own recorded task sets: the suspension publishes it;
//! * **after the job** — a group dropped and a handle detached with tasks
//!   still recorded: the tasks run once the spawning job ends;
//! * **panics** — a recorded task's panic reaches the scope's end, the
//!   group's wait or the handle's join, and the runtime stays usable;
//! * **closures too large for the arena** take the deque, with the same
//!   results; spawns into an outer scope from an inner one, and from a
//!   task another worker stole, are counted and waited for.
//!
//! Every queue policy where it matters; one, two and sixteen workers
//! (oversubscribing this 2-core machine).

use prescient::tuning::{Inlining, QueuePolicy};
use prescient::{Event, Params, Runtime, TaskGroup};
use prescient_tests::{message, quiet_expected_panics, runtime_with, watchdog};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

/// A runtime without the inliner (these tests are about the scheduler's
/// own rules), capacity 16 unless said.
fn runtime(policy: QueuePolicy, workers: usize, capacity: usize) -> Runtime {
    runtime_with(
        workers,
        Params::DEFAULT
            .with_queue_policy(policy)
            .with_queue_capacity(capacity)
            .with_inlining(Inlining::Never),
    )
}

#[test]
fn one_worker_runs_every_recorded_task_at_its_owners_wait() {
    for policy in QueuePolicy::ALL {
        let rt = runtime(policy, 1, 16);
        let before = rt.counters();
        let total = rt.run(|| {
            let mut parts = [0u64; 8];
            prescient::scope(|s| {
                for (i, part) in parts.iter_mut().enumerate() {
                    s.spawn(move |_| *part = i as u64 + 1);
                }
            });
            let sum = Arc::new(AtomicUsize::new(0));
            let group = TaskGroup::new();
            for i in 0..8 {
                let sum = sum.clone();
                group.spawn(move || {
                    sum.fetch_add(i, Ordering::Relaxed);
                });
            }
            group.wait();
            let handles: Vec<_> = (0..8u64).map(|i| prescient::spawn(move || i * 2)).collect();
            let doubled: u64 = handles.into_iter().map(|h| h.join()).sum();
            parts.iter().sum::<u64>() + sum.load(Ordering::Relaxed) as u64 + doubled
        });
        assert_eq!(total, 36 + 28 + 56, "policy={policy}");
        let c = rt.counters().since(&before);
        assert_eq!(c.spawns, 24, "policy={policy}: every task deferred: {c:?}");
        assert_eq!(
            c.published_spawns, 0,
            "policy={policy}: none reached the deque: {c:?}"
        );
        assert_eq!(c.suspensions, 0, "policy={policy}: {c:?}");
    }
}

/// The scope's body records a task, then spins until that task has run:
/// only another worker can run it, after the spinning worker published it at
/// a thief's request (the spin records tasks in inner scopes, and each
/// record is a publication point).
#[test]
fn a_recorded_task_reaches_an_idle_worker_on_request() {
    for policy in QueuePolicy::ALL {
        for workers in [2, 16] {
            let what = format!("policy={policy} workers={workers}");
            let rt = runtime(policy, workers, 16);
            watchdog(&what, LIMIT, || {
                let before = rt.counters();
                let ran = AtomicBool::new(false);
                rt.run(|| {
                    prescient::scope(|s| {
                        s.spawn(|_| ran.store(true, Ordering::Release));
                        while !ran.load(Ordering::Acquire) {
                            prescient::scope(|inner| inner.spawn(|_| {}));
                            std::thread::yield_now();
                        }
                    });
                });
                let c = rt.counters().since(&before);
                assert!(c.published_spawns >= 1, "{what}: {c:?}");
                assert!(c.steals >= 1, "{what}: {c:?}");
            });
        }
    }
}

#[test]
fn a_scope_body_that_suspends_publishes_its_recorded_tasks() {
    for policy in QueuePolicy::ALL {
        let what = format!("policy={policy}");
        let rt = runtime(policy, 1, 16);
        watchdog(&what, LIMIT, || {
            let before = rt.counters();
            rt.run(|| {
                let event = Event::new();
                prescient::scope(|s| {
                    s.spawn(|_| event.set());
                    // The only worker suspends the body; the recorded task
                    // must be visible to it by then, or this deadlocks.
                    event.wait();
                });
            });
            let c = rt.counters().since(&before);
            assert_eq!(c.published_spawns, 1, "{what}: {c:?}");
            assert_eq!(c.suspensions, 1, "{what}: {c:?}");
        });
    }
}

#[test]
fn tasks_left_recorded_by_a_finished_job_still_run() {
    for workers in [1, 2] {
        let rt = runtime(QueuePolicy::InsertBackStealBack, workers, 16);
        let ran = Arc::new(AtomicUsize::new(0));
        let done = Arc::new(Event::new());
        watchdog("left recorded", LIMIT, || {
            let (ran2, done2) = (ran.clone(), done.clone());
            rt.run(move || {
                let group = TaskGroup::new();
                for _ in 0..3 {
                    let ran = ran2.clone();
                    group.spawn(move || {
                        ran.fetch_add(1, Ordering::SeqCst);
                    });
                }
                drop(group);
                let ran = ran2.clone();
                let done = done2.clone();
                // Detached: dropped at once.
                drop(prescient::spawn(move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                    done.set();
                }));
            });
            done.wait();
            while ran.load(Ordering::SeqCst) < 4 {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        assert_eq!(ran.load(Ordering::SeqCst), 4, "workers={workers}");
    }
}

/// A task polling a group that has finished, and a flag set by another
/// spawn of its own: every poll publishes (as `TaskHandle::is_finished`'s,
/// through the same function), so that spawn reaches the idle worker even
/// though the group's answer is already "done".
#[test]
fn polling_a_finished_group_publishes_other_spawns() {
    for policy in [
        QueuePolicy::InsertBackStealBack,
        QueuePolicy::InsertFrontStealBack,
    ] {
        let rt = runtime(policy, 2, 16);
        watchdog(&format!("poll after finish, {policy:?}"), LIMIT, || {
            rt.run(|| {
                for _ in 0..50 {
                    let group = TaskGroup::new();
                    let flag = Arc::new(AtomicBool::new(false));
                    let setter = {
                        let flag = flag.clone();
                        prescient::spawn(move || flag.store(true, Ordering::Release))
                    };
                    let done = prescient::spawn(|| 1);
                    group.spawn(|| {});
                    // Runs the group's task here; the setter stays recorded.
                    group.wait();
                    assert_eq!(done.join(), 1);
                    while group.pending() != 0 || !flag.load(Ordering::Acquire) {
                        std::hint::spin_loop();
                    }
                    setter.join();
                }
            })
        });
    }
}

/// A handle's record is its task itself, with no shared state until it is
/// published: its join on its own worker takes it by number, in any order
/// of the joins, and runs it in place (`published_spawns` stays 0).
#[test]
fn handles_joined_on_their_worker_in_any_order_run_their_records() {
    for policy in QueuePolicy::ALL {
        let rt = runtime(policy, 1, 16);
        let before = rt.counters();
        let sums = rt.run(|| {
            let mut sums = Vec::new();
            // Newest first, oldest first, from the middle out.
            for order in [
                [7, 6, 5, 4, 3, 2, 1, 0],
                [0, 1, 2, 3, 4, 5, 6, 7],
                [3, 4, 2, 5, 1, 6, 0, 7],
            ] {
                let mut handles: Vec<_> = (0..8u64)
                    .map(|i| Some(prescient::spawn(move || i * i)))
                    .collect();
                let sum: u64 = order
                    .iter()
                    .map(|&i| handles[i].take().unwrap().join())
                    .sum();
                sums.push(sum);
            }
            sums
        });
        assert_eq!(sums, [140, 140, 140], "policy={policy}");
        let c = rt.counters().since(&before);
        assert_eq!(c.spawns, 24, "policy={policy}: {c:?}");
        assert_eq!(c.published_spawns, 0, "policy={policy}: {c:?}");
        assert_eq!(c.suspensions, 0, "policy={policy}: {c:?}");
    }
}

/// A handle that leaves its task's worker: sent to a plain thread and
/// joined or dropped there, before (the joiner waits for the publication)
/// or after the spawning task publishes the record by waiting; returned out
/// of the runtime (the job's end publishes it) and joined after the
/// runtime is gone; polled from another worker.
#[test]
fn a_handle_away_from_its_record_meets_it_once_published() {
    for joiner_first in [true, false] {
        let what = format!("joiner first: {joiner_first}");
        let rt = runtime(QueuePolicy::InsertBackStealBack, 1, 16);
        watchdog(&what, LIMIT, || {
            let got = rt.run(|| {
                let handle = prescient::spawn(|| 41 + 1);
                let joined = Arc::new(Event::new());
                let thread = {
                    let joined = joined.clone();
                    std::thread::spawn(move || {
                        if !joiner_first {
                            std::thread::sleep(Duration::from_millis(20));
                        }
                        let value = handle.join();
                        joined.set();
                        value
                    })
                };
                if joiner_first {
                    std::thread::sleep(Duration::from_millis(20));
                }
                // The only worker suspends here: the record is published
                // (and then run by this worker), or nothing could join it.
                joined.wait();
                thread.join().unwrap()
            });
            assert_eq!(got, 42, "{what}");
        });
        // Dropped away from its worker: the task still runs, detached.
        let ran = Arc::new(AtomicBool::new(false));
        watchdog(&what, LIMIT, || {
            let task_ran = ran.clone();
            rt.run(move || {
                let handle = prescient::spawn(move || task_ran.store(true, Ordering::SeqCst));
                let dropped = Arc::new(Event::new());
                let thread = {
                    let dropped = dropped.clone();
                    std::thread::spawn(move || {
                        if !joiner_first {
                            std::thread::sleep(Duration::from_millis(20));
                        }
                        drop(handle);
                        dropped.set();
                    })
                };
                dropped.wait();
                thread.join().unwrap();
            });
            while !ran.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
    // Out of the runtime, joined after it is dropped.
    let rt = runtime(QueuePolicy::InsertFrontStealBack, 1, 16);
    let handles = rt.run(|| {
        (0..4u64)
            .map(|i| prescient::spawn(move || i + 10))
            .collect::<Vec<_>>()
    });
    drop(rt);
    assert_eq!(handles.into_iter().map(|h| h.join()).sum::<u64>(), 46);
    // Polled from the spawning task while another worker runs it.
    let rt = runtime(QueuePolicy::InsertBackStealBack, 2, 16);
    watchdog("polled", LIMIT, || {
        rt.run(|| {
            let handle = prescient::spawn(|| 5);
            while !handle.is_finished() {
                std::thread::yield_now();
            }
            assert_eq!(handle.join(), 5);
        })
    });
}

/// Handles dropped inside the spawning task: one while its record is
/// latent (marked detached in place, detached when the job's end publishes
/// it), one after its record was published (`is_finished` publishes; the
/// drop detaches through the table). Every task runs; a panic reaches the
/// panic handler.
#[test]
fn handles_dropped_on_their_worker_detach_their_tasks() {
    quiet_expected_panics();
    for workers in [1, 2] {
        let reported: Arc<std::sync::Mutex<Vec<String>>> = Arc::default();
        let sink = reported.clone();
        let rt = Runtime::builder()
            .params(Params::DEFAULT.with_inlining(Inlining::Never))
            .num_workers(workers)
            .panic_handler(move |payload| sink.lock().unwrap().push(message(payload)))
            .build()
            .unwrap();
        let ran = Arc::new(AtomicUsize::new(0));
        watchdog(
            &format!("dropped handles, {workers} workers"),
            LIMIT,
            || {
                let task_ran = ran.clone();
                rt.run(move || {
                    drop(prescient::spawn(|| -> u32 {
                        panic!("expected: dropped while latent")
                    }));
                    let latent = task_ran.clone();
                    drop(prescient::spawn(move || {
                        latent.fetch_add(1, Ordering::SeqCst);
                    }));
                    let published = prescient::spawn(move || {
                        task_ran.fetch_add(1, Ordering::SeqCst);
                    });
                    let _ = published.is_finished();
                    drop(published);
                });
                while ran.load(Ordering::SeqCst) < 2 || reported.lock().unwrap().is_empty() {
                    std::thread::sleep(Duration::from_millis(1));
                }
            },
        );
        assert_eq!(
            *reported.lock().unwrap(),
            ["expected: dropped while latent"],
            "workers={workers}"
        );
    }
}

#[test]
fn a_recorded_tasks_panic_reaches_its_owner() {
    quiet_expected_panics();
    for workers in [1, 2] {
        let rt = runtime(QueuePolicy::InsertBackStealBack, workers, 16);
        let ran_after = AtomicUsize::new(0);
        let caught = rt.run(|| {
            catch_unwind(AssertUnwindSafe(|| {
                prescient::scope(|s| {
                    s.spawn(|_| panic!("expected: scope task"));
                    s.spawn(|_| {
                        ran_after.fetch_add(1, Ordering::SeqCst);
                    });
                })
            }))
        });
        assert_eq!(message(caught.unwrap_err()), "expected: scope task");
        // The other task ran anyway: a scope waits for all of its tasks.
        assert_eq!(ran_after.load(Ordering::SeqCst), 1);
        let caught = rt.run(|| {
            let group = TaskGroup::new();
            group.spawn(|| panic!("expected: group task"));
            catch_unwind(AssertUnwindSafe(|| group.wait()))
        });
        assert_eq!(message(caught.unwrap_err()), "expected: group task");
        let caught = rt.run(|| {
            let handle = prescient::spawn(|| -> u32 { panic!("expected: handle task") });
            catch_unwind(AssertUnwindSafe(|| handle.join()))
        });
        assert_eq!(message(caught.unwrap_err()), "expected: handle task");
        assert_eq!(rt.run(|| prescient::join(|| 1, || 2)), (1, 2));
    }
}

#[test]
fn closures_too_large_for_the_arena_take_the_deque() {
    let rt = runtime(QueuePolicy::InsertBackStealBack, 1, 16);
    let before = rt.counters();
    let sum = rt.run(|| {
        let big = [7u64; 64]; // 512 bytes, past the arena's 256
        let mut out = [0u64; 4];
        prescient::scope(|s| {
            for slot in out.iter_mut() {
                s.spawn(move |_| *slot = big.iter().sum());
            }
        });
        out.iter().sum::<u64>()
    });
    assert_eq!(sum, 4 * 64 * 7);
    let c = rt.counters().since(&before);
    assert_eq!(c.spawns, 4, "{c:?}");
    assert_eq!(c.published_spawns, 0, "pushed, not published: {c:?}");
}

/// Spawns into an outer scope from an inner scope's body (same fiber:
/// recorded, run at the outer end), and from tasks that other workers stole
/// (another fiber: counted at once). Every task runs exactly once.
#[test]
fn spawns_into_an_outer_scope_from_anywhere_are_waited_for() {
    for workers in [1, 2, 16] {
        for policy in QueuePolicy::ALL {
            let rt = runtime(policy, workers, 8);
            let what = format!("policy={policy} workers={workers}");
            let count = AtomicUsize::new(0);
            watchdog(&what, LIMIT, || {
                rt.run(|| {
                    prescient::scope(|outer| {
                        for _ in 0..16 {
                            outer.spawn(|outer_again| {
                                prescient::scope(|inner| {
                                    for _ in 0..4 {
                                        inner.spawn(|_| {
                                            count.fetch_add(1, Ordering::Relaxed);
                                        });
                                        outer_again.spawn(|_| {
                                            count.fetch_add(1, Ordering::Relaxed);
                                        });
                                    }
                                });
                                outer_again.spawn(|_| {
                                    count.fetch_add(1, Ordering::Relaxed);
                                });
                            });
                        }
                    });
                });
            });
            assert_eq!(count.load(Ordering::Relaxed), 16 * 9, "{what}");
        }
    }
}

/// Many workers, nested scopes, groups and handles in a random-shaped
/// recursion: the sums come out right and nothing hangs.
#[test]
fn oversubscribed_mixed_recursion_is_exact() {
    fn tree(depth: u32, seed: u64) -> u64 {
        if depth == 0 {
            return seed % 7;
        }
        let next = move |i: u64| seed.wrapping_mul(6364136223846793005).wrapping_add(i);
        match seed % 3 {
            0 => {
                let mut parts = [0u64; 3];
                prescient::scope(|s| {
                    for (i, part) in parts.iter_mut().enumerate() {
                        s.spawn(move |_| *part = tree(depth - 1, next(i as u64)));
                    }
                });
                parts.iter().sum()
            }
            1 => {
                let sum = Arc::new(AtomicUsize::new(0));
                let group = TaskGroup::new();
                for i in 0..3 {
                    let sum = sum.clone();
                    group.spawn(move || {
                        sum.fetch_add(tree(depth - 1, next(i)) as usize, Ordering::Relaxed);
                    });
                }
                group.wait();
                sum.load(Ordering::Relaxed) as u64
            }
            _ => {
                let handles: Vec<_> = (0..3)
                    .map(|i| prescient::spawn(move || tree(depth - 1, next(i))))
                    .collect();
                handles.into_iter().map(|h| h.join()).sum()
            }
        }
    }
    let expected = Runtime::builder()
        .num_workers(1)
        .params(Params::DEFAULT.with_queue_capacity(1))
        .build()
        .unwrap()
        .run(|| tree(7, 12345));
    for workers in [2, 16, 64] {
        for capacity in [1, 4, 128] {
            let rt = runtime(QueuePolicy::InsertBackStealBack, workers, capacity);
            let what = format!("workers={workers} capacity={capacity}");
            let got = watchdog(&what, LIMIT, || rt.run(|| tree(7, 12345)));
            assert_eq!(got, expected, "{what}");
        }
    }
}
