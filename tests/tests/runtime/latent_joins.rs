//! Latent joins: a `join` records its second half where thieves cannot see
//! it and publishes it only when another worker asks for work, or before the
//! joining task suspends. These tests pin both paths down:
//!
//! * **on request** — a join's first half spins until its second half has
//!   run. Only a thief can run it, and only after the worker published it:
//!   the spin makes joins of its own (publication points), the idle thief
//!   raises the worker's flag, the worker publishes its oldest latent half —
//!   the outer `b` — and the thief takes it. Without publication on request
//!   this hangs (the watchdog fails it);
//! * **before a suspension** — on one worker, a join's first half waits for
//!   an event its own second half sets. Nobody can ask for work there; the
//!   task's suspension publishes `b`, the worker runs it, the event is set
//!   and the join completes. Without that it would deadlock;
//! * **bounded** — one worker never publishes (nobody asks) and records at
//!   most eight halves at a time: a 1,000-deep chain runs 992 of its joins as
//!   plain calls.
//!
//! Every queue policy; two workers and sixteen (oversubscribing this 2-core
//! machine).

use prescient::tuning::{Inlining, QueuePolicy};
use prescient::{Event, Runtime};
use prescient_tests::{runtime_with, small_stack_runtime, watchdog, Config};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

/// [`small_stack_runtime`]'s runtime (`policy`, `capacity`, `workers`,
/// 256 KiB task stacks) with the inliner off, `Inlining::Never`: these tests
/// are about the scheduler's own publication rule.
fn runtime_without_inliner(policy: QueuePolicy, capacity: usize, workers: usize) -> Runtime {
    let config = Config {
        policy,
        capacity,
        workers,
    };
    runtime_with(
        workers,
        config.params(256 << 10).with_inlining(Inlining::Never),
    )
}

#[test]
fn a_latent_half_reaches_an_idle_worker_on_request() {
    for policy in QueuePolicy::ALL {
        for workers in [2, 16] {
            let what = format!("policy={policy} workers={workers}");
            // The scheduler's own publication rule, without the inliner:
            // under it, the inner joins below are an inlined site whose
            // hunger checks may publish an inner half while the outer one
            // still waits in the deque, and a `DEF` thief takes the newer
            // one; the joiner then waits, and may run the outer half itself
            // meanwhile (legitimately, but not what this test is about).
            let rt = runtime_without_inliner(policy, 16, workers);
            watchdog(&what, LIMIT, || {
                let before = rt.counters();
                let ran_b = AtomicBool::new(false);
                let (b_worker, a_worker) = rt.run(|| {
                    prescient::join(
                        || {
                            // Publication points: each inner join may answer
                            // the thief's request.
                            while !ran_b.load(Ordering::Acquire) {
                                prescient::join(|| (), || ());
                                std::thread::yield_now();
                            }
                            prescient::current_worker_index()
                        },
                        || {
                            ran_b.store(true, Ordering::Release);
                            prescient::current_worker_index()
                        },
                    )
                });
                let c = rt.counters().since(&before);
                // b reached another worker, unless a thief took a newer,
                // inner half first (thieves take the newest under `FF` and
                // `DEF`): then the inner join suspended on it, and its
                // worker may run the outer half itself meanwhile — legitimate.
                // Seen once in a full CI run under `FF` with 2 workers.
                assert!(
                    a_worker != b_worker || c.suspensions >= 1,
                    "{what}: b ran on the joiner's worker, which never suspended: {c:?}"
                );
                assert!(c.published_joins >= 1, "{what}: {c:?}");
                assert!(c.steals >= 1, "{what}: {c:?}");
            });
        }
    }
}

#[test]
fn a_first_half_may_wait_for_its_second_half_on_one_worker() {
    for policy in QueuePolicy::ALL {
        for capacity in [1, 4, 16] {
            let what = format!("policy={policy} capacity={capacity}");
            let rt = small_stack_runtime(policy, capacity, 1);
            watchdog(&what, LIMIT, || {
                let before = rt.counters();
                let event = Event::new();
                rt.run(|| prescient::join(|| event.wait(), || event.set()));
                let c = rt.counters().since(&before);
                // `a` suspended once; its worker published `b` first (one
                // push) and ran it on another stack.
                assert_eq!(c.suspensions, 1, "{what}: {c:?}");
                assert_eq!(c.published_joins, 1, "{what}: {c:?}");
                assert_eq!(c.spawns, 1, "{what}: {c:?}");
            });
        }
    }
}

/// `depth` nested joins.
fn chain(depth: u32) {
    if depth > 0 {
        prescient::join(|| chain(depth - 1), || ());
    }
}

#[test]
fn one_worker_records_at_most_eight_halves_and_publishes_none() {
    for policy in QueuePolicy::ALL {
        for capacity in [4, 16, 128] {
            let what = format!("policy={policy} capacity={capacity}");
            // The scheduler's own rule, without the inliner (which would run
            // this chain's empty second halves as plain calls).
            let rt = runtime_without_inliner(policy, capacity, 1);
            let before = rt.counters();
            rt.run(|| chain(1000));
            let c = rt.counters().since(&before);
            let recorded = capacity.min(8) as u64;
            assert_eq!(c.inlined_spawns, 1000 - recorded, "{what}: {c:?}");
            assert_eq!(c.published_joins, 0, "{what}: {c:?}");
            assert_eq!(c.spawns, 0, "{what}: {c:?}");
        }
    }
}
