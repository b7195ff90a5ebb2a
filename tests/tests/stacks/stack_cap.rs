//! Driving a worker past its live-stack cap neither deadlocks nor nests.
//!
//! * Many tasks that all wait at once need one stack each: a worker at its
//!   cap must map stacks beyond it (counted in `stacks_beyond_cap`) rather
//!   than deadlock, and must never run a new task on the stack of a waiting
//!   one (nested helping): every simultaneously suspended task's frame lies in
//!   a mapping of its own (`/proc/self/maps`).
//! * Join trees at a tiny cap complete under every policy, and the stack
//!   figures keep their invariant: live stacks ≤ cap × workers + stacks
//!   mapped beyond the cap.

use prescient::tuning::{Counters, QueuePolicy};
use prescient::{Event, Params, Runtime};
use prescient_tests::{fib_seq, mappings_of, watchdog, watchdog_diag};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);
const STACK: usize = 64 << 10;

fn runtime(policy: QueuePolicy, capacity: usize, workers: usize, cap: usize) -> Runtime {
    Runtime::builder()
        .params(
            Params::DEFAULT
                .with_queue_policy(policy)
                .with_queue_capacity(capacity)
                .with_stack_size(STACK),
        )
        .num_workers(workers)
        .max_live_stacks(cap)
        .build()
        .unwrap()
}

fn stack_invariant(what: &str, c: &Counters, cap: usize, workers: usize) {
    assert!(
        c.live_stacks <= (cap * workers) as u64 + c.stacks_beyond_cap,
        "{what}: {} live stacks, cap {cap} x {workers} workers, {} counted beyond the cap: {c:?}",
        c.live_stacks,
        c.stacks_beyond_cap
    );
}

fn check_frames(frames: &Mutex<Vec<usize>>, n: usize, what: &str) {
    let frames = frames.lock().unwrap().clone();
    let mappings: Vec<_> = mappings_of(&frames)
        .into_iter()
        .map(|m| m.expect("a task frame is mapped"))
        .collect();
    let distinct: HashSet<_> = mappings.iter().collect();
    assert_eq!(
        distinct.len(),
        n,
        "{what}: {n} simultaneously live tasks share stacks (nested?): {mappings:x?}"
    );
}

/// `n` tasks, injected from this thread, that all wait on one gate; the last
/// one to arrive checks that every waiter's frame is in a mapping of its own
/// and opens the gate.
fn all_wait_at_once(rt: &Runtime, n: usize, what: &str) {
    let gate = Arc::new(Event::new());
    let arrived = Arc::new(AtomicUsize::new(0));
    let frames = Arc::new(Mutex::new(Vec::<usize>::new()));
    let handles: Vec<_> = (0..n)
        .map(|_| {
            let (gate, arrived, frames) = (gate.clone(), arrived.clone(), frames.clone());
            let what = what.to_owned();
            rt.spawn(move || {
                let local = std::hint::black_box([0u8; 64]);
                let frame = local.as_ptr() as usize;
                frames.lock().unwrap().push(frame);
                if arrived.fetch_add(1, Ordering::SeqCst) + 1 == n {
                    // Everyone else is suspended inside this wait right now.
                    // Open the gate even if a check fails, so that a failure
                    // is a failure and not a hang.
                    let checked = std::panic::catch_unwind(|| check_frames(&frames, n, &what));
                    gate.set();
                    if let Err(payload) = checked {
                        std::panic::resume_unwind(payload);
                    }
                } else {
                    gate.wait();
                }
                std::hint::black_box(local);
            })
        })
        .collect();
    for h in handles {
        h.join();
    }
}

#[test]
fn one_worker_past_its_cap_maps_more_stacks_and_never_nests() {
    for policy in QueuePolicy::ALL {
        for cap in [1, 2, 8] {
            let what = format!("policy={policy} cap={cap}");
            let rt = runtime(policy, 16, 1, cap);
            watchdog_diag(
                &what,
                LIMIT,
                || format!("{:?}", rt.counters()),
                || {
                    let n = 40;
                    all_wait_at_once(&rt, n, &what);
                    let c = rt.counters();
                    assert!(c.live_stacks >= n as u64, "{what}: {c:?}");
                    assert!(
                        c.stacks_beyond_cap >= (n - cap) as u64,
                        "{what}: stacks beyond the cap not counted: {c:?}"
                    );
                    assert!(c.peak_live_stacks >= (n - 1) as u64, "{what}: {c:?}");
                    stack_invariant(&what, &c, cap, 1);
                    // Still usable, and the stacks are reused, not mapped again.
                    all_wait_at_once(&rt, n, &what);
                    let again = rt.counters();
                    assert_eq!(
                        again.live_stacks, c.live_stacks,
                        "{what}: stacks not reused"
                    );
                },
            );
        }
    }
}

#[test]
fn many_workers_past_their_cap() {
    for policy in QueuePolicy::ALL {
        let what = format!("policy={policy} workers=4 cap=2");
        watchdog(&what, LIMIT, || {
            let rt = runtime(policy, 16, 4, 2);
            all_wait_at_once(&rt, 64, &what);
            stack_invariant(&what, &rt.counters(), 2, 4);
        });
    }
}

use prescient_tests::fib_join as fib;

/// Spawn-and-join trees: every level's handle join may suspend.
fn spawn_fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let h = prescient::spawn(move || spawn_fib(n - 2));
    spawn_fib(n - 1) + h.join()
}

#[test]
fn join_trees_at_a_tiny_cap_complete_and_keep_the_stack_invariant() {
    for policy in QueuePolicy::ALL {
        for workers in [1, 2] {
            for cap in [1, 3] {
                let what = format!("policy={policy} workers={workers} cap={cap}");
                watchdog(&what, LIMIT, || {
                    let rt = runtime(policy, 128, workers, cap);
                    assert_eq!(rt.run(|| fib(16)), fib_seq(16), "{what}");
                    let c = rt.counters();
                    stack_invariant(&format!("{what} (join)"), &c, cap, workers);
                    if workers == 1 && policy.owner_takes_newest() {
                        // A lone owner that pops its own newest child back
                        // never needs a second stack for a join tree.
                        assert!(
                            c.peak_live_stacks <= 1 + c.stacks_beyond_cap,
                            "{what}: {c:?}"
                        );
                    }
                    assert_eq!(rt.run(|| spawn_fib(14)), fib_seq(14), "{what}");
                    let c = rt.counters();
                    stack_invariant(&format!("{what} (spawn)"), &c, cap, workers);
                });
            }
        }
    }
}

/// Regression: under `InsertBackStealFront` a join whose child was not the
/// owner's next job used to take that next job out of the deque
/// (`TakeOwn::Other`) and start it on a new stack at once — without looking
/// at the live-stack cap and without counting a stack beyond it. On one
/// worker with a cap of 1, fib(16) ended with ~198 live stacks and
/// `stacks_beyond_cap == 0`.
#[test]
fn bf_join_at_the_cap_respects_the_cap() {
    let what = "policy=BF workers=1 cap=1";
    let rt = runtime(QueuePolicy::InsertBackStealFront, 128, 1, 1);
    watchdog(what, LIMIT, || {
        assert_eq!(rt.run(|| fib(16)), fib_seq(16));
        stack_invariant(what, &rt.counters(), 1, 1);
    });
}
