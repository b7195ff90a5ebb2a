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
//! point is the task graph, not the flop rate. The kernels are
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
#[inline(never)]
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

/// `B := B L⁻ᵀ` with `L` the lower triangle of a factorised diagonal tile.
#[inline(never)]
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

/// `C := C − A Aᵀ` (the whole tile).
#[inline(never)]
pub fn syrk(a: &[f64], c: &mut [f64], bs: usize) {
    gemm_nt(a, a, c, bs);
}

/// `C := C − A Bᵀ`.
#[inline(never)]
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

fn tile_range(nb: usize, bs: usize, i: usize, j: usize) -> std::ops::Range<usize> {
    let start = (i * nb + j) * bs * bs;
    start..start + bs * bs
}

/// The sequential reference, in place.
pub fn sequential(m: &mut Tiled) {
    let (nb, bs) = (m.nb, m.bs);
    let data = &mut m.data;
    // Copies of the read tiles keep the borrows simple; the arithmetic is
    // the same as the dataflow version's.
    for k in 0..nb {
        potrf(&mut data[tile_range(nb, bs, k, k)], bs);
        let akk = data[tile_range(nb, bs, k, k)].to_vec();
        for i in k + 1..nb {
            trsm(&akk, &mut data[tile_range(nb, bs, i, k)], bs);
        }
        for i in k + 1..nb {
            let aik = data[tile_range(nb, bs, i, k)].to_vec();
            for j in k + 1..i {
                let ajk = data[tile_range(nb, bs, j, k)].to_vec();
                gemm_nt(&aik, &ajk, &mut data[tile_range(nb, bs, i, j)], bs);
            }
            syrk(&aik, &mut data[tile_range(nb, bs, i, i)], bs);
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
}
