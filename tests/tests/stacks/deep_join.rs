//! 10,000-deep nested joins on a runtime whose `stack_size` fits them.
//!
//! The per-level stack cost is measured, not assumed: every level's frame
//! address is compared with the root's. A join records its `b` as latent (a
//! `join_deferred` frame) only while its worker holds fewer than eight
//! latent joins and fewer than `queue_capacity` jobs in all; past that it is
//! a plain `(a(), b())`. So the deferred cost is measured on a chain of
//! [`RECORDED`] levels, where every level records, and the inline cost on
//! 1,000.
//!
//! Measured on x86-64 with rustc 1.95 (`measure_per_level_cost` prints it,
//! run with `--nocapture`), bytes of task stack per nesting level of
//! `fn deep(n) { join(|| deep(n - 1), || ()) }`:
//!
//! | profile | every join deferred | inline | plain call of the same shape |
//! |---|---|---|---|
//! | debug   | 448 | 114 | 32 |
//! | release | 144 | 1 (the inline path is a loop after inlining) | 0 (tail call) |
//!
//! So 10,000 deferred levels need ~4.3 MiB in debug, under `MAX_STACK_SIZE`
//! (8 MiB), and ~1.4 MiB in release.
//!
//! The inline cost is *not* a safe basis for a stack size on more than one
//! worker: every latent join another worker asks for is published, which
//! makes room for the next level to record again, so a 10,000-deep recursion
//! on two workers can take the deferred path at most levels. A stack sized
//! from the inline cost (4 MiB here) overflowed in about a third of the runs.
//! Stack estimates (the analyzer's included) must use the deferred cost. The tests
//! below measure the cost in the build they run in and size `stack_size`
//! from it (+5 % and 64 KiB, rounded up to a power of two), so they stay
//! right when the join frame changes — and fail loudly if 10,000 levels stop
//! fitting in 8 MiB.

use prescient::tuning::{QueuePolicy, MAX_QUEUE_CAPACITY};
use prescient::{Params, Runtime};
use prescient_tests::watchdog;
use std::cell::Cell;
use std::time::Duration;

const DEPTH: u32 = 10_000;

/// A chain this short records every level (the runtime keeps at most eight
/// latent joins per worker, and the capacities here are at least 16).
const RECORDED: u32 = 8;

thread_local! {
    /// The address of a local at the deepest level of the last recursion on
    /// this thread (the whole `a` chain of a join recursion runs on one
    /// thread, on one stack).
    static LEAF: Cell<usize> = const { Cell::new(0) };
}

#[inline(never)]
fn leaf() {
    let marker = std::hint::black_box(0u8);
    LEAF.set(&marker as *const u8 as usize);
}

/// `n` nested joins.
#[inline(never)]
fn deep_join(n: u32) {
    if n == 0 {
        return leaf();
    }
    prescient::join(|| deep_join(n - 1), || ());
}

/// `n` nested plain calls of the same shape, for the baseline.
#[inline(never)]
fn deep_plain(n: u32) {
    if n == 0 {
        return leaf();
    }
    std::hint::black_box(deep_plain)(n - 1);
}

/// Bytes of stack per level of `f(depth)`, over `f(0)` (the frames around
/// the recursion do not count).
fn per_level_of(f: fn(u32), depth: u32) -> usize {
    let depth_of = |levels: u32| {
        let marker = std::hint::black_box(0u8);
        let top = &marker as *const u8 as usize;
        f(levels);
        let leaf = LEAF.get();
        assert!(top > leaf, "the stack grows down");
        top - leaf
    };
    let base = depth_of(0);
    (depth_of(depth) - base) / depth as usize
}

fn runtime(policy: QueuePolicy, capacity: usize, stack: usize, workers: usize) -> Runtime {
    Runtime::builder()
        .params(
            Params::DEFAULT
                .with_queue_policy(policy)
                .with_queue_capacity(capacity)
                .with_stack_size(stack),
        )
        .num_workers(workers)
        .build()
        .unwrap()
}

#[test]
fn measure_per_level_cost() {
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    for (name, depth) in [("deferred", RECORDED), ("inline", 1000)] {
        for policy in QueuePolicy::ALL {
            let rt = runtime(policy, 16, 8 << 20, 1);
            let cost = watchdog("measure", Duration::from_secs(30), || {
                rt.run(|| per_level_of(deep_join, depth))
            });
            let plain = rt.run(|| per_level_of(deep_plain, 1000));
            eprintln!("{profile} {name} {policy}: {cost} bytes per nesting level ({plain} for a plain call)");
        }
    }
}

/// The `stack_size` that fits `DEPTH` levels of `deep_join` under these
/// params, from the deferred cost per level (measured on [`RECORDED`]
/// levels).
fn fitting_stack_size(policy: QueuePolicy, capacity: usize) -> (usize, usize) {
    fitting_stack_size_of(deep_join, policy, capacity)
}

fn fitting_stack_size_of(f: fn(u32), policy: QueuePolicy, capacity: usize) -> (usize, usize) {
    let rt = runtime(policy, capacity, 8 << 20, 1);
    let cost = watchdog("measure", Duration::from_secs(30), || {
        rt.run(|| per_level_of(f, RECORDED))
    });
    let needed = cost * DEPTH as usize * 21 / 20 + (64 << 10);
    let stack = needed
        .next_power_of_two()
        .max(prescient::tuning::MIN_STACK_SIZE);
    assert!(
        stack <= prescient::tuning::MAX_STACK_SIZE,
        "{DEPTH} levels at {cost} bytes per level need {needed} bytes: more than MAX_STACK_SIZE"
    );
    (cost, stack)
}

#[test]
fn ten_thousand_deep_joins() {
    for (name, capacity) in [("deferred", MAX_QUEUE_CAPACITY), ("lazy", 16)] {
        for policy in QueuePolicy::ALL {
            // Sized for the deferred cost even under the lazy capacity: a
            // thief that steals from the deque re-opens room in it, so on
            // more than one worker any number of levels may take the
            // deferred path (a 4 MiB stack sized from the inline cost
            // overflowed here in about one run in three).
            let (cost, stack) = fitting_stack_size(policy, MAX_QUEUE_CAPACITY);
            for workers in [1, 2] {
                let what = format!(
                    "{DEPTH} deep, {name} policy={policy} workers={workers}: \
                     {cost} bytes/level, stack_size {stack}"
                );
                let rt = runtime(policy, capacity, stack, workers);
                watchdog(&what, Duration::from_secs(60), || {
                    let used = rt.run(|| per_level_of(deep_join, DEPTH)) * DEPTH as usize;
                    assert!(used < stack, "{what}: used {used}");
                    let c = rt.counters();
                    // Every job pushed was a published join, at most one per
                    // level. On one worker nobody asks, so none is published:
                    // the first `RECORDED` levels record, the rest run inline.
                    assert_eq!(c.spawns, c.published_joins, "{what}: {c:?}");
                    assert!(c.published_joins <= u64::from(DEPTH), "{what}: {c:?}");
                    if workers == 1 {
                        assert_eq!(c.published_joins, 0, "{what}: {c:?}");
                        assert_eq!(
                            c.inlined_spawns,
                            u64::from(DEPTH - RECORDED),
                            "{what}: {c:?}"
                        );
                    }
                });
            }
        }
    }
}

/// Two 10,000-deep chains joined side by side, on several workers: the deep
/// stacks of both sides are live at once (the thief's side runs on its own
/// stack), and their results come back right.
/// Two 10,000-deep chains joined side by side, on two workers: when the
/// second chain is stolen, both deep stacks are live at once on different
/// workers.
#[test]
fn two_deep_chains_in_parallel() {
    let (cost, stack) = fitting_stack_size(QueuePolicy::InsertBackStealBack, MAX_QUEUE_CAPACITY);
    for policy in QueuePolicy::ALL {
        let rt = runtime(policy, MAX_QUEUE_CAPACITY, stack, 2);
        let what = format!("two chains policy={policy}: {cost} bytes/level, stack_size {stack}");
        watchdog(&what, Duration::from_secs(60), || {
            let before = rt.counters();
            rt.run(|| prescient::join(|| deep_join(DEPTH), || deep_join(DEPTH)));
            let c = rt.counters().since(&before);
            assert_eq!(c.spawns, c.published_joins, "{what}: {c:?}");
        });
    }
}
