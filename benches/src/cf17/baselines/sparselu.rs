//! sparselu under rayon: [`crate::annotated::sparselu`]'s walk along the
//! diagonal with its two phases of tasks per diagonal block, each phase a
//! `rayon::scope` instead of a `prescient::scope`, on the program's block
//! kernels ([`lu0`], [`fwd`], [`bdiv`], [`bmod`]) and with the same safe
//! split of the block storage. The factorisation equals the sequential
//! reference's bit for bit.

use crate::annotated::sparselu::{bdiv, bmod, fwd, lu0, Matrix};

/// Factorises `m` in place under rayon (the task version's
/// [`sparselu`](crate::annotated::sparselu::sparselu)).
///
/// # Panics
/// If the block size is 0 or the matrix does not hold `nb² · bs²` elements
/// and `nb²` presence flags.
pub fn sparselu_rayon(m: &mut Matrix) {
    let nb = m.nb;
    let bs = m.bs;
    assert!(bs > 0, "sparselu: block size 0");
    let size = bs * bs;
    assert_eq!(m.blocks.len(), nb * nb * size, "sparselu: block storage");
    assert_eq!(m.present.len(), nb * nb, "sparselu: presence map");
    let blocks: &mut [f32] = &mut m.blocks;
    let present: &mut [bool] = &mut m.present;
    for kk in 0..nb {
        let (_, from_diag) = blocks.split_at_mut((kk * nb + kk) * size);
        let (diag, after) = from_diag.split_at_mut(size);
        lu0(diag, bs);
        let diag: &[f32] = diag;
        let (pivot_rest, below) = after.split_at_mut((nb - kk - 1) * size);
        let pivot: &[bool] = &present[kk * nb..(kk + 1) * nb];
        let column_present: &[bool] = present;
        rayon::scope(|s| {
            for (jj, a_kj) in pivot_rest.chunks_exact_mut(size).enumerate() {
                if pivot[kk + 1 + jj] {
                    s.spawn(move |_| fwd(diag, a_kj, bs));
                }
            }
            for (ii, row) in below.chunks_exact_mut(nb * size).enumerate() {
                if column_present[(kk + 1 + ii) * nb + kk] {
                    let a_ik: &mut [f32] = &mut row[kk * size..(kk + 1) * size];
                    s.spawn(move |_| bdiv(diag, a_ik, bs));
                }
            }
        });
        let (upper, lower) = blocks.split_at_mut((kk + 1) * nb * size);
        let pivot_row: &[f32] = &upper[kk * nb * size..];
        let (upper_present, lower_present) = present.split_at_mut((kk + 1) * nb);
        let pivot: &[bool] = &upper_present[kk * nb..];
        rayon::scope(|s| {
            for (row, row_present) in lower
                .chunks_exact_mut(nb * size)
                .zip(lower_present.chunks_exact_mut(nb))
            {
                if !row_present[kk] {
                    continue;
                }
                let (left, right) = row.split_at_mut((kk + 1) * size);
                let a_ik: &[f32] = &left[kk * size..];
                for (d, a_ij) in right.chunks_exact_mut(size).enumerate() {
                    let jj = kk + 1 + d;
                    if pivot[jj] {
                        row_present[jj] = true; // allocate_clean_block
                        let a_kj: &[f32] = &pivot_row[jj * size..(jj + 1) * size];
                        s.spawn(move |_| bmod(a_ik, a_kj, a_ij, bs));
                    }
                }
            }
        });
    }
}
