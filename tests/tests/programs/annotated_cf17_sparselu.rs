//! End-to-end checks of `#[task_program]` on BOTS' `sparselu`, task version
//! (`prescient_benches::annotated::sparselu`): the factorisation runs under
//! its own `PARAMS` on 1, 2 and 8 workers and equals the sequential
//! reference bit for bit (blocks and fill-in), and the analysis finds:
//!
//! * one task context, `sparselu`, with three scope spawns (`fwd`, `bdiv`,
//!   `bmod`), all in loops and none recursing: ρ = 0, λ = 3, the loop-like
//!   class → CF'17's trees: capacity 128, 97 buckets;
//! * a small effort (the kernels are calls to another module, opaque to the
//!   analysis) → CF'17's `DEF`;
//! * the calibrated trees (`PARAMS`): `BF`, capacity 32 (the mean effort:
//!   effort 12 < 7667: fine or opaque tasks, BF/32), 97 buckets;
//! * no recursion, so a stack estimate from the frames, not the
//!   conservative 8 MiB.
//!
//! Every run uses the stack size the analysis aggregated (`PARAMS.stack_size
//! == ANALYSIS.stack_size`).

use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::sparselu::{self, Matrix};
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(600);

/// The factorisation of the BOTS matrix of `nb × nb` blocks of `bs × bs` by
/// the sequential reference.
fn reference(nb: usize, bs: usize) -> Matrix {
    let mut m = sparselu::generate(nb, bs);
    sparselu::sparselu_seq(&mut m);
    m
}

#[test]
fn sparselu_is_loop_like() {
    let a = sparselu::ANALYSIS;
    assert_eq!(a.contexts.len(), 1, "{a}");
    assert_eq!(a.contexts[0].function, "sparselu", "{a}");
    assert_eq!(a.sites.len(), 3, "fwd, bdiv and bmod\n{a}");
    for site in a.sites {
        assert_eq!(site.kind, SiteKind::ScopeSpawn, "{a}");
        assert!(site.in_loop, "{a}");
        assert_eq!(site.function, "sparselu", "{a}");
    }
    assert_eq!((a.rho, a.lambda), (0, 3), "{a}");
    assert!(
        a.effort < analysis::cf17::COARSE_EFFORT_MIN,
        "opaque kernels\n{a}"
    );
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 0, effort <= 1M"
    );
    assert_eq!(cf17.queue_capacity, 128, "ρ = 0, λ > 0: the loop rule");
    assert_eq!(cf17.dependency_buckets, 97, "ρ = 0");
    // Calibrated (`PARAMS`): effort 12 < 7667: fine or opaque tasks, BF/32
    // (the loop bookkeeping around the opaque kernel calls), not CF'17's loop
    // rule; buckets as CF'17.
    const P: Params = sparselu::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 97);
    // No recursion: the frames, not the conservative size (whether they
    // reach the smallest commitment depends on the profile's join frame).
    assert!(a.stack_estimate < analysis::UNBOUNDED_STACK_ESTIMATE, "{a}");
    check_aggregation("sparselu", P, &a);
}

#[test]
fn the_sequential_reference_factorises() {
    let (nb, bs) = (6, 4);
    let original = sparselu::generate(nb, bs);
    let factored = reference(nb, bs);
    // BOTS' pattern fills in: more blocks present after the factorisation.
    let count = |m: &Matrix| m.present.iter().filter(|&&p| p).count();
    assert!(count(&factored) > count(&original));
    // L · U (L unit lower triangular, U upper, both from the factored
    // blocks) gives back the original matrix, within f32 rounding.
    let n = nb * bs;
    let at = |m: &Matrix, r: usize, c: usize| {
        let (bi, bj) = (r / bs, c / bs);
        m.blocks[(bi * nb + bj) * bs * bs + (r % bs) * bs + c % bs]
    };
    for r in 0..n {
        for c in 0..n {
            let mut s = 0.0f64;
            for k in 0..=r.min(c) {
                let l = if k == r {
                    1.0
                } else {
                    f64::from(at(&factored, r, k))
                };
                s += l * f64::from(at(&factored, k, c));
            }
            let want = f64::from(at(&original, r, c));
            assert!(
                (s - want).abs() <= 1e-3 * (1.0 + want.abs()),
                "L·U ({r}, {c}) = {s}, the matrix has {want}"
            );
        }
    }
}

#[test]
fn sparselu_runs_under_its_params() {
    let (nb, bs) = (sparselu::TEST_NB, sparselu::TEST_BS);
    let expected = reference(nb, bs);
    assert!(sparselu::task_count(&sparselu::generate(nb, bs)) > 100);
    for workers in WORKERS {
        let rt = analysed_runtime(sparselu::PARAMS, &sparselu::ANALYSIS, workers);
        let mut m = sparselu::generate(nb, bs);
        watchdog(&format!("sparselu {nb}×{bs} on {workers}"), LIMIT, || {
            rt.run(|| sparselu::sparselu(&mut m))
        });
        assert!(
            sparselu::same_bits(&m, &expected),
            "sparselu on {workers} worker(s) differs from sparselu_seq"
        );
        assert_eq!(sparselu::check(&m, &expected), Ok(()));
    }
    // Odd sizes: a single block, and blocks of one element.
    for (nb, bs) in [(1, 5), (7, 1), (0, 3)] {
        let rt = analysed_runtime(sparselu::PARAMS, &sparselu::ANALYSIS, 2);
        let mut m = sparselu::generate(nb, bs);
        watchdog(&format!("sparselu {nb}×{bs}"), LIMIT, || {
            rt.run(|| sparselu::sparselu(&mut m))
        });
        assert!(sparselu::same_bits(&m, &reference(nb, bs)), "{nb}×{bs}");
    }
}

#[test]
#[should_panic(expected = "block size 0")]
fn the_block_size_must_not_be_zero() {
    let mut m = sparselu::generate(3, 0);
    sparselu::sparselu(&mut m);
}
