//! Delannoy numbers by naive tree recursion, annotated with
//! `#[task_program]`: the CF'17 suite's `delannoy`.
//!
//! The Delannoy number `D(m, n)` counts the lattice paths from `(0, 0)` to
//! `(m, n)` with steps east, north and north-east. The program computes it
//! the naive way, `D(m, n) = D(m - 1, n) + D(m, n - 1) + D(m - 1, n - 1)`
//! with `D(0, n) = D(m, 0) = 1`, without memoisation and without a cut-off:
//! a ternary tree of `(D(m, n) - 1) / 2` inner calls, each a three-way fork,
//! and `(D(m, n) + 1) / 2` leaves returning 1. The paper's input is
//! `m = n = 11` ([`PAPER_N`]): `D(11, 11) = 45 046 719`, about 22.5 million
//! forks and 67.5 million calls, tasks as fine as fib's.
//!
//! **Parallel structure.** The three calls are forked with two nested
//! [`prescient::join`]s, `join(|| join(|| D(m - 1, n), || D(m, n - 1)), ||
//! D(m - 1, n - 1))`, the sum's own shape `(a + b) + c`. Join rather than a
//! scope: each call returns a value and the three are summed, so join's pair
//! of results reads naturally, where a scope would need three `&mut` result
//! slots written from spawned closures; and join is the runtime's cheapest
//! fork (the calling worker runs the first closure itself, on its own
//! stack), which matters for a task tree this fine. Of the two nestings the
//! left one was also the faster on the development host (2 cores, release,
//! `D(11, 11)` under [`PARAMS`]): 1.32–1.39 × the sequential time on one
//! worker and 0.74–0.79 × on two, against 1.50–1.58 × and 0.78–0.84 × for
//! `join(|| D(m - 1, n), || join(|| D(m, n - 1), || D(m - 1, n - 1)))`.
//!
//! **What the analysis finds.** One task context, [`delannoy`], with two
//! join sites (the inner one nested in the outer's first task); the three
//! task bodies each call `delannoy` back: three recursive parallel paths,
//! ρ = 3, and no spawn in a loop, λ = 0. A task is a call plus an argument
//! computation, a tiny effort far below the 1M-operation coarse band.
//! CF'17's decision trees would give queue policy `DEF` (ρ = 3 ≤ 5, effort
//! ≤ 1M), queue capacity 4 (ρ > 0, fine-grained) and 256019 dependency
//! buckets (ρ > 0): the recursive class of fib. The calibrated trees
//! (`PARAMS`) give `BF`, capacity 32 (effort 13 < 7667: fine or opaque
//! tasks, BF/32) and the same buckets. The recursion decrements its
//! arguments (`m + n` levels deep), a depth the analysis cannot bound, so the
//! stack estimate is the conservative 8 MiB (the runtime's default), as for
//! fib.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential references are [`delannoy_seq`] (the
//! same recursion without a runtime, what a speed-up is measured against)
//! and [`delannoy_dp`] (a dynamic program in `u128`, the expected result of
//! every run); [`delannoy_closed`] is the closed form
//! `Σ_k C(m, k) C(n, k) 2^k` that checks them.

use std::hint::black_box;

pub use tasks::{delannoy, ANALYSIS, PARAMS};

/// The paper's input: `D(11, 11)` (= 45 046 719).
pub const PAPER_N: u64 = 11;

/// The `n` of `D(n, n)` the integration tests run under both build profiles
/// (`D(9, 9)` = 1 462 563: about 730 thousand forks).
pub const TEST_N: u64 = 9;

/// `D(n, n)` for `n = 0 ..= 12` (index `n`), the central Delannoy numbers
/// (OEIS A001850): e.g. 63 for `n = 3`, 45 046 719 for `n = 11`.
pub const CENTRAL: [u64; 13] = [
    1,
    3,
    13,
    63,
    321,
    1_683,
    8_989,
    48_639,
    265_729,
    1_462_563,
    8_097_453,
    45_046_719,
    251_595_969,
];

/// The sequential reference: the same recursion without a runtime
/// ([`black_box`] keeps LLVM from memoising or unrolling it into a loop).
pub fn delannoy_seq(m: u64, n: u64) -> u64 {
    if m == 0 || n == 0 {
        return 1;
    }
    delannoy_seq(black_box(m - 1), n)
        + delannoy_seq(m, black_box(n - 1))
        + delannoy_seq(black_box(m - 1), black_box(n - 1))
}

/// `D(m, n)` by dynamic programming over the `(m + 1) × (n + 1)` lattice, one
/// row at a time: the expected result of every run.
///
/// # Panics
/// If the result does not fit in a `u128` (far beyond any input the
/// recursion could finish).
pub fn delannoy_dp(m: u64, n: u64) -> u128 {
    let width = usize::try_from(n).expect("delannoy_dp: n fits in memory") + 1;
    let mut row = vec![1u128; width]; // D(0, j) = 1
    for _ in 0..m {
        let mut diagonal = row[0]; // D(i - 1, j - 1)
        for j in 1..width {
            let up = row[j]; // D(i - 1, j)
            row[j] = up
                .checked_add(row[j - 1]) // D(i, j - 1)
                .and_then(|s| s.checked_add(diagonal))
                .expect("delannoy_dp: D(m, n) overflows u128");
            diagonal = up;
        }
        // row[0] = D(i, 0) = 1 stays.
    }
    row[width - 1]
}

/// `D(m, n)` by the closed form `Σ_{k=0}^{min(m, n)} C(m, k) C(n, k) 2^k`, in
/// `u128` (for `m, n ≤ 40`; larger inputs may overflow).
///
/// # Panics
/// On overflow.
pub fn delannoy_closed(m: u64, n: u64) -> u128 {
    let (m, n) = (u128::from(m), u128::from(n));
    let mut sum = 0u128;
    let (mut cm, mut cn, mut pow) = (1u128, 1u128, 1u128); // C(m, k), C(n, k), 2^k
    for k in 0..=m.min(n) {
        sum = cm
            .checked_mul(cn)
            .and_then(|t| t.checked_mul(pow))
            .and_then(|t| sum.checked_add(t))
            .expect("delannoy_closed: overflow");
        cm = cm * (m - k) / (k + 1);
        cn = cn * (n - k) / (k + 1);
        pow *= 2;
    }
    sum
}

/// The task code of delannoy, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use prescient::join;

    /// `D(m, n)` by the naive recursion, forking its three calls with two
    /// nested joins at every level: `(D(m - 1, n) ‖ D(m, n - 1)) ‖ D(m - 1,
    /// n - 1)`.
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what the
    /// tests and the suite measure) or on the global runtime.
    pub fn delannoy(m: u64, n: u64) -> u64 {
        if m == 0 || n == 0 {
            return 1;
        }
        let ((a, b), c) = join(
            || join(|| delannoy(m - 1, n), || delannoy(m, n - 1)),
            || delannoy(m - 1, n - 1),
        );
        a + b + c
    }
}
