//! End-to-end checks of `#[task_program]` on the CF'17 suite's `delannoy`
//! (`prescient_benches::annotated::delannoy`): the naive Delannoy recursion
//! with a three-way fork (two nested joins) at every level.
//!
//! * The references agree: the dynamic program, the closed form, the naive
//!   sequential recursion and the table of central Delannoy numbers
//!   (`D(11, 11)`, the paper's input, is 45 046 719).
//! * The analysis classifies it as fib: one context, ρ = 3 (three calls back
//!   into `delannoy` from task bodies), λ = 0, tiny effort → CF'17's trees:
//!   `DEF`, capacity 4, 256019 buckets; the calibrated trees (`PARAMS`):
//!   `BF`, capacity 32 (effort 13 < 7667: fine or opaque tasks, BF/32),
//!   256019 buckets; the decrementing
//!   recursion gets the conservative 8 MiB stack.
//! * It runs correctly under its own `PARAMS` on 1, 2 and 8 workers, on the
//!   stack size the analysis aggregated (an overflow would abort this process
//!   with the runtime's overflow message).
//!
//! Runs in well under a second in the debug profile.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::delannoy;
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(120);

#[test]
fn the_references_agree() {
    for (n, &d) in (0u64..).zip(delannoy::CENTRAL.iter()) {
        assert_eq!(delannoy::delannoy_dp(n, n), u128::from(d), "D({n}, {n})");
        assert_eq!(
            delannoy::delannoy_closed(n, n),
            u128::from(d),
            "D({n}, {n})"
        );
    }
    assert_eq!(
        delannoy::delannoy_dp(11, 11),
        45_046_719,
        "the paper's input"
    );
    assert_eq!(delannoy::delannoy_dp(9, 9), 1_462_563);
    assert_eq!(delannoy::delannoy_dp(2, 3), 25);
    for m in 0..=30 {
        for n in 0..=30 {
            let d = delannoy::delannoy_dp(m, n);
            assert_eq!(d, delannoy::delannoy_closed(m, n), "D({m}, {n})");
            assert_eq!(d, delannoy::delannoy_dp(n, m), "D is symmetric");
        }
    }
    for m in 0..=7 {
        for n in 0..=7 {
            let seq = delannoy::delannoy_seq(m, n);
            assert_eq!(u128::from(seq), delannoy::delannoy_dp(m, n), "D({m}, {n})");
        }
    }
}

#[test]
fn delannoy_is_recursive_with_tiny_tasks() {
    let a = delannoy::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "delannoy", "{a}");
    assert_eq!(a.sites.len(), 2, "outer and inner join\n{a}");
    for site in a.sites {
        assert_eq!(site.kind, SiteKind::Join, "{a}");
        assert!(!site.in_loop, "{a}");
        assert_eq!(site.function, "delannoy", "{a}");
    }
    assert_eq!((a.rho, a.lambda), (3, 0), "three calls back, no loop\n{a}");
    assert!(
        a.effort < analysis::cf17::COARSE_EFFORT_MIN,
        "tiny effort\n{a}"
    );
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 3 <= 5, effort <= 1M"
    );
    assert_eq!(cf17.queue_capacity, 4);
    assert_eq!(cf17.dependency_buckets, 256_019);
    // Calibrated (`PARAMS`): effort 13 < 7667: fine or opaque tasks, BF/32;
    // buckets as CF'17.
    const P: Params = delannoy::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    // `delannoy(m - 1, n)`: an unbounded recursion depth, the conservative size.
    assert!(a.stack_estimate >= 64 * JOIN_FRAME_BYTES as u64, "{a}");
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("delannoy", P, &a);
    assert!(
        a.module.ends_with("annotated::delannoy::tasks"),
        "{}",
        a.module
    );
}

#[test]
fn delannoy_runs_under_its_params() {
    let n = delannoy::TEST_N;
    // A square and an oblong input (the recursion is not symmetric in its
    // fork order).
    for (m, n) in [(n, n), (n + 1, n - 3)] {
        let expected = delannoy::delannoy_seq(m, n);
        assert_eq!(u128::from(expected), delannoy::delannoy_dp(m, n));
        for workers in WORKERS {
            let rt = analysed_runtime(delannoy::PARAMS, &delannoy::ANALYSIS, workers);
            let got = watchdog(&format!("delannoy({m}, {n}) on {workers}"), LIMIT, || {
                rt.run(|| delannoy::delannoy(m, n))
            });
            assert_eq!(got, expected, "D({m}, {n}) on {workers} worker(s)");
        }
    }
}
