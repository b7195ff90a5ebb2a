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
//! submitter's, not a dependency. The kernels are BOTS's, loop for loop.

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
#[inline(never)]
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

/// BOTS `bdiv`: a block below the diagonal.
#[inline(never)]
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

/// BOTS `bmod`: `inner -= row · col`.
#[inline(never)]
pub fn bmod(row: &[f32], col: &[f32], inner: &mut [f32], bs: usize) {
    for i in 0..bs {
        for j in 0..bs {
            for k in 0..bs {
                inner[i * bs + j] -= row[i * bs + k] * col[k * bs + j];
            }
        }
    }
}

/// BOTS `fwd`: a block right of the diagonal.
#[inline(never)]
pub fn fwd(diag: &[f32], col: &mut [f32], bs: usize) {
    for j in 0..bs {
        for k in 0..bs {
            for i in k + 1..bs {
                col[i * bs + j] -= diag[i * bs + k] * col[k * bs + j];
            }
        }
    }
}

fn block(nb: usize, bs: usize, i: usize, j: usize) -> std::ops::Range<usize> {
    let start = (i * nb + j) * bs * bs;
    start..start + bs * bs
}

/// The sequential reference (BOTS `sparselu_seq_call`), in place.
pub fn sequential(m: &mut Matrix) {
    let (nb, bs) = (m.nb, m.bs);
    let Matrix {
        blocks, present, ..
    } = m;
    for kk in 0..nb {
        lu0(&mut blocks[block(nb, bs, kk, kk)], bs);
        let diag = blocks[block(nb, bs, kk, kk)].to_vec();
        for jj in kk + 1..nb {
            if present[kk * nb + jj] {
                fwd(&diag, &mut blocks[block(nb, bs, kk, jj)], bs);
            }
        }
        for ii in kk + 1..nb {
            if present[ii * nb + kk] {
                bdiv(&diag, &mut blocks[block(nb, bs, ii, kk)], bs);
            }
        }
        for ii in kk + 1..nb {
            if !present[ii * nb + kk] {
                continue;
            }
            let row = blocks[block(nb, bs, ii, kk)].to_vec();
            for jj in kk + 1..nb {
                if present[kk * nb + jj] {
                    present[ii * nb + jj] = true; // allocate_clean_block
                    let col = blocks[block(nb, bs, kk, jj)].to_vec();
                    bmod(&row, &col, &mut blocks[block(nb, bs, ii, jj)], bs);
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
}
