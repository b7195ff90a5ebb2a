//! End-to-end checks of `#[task_program]` on BOTS' `fft`
//! (`prescient_benches::annotated::fft`): the radix-2 transform runs under
//! its own `PARAMS` on 1, 2 and 8 workers and equals the sequential
//! reference bit for bit, the reference agrees with the naive DFT, the
//! inverse transform gives the input back, and the analysis classifies the
//! program as fib's kind:
//!
//! * four task contexts (`twiddle_table`, `fft_aux`, `unshuffle`,
//!   `combine`), each forking two recursive calls with a `join`: ρ = 2,
//!   λ = 0, tiny effort → CF'17's trees: `DEF`, capacity 4, 256019 buckets;
//!   the calibrated trees (`PARAMS`): `BF`, capacity 32 (effort 7 < 7667:
//!   fine or opaque tasks, BF/32),
//!   256019 buckets;
//! * every recursive call halves its length parameter and the recursive
//!   functions call nothing the analysis cannot see, so the stack estimate
//!   is bounded (at most 65 levels of frames, charged 16), far below the
//!   conservative 8 MiB.
//!
//! Every run uses the stack size the analysis aggregated (`PARAMS.stack_size
//! == ANALYSIS.stack_size`); a task that overflowed it would abort this
//! process with the runtime's overflow message. Run under both the debug and
//! the release test profile: the analysed stack includes the runtime's
//! per-join frame cost, which differs between them.

use prescient::__private::JOIN_FRAME_BYTES;
use prescient::analysis::{self, SiteKind, Trees};
use prescient::tuning::QueuePolicy;
use prescient::Params;
use prescient_benches::annotated::fft::{self, Complex};
use prescient_tests::{analysed_runtime, check_aggregation, watchdog};
use std::time::Duration;

/// The worker counts the program runs on.
const WORKERS: [usize; 3] = [1, 2, 8];

/// A generous bound for one run: a hang ends the process instead of the CI job.
const LIMIT: Duration = Duration::from_secs(600);

/// Whether two transforms are equal bit for bit (`-0.0` differs from `0.0`).
fn same_bits(a: &[Complex], b: &[Complex]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.re.to_bits() == y.re.to_bits() && x.im.to_bits() == y.im.to_bits())
}

#[test]
fn fft_is_recursive_with_a_bounded_stack() {
    let a = fft::ANALYSIS;
    let contexts: Vec<(&str, u32, u32)> = a
        .contexts
        .iter()
        .map(|c| (c.function, c.rho, c.lambda))
        .collect();
    assert_eq!(
        contexts,
        [
            ("twiddle_table", 2, 0),
            // Its own join, and the loops' recursions it calls.
            ("fft_aux", 6, 0),
            ("unshuffle", 2, 0),
            ("combine", 2, 0),
        ],
        "{a}"
    );
    assert_eq!(a.sites.len(), 4, "{a}");
    for site in a.sites {
        assert_eq!(site.kind, SiteKind::Join, "{a}");
        assert!(!site.in_loop, "{a}");
    }
    assert_eq!((a.rho, a.lambda), (2, 0), "minimum over the contexts\n{a}");
    assert!(
        a.effort < analysis::cf17::COARSE_EFFORT_MIN,
        "tiny effort\n{a}"
    );
    // CF'17's trees.
    let cf17 = a.params(Trees::Cf17);
    assert_eq!(
        cf17.queue_policy,
        QueuePolicy::InsertBackStealBack,
        "ρ = 2 <= 5, effort <= 1M"
    );
    assert_eq!(cf17.queue_capacity, 4);
    assert_eq!(cf17.dependency_buckets, 256_019);
    // Calibrated (`PARAMS`): effort 7 < 7667: fine or opaque tasks, BF/32;
    // buckets as CF'17.
    const P: Params = fft::PARAMS;
    assert!(a.effort < analysis::calibrated::VISIBLE_EFFORT_MIN, "{a}");
    assert_eq!(P.queue_policy, QueuePolicy::InsertBackStealFront);
    assert_eq!(P.queue_capacity, 32, "{a}");
    assert_eq!(P.dependency_buckets, 256_019);
    // Halving recursions: at most 65 levels (a `usize` halved to 0) of
    // frames that each hold a join, charged 16, not the conservative size.
    assert!(a.stack_estimate >= 16 * JOIN_FRAME_BYTES as u64, "{a}");
    assert!(
        a.stack_estimate < analysis::UNBOUNDED_STACK_ESTIMATE,
        "a bounded estimate\n{a}"
    );
    let aux = a.contexts.iter().find(|c| c.function == "fft_aux");
    assert_eq!(
        aux.map(|c| c.stack),
        Some(a.stack_estimate),
        "fft_aux calls the other recursions: the deepest stack\n{a}"
    );
    check_aggregation("fft", P, &a);
}

#[test]
fn the_sequential_reference_is_a_dft() {
    let x = fft::input(1 << fft::NAIVE_LOG2, 7);
    let got = fft::fft_seq(&x);
    let err = fft::max_relative_error(&got, &fft::dft_naive(&x));
    assert!(err < 1e-12, "fft_seq vs the naive DFT: {err:e}");
    // The constant input of BOTS: everything in bin 0.
    let ones = vec![Complex::new(1.0, 1.0); 64];
    let spectrum = fft::fft_seq(&ones);
    assert_eq!(spectrum[0], Complex::new(64.0, 64.0));
    assert!(
        spectrum[1..].iter().all(|z| z.abs() < 1e-12),
        "{spectrum:?}"
    );
    // The smallest sizes.
    assert_eq!(fft::fft_seq(&ones[..1]), [Complex::new(1.0, 1.0)]);
    let pair = [Complex::new(1.0, 2.0), Complex::new(3.0, 5.0)];
    assert_eq!(
        fft::fft_seq(&pair),
        [Complex::new(4.0, 7.0), Complex::new(-2.0, -3.0)]
    );
}

#[test]
#[should_panic(expected = "not a power of two")]
fn the_length_must_be_a_power_of_two() {
    fft::fft_seq(&fft::input(12, 1));
}

#[test]
fn fft_runs_under_its_params() {
    let n = 1usize << fft::TEST_LOG2;
    assert!(n > 4 * fft::FFT_CUTOFF && n / 2 > 4 * fft::LOOP_CUTOFF);
    let x = fft::input(n, 42);
    let expected = fft::fft_seq(&x);
    let back = fft::ifft(&expected, fft::fft_seq);
    let err = fft::max_relative_error(&back, &x);
    assert!(err < 1e-12, "sequential round trip: {err:e}");
    for workers in WORKERS {
        let rt = analysed_runtime(fft::PARAMS, &fft::ANALYSIS, workers);
        let got = watchdog(
            &format!("fft 2^{} on {workers}", fft::TEST_LOG2),
            LIMIT,
            || rt.run(|| fft::fft(&x)),
        );
        assert!(
            same_bits(&got, &expected),
            "fft on {workers} worker(s) differs from fft_seq"
        );
        let back = watchdog(&format!("inverse fft on {workers}"), LIMIT, || {
            rt.run(|| fft::ifft(&got, fft::fft))
        });
        let err = fft::max_relative_error(&back, &x);
        assert!(err < 1e-12, "round trip on {workers} worker(s): {err:e}");
    }
}

#[test]
fn small_sizes_run_under_its_params() {
    let rt = analysed_runtime(fft::PARAMS, &fft::ANALYSIS, 2);
    for log2 in 0..=10 {
        let x = fft::input(1 << log2, log2);
        let got = watchdog(&format!("fft 2^{log2}"), LIMIT, || rt.run(|| fft::fft(&x)));
        assert!(same_bits(&got, &fft::fft_seq(&x)), "2^{log2} points");
    }
}
