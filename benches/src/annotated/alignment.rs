//! BOTS `alignment`, annotated with `#[task_program]`: pairwise alignment of
//! every pair of sequences of a protein file.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `alignment` benchmark
//! (from the Application Kernel Matrix by Cray, itself ClustalW's pairwise
//! stage), in its `single` variant: one loop nest over the pairs `(si, sj)`,
//! `si < sj`, spawns one task per pair (`#pragma omp task` in a `for`, here
//! [`prescient::scope`]'s spawn in a `for`). Each task aligns its pair as
//! ClustalW does — a local-alignment forward pass and reverse pass find the
//! best-scoring segment, Myers and Miller's linear-space divide and conquer
//! (`diff`) computes its edit script, and the trace yields the percent
//! identity — and writes it to the pair's cell of the score matrix. Scoring is
//! the Gonnet 250 matrix (scaled by 10) with BOTS' protein gap penalties
//! (open 10 + ln(min length), extend 0.1), exactly as BOTS sets them up.
//!
//! **What the analysis finds.** One task context, [`pairalign`], with one spawn
//! site inside the pair loop: λ = 1. Its tasks call the alignment kernel, whose
//! `diff` recursion is sequential (no spawn on its cycle), so there is no
//! recursive *parallel* path: ρ = 0. That is the loop-like class
//! (CF'17 puts alignment there): CF'17's capacity tree's first branch
//! (ρ = 0, λ > 0) would give a queue capacity of 128, and ρ = 0 gives 97
//! dependency buckets. The kernel's loops have run-time bounds, so the effort
//! analysis counts 100 iterations each; the nested loops of the forward pass
//! and of `diff` put a task's effort at a few million operations, in the
//! 1M–1T coarse band, so CF'17's policy tree would pick `PF`. The calibrated
//! trees (`PARAMS`) give `DEF` and capacity 8 (effort ≈ 5.9M ≥ 7667: visible
//! work, DEF/8), with the same 97 buckets. The `diff` recursion calls
//! methods on values and macros, which the analysis cannot see, so its stack
//! estimate falls back to the conservative 8 MiB (the runtime's default).
//!
//! The kernel is written as free functions of the module (`forward_pass(&pair,
//! …)`, `diff(pair, …)`), not as methods called on a value (`pair.diff(…)`):
//! the analyzer has no type information, so a method call on anything but
//! `self` is an invisible call to it (10 operations and 4 KiB of stack),
//! which would hide the whole kernel from the effort and stack analyses.
//!
//! The port was checked against BOTS' C code (its `pairalign_seq`, compiled
//! with gcc) on both inputs: all 190 scores of `prot.20.aa` and all 4950 of
//! `prot.100.aa` are equal; [`BOTS_PROT_20_FINGERPRINT`] and
//! [`BOTS_PROT_100_FINGERPRINT`] record the C results, so a run can be checked
//! against them without the sequential reference.
//!
//! **Sequential speed.** On a 2-core Intel Xeon VM (2.6 GHz, shared, so
//! each program's best of 5 runs, taken alternately), [`pairalign_seq`] on
//! `prot.20.aa` takes 162 ms (a release build of a small program timing
//! `pairalign_seq(&read_sequences(prot_20())?, &Scoring::protein())`; rustc
//! 1.95), against 228 ms for BOTS' C `pairalign_seq` built with gcc 12.2.0
//! `-O2` (BOTS' default) and 240 ms with `-O3`, same scores: 0.71× C. On
//! `prot.100.aa` (best of 2): 4.4 s against 6.0 s (`-O2`) and 6.2 s
//! (`-O3`). Before, the kernel took 450 ms on `prot.20.aa`, 2.0× C (and
//! 16.6 s on `prot.100.aa` in a run where C took 10.0 s). The gap was not
//! bounds checks or integer widths but branches: every `a.max(b)` of the
//! recurrences is LLVM's `smax`, and x86's cmov-conversion pass made most of
//! them data-dependent, often mispredicted branches inside the cell loops,
//! where gcc emits conditional moves. The kernel's own `max` (a
//! `select_unpredictable` on the sign of the wrapping difference, exact
//! below [`MAX_LEN`]) keeps them `cmov`s: that alone gave about 300 ms.
//! Packing each column's two scores together, tracking the best score per
//! row and writing `max(dd − gh, h − g − gh)` as `max(dd, h − g) − gh`
//! (fewer live values, no spills in the cell loop) gave about 215 ms, C's
//! speed with C's dependency chain. The rest comes from a rearrangement
//! BOTS does not make: as a cell's score `hh = max(x, f)` is at least `f`,
//! the gap score `f` carried to the next cell equals `max(f, x − g) − gh`,
//! so the chain from cell to cell is one `max` and one subtraction instead
//! of the whole cell (see `tasks::forward_pass`). The results are
//! unchanged: same values, same fingerprints.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`pairalign_seq`] computes the
//! same score matrix in the same order (BOTS' `align_seq`); the parallel one
//! must match it cell for cell (BOTS' `align_verify`).
//!
//! Inputs: BOTS' `prot.20.aa` and `prot.100.aa` in `benches/data/alignment/`
//! ([`prot_20`], [`prot_100`]; see `SOURCE.md` there).

use std::path::{Path, PathBuf};

pub use tasks::{pair_score, pairalign, ANALYSIS, PARAMS};

/// BOTS' small alignment input: 20 protein sequences, 97 to 1841 residues.
pub fn prot_20() -> PathBuf {
    crate::data::input("alignment/prot.20.aa")
}

/// BOTS' larger alignment input: 100 protein sequences, up to 2069 residues.
pub fn prot_100() -> PathBuf {
    crate::data::input("alignment/prot.100.aa")
}

/// The [`ScoreMatrix::fingerprint`] of BOTS' own result on [`prot_20`]: its
/// C `pairalign_seq` (commit 2607a69, compiled with gcc) run on the same file.
pub const BOTS_PROT_20_FINGERPRINT: Fingerprint = Fingerprint {
    sum: 848,
    fnv1a: 0xa2dd_1d0d_5292_4861,
};

/// The [`ScoreMatrix::fingerprint`] of BOTS' own result on [`prot_100`] (see
/// [`BOTS_PROT_20_FINGERPRINT`]).
pub const BOTS_PROT_100_FINGERPRINT: Fingerprint = Fingerprint {
    sum: 19297,
    fnv1a: 0x1502_a33c_20da_4a34,
};

/// The longest sequence [`pair_score`] aligns: 2^18 residues (BOTS stops at
/// 5000). Every score of the kernel then lies within ±1420 · 2^18 plus the
/// gap costs, well inside ±2^30, so the kernel's branch-free `max` (a
/// wrapping difference) never wraps.
pub const MAX_LEN: usize = 1 << 18;

/// The residue codes, in the order of their code numbers (BOTS'
/// `amino_acid_codes`); `-` is a gap.
const CODES: &[u8; 25] = b"ABCDEFGHIKLMNPQRSTUVWXYZ-";

/// The residue order of the rows and columns of [`GON250`] (BOTS'
/// `amino_acid_order`).
const GON250_ORDER: &[u8; 23] = b"ABCDEFGHIKLMNPQRSTVWXYZ";

/// The size of the (code × code) score matrix (BOTS' `NUMRES`).
const NUMRES: usize = 32;

/// The code of the first gap symbol (BOTS' `gap_pos1`).
const GAP_POS1: u8 = (NUMRES - 2) as u8;

/// The code of `-`, the second gap symbol (BOTS' `gap_pos2`).
const GAP_POS2: u8 = (NUMRES - 1) as u8;

/// The fixed-point scale of scores and gap penalties (BOTS' `INT_SCALE`).
const INT_SCALE: f64 = 100.0;

/// The Gonnet 250 (PAM 250) substitution matrix as ClustalW and BOTS ship it:
/// the lower triangle, row by row, in [`GON250_ORDER`] (Gonnet, Cohen and
/// Benner, *Exhaustive matching of the entire protein sequence database*,
/// Science 256, 1992).
#[rustfmt::skip]
const GON250: [i32; 276] = [
     24,
      0,   0,
      5,   0, 115,
     -3,   0, -32,  47,
      0,   0, -30,  27,  36,
    -23,   0,  -8, -45, -39,  70,
      5,   0, -20,   1,  -8, -52,  66,
     -8,   0, -13,   4,   4,  -1, -14,  60,
     -8,   0, -11, -38, -27,  10, -45, -22,  40,
     -4,   0, -28,   5,  12, -33, -11,   6, -21,  32,
    -12,   0, -15, -40, -28,  20, -44, -19,  28, -21,  40,
     -7,   0,  -9, -30, -20,  16, -35, -13,  25, -14,  28,  43,
     -3,   0, -18,  22,   9, -31,   4,  12, -28,   8, -30, -22,  38,
      3,   0, -31,  -7,  -5, -38, -16, -11, -26,  -6, -23, -24,  -9,  76,
     -2,   0, -24,   9,  17, -26, -10,  12, -19,  15, -16, -10,   7,  -2,  27,
     -6,   0, -22,  -3,   4, -32, -10,   6, -24,  27, -22, -17,   3,  -9,  15,  47,
     11,   0,   1,   5,   2, -28,   4,  -2, -18,   1, -21, -14,   9,   4,   2,  -2,  22,
      6,   0,  -5,   0,  -1, -22, -11,  -3,  -6,   1, -13,  -6,   5,   1,   0,  -2,  15,  25,
      1,   0,   0, -29, -19,   1, -33, -20,  31, -17,  18,  16, -22, -18, -15, -20, -10,   0,  34,
    -36,   0, -10, -52, -43,  36, -40,  -8, -18, -35,  -7, -10, -36, -50, -27, -16, -33, -35, -26, 142,
      0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
    -22,   0,  -5, -28, -27,  51, -40,  22,  -7, -21,   0,  -2, -14, -31, -17, -18, -19, -19, -11,  41,   0,  78,
      0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,   0,
];

/// The code number of a residue symbol, if it is one of [`CODES`].
fn code_of(symbol: u8) -> Option<u8> {
    if symbol == b'-' {
        return Some(GAP_POS2);
    }
    CODES
        .iter()
        .position(|&c| c == symbol)
        .and_then(|i| u8::try_from(i).ok())
}

/// One protein sequence, encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    /// The name: the first word of the `>` line.
    name: String,
    /// The residue codes, 1-based as the alignment recurrences are written:
    /// `codes[0]` is padding and `codes[1..=len]` are the residues.
    codes: Vec<u8>,
}

impl Sequence {
    /// A sequence from its name and residue symbols (upper-case one-letter
    /// codes or `-`); `None` if a symbol is not a residue code.
    pub fn new(name: &str, residues: &[u8]) -> Option<Sequence> {
        let mut codes = Vec::with_capacity(residues.len() + 1);
        codes.push(0);
        for &r in residues {
            codes.push(code_of(r)?);
        }
        Some(Sequence {
            name: name.to_owned(),
            codes,
        })
    }

    /// The sequence's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The number of residues (gaps included).
    pub fn len(&self) -> usize {
        self.codes.len() - 1
    }

    /// Whether the sequence has no residues.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The number of residues that are not gaps.
    pub fn residue_count(&self) -> usize {
        self.codes[1..]
            .iter()
            .filter(|&&c| c != GAP_POS1 && c != GAP_POS2)
            .count()
    }
}

pub use super::input::ReadError;

/// Parses a sequence file in BOTS' format: a first line
/// `Number of sequences is N`, then `N` sequences in Pearson (FASTA) format.
///
/// As in BOTS, a sequence's residues are the upper-case residue codes and `-`
/// on the lines up to the next `>` line; every other character (line ends,
/// spaces, digits, lower case) is skipped; sequences after the `N`-th are
/// ignored.
pub fn parse_sequences(text: &str) -> Result<Vec<Sequence>, ReadError> {
    let mut lines = text.lines();
    let header = lines.next().unwrap_or("");
    let count: usize = header
        .trim()
        .strip_prefix("Number of sequences is")
        .and_then(|n| n.trim().parse().ok())
        .ok_or_else(|| ReadError::Format(format!("bad header line {header:?}")))?;
    let mut sequences = Vec::with_capacity(count);
    let mut current: Option<(String, Vec<u8>)> = None;
    for line in lines {
        if let Some(title) = line.strip_prefix('>') {
            if let Some((name, residues)) = current.take() {
                sequences.push((name, residues));
            }
            let name = title.split_whitespace().next().unwrap_or("");
            current = Some((name.to_owned(), Vec::new()));
        } else if let Some((_, residues)) = &mut current {
            residues.extend(line.bytes().filter(|&b| b == b'-' || CODES.contains(&b)));
        }
    }
    sequences.extend(current);
    if sequences.len() < count {
        return Err(ReadError::Format(format!(
            "the header announces {count} sequences, the file holds {}",
            sequences.len()
        )));
    }
    sequences.truncate(count);
    Ok(sequences
        .into_iter()
        .map(|(name, residues)| {
            Sequence::new(&name, &residues).expect("only residue codes were kept")
        })
        .collect())
}

/// Reads and parses a sequence file in BOTS' format (see [`parse_sequences`]).
pub fn read_sequences(path: impl AsRef<Path>) -> Result<Vec<Sequence>, ReadError> {
    let text = std::fs::read_to_string(path).map_err(ReadError::Io)?;
    parse_sequences(&text)
}

/// The scoring scheme: the substitution matrix over residue codes and the
/// pairwise gap penalties (BOTS' `get_matrix` and `pairalign_init`, protein
/// parameters, ClustalW scaling off).
#[derive(Clone, Debug, PartialEq)]
pub struct Scoring {
    /// Substitution scores by residue code; zero for gaps and unknown codes.
    matrix: [[i32; NUMRES]; NUMRES],
    /// Minus the mean off-diagonal score (BOTS' `mat_avscore`).
    mat_avscore: i32,
    /// Pairwise gap opening penalty (BOTS' `pw_go_penalty`).
    pw_go_penalty: f64,
    /// Pairwise gap extension penalty (BOTS' `pw_ge_penalty`).
    pw_ge_penalty: f64,
    /// Gap opening scale (BOTS' `gap_open_scale`, 1 without ClustalW scaling).
    gap_open_scale: f64,
}

impl Scoring {
    /// BOTS' protein scoring: Gonnet 250 scaled by 10, gap opening 10, gap
    /// extension 0.1.
    pub fn protein() -> Scoring {
        const SCALE: i32 = 10;
        let mut matrix = [[0i32; NUMRES]; NUMRES];
        let code = |symbol: u8| usize::from(code_of(symbol).expect("Gonnet residues are codes"));
        let mut entries = GON250.iter();
        let mut diagonal = 0;
        for (i, &row) in GON250_ORDER.iter().enumerate() {
            for &column in &GON250_ORDER[..=i] {
                let k = entries.next().expect("276 entries") * SCALE;
                let (ti, tj) = (code(row), code(column));
                matrix[ti][tj] = k;
                matrix[tj][ti] = k;
                diagonal += usize::from(ti == tj);
            }
        }
        // BOTS' `maxres - 1` residues define the mean off-diagonal score.
        let maxres = i32::try_from(diagonal).expect("23 residues") - 1;
        let mut off_diagonal = 0i32;
        for (i, row) in matrix.iter().enumerate().take(CODES.len() - 1) {
            off_diagonal += row[..i].iter().sum::<i32>();
        }
        let av3 = off_diagonal / ((maxres * maxres - maxres) / 2);
        Scoring {
            matrix,
            mat_avscore: -av3,
            pw_go_penalty: 10.0,
            pw_ge_penalty: 0.1,
            gap_open_scale: 1.0,
        }
    }

    /// The substitution score of two residue codes.
    pub fn score(&self, a: u8, b: u8) -> i32 {
        self.row(a)[usize::from(b) % NUMRES]
    }

    /// The substitution scores of residue code `a` against every code.
    ///
    /// Codes are below `NUMRES`; reducing them modulo `NUMRES` (a power of
    /// two: one `and`) changes nothing but lets the compiler drop the bounds
    /// check from the alignment's innermost loops.
    pub fn row(&self, a: u8) -> &[i32; NUMRES] {
        &self.matrix[usize::from(a) % NUMRES]
    }

    /// The gap opening and extension penalties for a pair of sequences of
    /// lengths `n` and `m`, in fixed point (BOTS' `g` and `gh`).
    pub fn gap_penalties(&self, n: usize, m: usize) -> (i32, i32) {
        let gg = self.pw_go_penalty + (n.min(m) as f64).ln();
        let g = if self.mat_avscore <= 0 {
            2.0 * INT_SCALE * gg
        } else {
            f64::from(2 * self.mat_avscore) * gg * self.gap_open_scale
        };
        (g as i32, (INT_SCALE * self.pw_ge_penalty) as i32)
    }
}

/// The result: for each pair `si < sj` the percent identity of their best
/// local alignment (BOTS' `bench_output`); other cells are 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScoreMatrix {
    /// The number of sequences.
    nseqs: usize,
    /// `nseqs × nseqs` scores, row-major.
    scores: Vec<i32>,
}

impl ScoreMatrix {
    /// The number of sequences.
    pub fn nseqs(&self) -> usize {
        self.nseqs
    }

    /// The score of pair `(si, sj)`, `si < sj`, 0-based (0 for other cells).
    pub fn get(&self, si: usize, sj: usize) -> i32 {
        self.scores[si * self.nseqs + sj]
    }

    /// All cells, row-major.
    pub fn scores(&self) -> &[i32] {
        &self.scores
    }

    /// A short summary to compare results across runs and implementations:
    /// the sum of the pair scores and a 64-bit FNV-1a hash of `(si, sj,
    /// score)` for every pair `si < sj` in row-major order, each as four
    /// little-endian bytes (what BOTS prints per pair).
    pub fn fingerprint(&self) -> Fingerprint {
        let mut fnv1a: u64 = 0xcbf2_9ce4_8422_2325;
        let mut sum: i64 = 0;
        for si in 0..self.nseqs {
            for sj in si + 1..self.nseqs {
                let score = self.get(si, sj);
                sum += i64::from(score);
                let fields = [si as i32, sj as i32, score];
                for byte in fields.iter().flat_map(|v| v.to_le_bytes()) {
                    fnv1a = (fnv1a ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
                }
            }
        }
        Fingerprint { sum, fnv1a }
    }
}

/// A [`ScoreMatrix`] summary: see [`ScoreMatrix::fingerprint`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// The sum of the pair scores.
    pub sum: i64,
    /// FNV-1a of the `(si, sj, score)` triples.
    pub fnv1a: u64,
}

/// The sequential reference (BOTS' `pairalign_seq`): every pair in order,
/// with the same kernel as the tasks.
pub fn pairalign_seq(seqs: &[Sequence], scoring: &Scoring) -> ScoreMatrix {
    let nseqs = seqs.len();
    let mut scores = vec![0; nseqs * nseqs];
    for (si, a) in seqs.iter().enumerate() {
        for (sj, b) in seqs.iter().enumerate().skip(si + 1) {
            scores[si * nseqs + sj] = pair_score(scoring, a, b);
        }
    }
    ScoreMatrix { nseqs, scores }
}

/// The task code of alignment, analysed by `#[task_program]`: the parallel
/// pair loop and the alignment kernel its tasks run.
#[prescient::task_program]
pub mod tasks {
    use super::{ScoreMatrix, Scoring, Sequence, GAP_POS1, GAP_POS2, MAX_LEN, NUMRES};
    use prescient::scope;

    /// Aligns every pair `si < sj` of `seqs`, one task per pair spawned in
    /// the pair loop, and returns the score matrix.
    pub fn pairalign(seqs: &[Sequence], scoring: &Scoring) -> ScoreMatrix {
        let nseqs = seqs.len();
        let mut scores: Vec<i32> = vec![0; nseqs * nseqs];
        scope(|s| {
            for (si, row) in scores.chunks_mut(nseqs.max(1)).enumerate() {
                let a = &seqs[si];
                for (sj, cell) in row.iter_mut().enumerate().skip(si + 1) {
                    let b = &seqs[sj];
                    s.spawn(move |_| *cell = pair_score(scoring, a, b));
                }
            }
        });
        ScoreMatrix { nseqs, scores }
    }

    /// The percent identity of the best local alignment of `a` and `b` (the
    /// body of BOTS' task): 1 if either is empty.
    pub fn pair_score(scoring: &Scoring, a: &Sequence, b: &Sequence) -> i32 {
        let (n, m) = (a.len(), b.len());
        if n == 0 || m == 0 {
            return 1;
        }
        assert!(
            n.max(m) <= MAX_LEN,
            "sequences of at most {MAX_LEN} residues"
        );
        let (g, gh) = scoring.gap_penalties(n, m);
        assert!(g >= 0, "the kernel's recurrences need a gap opening cost");
        let pair = Pair {
            a: &a.codes,
            b: &b.codes,
            scoring,
            g,
            gh,
        };
        let (maxscore, se1, se2) = forward_pass(&pair, n, m);
        let (sb1, sb2) = reverse_pass(&pair, se1, se2, maxscore);
        let mut script = Script::new();
        let mut rows = Rows::new(m);
        diff(
            &pair,
            sb1 - 1,
            sb2 - 1,
            se1 + 1 - sb1,
            se2 + 1 - sb2,
            (0, 0),
            &mut script,
            &mut rows,
        );
        let identical = tracepath(&pair, sb1, sb2, &script);
        let (len1, len2) = (a.residue_count(), b.residue_count());
        if len1 == 0 || len2 == 0 {
            return 0;
        }
        (100.0 * identical as f64 / len1.min(len2) as f64) as i32
    }

    /// One pair being aligned: the two code sequences (1-based, see
    /// [`Sequence`]), the scoring and the pair's gap penalties.
    struct Pair<'a> {
        a: &'a [u8],
        b: &'a [u8],
        scoring: &'a Scoring,
        /// Gap opening penalty.
        g: i32,
        /// Gap extension penalty.
        gh: i32,
    }

    /// The edit script of an alignment (BOTS' `displ`): 0 aligns a residue
    /// of each sequence, `k > 0` inserts `k` residues of `b`, `k < 0` deletes
    /// `-k` residues of `a`. `ops[0]` is padding.
    struct Script {
        ops: Vec<i32>,
        /// The last operation written (BOTS' `last_print`).
        last: i32,
    }

    impl Script {
        fn new() -> Script {
            Script {
                ops: vec![0],
                last: 0,
            }
        }

        /// Deletes `k` residues of `a`, merging with a preceding deletion.
        fn del(&mut self, k: i32) {
            if self.last < 0 {
                let top = self.ops.last_mut().expect("a deletion was written");
                *top -= k;
                self.last = *top;
            } else {
                self.ops.push(-k);
                self.last = -k;
            }
        }

        /// Inserts `k` residues of `b` (before a preceding deletion).
        fn add(&mut self, k: i32) {
            if self.last < 0 {
                let deletion = self.last;
                *self.ops.last_mut().expect("a deletion was written") = k;
                self.ops.push(deletion);
            } else {
                self.ops.push(k);
                self.last = k;
            }
        }

        /// Aligns one residue of each sequence.
        fn matched(&mut self) {
            self.ops.push(0);
            self.last = 0;
        }
    }

    /// The score rows of the Myers–Miller recursion, allocated once per pair:
    /// each level is done with them before it recurses.
    struct Rows {
        hh: Vec<i32>,
        dd: Vec<i32>,
        rr: Vec<i32>,
        ss: Vec<i32>,
    }

    impl Rows {
        fn new(m: usize) -> Rows {
            Rows {
                hh: vec![0; m + 1],
                dd: vec![0; m + 1],
                rr: vec![0; m + 1],
                ss: vec![0; m + 1],
            }
        }
    }

    /// The larger of `a` and `b`, as a conditional move: never a branch.
    ///
    /// `a.max(b)` is LLVM's `smax`, which x86's cmov-conversion pass turns
    /// into a branch in these loops — a data-dependent, often mispredicted
    /// one. Testing the sign of the wrapping difference hides the `smax`
    /// pattern, and `select_unpredictable` tells the backend to keep the
    /// select a `cmov`. It equals `a.max(b)` while `a - b` fits an `i32`,
    /// which [`MAX_LEN`] guarantees for every score here.
    fn max(a: i32, b: i32) -> i32 {
        std::hint::select_unpredictable(a.wrapping_sub(b) > 0, a, b)
    }

    /// `0` for an empty gap, else `open + gh · k` (BOTS' `tbgap`/`tegap`).
    fn gap(open: i32, gh: i32, k: usize) -> i32 {
        if k == 0 {
            0
        } else {
            open + gh * k as i32
        }
    }

    /// The score of residue `i` of `a[a0..]` against residue `j` of
    /// `b[b0..]`, 1-based (BOTS' `calc_score`).
    fn score(pair: &Pair, i: usize, j: usize, a0: usize, b0: usize) -> i32 {
        pair.scoring.score(pair.a[a0 + i], pair.b[b0 + j])
    }

    /// The local-alignment forward pass over `a[1..=n]` × `b[1..=m]`:
    /// the best score and where it ends.
    ///
    /// BOTS' recurrence, with its values, rearranged for speed (the module's
    /// "Sequential speed"): per cell, `f` (best ending in a gap in `a`) is
    /// `max(f − gh, hh − g − gh)` of the previous cell and `hh = max(x, f)`,
    /// where `x = max(p + score, dd, 0)` does not depend on `f`. As `hh ≥ f`
    /// and `g ≥ 0`, `max(f − gh, hh − g − gh) = max(f, x − g) − gh`: the
    /// only value carried from cell to cell is `f`, one `max` and one
    /// subtraction long, not the whole cell. Likewise `dd = max(dd − gh,
    /// h − g − gh)` is computed as `max(dd, h − g) − gh`. The best score is
    /// tracked per row (the first cell that beats it, as in BOTS).
    fn forward_pass(pair: &Pair, n: usize, m: usize) -> (i32, usize, usize) {
        let (g, gh) = (pair.g, pair.gh);
        // Per column: the previous row's score and its best score ending in
        // a gap in `b` (BOTS' `HH[j]` and `DD[j]`).
        let mut cells: Vec<(i32, i32)> = vec![(0, -g); m + 1];
        let (b, cells) = (&pair.b[1..=m], &mut cells[1..=m]);
        let (mut maxscore, mut se1, mut se2) = (0, 0, 0);
        for (i, &ai) in pair.a[1..=n].iter().enumerate() {
            let row = pair.scoring.row(ai);
            let (mut x, mut p, mut f): (i32, i32, i32) = (0, 0, -g);
            let (mut row_max, mut row_j) = (maxscore, 0);
            for (j, (h, d)) in cells.iter_mut().enumerate() {
                f = max(f, x - g) - gh;
                *d = max(*d, *h - g) - gh;
                x = max(p + row[usize::from(b[j]) % NUMRES], max(*d, 0));
                let hh = max(x, f);
                p = *h;
                *h = hh;
                if hh > row_max {
                    (row_max, row_j) = (hh, j + 1);
                }
            }
            if row_max > maxscore {
                (maxscore, se1, se2) = (row_max, i + 1, row_j);
            }
        }
        (maxscore, se1, se2)
    }

    /// The reverse pass from the end `(se1, se2)`: where a segment
    /// reaching `maxscore` starts (the recurrence rearranged as in
    /// [`forward_pass`]).
    fn reverse_pass(pair: &Pair, se1: usize, se2: usize, maxscore: i32) -> (usize, usize) {
        let (g, gh) = (pair.g, pair.gh);
        let mut cells: Vec<(i32, i32)> = vec![(-1, -1); se2 + 1];
        let (b, cells) = (&pair.b[1..=se2], &mut cells[1..=se2]);
        let mut cost = 0;
        let (mut sb1, mut sb2) = (1, 1);
        'rows: for i in (1..=se1).rev() {
            let row = pair.scoring.row(pair.a[i]);
            let (mut x, mut f): (i32, i32) = (-1, -1);
            let mut p: i32 = if i == se1 { 0 } else { -1 };
            for (j, (&bj, (h, d))) in b.iter().zip(cells.iter_mut()).enumerate().rev() {
                f = max(f, x - g) - gh;
                *d = max(*d, *h - g) - gh;
                x = max(p + row[usize::from(bj) % NUMRES], *d);
                let hh = max(x, f);
                p = *h;
                *h = hh;
                if hh > cost {
                    (cost, sb1, sb2) = (hh, i, j + 1);
                    if cost >= maxscore {
                        break 'rows;
                    }
                }
            }
        }
        (sb1, sb2)
    }

    /// Myers and Miller's linear-space global alignment of `a[a0 + 1 ..=
    /// a0 + m]` and `b[b0 + 1 ..= b0 + n]` with gap opening costs `tb`
    /// before and `te` after (`ends`), appended to `script`; returns its
    /// score (BOTS' `diff`). Recursive, but sequential: no task. Its two
    /// sweeps use [`forward_pass`]'s rearranged recurrence (same values).
    #[allow(clippy::too_many_arguments)]
    fn diff(
        pair: &Pair,
        a0: usize,
        b0: usize,
        m: usize,
        n: usize,
        ends: (i32, i32),
        script: &mut Script,
        rows: &mut Rows,
    ) -> i32 {
        let (g, gh) = (pair.g, pair.gh);
        let (tb, te) = ends;
        if n == 0 {
            if m > 0 {
                script.del(m as i32);
            }
            return -gap(tb, gh, m);
        }
        if m <= 1 {
            if m == 0 {
                script.add(n as i32);
                return -gap(tb, gh, n);
            }
            let mut midh: i32 = (-(tb + gh) - gap(te, gh, n)).max(-(te + gh) - gap(tb, gh, n));
            let mut midj: usize = 0;
            for j in 1..=n {
                let hh = score(pair, 1, j, a0, b0) - gap(te, gh, n - j) - gap(tb, gh, j - 1);
                if hh > midh {
                    midh = hh;
                    midj = j;
                }
            }
            if midj == 0 {
                script.del(1);
                script.add(n as i32);
            } else {
                if midj > 1 {
                    script.add((midj - 1) as i32);
                }
                script.matched();
                if midj < n {
                    script.add((n - midj) as i32);
                }
            }
            return midh;
        }

        let midi: usize = m / 2;
        let Rows { hh: h, dd, rr, ss } = rows;
        let (h, dd, rr, ss) = (&mut h[..=n], &mut dd[..=n], &mut rr[..=n], &mut ss[..=n]);
        let b: &[u8] = &pair.b[b0..=b0 + n];
        // Forward: the scores of a[1..=midi] against every prefix of b.
        h[0] = 0;
        let mut t: i32 = -tb;
        for j in 1..=n {
            t -= gh;
            h[j] = t;
            dd[j] = t - g;
        }
        t = -tb;
        for i in 1..=midi {
            let row = pair.scoring.row(pair.a[a0 + i]);
            let mut s: i32 = h[0];
            t -= gh;
            h[0] = t;
            let (mut x, mut f): (i32, i32) = (t, t - g);
            let columns = b[1..].iter().zip(h[1..].iter_mut()).zip(dd[1..].iter_mut());
            for ((&bj, hj), dj) in columns {
                f = max(f, x - g) - gh;
                let e: i32 = max(*dj, *hj - g) - gh;
                x = max(s + row[usize::from(bj) % NUMRES], e);
                s = *hj;
                *hj = max(x, f);
                *dj = e;
            }
        }
        dd[0] = h[0];
        // Reverse: the scores of a[midi + 1..=m] against every suffix of b.
        rr[n] = 0;
        t = -te;
        for j in (0..n).rev() {
            t -= gh;
            rr[j] = t;
            ss[j] = t - g;
        }
        t = -te;
        for i in (midi..m).rev() {
            let row = pair.scoring.row(pair.a[a0 + i + 1]);
            let mut s: i32 = rr[n];
            t -= gh;
            rr[n] = t;
            let (mut x, mut f): (i32, i32) = (t, t - g);
            let columns = b[1..]
                .iter()
                .zip(rr[..n].iter_mut())
                .zip(ss[..n].iter_mut());
            for ((&bj, rj), sj) in columns.rev() {
                f = max(f, x - g) - gh;
                let e: i32 = max(*sj, *rj - g) - gh;
                x = max(s + row[usize::from(bj) % NUMRES], e);
                s = *rj;
                *rj = max(x, f);
                *sj = e;
            }
        }
        ss[n] = rr[n];
        // Where the optimal path crosses row midi, and whether it does so
        // inside a deletion (type 2).
        let mut midh: i32 = h[0] + rr[0];
        let mut midj: usize = 0;
        let mut in_deletion = false;
        for j in 0..=n {
            let hh = h[j] + rr[j];
            if hh > midh || (hh == midh && h[j] != dd[j] && rr[j] == ss[j]) {
                midh = hh;
                midj = j;
            }
        }
        for j in (0..=n).rev() {
            let hh = dd[j] + ss[j] + g;
            if hh > midh {
                midh = hh;
                midj = j;
                in_deletion = true;
            }
        }
        if in_deletion {
            diff(pair, a0, b0, midi - 1, midj, (tb, 0), script, rows);
            script.del(2);
            diff(
                pair,
                a0 + midi + 1,
                b0 + midj,
                m - midi - 1,
                n - midj,
                (0, te),
                script,
                rows,
            );
        } else {
            diff(pair, a0, b0, midi, midj, (tb, g), script, rows);
            diff(
                pair,
                a0 + midi,
                b0 + midj,
                m - midi,
                n - midj,
                (g, te),
                script,
                rows,
            );
        }
        midh
    }

    /// Follows the edit script from `(sb1, sb2)` and counts the aligned
    /// pairs of identical residues (BOTS' `tracepath`, without its
    /// factor 100).
    fn tracepath(pair: &Pair, sb1: usize, sb2: usize, script: &Script) -> usize {
        let (mut i1, mut i2) = (sb1, sb2);
        let mut identical: usize = 0;
        for &op in &script.ops[1..] {
            if op == 0 {
                let (c1, c2) = (pair.a[i1], pair.b[i2]);
                if c1 != GAP_POS1 && c1 != GAP_POS2 && c1 == c2 {
                    identical += 1;
                }
                i1 += 1;
                i2 += 1;
            } else if op > 0 {
                i2 += op as usize;
            } else {
                i1 += op.unsigned_abs() as usize;
            }
        }
        identical
    }
}
