//! alignment under rayon: [`crate::annotated::alignment`]'s pair loop with
//! `prescient::scope` replaced by `rayon::scope`, one spawn per pair `si < sj`
//! running the program's own kernel [`pair_score`].
//!
//! The score matrix type keeps its cells private, so the rayon version
//! returns the cells themselves, row-major, to compare with
//! [`ScoreMatrix::scores`](crate::annotated::alignment::ScoreMatrix::scores).

use crate::annotated::alignment::{pair_score, Scoring, Sequence};

/// The `seqs.len()²` cells of the score matrix, row-major: the score of every
/// pair `si < sj` (one `rayon::scope` spawn each), 0 elsewhere.
pub fn pairalign_rayon(seqs: &[Sequence], scoring: &Scoring) -> Vec<i32> {
    let nseqs = seqs.len();
    let mut scores: Vec<i32> = vec![0; nseqs * nseqs];
    rayon::scope(|s| {
        for (si, row) in scores.chunks_mut(nseqs.max(1)).enumerate() {
            let a = &seqs[si];
            for (sj, cell) in row.iter_mut().enumerate().skip(si + 1) {
                let b = &seqs[sj];
                s.spawn(move |_| *cell = pair_score(scoring, a, b));
            }
        }
    });
    scores
}
