//! SparseLU from the Barcelona OpenMP Tasks Suite (BOTS), with task
//! dependencies instead of its `taskwait`s (as the OmpSs / KASTORS versions
//! write it): LU factorisation of a sparse matrix of `nb × nb` blocks of
//! `bs × bs` `f32`, where BOTS's `genmat` pattern leaves many blocks empty
//! (`NULL`) and `bmod` fills some of them in.
//!
//! ```text
//! for kk:  lu0(A[kk][kk])                                  inout A[kk][kk]
//!          for jj > kk, A[kk][jj] present:  fwd(A[kk][kk], A[kk][jj])
//!          for ii > kk, A[ii][kk] present:  bdiv(A[kk][kk], A[ii][kk])
//!          for ii > kk, A[ii][kk] present:  for jj > kk, A[kk][jj] present:
//!              A[ii][jj] absent → allocate a clean (zero) block
//!              bmod(A[ii][kk], A[kk][jj], A[ii][jj])        in, in, inout
//! ```
//!
//! Layout: BOTS allocates each present block separately and stores `NULL`
//! for the others. Here the blocks live in one tiled allocation (one region
//! per block) and a presence map says which ones exist; an absent block is
//! all zeros, so "allocating a clean block" is marking it present. Which
//! blocks are present is known when tasks are submitted (as in BOTS, where
//! the submitting thread tests and allocates), so the map is the
//! submitter's, not a dependency. The kernels compute BOTS's: every element
//! gets BOTS's operations in BOTS's order, so the results are BOTS's bit for
//! bit, but the loops run over row slices, and `bmod` and `fwd` have their
//! loops interchanged so that the innermost one runs along a contiguous row
//! and vectorises (each kernel's comment says why the order per element is
//! kept; the tests compare them with BOTS's loops).

/// The block matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    /// Blocks per dimension (BOTS `-n`).
    pub nb: usize,
    /// Block size (BOTS `-m`).
    pub bs: usize,
    /// `nb * nb` blocks of `bs * bs`, block `(i, j)` at `(i * nb + j) * bs * bs`.
    pub blocks: Vec<f32>,
    /// Which blocks are present (non-`NULL` in BOTS).
    pub present: Vec<bool>,
}

/// BOTS `genmat`: the sparsity pattern and the pseudo-random values.
pub fn generate(nb: usize, bs: usize) -> Matrix {
    let mut m = Matrix {
        nb,
        bs,
        blocks: vec![0.0; nb * nb * bs * bs],
        present: vec![false; nb * nb],
    };
    let mut init_val: i64 = 1325;
    for ii in 0..nb {
        for jj in 0..nb {
            let mut null_entry = false;
            if ii < jj && ii % 3 != 0 {
                null_entry = true;
            }
            if ii > jj && jj % 3 != 0 {
                null_entry = true;
            }
            if ii % 2 == 1 || jj % 2 == 1 {
                null_entry = true;
            }
            if ii == jj || ii + 1 == jj || jj + 1 == ii {
                null_entry = false;
            }
            if !null_entry {
                m.present[ii * nb + jj] = true;
                let block = &mut m.blocks[(ii * nb + jj) * bs * bs..][..bs * bs];
                for v in block.iter_mut() {
                    init_val = (3125 * init_val) % 65536;
                    *v = ((init_val as f64 - 32768.0) / 16384.0) as f32;
                }
            }
        }
    }
    m
}

/// BOTS `lu0`: LU of a diagonal block, in place.
///
/// BOTS's loops (`k`, then `i > k`, then `j > k`) over row slices: row `k`
/// (the pivot row, not written in step `k`) is split off from the rows below
/// it once per step, so the `j` loop runs without bounds checks and
/// vectorises. Each element gets the same operations in the same order.
///
/// # Panics
/// If `diag` is shorter than `bs * bs`.
#[inline(never)]
pub fn lu0(diag: &mut [f32], bs: usize) {
    let diag = &mut diag[..bs * bs];
    for k in 0..bs {
        let (upper, lower) = diag.split_at_mut((k + 1) * bs);
        let pivot_row = &upper[k * bs..];
        for row in lower.chunks_exact_mut(bs) {
            row[k] /= pivot_row[k];
            let factor = row[k];
            for (x, &p) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                *x -= factor * p;
            }
        }
    }
}

/// BOTS `bdiv`: a block below the diagonal.
///
/// BOTS's loops (`i`, then `k`, then `j > k`) over row slices, so the `j`
/// loop runs without bounds checks; each element gets the same operations
/// in the same order.
///
/// # Panics
/// If `diag` or `row` is shorter than `bs * bs`.
#[inline(never)]
pub fn bdiv(diag: &[f32], row: &mut [f32], bs: usize) {
    let (diag, row) = (&diag[..bs * bs], &mut row[..bs * bs]);
    if bs == 0 {
        return;
    }
    for row_i in row.chunks_exact_mut(bs) {
        for (k, diag_k) in diag.chunks_exact(bs).enumerate() {
            row_i[k] /= diag_k[k];
            let factor = row_i[k];
            for (x, &d) in row_i[k + 1..].iter_mut().zip(&diag_k[k + 1..]) {
                *x -= factor * d;
            }
        }
    }
}

/// BOTS `bmod`: `inner -= row · col`.
///
/// BOTS loops `i`, `j`, `k` (a dot product per element, `k` ascending);
/// this is the `i`, `k`, `j` order of the same loops: for each row `i` and
/// each `k` ascending, `inner[i][·] -= row[i][k] · col[k][·]` over the
/// contiguous row, which vectorises. Every element `inner[i][j]` still gets
/// `inner[i][j] -= row[i][k] · col[k][j]` for `k` ascending, rounded after
/// each step as in BOTS (which stores it back every step), so the result is
/// the same bit for bit.
///
/// # Panics
/// If a block is shorter than `bs * bs`.
#[inline(never)]
pub fn bmod(row: &[f32], col: &[f32], inner: &mut [f32], bs: usize) {
    let (row, col, inner) = (&row[..bs * bs], &col[..bs * bs], &mut inner[..bs * bs]);
    if bs == 0 {
        return;
    }
    for (inner_i, row_i) in inner.chunks_exact_mut(bs).zip(row.chunks_exact(bs)) {
        for (&row_ik, col_k) in row_i.iter().zip(col.chunks_exact(bs)) {
            for (x, &c) in inner_i.iter_mut().zip(col_k) {
                *x -= row_ik * c;
            }
        }
    }
}

/// BOTS `fwd`: a block right of the diagonal.
///
/// BOTS loops `j`, `k`, `i > k`; this is the `k`, `i > k`, `j` order: for
/// each `k` ascending, `col[i][·] -= diag[i][k] · col[k][·]` over the
/// contiguous rows `i > k`, which vectorises. Every element `col[i][j]`
/// still gets its updates for `k < i` ascending, and row `k` is final when
/// step `k` reads it (all its updates have `k' < k`) in either order, so
/// the result is the same bit for bit.
///
/// # Panics
/// If `diag` or `col` is shorter than `bs * bs`.
#[inline(never)]
pub fn fwd(diag: &[f32], col: &mut [f32], bs: usize) {
    let (diag, col) = (&diag[..bs * bs], &mut col[..bs * bs]);
    for k in 0..bs {
        let (upper, lower) = col.split_at_mut((k + 1) * bs);
        let col_k = &upper[k * bs..];
        for (col_i, diag_i) in lower
            .chunks_exact_mut(bs)
            .zip(diag[(k + 1) * bs..].chunks_exact(bs))
        {
            let diag_ik = diag_i[k];
            for (x, &c) in col_i.iter_mut().zip(col_k) {
                *x -= diag_ik * c;
            }
        }
    }
}

/// The sequential reference (BOTS `sparselu_seq_call`), in place.
pub fn sequential(m: &mut Matrix) {
    let (nb, bs) = (m.nb, m.bs);
    let Matrix {
        blocks, present, ..
    } = m;
    let len = bs * bs;
    let at = |i: usize, j: usize| i * nb + j;
    for kk in 0..nb {
        lu0(&mut blocks[at(kk, kk) * len..][..len], bs);
        for jj in kk + 1..nb {
            if present[at(kk, jj)] {
                let (col, [diag]) = super::write_and_read(blocks, len, at(kk, jj), [at(kk, kk)]);
                fwd(diag, col, bs);
            }
        }
        for ii in kk + 1..nb {
            if present[at(ii, kk)] {
                let (row, [diag]) = super::write_and_read(blocks, len, at(ii, kk), [at(kk, kk)]);
                bdiv(diag, row, bs);
            }
        }
        for ii in kk + 1..nb {
            if !present[at(ii, kk)] {
                continue;
            }
            for jj in kk + 1..nb {
                if present[at(kk, jj)] {
                    present[at(ii, jj)] = true; // allocate_clean_block
                    let (inner, [row, col]) =
                        super::write_and_read(blocks, len, at(ii, jj), [at(ii, kk), at(kk, jj)]);
                    bmod(row, col, inner, bs);
                }
            }
        }
    }
}

/// The dataflow version, in place: one task per kernel call, one region per
/// block, submitted in the order of the sequential loops.
pub fn dataflow(m: &mut Matrix) {
    let (nb, bs) = (m.nb, m.bs);
    let Matrix {
        blocks, present, ..
    } = m;
    prescient::dataflow(|df| {
        let b = df.tiles(blocks, bs * bs);
        let at = |i: usize, j: usize| i * nb + j;
        for kk in 0..nb {
            df.task(b.inout(at(kk, kk)), move |diag: &mut [f32]| lu0(diag, bs));
            for jj in kk + 1..nb {
                if present[at(kk, jj)] {
                    df.task(
                        (b.read(at(kk, kk)), b.inout(at(kk, jj))),
                        move |(diag, col): (&[f32], &mut [f32])| fwd(diag, col, bs),
                    );
                }
            }
            for ii in kk + 1..nb {
                if present[at(ii, kk)] {
                    df.task(
                        (b.read(at(kk, kk)), b.inout(at(ii, kk))),
                        move |(diag, row): (&[f32], &mut [f32])| bdiv(diag, row, bs),
                    );
                }
            }
            for ii in kk + 1..nb {
                if !present[at(ii, kk)] {
                    continue;
                }
                for jj in kk + 1..nb {
                    if present[at(kk, jj)] {
                        present[at(ii, jj)] = true; // allocate_clean_block
                        df.task(
                            (b.read(at(ii, kk)), b.read(at(kk, jj)), b.inout(at(ii, jj))),
                            move |(row, col, inner): (&[f32], &[f32], &mut [f32])| {
                                bmod(row, col, inner, bs)
                            },
                        );
                    }
                }
            }
        }
    });
}

/// Checks a factorisation against the sequential reference (exactly, and
/// the same fill-in).
///
/// # Errors
/// The first difference.
pub fn check(result: &Matrix, reference: &Matrix) -> Result<(), String> {
    super::compare_exact(
        &result.present,
        &reference.present,
        "sparselu block presence",
    )?;
    super::compare_exact(&result.blocks, &reference.blocks, "sparselu blocks")
}

/// The number of kernel calls (tasks) of a factorisation of `m`.
pub fn task_count(m: &Matrix) -> usize {
    let (nb, mut present) = (m.nb, m.present.clone());
    let mut tasks = 0;
    for kk in 0..nb {
        tasks += 1;
        tasks += (kk + 1..nb).filter(|&jj| present[kk * nb + jj]).count();
        tasks += (kk + 1..nb).filter(|&ii| present[ii * nb + kk]).count();
        for ii in kk + 1..nb {
            if present[ii * nb + kk] {
                for jj in kk + 1..nb {
                    if present[kk * nb + jj] {
                        present[ii * nb + jj] = true;
                        tasks += 1;
                    }
                }
            }
        }
    }
    tasks
}

/// This kernel, for the table, the criterion bench and the tests.
pub const KERNEL: super::Kernel<Matrix> = super::Kernel::new(sequential, dataflow, check);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bots_pattern_and_dataflow_matches_sequential() {
        let original = generate(8, 5);
        // BOTS pattern: diagonal and its neighbours present, odd rows empty
        // off the band.
        assert!(original.present[0] && original.present[1] && original.present[8]);
        assert!(!original.present[3 * 8 + 5]);
        let reference = KERNEL.verified_reference(&original);
        assert!(
            reference.present.iter().filter(|&&p| p).count()
                > original.present.iter().filter(|&&p| p).count(),
            "fill-in"
        );
        assert!(task_count(&original) > 8);
    }

    /// BOTS's kernels loop for loop (`sparselu.c`), the specification the
    /// kernels above must match bit for bit.
    mod bots {
        pub fn lu0(diag: &mut [f32], bs: usize) {
            for k in 0..bs {
                for i in k + 1..bs {
                    diag[i * bs + k] /= diag[k * bs + k];
                    for j in k + 1..bs {
                        diag[i * bs + j] -= diag[i * bs + k] * diag[k * bs + j];
                    }
                }
            }
        }

        pub fn bdiv(diag: &[f32], row: &mut [f32], bs: usize) {
            for i in 0..bs {
                for k in 0..bs {
                    row[i * bs + k] /= diag[k * bs + k];
                    for j in k + 1..bs {
                        row[i * bs + j] -= row[i * bs + k] * diag[k * bs + j];
                    }
                }
            }
        }

        pub fn bmod(row: &[f32], col: &[f32], inner: &mut [f32], bs: usize) {
            for i in 0..bs {
                for j in 0..bs {
                    for k in 0..bs {
                        inner[i * bs + j] -= row[i * bs + k] * col[k * bs + j];
                    }
                }
            }
        }

        pub fn fwd(diag: &[f32], col: &mut [f32], bs: usize) {
            for j in 0..bs {
                for k in 0..bs {
                    for i in k + 1..bs {
                        col[i * bs + j] -= diag[i * bs + k] * col[k * bs + j];
                    }
                }
            }
        }
    }

    fn bits(values: &[f32]) -> Vec<u32> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    /// A block of values in [-1, 1) with a dominant diagonal (so that the
    /// divisions stay finite and the results depend on every operation's
    /// rounding).
    fn random_block(bs: usize, state: &mut u64) -> Vec<f32> {
        let mut block: Vec<f32> = (0..bs * bs)
            .map(|_| crate::dataflow::unit_random(state) as f32)
            .collect();
        for i in 0..bs {
            block[i * bs + i] += 3.0;
        }
        block
    }

    #[test]
    fn kernels_match_bots_loops_bit_for_bit() {
        let mut state = 11;
        for bs in [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 40] {
            let [a, b, c] = [0; 3].map(|_| random_block(bs, &mut state));

            let (mut got, mut want) = (a.clone(), a.clone());
            lu0(&mut got, bs);
            bots::lu0(&mut want, bs);
            assert_eq!(bits(&got), bits(&want), "lu0, bs {bs}");
            let diag = got;

            let (mut got, mut want) = (b.clone(), b.clone());
            bdiv(&diag, &mut got, bs);
            bots::bdiv(&diag, &mut want, bs);
            assert_eq!(bits(&got), bits(&want), "bdiv, bs {bs}");

            let (mut got, mut want) = (b.clone(), b.clone());
            fwd(&diag, &mut got, bs);
            bots::fwd(&diag, &mut want, bs);
            assert_eq!(bits(&got), bits(&want), "fwd, bs {bs}");

            let (mut got, mut want) = (c.clone(), c.clone());
            bmod(&a, &b, &mut got, bs);
            bots::bmod(&a, &b, &mut want, bs);
            assert_eq!(bits(&got), bits(&want), "bmod, bs {bs}");
        }
    }
}
