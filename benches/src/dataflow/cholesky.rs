//! Blocked Cholesky factorisation `A = L Lᵀ` of a symmetric positive
//! definite matrix, as the OmpSs / OpenMP task versions write it:
//!
//! ```text
//! for k:  potrf(A[k][k])                                  inout A[k][k]
//!         for i > k:  trsm(A[k][k], A[i][k])              in A[k][k], inout A[i][k]
//!         for i > k:  for k < j < i: gemm(A[i][k], A[j][k], A[i][j])
//!                                                          in A[i][k], A[j][k], inout A[i][j]
//!                     syrk(A[i][k], A[i][i])              in A[i][k], inout A[i][i]
//! ```
//!
//! The matrix is stored tile by tile (`nb × nb` tiles of `bs × bs`, each tile
//! contiguous and row-major), one dependency region per tile; only the lower
//! triangle of tiles is used. The kernels are plain loops (no BLAS): the
//! point is the task graph, not the flop rate. They are written over row
//! slices, and `gemm_nt` and `trsm` several dot products at a time, so that
//! the compiler keeps bounds checks out of the loops and runs independent
//! chains side by side; each element's operations and their order are
//! those of the one-element-at-a-time loops (the tests compare them bit for
//! bit), and the C/C++ peers' copies have the same loops. The kernels are
//! `#[inline(never)]`, so the sequential reference and the tasks run the same
//! machine code.

/// A tiled `n × n` matrix, `n = nb * bs`.
#[derive(Clone, Debug, PartialEq)]
pub struct Tiled {
    /// Tiles per dimension.
    pub nb: usize,
    /// Tile size (rows = columns).
    pub bs: usize,
    /// `nb * nb` tiles of `bs * bs` values, tile `(i, j)` at `(i * nb + j) * bs * bs`.
    pub data: Vec<f64>,
}

impl Tiled {
    /// The element at row `r`, column `c` of the whole matrix.
    pub fn get(&self, r: usize, c: usize) -> f64 {
        let (bs, nb) = (self.bs, self.nb);
        self.data[((r / bs) * nb + c / bs) * bs * bs + (r % bs) * bs + c % bs]
    }

    fn set(&mut self, r: usize, c: usize, value: f64) {
        let (bs, nb) = (self.bs, self.nb);
        self.data[((r / bs) * nb + c / bs) * bs * bs + (r % bs) * bs + c % bs] = value;
    }
}

/// A symmetric, diagonally dominant (hence positive definite) matrix.
pub fn generate(nb: usize, bs: usize, seed: u64) -> Tiled {
    let n = nb * bs;
    let mut m = Tiled {
        nb,
        bs,
        data: vec![0.0; n * n],
    };
    let mut state = seed;
    for r in 0..n {
        for c in 0..=r {
            let v = super::unit_random(&mut state);
            m.set(r, c, v);
            m.set(c, r, v);
        }
        m.set(r, r, n as f64 + 1.0);
    }
    m
}

/// Cholesky of one diagonal tile, in place (lower triangle; the upper
/// triangle is left as it was).
///
/// Column by column (`j`), the diagonal element then the ones below it, each
/// a dot product over the row prefixes `k < j`, `k` ascending; the rows are
/// slices taken once per column, so the dot products run without bounds
/// checks.
///
/// # Panics
/// If `a` is shorter than `bs * bs`.
#[inline(never)]
pub fn potrf(a: &mut [f64], bs: usize) {
    let a = &mut a[..bs * bs];
    for j in 0..bs {
        let (upper, lower) = a.split_at_mut((j + 1) * bs);
        let row_j = &mut upper[j * bs..];
        let mut d = row_j[j];
        for &x in &row_j[..j] {
            d -= x * x;
        }
        let d = d.sqrt();
        row_j[j] = d;
        let prefix_j = &row_j[..j];
        for row_i in lower.chunks_exact_mut(bs) {
            let (prefix_i, rest) = row_i.split_at_mut(j);
            let mut s = rest[0];
            for (&x, &y) in prefix_i.iter().zip(prefix_j) {
                s -= x * y;
            }
            rest[0] = s / d;
        }
    }
}

/// `B := B L⁻ᵀ` with `L` the lower triangle of a factorised diagonal tile.
///
/// Row by row of `B`, each element a dot product of the row's prefix `k <
/// j` with row `j` of `L` (`k` ascending), then a division. Four rows at a
/// time, each with its own accumulator, so that four dependent chains of
/// subtractions run side by side (the rows are independent; each element's
/// operations and their order are those of one row at a time); the rows
/// left over (fewer than four) one at a time.
///
/// # Panics
/// If `l` or `b` is shorter than `bs * bs`.
#[inline(never)]
pub fn trsm(l: &[f64], b: &mut [f64], bs: usize) {
    let (l, b) = (&l[..bs * bs], &mut b[..bs * bs]);
    if bs == 0 {
        return;
    }
    let mut quads = b.chunks_exact_mut(4 * bs);
    for quad in &mut quads {
        let (b0, rest) = quad.split_at_mut(bs);
        let (b1, rest) = rest.split_at_mut(bs);
        let (b2, b3) = rest.split_at_mut(bs);
        for (j, l_j) in l.chunks_exact(bs).enumerate() {
            let mut s = [b0[j], b1[j], b2[j], b3[j]];
            let prefixes = b0[..j].iter().zip(&b1[..j]).zip(&b2[..j]).zip(&b3[..j]);
            for ((((&x0, &x1), &x2), &x3), &y) in prefixes.zip(&l_j[..j]) {
                s[0] -= x0 * y;
                s[1] -= x1 * y;
                s[2] -= x2 * y;
                s[3] -= x3 * y;
            }
            b0[j] = s[0] / l_j[j];
            b1[j] = s[1] / l_j[j];
            b2[j] = s[2] / l_j[j];
            b3[j] = s[3] / l_j[j];
        }
    }
    for row in quads.into_remainder().chunks_exact_mut(bs) {
        for (j, l_j) in l.chunks_exact(bs).enumerate() {
            let mut s = row[j];
            for (&x, &y) in row[..j].iter().zip(&l_j[..j]) {
                s -= x * y;
            }
            row[j] = s / l_j[j];
        }
    }
}

/// `C := C − A Aᵀ` (the whole tile).
#[inline(never)]
pub fn syrk(a: &[f64], c: &mut [f64], bs: usize) {
    gemm_nt(a, a, c, bs);
}

/// `C := C − A Bᵀ`.
///
/// Each element `C[i][j]` is a dot product of row `i` of `A` with row `j`
/// of `B`, subtracted from `C[i][j]` one product at a time, `k` ascending.
/// Blocks of two rows of `C` by four columns (rows `i, i + 1` of `A`
/// against rows `j .. j + 4` of `B`), each element with its own accumulator
/// (`sub_dots`): eight independent chains of subtractions run side by
/// side, and each loaded value of `A` and `B` serves two or four of them;
/// the row and columns left over in smaller blocks. Each element's
/// operations and their order are those of one element at a time.
///
/// # Panics
/// If a tile is shorter than `bs * bs`.
#[inline(never)]
pub fn gemm_nt(a: &[f64], b: &[f64], c: &mut [f64], bs: usize) {
    let (a, b, c) = (&a[..bs * bs], &b[..bs * bs], &mut c[..bs * bs]);
    if bs == 0 {
        return;
    }
    let mut c_pairs = c.chunks_exact_mut(2 * bs);
    let mut a_pairs = a.chunks_exact(2 * bs);
    for (c2, a2) in (&mut c_pairs).zip(&mut a_pairs) {
        let (c0, c1) = c2.split_at_mut(bs);
        let (a0, a1) = a2.split_at(bs);
        gemm_nt_rows([a0, a1], b, [c0, c1], bs);
    }
    let (c_last, a_last) = (c_pairs.into_remainder(), a_pairs.remainder());
    if !c_last.is_empty() {
        gemm_nt_rows([a_last], b, [c_last], bs);
    }
}

/// `C[r][·] −= A[r] · Bᵀ` for the `R` rows `a` of `A` and `c` of `C`
/// (`bs` values each): four columns at a time, then the columns left over
/// one at a time.
#[inline(always)]
fn gemm_nt_rows<const R: usize>(a: [&[f64]; R], b: &[f64], mut c: [&mut [f64]; R], bs: usize) {
    let mut b_quads = b.chunks_exact(4 * bs);
    let mut j = 0;
    for b4 in &mut b_quads {
        let b_rows = [
            &b4[..bs],
            &b4[bs..2 * bs],
            &b4[2 * bs..3 * bs],
            &b4[3 * bs..],
        ];
        sub_dots(a, b_rows, &mut c, j);
        j += 4;
    }
    for b_j in b_quads.remainder().chunks_exact(bs) {
        sub_dots(a, [b_j], &mut c, j);
        j += 1;
    }
}

/// `c[r][j + t] −= Σ_k a[r][k] · b[t][k]` for `r < R`, `t < J`, `k`
/// ascending over the length of `a[0]`, each element with its own
/// accumulator. The rows are cut to one length first.
///
/// # Panics
/// If a row of `a` or `b` is shorter than `a[0]`, or a row of `c` shorter
/// than `j + J`.
#[inline(always)]
fn sub_dots<const R: usize, const J: usize>(
    a: [&[f64]; R],
    b: [&[f64]; J],
    c: &mut [&mut [f64]; R],
    j: usize,
) {
    let n = a[0].len();
    let (a, b) = (a.map(|row| &row[..n]), b.map(|row| &row[..n]));
    let mut s = [[0.0; J]; R];
    for (s_r, c_r) in s.iter_mut().zip(c.iter()) {
        s_r.copy_from_slice(&c_r[j..j + J]);
    }
    // Indices rather than iterators over the arrays: with `R` and `J`
    // constants and every row cut to `n`, the compiler then drops every
    // bounds check from the `k` loop.
    for k in 0..n {
        for r in 0..R {
            let x = a[r][k];
            for t in 0..J {
                s[r][t] -= x * b[t][k];
            }
        }
    }
    for (s_r, c_r) in s.iter().zip(c.iter_mut()) {
        c_r[j..j + J].copy_from_slice(s_r);
    }
}

fn tile_range(nb: usize, bs: usize, i: usize, j: usize) -> std::ops::Range<usize> {
    let start = (i * nb + j) * bs * bs;
    start..start + bs * bs
}

/// The sequential reference, in place.
pub fn sequential(m: &mut Tiled) {
    let (nb, bs) = (m.nb, m.bs);
    let (data, len) = (&mut m.data, bs * bs);
    let at = |i: usize, j: usize| i * nb + j;
    for k in 0..nb {
        potrf(&mut data[tile_range(nb, bs, k, k)], bs);
        for i in k + 1..nb {
            let (aik, [akk]) = super::write_and_read(data, len, at(i, k), [at(k, k)]);
            trsm(akk, aik, bs);
        }
        for i in k + 1..nb {
            for j in k + 1..i {
                let (aij, [aik, ajk]) =
                    super::write_and_read(data, len, at(i, j), [at(i, k), at(j, k)]);
                gemm_nt(aik, ajk, aij, bs);
            }
            let (aii, [aik]) = super::write_and_read(data, len, at(i, i), [at(i, k)]);
            syrk(aik, aii, bs);
        }
    }
}

/// The dataflow version, in place: one task per kernel call, one region per
/// tile, submitted in the order of the sequential loops.
pub fn dataflow(m: &mut Tiled) {
    let (nb, bs) = (m.nb, m.bs);
    prescient::dataflow(|df| {
        let t = df.tiles(&mut m.data, bs * bs);
        let at = |i: usize, j: usize| i * nb + j;
        for k in 0..nb {
            df.task(t.inout(at(k, k)), move |akk: &mut [f64]| potrf(akk, bs));
            for i in k + 1..nb {
                df.task(
                    (t.read(at(k, k)), t.inout(at(i, k))),
                    move |(akk, aik): (&[f64], &mut [f64])| trsm(akk, aik, bs),
                );
            }
            for i in k + 1..nb {
                for j in k + 1..i {
                    df.task(
                        (t.read(at(i, k)), t.read(at(j, k)), t.inout(at(i, j))),
                        move |(aik, ajk, aij): (&[f64], &[f64], &mut [f64])| {
                            gemm_nt(aik, ajk, aij, bs)
                        },
                    );
                }
                df.task(
                    (t.read(at(i, k)), t.inout(at(i, i))),
                    move |(aik, aii): (&[f64], &mut [f64])| syrk(aik, aii, bs),
                );
            }
        }
    });
}

/// Checks a factorisation against the sequential reference (exactly, lower
/// triangle of tiles).
///
/// # Errors
/// The first difference.
pub fn check(result: &Tiled, reference: &Tiled) -> Result<(), String> {
    let (nb, bs) = (reference.nb, reference.bs);
    for i in 0..nb {
        for j in 0..=i {
            let range = tile_range(nb, bs, i, j);
            super::compare_exact(
                &result.data[range.clone()],
                &reference.data[range],
                &format!("cholesky tile ({i}, {j})"),
            )?;
        }
    }
    Ok(())
}

/// The largest `|(L Lᵀ − A)[r][c]|` over the lower triangle: a check of the
/// reference itself (O(n³); for tests).
pub fn residual(factor: &Tiled, original: &Tiled) -> f64 {
    let n = factor.nb * factor.bs;
    let l = |r: usize, c: usize| if c <= r { factor.get(r, c) } else { 0.0 };
    let mut worst: f64 = 0.0;
    for r in 0..n {
        for c in 0..=r {
            let s: f64 = (0..=c).map(|k| l(r, k) * l(c, k)).sum();
            worst = worst.max((s - original.get(r, c)).abs());
        }
    }
    worst
}

/// This kernel, for the table, the criterion bench and the tests.
pub const KERNEL: super::Kernel<Tiled> = super::Kernel::new(sequential, dataflow, check);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_factorises_and_dataflow_matches_it() {
        let original = generate(5, 6, 1);
        let reference = KERNEL.verified_reference(&original);
        assert!(residual(&reference, &original) < 1e-9);
    }

    /// The kernels one element at a time (the form the C task versions
    /// write), the specification the kernels above must match bit for bit.
    mod plain {
        pub fn potrf(a: &mut [f64], bs: usize) {
            for j in 0..bs {
                let mut d = a[j * bs + j];
                for k in 0..j {
                    d -= a[j * bs + k] * a[j * bs + k];
                }
                let d = d.sqrt();
                a[j * bs + j] = d;
                for i in j + 1..bs {
                    let mut s = a[i * bs + j];
                    for k in 0..j {
                        s -= a[i * bs + k] * a[j * bs + k];
                    }
                    a[i * bs + j] = s / d;
                }
            }
        }

        pub fn trsm(l: &[f64], b: &mut [f64], bs: usize) {
            for r in 0..bs {
                for j in 0..bs {
                    let mut s = b[r * bs + j];
                    for k in 0..j {
                        s -= b[r * bs + k] * l[j * bs + k];
                    }
                    b[r * bs + j] = s / l[j * bs + j];
                }
            }
        }

        pub fn gemm_nt(a: &[f64], b: &[f64], c: &mut [f64], bs: usize) {
            for i in 0..bs {
                for j in 0..bs {
                    let mut s = c[i * bs + j];
                    for k in 0..bs {
                        s -= a[i * bs + k] * b[j * bs + k];
                    }
                    c[i * bs + j] = s;
                }
            }
        }
    }

    fn bits(values: &[f64]) -> Vec<u64> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn kernels_match_plain_loops_bit_for_bit() {
        let mut state = 5;
        for bs in [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 48] {
            // One symmetric positive definite tile, two random ones.
            let spd = generate(1, bs, 3).data;
            let [b, c] = [0; 2].map(|_| {
                (0..bs * bs)
                    .map(|_| crate::dataflow::unit_random(&mut state))
                    .collect::<Vec<f64>>()
            });

            let (mut got, mut want) = (spd.clone(), spd.clone());
            potrf(&mut got, bs);
            plain::potrf(&mut want, bs);
            assert_eq!(bits(&got), bits(&want), "potrf, bs {bs}");
            let l = got;

            let (mut got, mut want) = (b.clone(), b.clone());
            trsm(&l, &mut got, bs);
            plain::trsm(&l, &mut want, bs);
            assert_eq!(bits(&got), bits(&want), "trsm, bs {bs}");

            let (mut got, mut want) = (c.clone(), c.clone());
            gemm_nt(&b, &l, &mut got, bs);
            plain::gemm_nt(&b, &l, &mut want, bs);
            assert_eq!(bits(&got), bits(&want), "gemm_nt, bs {bs}");

            let (mut got, mut want) = (c.clone(), c.clone());
            syrk(&b, &mut got, bs);
            plain::gemm_nt(&b, &b, &mut want, bs);
            assert_eq!(bits(&got), bits(&want), "syrk, bs {bs}");
        }
    }
}
