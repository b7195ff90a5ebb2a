//! BOTS `sparselu`, annotated with `#[task_program]`: LU factorisation of a
//! sparse matrix of `nb × nb` blocks of `bs × bs` `f32`, many of them empty.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `sparselu` in its task
//! (`sparselu_single`) variant, BOTS' `sparselu_par_call`: one thread walks
//! the diagonal and, for every `kk`,
//!
//! ```text
//! lu0(A[kk][kk])                                        in the walking thread
//! for jj > kk, A[kk][jj] present:  task fwd(A[kk][kk], A[kk][jj])
//! for ii > kk, A[ii][kk] present:  task bdiv(A[kk][kk], A[ii][kk])
//! taskwait
//! for ii > kk, A[ii][kk] present:  for jj > kk, A[kk][jj] present:
//!     task { A[ii][jj] absent → allocate a clean (zero) block;
//!            bmod(A[ii][kk], A[kk][jj], A[ii][jj]) }
//! taskwait
//! ```
//!
//! Here each phase is a [`prescient::scope`] whose spawns sit in the same
//! loops, and the scope's end is BOTS' `taskwait`. The matrix, its generator
//! ([`generate`], BOTS' `genmat`), the four block kernels ([`lu0`], [`fwd`],
//! [`bdiv`], [`bmod`], BOTS' results bit for bit) and the sequential reference
//! ([`sparselu_seq`], BOTS' `sparselu_seq_call`) are those of the dataflow
//! kernel [`crate::dataflow::sparselu`], imported, not copied.
//!
//! **Layout and safe disjoint access.** The blocks live in one tiled `Vec`
//! (block `(i, j)` at `(i · nb + j) · bs²`) with a presence map; an absent
//! block is all zeros, so BOTS' `allocate_clean_block` is marking the block
//! present. The tasks of one phase write disjoint blocks and share the ones
//! they read, so each phase splits the block vector with `split_at_mut` and
//! `chunks_exact_mut` into one `&mut [f32]` per written block and `&[f32]`s
//! for the read-only ones: in the first phase the diagonal block is shared,
//! the rest of row `kk` (for `fwd`) and column `kk` below it (for `bdiv`) are
//! handed out mutably; in the second the pivot row `kk` and the column `kk`
//! are shared and every block `(ii > kk, jj > kk)` is handed out mutably. No
//! `unsafe`, no locks.
//!
//! Every block goes through the same kernel calls in the same order as in
//! the sequential reference (the tasks of a phase touch disjoint outputs, and
//! the phases are ordered by the scopes), so the parallel factorisation
//! equals [`sparselu_seq`]'s bit for bit, presence map included; [`check`]
//! (BOTS' `sparselu_check`, here exact) and the tests compare them.
//!
//! **What the analysis finds.** One task context, [`sparselu`], with three
//! scope-spawn sites (`fwd`, `bdiv`, `bmod`), all inside loops: λ = 3. No
//! task calls back into the module's task code, so there is no recursive
//! parallel path: ρ = 0, the loop-like class. CF'17's capacity tree's first
//! branch (ρ = 0, λ > 0) would give a queue capacity of 128, and ρ = 0 gives
//! 97 dependency buckets. The kernels are imported from
//! [`crate::dataflow::sparselu`], a path outside the module, so each task is
//! one opaque call to the analyzer: the effort is small and CF'17's policy
//! tree would give `DEF` (were the kernels written inside the module,
//! `bmod`'s triple loop would put the effort in the 1M–1T coarse band — about
//! 12 million operations, tried — and the policy would be `PF`; the capacity
//! and buckets would not change). The calibrated trees (`PARAMS`) give `BF`
//! and capacity 32 (effort 12 < 7667: fine or opaque tasks, BF/32 — the
//! kernels are hidden from the analysis); buckets 97 as CF'17. No recursion, so the stack
//! estimate is the frames of `sparselu` and of its tasks with the runtime's
//! spawn frames (about 31 KiB in either profile): a 32 KiB stack, not the
//! conservative 8 MiB.
//!
//! **Differences from BOTS.** BOTS allocates a missing block inside the
//! `bmod` task; here the walking thread marks it present when it spawns the
//! task (the block is already zeros), which is the same block and the same
//! values, and keeps the presence map out of the tasks. BOTS' `checkmat`
//! compares with a relative tolerance; this port requires bit identity,
//! which it achieves. The matrix is one allocation, not one per block.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here.

pub use crate::dataflow::sparselu::{
    bdiv, bmod, check, fwd, generate, lu0, sequential as sparselu_seq, task_count, Matrix,
};
pub use tasks::{sparselu, ANALYSIS, PARAMS};

/// The paper's (and BOTS' default) number of blocks per dimension: 50.
/// Not run by the tests.
pub const PAPER_NB: usize = 50;

/// The paper's (and BOTS' default) block size: `100 × 100`. Not run by the
/// tests.
pub const PAPER_BS: usize = 100;

/// The number of blocks per dimension the integration tests factorise.
pub const TEST_NB: usize = 16;

/// The block size the integration tests use with [`TEST_NB`].
pub const TEST_BS: usize = 8;

/// Whether two factorisations are equal bit for bit: the same sizes, the same
/// presence map, and the same bits in every element.
pub fn same_bits(a: &Matrix, b: &Matrix) -> bool {
    a.nb == b.nb
        && a.bs == b.bs
        && a.present == b.present
        && a.blocks.len() == b.blocks.len()
        && a.blocks
            .iter()
            .zip(&b.blocks)
            .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The task code of sparselu, analysed by `#[task_program]`: the walk along
/// the diagonal with its two phases of tasks.
#[prescient::task_program]
pub mod tasks {
    use super::{bdiv, bmod, fwd, lu0, Matrix};
    use prescient::scope;

    /// Factorises `m` in place (BOTS' `sparselu_par_call`): for every
    /// diagonal block, [`lu0`] on it, then `fwd` on the present blocks right
    /// of it and `bdiv` on those below it as the tasks of one scope, then
    /// `bmod` on every block of the trailing submatrix that a present pair
    /// updates (filling it in if absent) as the tasks of a second scope.
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what
    /// the tests measure) or on the global runtime.
    ///
    /// # Panics
    /// If the block size is 0 or the matrix does not hold `nb² · bs²`
    /// elements and `nb²` presence flags.
    pub fn sparselu(m: &mut Matrix) {
        let nb: usize = m.nb;
        let bs: usize = m.bs;
        assert!(bs > 0, "sparselu: block size 0");
        let size: usize = bs * bs;
        assert_eq!(m.blocks.len(), nb * nb * size, "sparselu: block storage");
        assert_eq!(m.present.len(), nb * nb, "sparselu: presence map");
        let blocks: &mut [f32] = &mut m.blocks;
        let present: &mut [bool] = &mut m.present;
        for kk in 0..nb {
            // Row kk from its diagonal block on, and the rows below it.
            let (_, from_diag) = blocks.split_at_mut((kk * nb + kk) * size);
            let (diag, after) = from_diag.split_at_mut(size);
            lu0(diag, bs);
            let diag: &[f32] = diag;
            let (pivot_rest, below) = after.split_at_mut((nb - kk - 1) * size);
            let pivot: &[bool] = &present[kk * nb..(kk + 1) * nb];
            scope(|s| {
                for (jj, a_kj) in pivot_rest.chunks_exact_mut(size).enumerate() {
                    if pivot[kk + 1 + jj] {
                        s.spawn(move |_| fwd(diag, a_kj, bs));
                    }
                }
                for (ii, row) in below.chunks_exact_mut(nb * size).enumerate() {
                    if present[(kk + 1 + ii) * nb + kk] {
                        let a_ik: &mut [f32] = &mut row[kk * size..(kk + 1) * size];
                        s.spawn(move |_| bdiv(diag, a_ik, bs));
                    }
                }
            });
            // The trailing update: row kk and column kk are read, the blocks
            // right of column kk and below row kk are written.
            let (upper, lower) = blocks.split_at_mut((kk + 1) * nb * size);
            let pivot_row: &[f32] = &upper[kk * nb * size..];
            let (upper_present, lower_present) = present.split_at_mut((kk + 1) * nb);
            let pivot: &[bool] = &upper_present[kk * nb..];
            scope(|s| {
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
                        let jj: usize = kk + 1 + d;
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
}
