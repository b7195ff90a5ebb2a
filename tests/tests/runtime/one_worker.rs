//! Waiting on a one-worker runtime, where only suspension can make progress:
//!
//! * a task blocking on a `TaskHandle` whose producer is queued behind it on
//!   the only worker completes (rayon deadlocks here, rayon issue #835);
//! * the case nested helping cannot survive: while task A waits, the worker
//!   starts task B, and B waits on an `Event` that only A sets after its own
//!   wait returns. A helper that ran B on A's stack could never return to A.
//!
//! * a join, a handle's join, a scope's end and a group's wait claim their
//!   own unstarted tasks from the deque and run them inline, under every
//!   policy, instead of suspending while the worker runs something else.
//!
//! Every policy and capacity, each under a watchdog.

use prescient::tuning::QueuePolicy;
use prescient::{Event, Runtime, TaskGroup, TaskHandle};
use prescient_tests::{small_stack_runtime, watchdog, CAPACITIES};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

fn one_worker(policy: QueuePolicy, capacity: usize) -> Runtime {
    small_stack_runtime(policy, capacity, 1)
}

fn each(test: &str, f: impl Fn(QueuePolicy, usize, &Runtime)) {
    for policy in QueuePolicy::ALL {
        for capacity in CAPACITIES {
            let what = format!("{test} [policy={policy} capacity={capacity}]");
            watchdog(&what, LIMIT, || {
                let rt = one_worker(policy, capacity);
                for _ in 0..3 {
                    f(policy, capacity, &rt);
                }
            });
        }
    }
}

type Log = Arc<Mutex<Vec<&'static str>>>;

fn log(log: &Log, what: &'static str) {
    log.lock().unwrap().push(what);
}

/// Spawns task B, which logs its start, waits for `e` and logs its end.
fn spawn_b(order: &Log, e: &Arc<Event>) -> TaskHandle<()> {
    let (order, e) = (order.clone(), e.clone());
    prescient::spawn(move || {
        log(&order, "B starts");
        e.wait();
        log(&order, "B resumes");
    })
}

#[test]
fn blocking_on_a_handle_whose_producer_is_queued_behind() {
    each("handle/producer behind", |policy, capacity, rt| {
        // 1. The waiting task spawns its producer (queued in the only deque,
        //    behind the running task) and joins the handle at once: the join
        //    takes its own unstarted task back and runs it, without waiting.
        let before = rt.counters();
        let v = rt.run(|| prescient::spawn(|| 41).join() + 1);
        assert_eq!(v, 42);
        let c = rt.counters().since(&before);
        assert_eq!(
            c.spawns, 1,
            "{policy}/{capacity}: the producer was deferred: {c:?}"
        );
        assert_eq!(
            c.suspensions, 0,
            "{policy}/{capacity}: the join claims its unstarted producer: {c:?}"
        );

        // 2. The consumer is a queued task that runs *before* its producer
        //    (the spawn order is chosen per policy so that the consumer is
        //    taken first) and blocks on the producer's handle, which sits
        //    behind it in the only deque.
        let order: Log = Arc::default();
        let v = rt.run(|| {
            let slot: Arc<Mutex<Option<TaskHandle<u32>>>> = Arc::default();
            let spawn_producer = || {
                let order = order.clone();
                let handle = prescient::spawn(move || {
                    log(&order, "producer");
                    20
                });
                *slot.lock().unwrap() = Some(handle);
            };
            let spawn_consumer = || {
                let (order, slot) = (order.clone(), slot.clone());
                prescient::spawn(move || {
                    log(&order, "consumer waits");
                    let producer = slot
                        .lock()
                        .unwrap()
                        .take()
                        .expect("the handle is in the slot");
                    let v = producer.join() + 1;
                    log(&order, "consumer done");
                    v
                })
            };
            let consumer = if policy.owner_takes_newest() {
                spawn_producer();
                spawn_consumer()
            } else {
                let consumer = spawn_consumer();
                spawn_producer();
                consumer
            };
            consumer.join() * 2
        });
        assert_eq!(v, 42);
        let order = order.lock().unwrap().clone();
        if capacity > 1 {
            // Both were queued: the consumer ran first and waited.
            assert_eq!(
                order,
                ["consumer waits", "producer", "consumer done"],
                "{policy}/{capacity}"
            );
        }

        // 3. The producer is queued behind many other tasks.
        let v = rt.run(|| {
            let early: Vec<_> = (0..capacity.min(8) as u64 - 1)
                .map(|i| prescient::spawn(move || i))
                .collect();
            let producer = prescient::spawn(|| 100u64);
            let consumer = prescient::spawn(move || producer.join() + 1);
            consumer.join() + early.into_iter().map(TaskHandle::join).sum::<u64>()
        });
        let k = capacity.min(8) as u64 - 1;
        assert_eq!(v, 101 + k * k.saturating_sub(1) / 2);
    });
}

/// A waits for X; meanwhile the only worker starts B; B waits for E, which
/// only A sets after its wait for X returned. X is set by a plain thread once
/// B is waiting, so the interleaving is forced for every policy and capacity.
#[test]
fn a_task_started_during_a_wait_waits_for_the_waiter() {
    each("A waits, B waits on A", |policy, capacity, rt| {
        let order: Log = Arc::default();
        let x = Arc::new(Event::new());
        let e = Arc::new(Event::new());
        let (b_waiting_tx, b_waiting_rx) = mpsc::channel::<()>();
        let setter = {
            let x = x.clone();
            std::thread::spawn(move || {
                b_waiting_rx.recv().expect("B announces its wait");
                // Let B really suspend before A can resume.
                std::thread::sleep(Duration::from_millis(2));
                x.set();
            })
        };
        let before = rt.counters();
        let thread_of_a = rt.run(|| {
            let a_thread = std::thread::current().id();
            let b = {
                let (order, e) = (order.clone(), e.clone());
                prescient::spawn(move || {
                    log(&order, "B starts");
                    b_waiting_tx.send(()).unwrap();
                    e.wait();
                    log(&order, "B resumes");
                    std::thread::current().id()
                })
            };
            log(&order, "A waits");
            x.wait();
            log(&order, "A resumes");
            e.set();
            let b_thread = b.join();
            assert_eq!(a_thread, b_thread);
            assert_eq!(std::thread::current().id(), a_thread);
            a_thread
        });
        setter.join().unwrap();
        assert_ne!(thread_of_a, std::thread::current().id());
        let order = order.lock().unwrap().clone();
        let c = rt.counters().since(&before);
        if capacity == 1 && c.spawns == 0 {
            unreachable!("B was the first spawn of an empty deque: it is always deferred");
        }
        assert_eq!(
            order,
            ["A waits", "B starts", "A resumes", "B resumes"],
            "{policy}/{capacity}: {c:?}"
        );
        assert!(c.suspensions >= 2, "{policy}/{capacity}: {c:?}");
        assert!(
            c.live_stacks >= 2,
            "{policy}/{capacity}: A and B need two stacks: {c:?}"
        );
    });
}

/// The same without a helper thread: A joins the handle of a producer P
/// while B, which waits on an event A sets after the join, is queued too (B
/// is the one the worker would take first). The join claims P, its own
/// unstarted task, under every policy and runs it inline: A never suspends,
/// B starts only when A joins it, and nothing waits. (Before, A suspended on
/// P, the worker started B, which waited on A, and only then ran P.)
#[test]
fn a_handle_join_claims_its_unstarted_task() {
    each("A joins P, B waits on A", |policy, capacity, rt| {
        if capacity == 1 {
            // The second spawn would run inline: covered by the test above.
            return;
        }
        let order: Log = Arc::default();
        let e = Arc::new(Event::new());
        let before = rt.counters();
        rt.run(|| {
            let spawn_b = || spawn_b(&order, &e);
            let spawn_p = || {
                let order = order.clone();
                prescient::spawn(move || log(&order, "P runs"))
            };
            // B is what the only worker would take before P.
            let (b, p) = if policy.owner_takes_newest() {
                let p = spawn_p();
                (spawn_b(), p)
            } else {
                let b = spawn_b();
                (b, spawn_p())
            };
            log(&order, "A waits");
            p.join();
            log(&order, "A resumes");
            e.set();
            b.join();
        });
        let order = order.lock().unwrap().clone();
        let c = rt.counters().since(&before);
        assert_eq!(
            order,
            ["A waits", "P runs", "A resumes", "B starts", "B resumes"],
            "{policy}/{capacity}: {c:?}"
        );
        assert_eq!(c.spawns, 2, "{policy}/{capacity}: {c:?}");
        assert_eq!(c.suspensions, 0, "{policy}/{capacity}: {c:?}");
    });
}

/// A join (not a handle) on one worker while an older task B, which waits on
/// an event the joiner sets after its join, sits unstarted in the deque. The
/// join claims its own child under every policy (the child is the joiner's
/// dependency, not a scheduling choice): the join never suspends, B starts
/// only when the task that spawned it waits for it, and everything
/// completes. (Insieme — and this runtime before — suspended the joiner under
/// the policies whose owner takes the oldest job first, and started B there.)
#[test]
fn a_join_claims_its_child_even_with_an_older_task_queued() {
    each("join child behind B", |policy, capacity, rt| {
        if capacity < 2 {
            return;
        }
        let order: Log = Arc::default();
        let e = Arc::new(Event::new());
        let before = rt.counters();
        rt.run(|| {
            let b = spawn_b(&order, &e);
            log(&order, "A joins");
            let ((), ()) = prescient::join(|| log(&order, "a runs"), || log(&order, "child runs"));
            log(&order, "A resumes");
            e.set();
            b.join();
        });
        let order = order.lock().unwrap().clone();
        assert_eq!(
            order,
            [
                "A joins",
                "a runs",
                "child runs",
                "A resumes",
                "B starts",
                "B resumes"
            ],
            "{policy}/{capacity}"
        );
        // Nothing suspended: the join ran its child, and `b.join()` claimed
        // B, whose event was set by then.
        let c = rt.counters().since(&before);
        assert_eq!(c.suspensions, 0, "{policy}/{capacity}: {c:?}");
    });
}

/// The scope's end and a group's wait claim their own unstarted tasks the
/// same way, with an older task B (which waits on an event set after the
/// wait) queued first: the tasks run inline at the wait, B only when it is
/// joined, and nothing suspends — under every policy.
#[test]
fn a_scope_end_and_a_group_wait_claim_their_unstarted_tasks() {
    each("scope/group tasks behind B", |policy, capacity, rt| {
        if capacity < 4 {
            return;
        }
        for use_group in [false, true] {
            let what = if use_group { "group" } else { "scope" };
            let order: Log = Arc::default();
            let e = Arc::new(Event::new());
            let before = rt.counters();
            rt.run(|| {
                let b = spawn_b(&order, &e);
                log(&order, "A waits");
                if use_group {
                    let group = TaskGroup::new();
                    for _ in 0..2 {
                        let order = order.clone();
                        group.spawn(move || log(&order, "task"));
                    }
                    group.wait();
                } else {
                    prescient::scope(|s| {
                        for _ in 0..2 {
                            s.spawn(|_| log(&order, "task"));
                        }
                    });
                }
                log(&order, "A resumes");
                e.set();
                b.join();
            });
            let order = order.lock().unwrap().clone();
            let c = rt.counters().since(&before);
            assert_eq!(
                order,
                [
                    "A waits",
                    "task",
                    "task",
                    "A resumes",
                    "B starts",
                    "B resumes"
                ],
                "{what} {policy}/{capacity}: {c:?}"
            );
            assert_eq!(c.spawns, 3, "{what} {policy}/{capacity}: {c:?}");
            assert_eq!(c.suspensions, 0, "{what} {policy}/{capacity}: {c:?}");
        }
    });
}
