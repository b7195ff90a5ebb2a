//! strassen under rayon and chili: [`crate::annotated::strassen`]'s
//! recursion with the same cut-off and kernels ([`multiply_block`],
//! [`quadrants`], [`sums`], [`sum_views`], [`split_products`], [`combine`]).
//!
//! Under rayon the seven products are the seven spawns of a `rayon::scope`,
//! as in the task version. chili has a two-way join only, so there they are
//! three levels of nested joins, `((M2 ‖ M5) ‖ (T1 ‖ P22)) ‖ ((P11 ‖ P12) ‖
//! P21)`. Every element goes through the same operations in the same order,
//! so both equal the sequential reference bit for bit.

use super::chili_join;

use crate::annotated::strassen::{
    check_sizes, combine, multiply_block, quadrants, split_products, sum_views, sums, Matrix, View,
};

/// `a · b` by Strassen's algorithm under rayon, blocks of at most `cutoff`
/// multiplied directly.
///
/// # Panics
/// If the sizes differ, are not a power of two, or `cutoff` is 0.
pub fn multiply_rayon(a: &Matrix, b: &Matrix, cutoff: usize) -> Matrix {
    let n = check_sizes(a, b, cutoff);
    let mut c = vec![0.0; n * n];
    strassen_rayon(n, &mut c, a.view(), b.view(), cutoff);
    Matrix::from_vec(n, c)
}

/// The task version's `strassen` with a `rayon::scope` of the seven products.
fn strassen_rayon(n: usize, c: &mut [f64], a: View, b: View, cutoff: usize) {
    if n <= cutoff {
        multiply_block(n, c, a, b);
        return;
    }
    let q = n / 2;
    let [a11, a12, a21, a22] = quadrants(a, q);
    let [b11, b12, b21, b22] = quadrants(b, q);
    let mut s = vec![0.0; 8 * q * q];
    sums(q, &mut s, [a11, a12, a21, a22], [b11, b12, b21, b22]);
    let [s1, s2, s3, s4, s5, s6, s7, s8] = sum_views(&s, q);
    let mut products = vec![0.0; 7 * q * q];
    let [m2, m5, t1, p22, p11, p12, p21] = split_products(&mut products, q);
    rayon::scope(|sc| {
        sc.spawn(move |_| strassen_rayon(q, m2, a11, b11, cutoff));
        sc.spawn(move |_| strassen_rayon(q, m5, s1, s5, cutoff));
        sc.spawn(move |_| strassen_rayon(q, t1, s2, s6, cutoff));
        sc.spawn(move |_| strassen_rayon(q, p22, s3, s7, cutoff));
        sc.spawn(move |_| strassen_rayon(q, p11, a12, b21, cutoff));
        sc.spawn(move |_| strassen_rayon(q, p12, s4, b22, cutoff));
        sc.spawn(move |_| strassen_rayon(q, p21, a22, s8, cutoff));
    });
    combine(q, c, &products);
}

/// `a · b` by Strassen's algorithm on a chili scope, blocks of at most
/// `cutoff` multiplied directly.
///
/// # Panics
/// If the sizes differ, are not a power of two, or `cutoff` is 0.
pub fn multiply_chili(
    scope: &mut chili::Scope<'_>,
    a: &Matrix,
    b: &Matrix,
    cutoff: usize,
) -> Matrix {
    let n = check_sizes(a, b, cutoff);
    let mut c = vec![0.0; n * n];
    strassen_chili(scope, n, &mut c, a.view(), b.view(), cutoff);
    Matrix::from_vec(n, c)
}

/// The task version's `strassen` with the seven products as nested chili
/// joins.
fn strassen_chili(
    scope: &mut chili::Scope<'_>,
    n: usize,
    c: &mut [f64],
    a: View,
    b: View,
    cutoff: usize,
) {
    if n <= cutoff {
        multiply_block(n, c, a, b);
        return;
    }
    let q = n / 2;
    let [a11, a12, a21, a22] = quadrants(a, q);
    let [b11, b12, b21, b22] = quadrants(b, q);
    let mut s = vec![0.0; 8 * q * q];
    sums(q, &mut s, [a11, a12, a21, a22], [b11, b12, b21, b22]);
    let [s1, s2, s3, s4, s5, s6, s7, s8] = sum_views(&s, q);
    let mut products = vec![0.0; 7 * q * q];
    let [m2, m5, t1, p22, p11, p12, p21] = split_products(&mut products, q);
    chili_join(
        scope,
        |s| {
            chili_join(
                s,
                |s| {
                    chili_join(
                        s,
                        |s| strassen_chili(s, q, m2, a11, b11, cutoff),
                        |s| strassen_chili(s, q, m5, s1, s5, cutoff),
                    )
                },
                |s| {
                    chili_join(
                        s,
                        |s| strassen_chili(s, q, t1, s2, s6, cutoff),
                        |s| strassen_chili(s, q, p22, s3, s7, cutoff),
                    )
                },
            )
        },
        |s| {
            chili_join(
                s,
                |s| {
                    chili_join(
                        s,
                        |s| strassen_chili(s, q, p11, a12, b21, cutoff),
                        |s| strassen_chili(s, q, p12, s4, b22, cutoff),
                    )
                },
                |s| strassen_chili(s, q, p21, a22, s8, cutoff),
            )
        },
    );
    combine(q, c, &products);
}
