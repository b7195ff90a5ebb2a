//! End-to-end checks of `#[task_program]` on BOTS' `strassen`
//! (`prescient_benches::annotated::strassen`): the multiplication runs under
//! its own `PARAMS` on 1, 2 and 8 workers and equals the sequential
//! reference bit for bit, the reference agrees with the naive product within
//! BOTS' tolerance, and the analysis finds:
//!
//! * one task context, `strassen`, with seven scope spawns (none in a loop),
//!   each recursing: ρ = 7, λ = 0 → CF'17's trees: `PF` (ρ > 5), capacity 4
//!   (small tasks), 256019 buckets; the calibrated trees (`PARAMS`): `BF`,
//!   capacity 32 (effort 3 < 7667: fine or opaque tasks, BF/32 — the
//!   products are opaque calls), 256019
//!   buckets;
//! * the conservative 8 MiB stack: the `scope` call inside the recursion is
//!   a call the analysis cannot see, so the halving of the size does not
//!   bound it.
//!
//! Every run uses the stack size the analysis aggregated (`PARAMS.stack_size
//! == ANALYSIS.stack_size`).

use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::strassen::{self, Matrix};
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(600);

/// Whether two matrices are equal bit for bit.
fn same_bits(a: &Matrix, b: &Matrix) -> bool {
    a.n() == b.n()
        && a.data()
            .iter()
            .zip(b.data())
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

#[test]
fn strassen_recurses_seven_ways() {
    let a = strassen::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "strassen", "{a}");
    assert_eq!(a.sites.len(), 7, "the seven products\n{a}");
    for site in a.sites {
        assert_eq!(site.kind, SiteKind::ScopeSpawn, "{a}");
        assert!(!site.in_loop, "{a}");
        assert_eq!(site.function, "strassen", "{a}");
    }
    assert_eq!((a.rho, a.lambda), (7, 0), "{a}");
    assert!(
        a.effort < analysis::cf17::COARSE_EFFORT_MIN,
        "small tasks\n{a}"
    );
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertFrontStealBack,
        "ρ = 7 > 5"
    );
    assert_eq!(cf17.queue_capacity, 4, "ρ > 0, effort <= 1M");
    assert_eq!(cf17.dependency_buckets, 256_019);
    // Calibrated (`PARAMS`): effort 3 < 7667: fine or opaque tasks, BF/32 (the
    // seven products are calls the analysis cannot see); buckets as CF'17.
    const P: Params = strassen::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    // `scope(…)` in the recursion: the conservative size.
    assert_eq!(a.committed_stack_size, 0, "{a}");
    check_aggregation("strassen", P, &a);
}

#[test]
fn the_sequential_reference_multiplies() {
    let (n, cutoff) = (strassen::TEST_N, strassen::TEST_CUTOFF);
    let a = Matrix::random(n, 1);
    let b = Matrix::random(n, 2);
    let naive = strassen::naive_multiply(&a, &b);
    let got = strassen::strassen_seq(&a, &b, cutoff);
    let err = strassen::max_relative_error(&got, &naive);
    assert!(err < strassen::EPSILON, "strassen_seq vs naive: {err:e}");
    assert!(err < 1e-12, "strassen_seq vs naive: {err:e}");
    // At or below the cut-off: the direct product alone.
    let direct = strassen::strassen_seq(&a, &b, n);
    assert!(strassen::max_relative_error(&direct, &naive) < 1e-13);
    // A small case by hand: [[1, 2], [3, 4]]² = [[7, 10], [15, 22]].
    let m = Matrix::from_vec(2, vec![1.0, 2.0, 3.0, 4.0]);
    let m = strassen::strassen_seq(&m, &m, 1);
    assert_eq!(m.data(), [7.0, 10.0, 15.0, 22.0]);
}

#[test]
#[should_panic(expected = "not a power of two")]
fn the_size_must_be_a_power_of_two() {
    let a = Matrix::random(6, 1);
    strassen::strassen_seq(&a, &a, 2);
}

#[test]
fn strassen_runs_under_its_params() {
    let (n, cutoff) = (strassen::TEST_N, strassen::TEST_CUTOFF);
    let a = Matrix::random(n, 3);
    let b = Matrix::random(n, 4);
    let expected = strassen::strassen_seq(&a, &b, cutoff);
    for workers in WORKERS {
        let rt = analysed_runtime(strassen::PARAMS, &strassen::ANALYSIS, workers);
        let got = watchdog(&format!("strassen {n} on {workers}"), LIMIT, || {
            rt.run(|| strassen::multiply(&a, &b, cutoff))
        });
        assert!(
            same_bits(&got, &expected),
            "strassen on {workers} worker(s) differs from strassen_seq"
        );
    }
    // BOTS' cut-off: one level of tasks at this size.
    let rt = analysed_runtime(strassen::PARAMS, &strassen::ANALYSIS, 2);
    let got = watchdog("strassen, BOTS' cut-off", LIMIT, || {
        rt.run(|| strassen::multiply(&a, &b, strassen::BOTS_CUTOFF))
    });
    assert!(same_bits(
        &got,
        &strassen::strassen_seq(&a, &b, strassen::BOTS_CUTOFF)
    ));
}
