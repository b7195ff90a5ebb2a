//! DAST, the decoupled dependency manager (`prescient::tuning::DastMode`): who
//! executes a dataflow scope's graph requests (`new`, `done`, `delete`) in
//! each mode, and that the ways they travel — through the workers' request
//! queues, to the manager thread or to idle workers, and back as ready tasks
//! in the workers' mailboxes — lose nothing across panics, nesting, shutdown
//! and oversubscription.
//!
//! * The counters say who executed what: under `Forced` every request is
//!   pushed and the manager thread executes them; under `Off` nothing is
//!   pushed; under `IdleWorkers` (and `Adaptive` without a spare hardware
//!   thread, or with one worker) no manager exists and workers execute what
//!   is pushed — a request is queued only while another worker is idle and
//!   looking for work, so with one worker nothing is. In every
//!   mode each registered task makes exactly one request of each kind, and
//!   every pushed request is executed exactly once.
//! * Per mode (`per_dast_mode!`: `test_name::off`, `::forced`, `::adaptive`,
//!   `::idle_workers`): a runtime dropped right after a dataflow run, while
//!   detached dataflow tasks run, from inside its own task, and from inside a
//!   task of another runtime; a task panic that reaches the waiter, with the
//!   runtime usable afterwards; nested scopes three deep; and an
//!   oversubscribed stress (32 workers, meant for 2 cores) of chains and fans
//!   in concurrent scopes, with pauses that let the manager and the workers
//!   park, so that each burst must wake them (the manager by the next push,
//!   a worker by a task the manager puts in its mailbox).
//!
//! Lost wake-ups: the manager's park has a 50 ms backstop timeout and a
//! worker's a 64–512 ms one, so a lost wake-up costs time here rather than
//! hanging; the loom models (`dast/manager.rs`, `sleep.rs`) are what prove
//! the protocols. The stress prints its slowest round (`--nocapture`) as a
//! hint; nothing here asserts on time. Hangs end the process through the
//! watchdog, naming the test.
//!
//! Known cost (not a failure): on an oversubscribed host, idle workers that
//! drain the queues (`IdleWorkers`, and `Adaptive` without a manager thread)
//! do not park or yield while any queue holds a request, even one that
//! another — possibly descheduled — consumer holds, so the stress runs those
//! two modes several times slower than `Off` and `Forced`, and two such
//! 32-worker runtimes at once starve each other: the stress tests take
//! [`one_big_runtime_at_a_time`] (as `dataflow_random`'s programs do) so
//! that they run one at a time.

use prescient::dataflow::Data;
use prescient::tuning::{Counters, DastMode};
use prescient::{dataflow, Event, Params, Runtime};
use prescient_tests::{
    message, one_big_runtime_at_a_time, per_dast_mode, quiet_expected_panics, watchdog,
    watchdog_diag,
};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

const LIMIT: Duration = Duration::from_secs(120);

/// A runtime of `workers` workers in `mode`, with 1 MiB task stacks (three
/// nested scopes fit; 32 workers map little).
fn runtime(workers: usize, mode: DastMode) -> Runtime {
    Runtime::builder()
        .params(Params::DEFAULT.with_dast(mode).with_stack_size(1 << 20))
        .num_workers(workers)
        .build()
        .unwrap_or_else(|e| panic!("{workers} workers, {mode}: build failed: {e}"))
}

/// One dataflow scope of chains and fans, `n` tasks of each, checked:
/// * a chain: `n` tasks that append to one vector in submission order;
/// * a fan-out and fan-in: one writer, `n` readers of it that each write
///   their own value, and a chain that sums those values;
/// * `n` independent tasks, each on its own value.
///
/// Must run on a worker (or it uses the global runtime).
fn chains_and_fans(n: u64) {
    dataflow(|df| {
        let chain = df.data(Vec::new());
        for i in 0..n {
            df.task(chain.inout(), move |v: &mut Vec<u64>| v.push(i));
        }
        let source = df.data(0u64);
        df.task(source.out(), |s: &mut u64| *s = 3);
        let parts: Vec<Data<'_, u64>> = (0..n).map(|_| df.data(0)).collect();
        for (i, part) in parts.iter().enumerate() {
            df.task(
                (source.read(), part.out()),
                move |(s, p): (&u64, &mut u64)| *p = s * i as u64,
            );
        }
        let total = df.data(0u64);
        for part in &parts {
            df.task((part.read(), total.inout()), |(p, t): (&u64, &mut u64)| {
                *t += p;
            });
        }
        let singles: Vec<Data<'_, u64>> = (0..n).map(|i| df.data(i)).collect();
        for single in &singles {
            df.task(single.inout(), |v: &mut u64| *v = *v * 2 + 1);
        }
        df.wait();
        assert_eq!(chain.into_inner(), (0..n).collect::<Vec<_>>(), "chain");
        assert_eq!(total.into_inner(), 3 * n * n.saturating_sub(1) / 2, "fan");
        for (i, single) in singles.into_iter().enumerate() {
            assert_eq!(single.into_inner(), i as u64 * 2 + 1, "single {i}");
        }
    });
}

/// Requests pushed, of all three kinds.
fn pushed(c: &Counters) -> u64 {
    c.dast_new_pushed + c.dast_done_pushed + c.dast_delete_pushed
}

/// Requests executed from the queues, by the manager thread or by workers.
fn executed(c: &Counters) -> u64 {
    c.dast_executed_by_manager + c.dast_executed_by_workers
}

/// Checks what holds in every mode once every task of `rt` has finished:
/// each registered task made one request of each kind (pushed or inline),
/// and every pushed request is executed exactly once — eventually: the
/// executor counts a batch after the batch's last request, which may be the
/// one that let the waiter return. Returns the settled counters.
fn settled_counters(rt: &Runtime, what: &str) -> Counters {
    let c = watchdog(&format!("{what}: pushed requests executed"), LIMIT, || {
        loop {
            let c = rt.counters();
            assert!(
                executed(&c) <= pushed(&c),
                "{what}: executed more than pushed: {c:?}"
            );
            if executed(&c) == pushed(&c) {
                break c;
            }
            std::thread::yield_now();
        }
    });
    let new = c.dast_new_pushed + c.dast_new_inline;
    let done = c.dast_done_pushed + c.dast_done_inline;
    let delete = c.dast_delete_pushed + c.dast_delete_inline;
    assert!(new > 0, "{what}: no task was registered: {c:?}");
    assert_eq!(done, new, "{what}: one done request per task: {c:?}");
    assert_eq!(delete, new, "{what}: one delete request per task: {c:?}");
    c
}

/// 64 tasks in a chain: 64 new-task requests from the scope's worker.
fn a_chain_of_64() -> u64 {
    dataflow(|df| {
        let value = df.data(0u64);
        for _ in 0..64 {
            df.task(value.inout(), |v: &mut u64| *v += 1);
        }
        value.into_inner()
    })
}

/// Submits [`a_chain_of_64`]'s tasks in a scope on `rt`, then, still in the
/// scope's body (its worker busy, not idle), goes on submitting one more
/// task of the chain at a time until `progress` holds for the counters — so
/// that only a thread other than this worker can have made it true. (Under
/// `IdleWorkers` and a manager-less `Adaptive` a worker queues a request only
/// while another worker is idle and looking for work, not while the others
/// are parked, so the first submissions may all run inline; a parked worker
/// wakes up at its park timeout and looks again, and a submission made then
/// is queued.)
fn chain_then_spin_until(rt: &Runtime, what: &str, progress: impl Fn(&Counters) -> bool + Sync) {
    let (value, submitted) = watchdog(what, LIMIT, || {
        rt.run(|| {
            dataflow(|df| {
                let value = df.data(0u64);
                let mut submitted = 0;
                for _ in 0..64 {
                    df.task(value.inout(), |v: &mut u64| *v += 1);
                    submitted += 1;
                }
                while !progress(&rt.counters()) {
                    df.task(value.inout(), |v: &mut u64| *v += 1);
                    submitted += 1;
                    std::thread::yield_now();
                }
                (value.into_inner(), submitted)
            })
        })
    });
    assert_eq!(value, submitted, "{what}");
}

#[test]
fn forced_pushes_every_request_and_the_manager_executes_them() {
    for workers in [1, 2, 4] {
        let what = format!("forced, {workers} workers");
        let rt = runtime(workers, DastMode::Forced);
        // The scope's worker never idles while it spins: the manager thread
        // is the only one that can execute its requests.
        chain_then_spin_until(&rt, &what, |c| c.dast_executed_by_manager > 0);
        rt.run(|| chains_and_fans(50));
        let c = settled_counters(&rt, &what);
        assert!(c.dast_new_pushed > 0, "{what}: {c:?}");
        assert!(c.dast_done_pushed > 0, "{what}: {c:?}");
        assert!(c.dast_delete_pushed > 0, "{what}: {c:?}");
        // Every request is pushed: nothing inline.
        assert_eq!(
            (c.dast_new_inline, c.dast_done_inline, c.dast_delete_inline),
            (0, 0, 0),
            "{what}: {c:?}"
        );
        assert!(c.dast_executed_by_manager > 0, "{what}: {c:?}");
    }
}

#[test]
fn off_pushes_nothing_and_executes_every_request_inline() {
    for workers in [1, 2, 4] {
        let what = format!("off, {workers} workers");
        let rt = runtime(workers, DastMode::Off);
        rt.run(|| {
            assert_eq!(a_chain_of_64(), 64);
            chains_and_fans(50);
        });
        let c = settled_counters(&rt, &what);
        assert_eq!(pushed(&c), 0, "{what}: {c:?}");
        assert_eq!(c.dast_executed_by_manager, 0, "{what}: {c:?}");
        assert_eq!(c.dast_executed_by_workers, 0, "{what}: {c:?}");
        assert_eq!(c.dast_bound_doublings, 0, "{what}: {c:?}");
        assert!(c.dast_new_inline >= 64, "{what}: {c:?}");
        assert!(c.dast_done_inline >= 64, "{what}: {c:?}");
        assert!(c.dast_delete_inline >= 64, "{what}: {c:?}");
    }
}

#[test]
fn idle_workers_execute_the_pushed_requests_and_no_manager_does() {
    // Two or more workers: the other worker, idle, drains the spinning
    // scope worker's queue.
    for workers in [2, 4] {
        let what = format!("idle workers, {workers} workers");
        let rt = runtime(workers, DastMode::IdleWorkers);
        chain_then_spin_until(&rt, &what, |c| c.dast_executed_by_workers > 0);
        rt.run(|| chains_and_fans(50));
        let c = settled_counters(&rt, &what);
        assert!(c.dast_new_pushed > 0, "{what}: {c:?}");
        assert!(c.dast_executed_by_workers > 0, "{what}: {c:?}");
        assert_eq!(c.dast_executed_by_manager, 0, "{what}: {c:?}");
    }
    // One worker: no other thread could execute a queued request while it
    // runs the scope, so it queues none (a request is queued only while
    // another worker is idle and looking for work): `Off`'s behaviour.
    let rt = runtime(1, DastMode::IdleWorkers);
    rt.run(|| {
        assert_eq!(a_chain_of_64(), 64);
        chains_and_fans(50);
    });
    let c = settled_counters(&rt, "idle workers, 1 worker");
    assert!(c.dast_new_inline > 0, "{c:?}");
    assert_eq!(
        (c.dast_new_pushed, c.dast_done_pushed, c.dast_delete_pushed),
        (0, 0, 0),
        "{c:?}"
    );
    assert_eq!(executed(&c), 0, "{c:?}");
}

/// `Adaptive` has a manager thread only when the host has a hardware thread
/// more than the runtime has workers and the runtime has two workers or
/// more; idle workers drain in any case.
#[test]
fn adaptive_has_a_manager_thread_only_with_a_spare_hardware_thread() {
    let hardware = std::thread::available_parallelism().map_or(1, |n| n.get());
    // As many workers as hardware threads (and more): no manager.
    for workers in [hardware.max(2), hardware + 2] {
        let what = format!("adaptive, {workers} workers on {hardware} hardware threads");
        let rt = runtime(workers, DastMode::Adaptive);
        // Idle workers execute what the spinning scope worker queues.
        chain_then_spin_until(&rt, &what, |c| c.dast_executed_by_workers > 0);
        rt.run(|| {
            assert_eq!(a_chain_of_64(), 64);
            chains_and_fans(50);
        });
        let c = settled_counters(&rt, &what);
        assert!(c.dast_new_pushed > 0, "{what}: {c:?}");
        assert_eq!(c.dast_executed_by_manager, 0, "{what}: {c:?}");
    }
    // One worker: no manager thread (one worker never contends for the
    // graph) and no idle worker, so nothing is queued: `Off`'s behaviour.
    {
        let what = format!("adaptive, 1 worker on {hardware} hardware threads");
        let rt = runtime(1, DastMode::Adaptive);
        rt.run(|| assert_eq!(a_chain_of_64(), 64));
        let c = settled_counters(&rt, &what);
        assert_eq!(pushed(&c), 0, "{what}: {c:?}");
        assert_eq!(c.dast_executed_by_manager, 0, "{what}: {c:?}");
    }
    // Two workers or more, fewer than hardware threads: a manager thread
    // executes requests (on a host with more than two hardware threads).
    if hardware > 2 {
        let what = format!("adaptive, 2 workers on {hardware} hardware threads");
        let rt = runtime(2, DastMode::Adaptive);
        chain_then_spin_until(&rt, &what, |c| c.dast_executed_by_manager > 0);
        let c = settled_counters(&rt, &what);
        assert!(c.dast_executed_by_manager > 0, "{what}: {c:?}");
    }
}

/// In every mode, the counters add up (one request of each kind per
/// registered task, every pushed request executed once), with nested scopes
/// and several scopes at once.
fn requests_add_up(mode: DastMode) {
    for workers in [1, 3] {
        let what = format!("{mode}, {workers} workers");
        let rt = runtime(workers, mode);
        rt.run(|| {
            prescient::scope(|s| {
                for n in [10, 30, 60] {
                    s.spawn(move |_| chains_and_fans(n));
                }
            });
            nested_program();
        });
        let c = settled_counters(&rt, &what);
        match mode {
            DastMode::Off => assert_eq!(pushed(&c), 0, "{what}: {c:?}"),
            DastMode::Forced => assert!(c.dast_new_pushed > 0, "{what}: {c:?}"),
            // The push policies queue a request only while a consumer is at
            // hand (a manager thread, an idle worker): how many depends on
            // the timing; `settled_counters` checked that they add up.
            _ => {}
        }
    }
}
per_dast_mode!(requests_add_up);

/// A runtime dropped as soon as its dataflow run returned (its manager
/// thread, if any, may still be finishing a batch or about to park), on 1
/// to 4 workers.
fn a_runtime_is_dropped_right_after_a_dataflow_run(mode: DastMode) {
    watchdog(&format!("drop after a run, {mode}"), LIMIT, || {
        for round in 0..40 {
            let rt = runtime(1 + round % 4, mode);
            rt.run(|| chains_and_fans(20 + round as u64));
            drop(rt);
        }
    });
}
per_dast_mode!(a_runtime_is_dropped_right_after_a_dataflow_run);

/// Dropping a runtime drains the detached tasks that run dataflow scopes:
/// their requests are executed before the workers (and the manager) exit.
fn a_runtime_dropped_while_detached_dataflow_tasks_run_drains_them(mode: DastMode) {
    watchdog(&format!("drop while dataflow runs, {mode}"), LIMIT, || {
        for round in 0..20 {
            let rt = runtime(1 + round % 3, mode);
            let done = Arc::new(AtomicUsize::new(0));
            for i in 0..4 {
                let done = done.clone();
                drop(rt.spawn(move || {
                    chains_and_fans(10 + 10 * i);
                    done.fetch_add(1, Ordering::SeqCst);
                }));
            }
            drop(rt);
            assert_eq!(done.load(Ordering::SeqCst), 4, "{mode} round {round}");
        }
    });
}
per_dast_mode!(a_runtime_dropped_while_detached_dataflow_tasks_run_drains_them);

/// The last `Arc<Runtime>` dropped inside one of the runtime's own tasks,
/// right after a dataflow run in that task (the pattern of `shutdown.rs`):
/// the workers and the manager thread are detached and exit on their own;
/// the task finishes, without a panic.
fn a_runtime_dropped_inside_its_own_task_after_a_dataflow_run(mode: DastMode) {
    for round in 0..10 {
        let what = format!("dropped inside its own task, {mode} round {round}");
        let panics: Arc<Mutex<Vec<String>>> = Arc::default();
        let p = panics.clone();
        let rt = Arc::new(
            Runtime::builder()
                .params(Params::DEFAULT.with_dast(mode).with_stack_size(1 << 20))
                .num_workers(1 + round % 2)
                .panic_handler(move |payload| p.lock().unwrap().push(message(payload)))
                .build()
                .unwrap(),
        );
        let done = Arc::new(AtomicUsize::new(0));
        let gate = Arc::new(Event::new());
        let (owner, d, g) = (rt.clone(), done.clone(), gate.clone());
        let handle = rt.spawn(move || {
            chains_and_fans(30);
            // Until this thread has let go of its reference.
            g.wait();
            chains_and_fans(5);
            drop(owner); // the last reference: `Runtime::drop` runs here
            d.fetch_add(1, Ordering::SeqCst);
        });
        drop(handle);
        drop(rt);
        gate.set();
        watchdog(&what, LIMIT, || {
            while done.load(Ordering::SeqCst) == 0 && panics.lock().unwrap().is_empty() {
                std::thread::yield_now();
            }
        });
        assert_eq!(*panics.lock().unwrap(), Vec::<String>::new(), "{what}");
        assert_eq!(done.load(Ordering::SeqCst), 1, "{what}");
    }
}
per_dast_mode!(a_runtime_dropped_inside_its_own_task_after_a_dataflow_run);

/// Runtime B (in `mode`) dropped inside a task of runtime A (one worker),
/// while a dataflow task of B waits for an event that only a task queued on
/// A's worker sets: B's drop must suspend A's task rather than block A's
/// worker, and then finish B's scope, whose requests still travel.
fn a_runtime_dropped_inside_a_task_of_another_runtime(mode: DastMode) {
    let a = runtime(1, mode);
    watchdog(&format!("drop B inside a task of A, {mode}"), LIMIT, || {
        for round in 0..10 {
            let finished = a.run(|| {
                let b = runtime(1 + round % 2, mode);
                let event = Arc::new(Event::new());
                let finished = Arc::new(AtomicUsize::new(0));
                let (waiting, f) = (event.clone(), finished.clone());
                drop(b.spawn(move || {
                    dataflow(|df| {
                        let x = df.data(0u64);
                        df.task(x.inout(), move |x: &mut u64| {
                            waiting.wait();
                            *x = 7;
                        });
                        for _ in 0..10 {
                            let f = &f;
                            df.task(x.read(), move |x: &u64| {
                                assert_eq!(*x, 7);
                                f.fetch_add(1, Ordering::SeqCst);
                            });
                        }
                    });
                    chains_and_fans(10);
                }));
                // Queued on A's only worker: runs only if that worker is free.
                let setting = event.clone();
                let setter = prescient::spawn(move || setting.set());
                drop(b);
                setter.join();
                finished.load(Ordering::SeqCst)
            });
            assert_eq!(finished, 10, "{mode} round {round}");
        }
    });
}
per_dast_mode!(a_runtime_dropped_inside_a_task_of_another_runtime);

/// A task in the middle of a chain panics: the links after it are cancelled
/// (their requests still travel), independent tasks run, the panic reaches
/// the scope's wait, and the runtime goes on with the next scope.
fn a_task_panic_reaches_the_waiter_and_the_runtime_stays_usable(mode: DastMode) {
    quiet_expected_panics();
    for workers in [1, 2, 4] {
        let rt = runtime(workers, mode);
        watchdog(&format!("panic, {mode}, {workers} workers"), LIMIT, || {
            for round in 0..10 {
                let what = format!("{mode}, {workers} workers, round {round}");
                let links = AtomicUsize::new(0);
                let independent = AtomicUsize::new(0);
                let result = catch_unwind(AssertUnwindSafe(|| {
                    rt.run(|| {
                        dataflow(|df| {
                            let chain = df.data(0u64);
                            for i in 0..20 {
                                let links = &links;
                                df.task(chain.inout(), move |c: &mut u64| {
                                    links.fetch_add(1, Ordering::SeqCst);
                                    if i == 10 {
                                        panic!("expected: link 10 fails");
                                    }
                                    *c += 1;
                                });
                            }
                            for _ in 0..20 {
                                let independent = &independent;
                                let own = df.data(0u64);
                                df.task(own.inout(), move |v: &mut u64| {
                                    *v += 1;
                                    independent.fetch_add(1, Ordering::SeqCst);
                                });
                            }
                            df.wait();
                            unreachable!("the wait must re-raise the panic");
                        })
                    })
                }));
                let payload = result.expect_err("the panic was lost");
                assert_eq!(message(payload), "expected: link 10 fails", "{what}");
                assert_eq!(
                    links.load(Ordering::SeqCst),
                    11,
                    "{what}: links 0..=10 run, the rest are cancelled"
                );
                assert_eq!(independent.load(Ordering::SeqCst), 20, "{what}");
                // Still usable.
                rt.run(|| chains_and_fans(30));
            }
        });
        let c = settled_counters(&rt, &format!("panic, {mode}, {workers} workers"));
        if mode == DastMode::Forced {
            assert!(c.dast_done_pushed > 0 && c.dast_delete_pushed > 0, "{c:?}");
        }
    }
}
per_dast_mode!(a_task_panic_reaches_the_waiter_and_the_runtime_stays_usable);

/// Three levels of scopes: 4 outer tasks on 16-element tiles, each with a
/// scope of 4 tasks on 4-element tiles, each with a scope of one task per
/// element, and chains between neighbours at every level. Returns the data.
fn nested(mut data: Vec<u64>) -> Vec<u64> {
    dataflow(|df| {
        let outer = df.tiles(&mut data, 16);
        for i in 0..outer.len() {
            df.task(outer.inout(i), |tile: &mut [u64]| {
                dataflow(|mid| {
                    let quarters = mid.tiles(tile, 4);
                    for j in 0..quarters.len() {
                        mid.task(quarters.inout(j), |quarter: &mut [u64]| {
                            dataflow(|inner| {
                                let cells = inner.tiles(quarter, 1);
                                for k in 0..cells.len() {
                                    inner.task(cells.inout(k), |c: &mut [u64]| c[0] = c[0] * 3 + 1);
                                }
                                for k in 1..cells.len() {
                                    inner.task(
                                        (cells.read(k - 1), cells.inout(k)),
                                        |(p, c): (&[u64], &mut [u64])| c[0] += p[0],
                                    );
                                }
                            });
                        });
                    }
                    for j in 1..quarters.len() {
                        mid.task(
                            (quarters.read(j - 1), quarters.inout(j)),
                            |(p, q): (&[u64], &mut [u64])| q[0] += p[3],
                        );
                    }
                });
            });
        }
        for i in 1..outer.len() {
            df.task(
                (outer.read(i - 1), outer.inout(i)),
                |(p, t): (&[u64], &mut [u64])| t[0] += p[15],
            );
        }
    });
    data
}

/// The sequential version of [`nested`].
fn nested_sequential(mut data: Vec<u64>) -> Vec<u64> {
    for tile in data.chunks_mut(16) {
        for quarter in tile.chunks_mut(4) {
            for c in quarter.iter_mut() {
                *c = *c * 3 + 1;
            }
            for k in 1..4 {
                quarter[k] += quarter[k - 1];
            }
        }
        for j in 1..4 {
            tile[j * 4] += tile[j * 4 - 1];
        }
    }
    for i in 1..4 {
        data[i * 16] += data[i * 16 - 1];
    }
    data
}

/// [`nested`] on fresh data, checked.
fn nested_program() {
    let data: Vec<u64> = (0..64).collect();
    assert_eq!(nested(data.clone()), nested_sequential(data));
}

/// Nested scopes: requests of different scopes in one worker's queue (the
/// new-task push policy keeps them apart), inner scopes whose waits idle
/// their workers while outer requests are queued.
fn nested_scopes_match_the_sequential_run(mode: DastMode) {
    for workers in [1, 2, 4, 16] {
        let rt = runtime(workers, mode);
        watchdog(&format!("nested, {mode}, {workers} workers"), LIMIT, || {
            for round in 0..10u64 {
                let data: Vec<u64> = (round..round + 64).collect();
                let expected = nested_sequential(data.clone());
                assert_eq!(
                    rt.run(|| nested(data)),
                    expected,
                    "{mode}, {workers} workers, round {round}"
                );
            }
        });
        settled_counters(&rt, &format!("nested, {mode}, {workers} workers"));
    }
}
per_dast_mode!(nested_scopes_match_the_sequential_run);

/// The rounds of the oversubscribed stress, per mode.
const STRESS_ROUNDS: usize = 200;

/// 32 workers (on a 2-core machine: oversubscribed), bursts of chains and
/// fans — one scope, or four at once from different workers, or a long
/// chain whose every link is released to some worker's mailbox (under
/// `Forced`) — with pauses every few rounds long enough for the manager
/// (about a thousand spins and 16 yields) and the workers (about 200 µs) to
/// park, so that the next burst must wake them.
fn oversubscribed_chains_and_fans(mode: DastMode) {
    let _one_at_a_time = one_big_runtime_at_a_time();
    let rt = runtime(32, mode);
    let what = format!("oversubscribed, {mode}");
    let mut slowest = Duration::ZERO;
    watchdog_diag(
        &what,
        LIMIT,
        || format!("{:?}", rt.counters()),
        || {
            for round in 0..STRESS_ROUNDS {
                if round % 3 == 0 {
                    std::thread::sleep(Duration::from_millis(2));
                }
                let start = Instant::now();
                match round % 3 {
                    0 => rt.run(|| chains_and_fans(40)),
                    1 => rt.run(|| {
                        prescient::scope(|s| {
                            for n in [5, 20, 40, 60] {
                                s.spawn(move |_| chains_and_fans(n));
                            }
                        })
                    }),
                    _ => {
                        let links = rt.run(|| {
                            dataflow(|df| {
                                let value = df.data(0u64);
                                for _ in 0..300 {
                                    df.task(value.inout(), |v: &mut u64| *v += 1);
                                }
                                value.into_inner()
                            })
                        });
                        assert_eq!(links, 300, "{what}, round {round}");
                    }
                }
                slowest = slowest.max(start.elapsed());
            }
        },
    );
    let c = settled_counters(&rt, &what);
    if mode != DastMode::Off {
        assert!(c.dast_new_pushed > 0, "{what}: {c:?}");
    }
    if mode == DastMode::Forced {
        assert!(c.dast_executed_by_manager > 0, "{what}: {c:?}");
    }
    eprintln!("{what}: slowest of {STRESS_ROUNDS} rounds: {slowest:?}; {c:?}");
}
per_dast_mode!(oversubscribed_chains_and_fans);
