//! Blocked matrix multiply `C += A B` with `nb × nb` tiles of `bs × bs`
//! (each tile contiguous, row-major): one task per tile product,
//! `in A[i][k], in B[k][j], inout C[i][j]`, submitted in `i, j, k` order, so
//! the updates of one `C` tile form an `inout` chain and different `C` tiles
//! run in parallel.

/// The three tiled matrices of one multiply.
#[derive(Clone, Debug, PartialEq)]
pub struct Problem {
    /// Tiles per dimension.
    pub nb: usize,
    /// Tile size.
    pub bs: usize,
    /// The left factor, tile by tile.
    pub a: Vec<f64>,
    /// The right factor, tile by tile.
    pub b: Vec<f64>,
    /// The accumulator (the result), tile by tile.
    pub c: Vec<f64>,
}

/// Random factors and a zero accumulator.
pub fn generate(nb: usize, bs: usize, seed: u64) -> Problem {
    let len = nb * nb * bs * bs;
    let mut state = seed;
    let a = (0..len).map(|_| super::unit_random(&mut state)).collect();
    let b = (0..len).map(|_| super::unit_random(&mut state)).collect();
    Problem {
        nb,
        bs,
        a,
        b,
        c: vec![0.0; len],
    }
}

/// `C := C + A B` on tiles.
///
/// `i`, `k`, `j` order: for each row `i` of `C` and each `k` ascending,
/// `C[i][·] += A[i][k] · B[k][·]` over contiguous rows, which vectorises;
/// every element gets its products in `k` order. Two rows of `C` at a time
/// (`i` and `i + 1`, the last row alone when `bs` is odd), so that each row
/// of `B` loaded serves both; the rows are slices taken by `chunks_exact`,
/// so the loops run without bounds checks.
///
/// # Panics
/// If a tile is shorter than `bs * bs`.
#[inline(never)]
pub fn gemm(a: &[f64], b: &[f64], c: &mut [f64], bs: usize) {
    let (a, b, c) = (&a[..bs * bs], &b[..bs * bs], &mut c[..bs * bs]);
    if bs == 0 {
        return;
    }
    let mut c_pairs = c.chunks_exact_mut(2 * bs);
    let mut a_pairs = a.chunks_exact(2 * bs);
    for (c2, a2) in (&mut c_pairs).zip(&mut a_pairs) {
        let (c0, c1) = c2.split_at_mut(bs);
        let (a0, a1) = a2.split_at(bs);
        for ((&a0k, &a1k), b_k) in a0.iter().zip(a1).zip(b.chunks_exact(bs)) {
            for ((c0j, c1j), &b_kj) in c0.iter_mut().zip(c1.iter_mut()).zip(b_k) {
                *c0j += a0k * b_kj;
                *c1j += a1k * b_kj;
            }
        }
    }
    let (c_last, a_last) = (c_pairs.into_remainder(), a_pairs.remainder());
    if !c_last.is_empty() {
        for (&a_ik, b_k) in a_last.iter().zip(b.chunks_exact(bs)) {
            for (c_ij, &b_kj) in c_last.iter_mut().zip(b_k) {
                *c_ij += a_ik * b_kj;
            }
        }
    }
}

/// The sequential reference: `C += A B`.
pub fn sequential(p: &mut Problem) {
    let (nb, tile) = (p.nb, p.bs * p.bs);
    for i in 0..nb {
        for j in 0..nb {
            for k in 0..nb {
                let (a, b) = (
                    &p.a[(i * nb + k) * tile..][..tile],
                    &p.b[(k * nb + j) * tile..][..tile],
                );
                gemm(a, b, &mut p.c[(i * nb + j) * tile..][..tile], p.bs);
            }
        }
    }
}

/// The dataflow version: one task per tile product.
pub fn dataflow(p: &mut Problem) {
    let (nb, bs) = (p.nb, p.bs);
    let Problem { a, b, c, .. } = p;
    prescient::dataflow(|df| {
        let (a, b, c) = (
            df.tiles(a, bs * bs),
            df.tiles(b, bs * bs),
            df.tiles(c, bs * bs),
        );
        for i in 0..nb {
            for j in 0..nb {
                for k in 0..nb {
                    df.task(
                        (a.read(i * nb + k), b.read(k * nb + j), c.inout(i * nb + j)),
                        move |(a, b, c): (&[f64], &[f64], &mut [f64])| gemm(a, b, c, bs),
                    );
                }
            }
        }
    });
}

/// Checks a result's `C` against the reference's (exactly).
///
/// # Errors
/// The first difference.
pub fn check(result: &Problem, reference: &Problem) -> Result<(), String> {
    super::compare_exact(&result.c, &reference.c, "matmul C")
}

/// This kernel, for the table, the criterion bench and the tests.
pub const KERNEL: super::Kernel<Problem> = super::Kernel::new(sequential, dataflow, check);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataflow_matches_sequential_and_the_definition() {
        let original = generate(3, 4, 9);
        let reference = KERNEL.verified_reference(&original);
        // Element (r, c) of A B from the definition.
        let (nb, bs) = (3, 4);
        let at = |m: &[f64], r: usize, c: usize| {
            m[((r / bs) * nb + c / bs) * bs * bs + (r % bs) * bs + c % bs]
        };
        let n = nb * bs;
        for r in 0..n {
            for c in 0..n {
                let s: f64 = (0..n)
                    .map(|k| at(&original.a, r, k) * at(&original.b, k, c))
                    .sum();
                assert!((s - at(&reference.c, r, c)).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn gemm_matches_the_plain_loops_bit_for_bit() {
        let mut state = 3;
        for bs in [0, 1, 2, 3, 5, 8, 13, 64] {
            let [a, b, c] = [0; 3].map(|_| {
                (0..bs * bs)
                    .map(|_| crate::dataflow::unit_random(&mut state))
                    .collect::<Vec<f64>>()
            });
            let mut got = c.clone();
            gemm(&a, &b, &mut got, bs);
            let mut want = c;
            for i in 0..bs {
                for k in 0..bs {
                    for j in 0..bs {
                        want[i * bs + j] += a[i * bs + k] * b[k * bs + j];
                    }
                }
            }
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&got), bits(&want), "bs {bs}");
        }
    }
}
