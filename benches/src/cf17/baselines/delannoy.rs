//! delannoy under rayon and chili: [`crate::annotated::delannoy`]'s naive
//! recursion, its three calls forked by the same two nested joins, `(D(m - 1,
//! n) ‖ D(m, n - 1)) ‖ D(m - 1, n - 1)`, with `prescient::join` replaced by
//! `rayon::join` or chili's `Scope::join`.

use super::chili_join;

/// `D(m, n)`, the three calls forked by two nested `rayon::join`s.
pub fn delannoy_rayon(m: u64, n: u64) -> u64 {
    if m == 0 || n == 0 {
        return 1;
    }
    let ((a, b), c) = rayon::join(
        || rayon::join(|| delannoy_rayon(m - 1, n), || delannoy_rayon(m, n - 1)),
        || delannoy_rayon(m - 1, n - 1),
    );
    a + b + c
}

/// `D(m, n)`, the three calls forked by two nested chili joins.
pub fn delannoy_chili(scope: &mut chili::Scope<'_>, m: u64, n: u64) -> u64 {
    if m == 0 || n == 0 {
        return 1;
    }
    let ((a, b), c) = chili_join(
        scope,
        |s| {
            chili_join(
                s,
                |s| delannoy_chili(s, m - 1, n),
                |s| delannoy_chili(s, m, n - 1),
            )
        },
        |s| delannoy_chili(s, m - 1, n - 1),
    );
    a + b + c
}
