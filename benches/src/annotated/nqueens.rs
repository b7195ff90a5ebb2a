//! BOTS `nqueens`, annotated with `#[task_program]`: count the placements of
//! `n` non-attacking queens on an `n × n` board.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `nqueens` (after Keith
//! Randall's Cilk program), in its variant without a cut-off: for row `j`, the
//! program spawns one task per column `i` in a loop (`#pragma omp task` in a
//! `for`, here [`prescient::scope`]'s spawn in a `for`); each task copies the
//! partial placement into a fixed array on its own stack (BOTS: an `alloca`
//! buffer), puts queen `j` in column `i`, and if no two queens
//! attack each other ([`ok`], which like BOTS checks every pair) recurses into
//! row `j + 1`. The scope waits for the row's tasks (`taskwait`), then the
//! per-column counts are summed.
//!
//! **What the analysis finds.** One task context, `nqueens`, with one spawn
//! site that sits in a loop (λ = 1) and whose task calls `nqueens` again: one
//! recursive parallel path (ρ = 1). Because ρ > 0 the loop rule of CF'17's
//! queue capacity tree (128 for ρ = 0, λ > 0) does not apply: nqueens is
//! classified as a *recursive* program, like fib, and CF'17's trees would
//! give `DEF` (ρ = 1 ≤ 5 and an effort below the 1M coarse band), capacity 4
//! and 256019 dependency buckets. The calibrated trees (`PARAMS`) give `DEF`
//! and capacity 8 (effort 333959 ≥ 7667: visible work, DEF/8 — the analysis
//! sees the board checks) and the same buckets.
//!
//! How this compares with CF'17 Table 3, as far as we can tell without the
//! table's figures at hand: BOTS' nqueens spawns its tasks in a loop *and*
//! recurses through them, so any reading of Alg. 2 gives it ρ ≥ 1 and λ ≥ 1;
//! with ρ ≥ 1 the paper's capacity tree never takes its loop branch, and with
//! ρ ≤ 5 and fine-grained tasks its policy tree gives `DEF`. So the paper's
//! classification (recursive, not loop-like) is what this port gets; whether
//! the paper's Insieme analysis counted exactly ρ = 1, λ = 1 for the C code is
//! not checked here. The tests assert this port's own counts.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`nqueens_seq`] and BOTS' table
//! of known solution counts ([`SOLUTIONS`]) check every run.

pub use tasks::{find_queens, nqueens, ok, ANALYSIS, PARAMS};

/// The number of solutions for `n = 1 ..= 14` (index `n - 1`), BOTS' checking
/// table: e.g. 92 for `n = 8`, 724 for `n = 10`.
pub const SOLUTIONS: [u64; 14] = [
    1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
];

/// The board sizes the integration tests run under both build profiles.
pub const TEST_SIZES: [usize; 2] = [8, 10];

/// The known number of solutions for an `n × n` board, if `n` is in
/// [`SOLUTIONS`].
pub fn expected(n: usize) -> Option<u64> {
    n.checked_sub(1).and_then(|i| SOLUTIONS.get(i)).copied()
}

/// The sequential reference: the same search without tasks (BOTS'
/// `nqueens_ser`), from an empty board.
pub fn nqueens_seq(n: usize) -> u64 {
    fn place(n: usize, a: &mut Vec<u8>) -> u64 {
        if a.len() == n {
            return 1;
        }
        let mut solutions = 0;
        for i in 0..n {
            a.push(column(i));
            if ok(a) {
                solutions += place(n, a);
            }
            a.pop();
        }
        solutions
    }
    place(n, &mut Vec::with_capacity(n))
}

/// A column index as a queen position (boards are at most 255 wide); also
/// used by the rayon version ([`crate::cf17::baselines::nqueens`]).
pub fn column(i: usize) -> u8 {
    u8::try_from(i).expect("nqueens: board wider than 255 columns")
}

/// The widest board the task version handles: its placements and per-column
/// counts live in fixed arrays on the task's stack, as BOTS keeps them in
/// `alloca` buffers (no heap allocation per task). nqueens(32) would take
/// far longer than anyone waits.
pub const MAX_BOARD: usize = 32;

/// The task code of nqueens, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use prescient::scope;

    /// Whether no two queens of the placement `a` attack each other: `a[r]` is
    /// the column of the queen in row `r`. Checks every pair, as BOTS does.
    pub fn ok(a: &[u8]) -> bool {
        for (i, &p) in a.iter().enumerate() {
            for (j, &q) in a.iter().enumerate().skip(i + 1) {
                let (p, q, d) = (usize::from(p), usize::from(q), j - i);
                if q == p || q == p + d || q + d == p {
                    return false;
                }
            }
        }
        true
    }

    /// The number of ways to complete the placement `a` (one queen per row
    /// for the first `a.len()` rows) to a full `n × n` solution: one task per
    /// column of the next row, each recursing, then the sum of their counts.
    ///
    /// # Panics
    /// If `n` exceeds [`MAX_BOARD`](super::MAX_BOARD).
    pub fn nqueens(n: usize, a: &[u8]) -> u64 {
        let j = a.len();
        if j == n {
            return 1;
        }
        assert!(n <= super::MAX_BOARD, "nqueens: board wider than MAX_BOARD");
        let mut counts: [u64; super::MAX_BOARD] = [0; super::MAX_BOARD];
        scope(|s| {
            for (i, count) in counts[..n].iter_mut().enumerate() {
                s.spawn(move |_| {
                    let mut b: [u8; super::MAX_BOARD] = [0; super::MAX_BOARD];
                    b[..j].copy_from_slice(a);
                    b[j] = super::column(i);
                    if ok(&b[..=j]) {
                        *count = nqueens(n, &b[..=j]);
                    }
                });
            }
        });
        counts[..n].iter().sum()
    }

    /// The number of solutions on an empty `n × n` board (BOTS'
    /// `find_queens`).
    pub fn find_queens(n: usize) -> u64 {
        nqueens(n, &[])
    }
}
