//! nqueens under rayon: [`crate::annotated::nqueens`]'s task code with
//! `prescient::scope` replaced by `rayon::scope`, one spawn per column of the
//! next row, each task copying the placement into a fixed array on its stack.

use crate::annotated::nqueens::{column, ok, MAX_BOARD};

/// The number of ways to complete the placement `a` to a full `n × n`
/// solution: one `rayon::scope` spawn per column of the next row, each
/// recursing (the task version's [`nqueens`](crate::annotated::nqueens::nqueens)).
///
/// # Panics
/// If `n` exceeds [`MAX_BOARD`].
pub fn nqueens_rayon(n: usize, a: &[u8]) -> u64 {
    let j = a.len();
    if j == n {
        return 1;
    }
    assert!(n <= MAX_BOARD, "nqueens: board wider than MAX_BOARD");
    let mut counts: [u64; MAX_BOARD] = [0; MAX_BOARD];
    rayon::scope(|s| {
        for (i, count) in counts[..n].iter_mut().enumerate() {
            s.spawn(move |_| {
                let mut b: [u8; MAX_BOARD] = [0; MAX_BOARD];
                b[..j].copy_from_slice(a);
                b[j] = column(i);
                if ok(&b[..=j]) {
                    *count = nqueens_rayon(n, &b[..=j]);
                }
            });
        }
    });
    counts[..n].iter().sum()
}

/// The number of solutions on an empty `n × n` board, under rayon.
pub fn find_queens_rayon(n: usize) -> u64 {
    nqueens_rayon(n, &[])
}
