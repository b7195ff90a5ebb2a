//! `fib(n)` with a join at every level: the classic fine-grained fork–join
//! benchmark (BOTS' `fib` without a cut-off).
//!
//! `fib(n) = n` for `n < 2`, else `fib(n - 1) + fib(n - 2)`, the two calls
//! forked by a join. A call with `n >= 2` makes exactly one join, so `fib(n)`
//! makes [`joins(n)`](joins) `= fib(n + 1) - 1` joins (14 930 351 for
//! `n = 35`).

use std::hint::black_box;

/// The `n` the suite runs: `fib(35)`, as in the issue and in the CF'17 paper's
/// fib benchmark.
pub const SUITE_N: u64 = 35;

/// `fib(35)`, the checked result of the suite's run.
pub const FIB_35: u64 = 9_227_465;

/// `fib(n)` computed iteratively: the expected result of every variant.
///
/// Panics (at compile time in a `const`) if the result overflows `u64`
/// (`n > 93`).
pub const fn expected(n: u64) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    let mut i = 0;
    while i < n {
        let next = a + b;
        a = b;
        b = next;
        i += 1;
    }
    a
}

/// The number of joins `fib(n)` makes: one per call with `n >= 2`, which is
/// `fib(n + 1) - 1`.
pub const fn joins(n: u64) -> u64 {
    expected(n + 1) - 1
}

/// The sequential reference: plain recursion, no runtime.
pub fn fib_seq(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    fib_seq(black_box(n - 1)) + fib_seq(black_box(n - 2))
}

/// Forks the two recursive calls with [`prescient::join`].
pub fn fib_prescient(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = prescient::join(
        || fib_prescient(black_box(n - 1)),
        || fib_prescient(black_box(n - 2)),
    );
    a + b
}

/// Forks the two recursive calls with [`rayon::join`].
pub fn fib_rayon(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = rayon::join(
        || fib_rayon(black_box(n - 1)),
        || fib_rayon(black_box(n - 2)),
    );
    a + b
}

/// Forks the two recursive calls with chili's [`Scope::join`](chili::Scope::join).
pub fn fib_chili(scope: &mut chili::Scope<'_>, n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let (a, b) = scope.join(
        |s| fib_chili(s, black_box(n - 1)),
        |s| fib_chili(s, black_box(n - 2)),
    );
    a + b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::programs::test_pools::{in_chili, in_each_prescient, in_rayon};

    #[test]
    fn expected_values() {
        assert_eq!(expected(0), 0);
        assert_eq!(expected(1), 1);
        assert_eq!(expected(10), 55);
        assert_eq!(expected(SUITE_N), FIB_35);
        assert_eq!(joins(0), 0);
        assert_eq!(joins(1), 0);
        assert_eq!(joins(2), 1);
        assert_eq!(joins(SUITE_N), 14_930_351);
    }

    /// Counts the joins of the recursion directly, to check [`joins`].
    fn count_joins(n: u64) -> u64 {
        if n < 2 {
            0
        } else {
            1 + count_joins(n - 1) + count_joins(n - 2)
        }
    }

    #[test]
    fn joins_match_the_recursion() {
        for n in 0..20 {
            assert_eq!(joins(n), count_joins(n), "n = {n}");
        }
    }

    #[test]
    fn sequential_matches_expected() {
        for n in 0..25 {
            assert_eq!(fib_seq(n), expected(n), "n = {n}");
        }
    }

    #[test]
    fn prescient_matches_sequential() {
        in_each_prescient(|| {
            for n in [0, 1, 2, 10, 20] {
                assert_eq!(fib_prescient(n), fib_seq(n), "n = {n}");
            }
        });
    }

    #[test]
    fn rayon_matches_sequential() {
        in_rayon(|| {
            for n in [0, 1, 2, 10, 20] {
                assert_eq!(fib_rayon(n), fib_seq(n), "n = {n}");
            }
        });
    }

    #[test]
    fn chili_matches_sequential() {
        in_chili(|scope| {
            for n in [0, 1, 2, 10, 20] {
                assert_eq!(fib_chili(scope, n), fib_seq(n), "n = {n}");
            }
        });
    }
}
