//! BOTS `strassen`, annotated with `#[task_program]`: Strassen's matrix
//! multiplication of two `n × n` matrices of `f64`, `n` a power of two.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `strassen` (from the
//! Cilk distribution's `OptimizedStrassenMultiply`), Winograd's variant of
//! Strassen's algorithm with seven products and fifteen additions per level:
//! split `A`, `B` and `C` into quadrants, form the eight sums
//!
//! ```text
//! S1 = A21 + A22   S2 = S1 - A11   S3 = A11 - A21   S4 = A12 - S2
//! S5 = B12 - B11   S6 = B22 - S5   S7 = B22 - B12   S8 = S6 - B21
//! ```
//!
//! compute the seven products `M2 = A11·B11`, `M5 = S1·S5`, `T1 = S2·S6`,
//! `P22 = S3·S7`, `P11 = A12·B21`, `P12 = S4·B22`, `P21 = A22·S8`
//! recursively, **as seven tasks** (BOTS: seven `#pragma omp task`, then
//! `taskwait`; here a [`prescient::scope`] with seven spawns), and combine
//!
//! ```text
//! C11 = P11 + M2           C12 = P12 + (M5 + (T1 + M2))
//! C21 = -P21 + T2          C22 = M5 + T2,   T2 = P22 + (T1 + M2)
//! ```
//!
//! The sums and the combination are plain loops in the task, as in BOTS. At
//! or below the cut-off size (BOTS' `-y`, default [`BOTS_CUTOFF`] = 64) a
//! block is multiplied directly; BOTS there runs a sequential
//! divide-and-conquer (`MultiplyByDivideAndConquer`) down to 16 × 16 blocks
//! with unrolled kernels, this port a plain cache-friendly `i-k-j` loop
//! ([`multiply_block`]). BOTS writes four of the products straight into the
//! quadrants of `C`, which in row-major storage interleave in memory; this
//! port gives every product its own contiguous `q × q` buffer (one
//! allocation per level, split into seven disjoint slices), so that each
//! task owns its output as a plain `&mut [f64]`, and the combination writes
//! `C`. The operands are read in place through strided views ([`View`]).
//! BOTS' variants with a task-creation cut-off (`if_clause` and `manual`: no
//! tasks below recursion depth 3) are not ported; this is its plain variant,
//! seven tasks at every level above the size cut-off.
//!
//! Every element of the result goes through the same operations in the same
//! order whichever worker computes which product, so the parallel product
//! equals the sequential reference [`strassen_seq`] bit for bit; the tests
//! also compare it with the naive triple loop ([`naive_multiply`], BOTS'
//! `matrixmul`) within BOTS' relative tolerance [`EPSILON`].
//!
//! **What the analysis finds.** One task context, [`strassen`], with seven
//! scope-spawn sites, none in a loop (λ = 0), each of whose tasks calls
//! `strassen` again: seven recursive parallel paths, ρ = 7. That is above
//! CF'17's policy tree's threshold of 5, so CF'17's trees would give
//! strassen queue policy `PF` because of its recursion (alignment gets it for
//! its coarse effort); the tasks themselves are small (a call), so the
//! capacity would be 4, and ρ > 0 gives 256019 dependency buckets. The
//! calibrated trees (`PARAMS`) give `BF` and capacity 32 (effort 3 < 7667:
//! fine or opaque tasks, BF/32 — the analysis saw only the product calls),
//! with the same buckets. The stack estimate is
//! the conservative 8 MiB (the runtime's default), although every recursive
//! call halves the size (`strassen(n / 2, …)`): the analyzer lowers the call
//! of [`prescient::scope`] itself as a call it cannot see, and such a call
//! inside a recursion makes it give up on the depth (a recursion whose tasks
//! are forked by `join`, like [`fft`](super::fft)'s, is bounded).
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here.

pub use tasks::{
    check_sizes, combine, multiply, multiply_block, quadrants, split_products, strassen, sum_views,
    sums, ANALYSIS, PARAMS,
};

/// The paper's problem size: `4096 × 4096` (BOTS' default is 1024). Not run
/// by the tests.
pub const PAPER_N: usize = 4096;

/// BOTS' default cut-off: blocks of at most `64 × 64` are multiplied
/// directly (`BOTS_APP_DEF_ARG_CUTOFF`, "Strassen Cutoff").
pub const BOTS_CUTOFF: usize = 64;

/// The size the integration tests multiply under both build profiles.
pub const TEST_N: usize = 128;

/// The cut-off the tests use with [`TEST_N`]: three levels of seven tasks
/// (343 block products) before the direct multiplication.
pub const TEST_CUTOFF: usize = 16;

/// BOTS' tolerance for comparing results: the largest relative difference of
/// an element (`EPSILON` in BOTS' `compare_matrix`).
pub const EPSILON: f64 = 1.0e-6;

/// A square `n × n` matrix of `f64`, row-major.
#[derive(Clone, Debug, PartialEq)]
pub struct Matrix {
    /// The number of rows and of columns.
    n: usize,
    /// `n · n` elements, row by row.
    data: Vec<f64>,
}

impl Matrix {
    /// An `n × n` matrix of zeros.
    pub fn zeros(n: usize) -> Matrix {
        Matrix {
            n,
            data: vec![0.0; n * n],
        }
    }

    /// The `n × n` matrix whose rows are the consecutive `n`-element pieces
    /// of `data`.
    ///
    /// # Panics
    /// If `data` does not hold `n · n` elements.
    pub fn from_vec(n: usize, data: Vec<f64>) -> Matrix {
        assert_eq!(
            data.len(),
            n * n,
            "a {n} × {n} matrix from {} elements",
            data.len()
        );
        Matrix { n, data }
    }

    /// An `n × n` matrix of deterministic pseudo-random elements, uniform in
    /// `[0, 1)` as BOTS' `init_matrix` draws them (SplitMix64 from `seed`).
    pub fn random(n: usize, seed: u64) -> Matrix {
        let mut state = seed;
        let data = (0..n * n)
            .map(|_| {
                state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = state;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 53) as f64
            })
            .collect();
        Matrix { n, data }
    }

    /// The number of rows (and of columns).
    pub fn n(&self) -> usize {
        self.n
    }

    /// The elements, row by row.
    pub fn data(&self) -> &[f64] {
        &self.data
    }

    /// The element in row `r`, column `c`.
    pub fn get(&self, r: usize, c: usize) -> f64 {
        self.data[r * self.n + c]
    }

    /// The whole matrix as a [`View`].
    pub fn view(&self) -> View<'_> {
        View {
            data: &self.data,
            stride: self.n,
        }
    }
}

/// A read-only square block of a row-major matrix: its element `(r, c)` is
/// `data[r · stride + c]` (BOTS passes a pointer and a row width).
#[derive(Clone, Copy, Debug)]
pub struct View<'a> {
    /// The elements from the block's top-left one on.
    data: &'a [f64],
    /// The distance between two rows, in elements.
    stride: usize,
}

/// The naive product by three nested loops (BOTS' `matrixmul`, the
/// reference its check compares with).
///
/// # Panics
/// If the sizes differ.
pub fn naive_multiply(a: &Matrix, b: &Matrix) -> Matrix {
    assert_eq!(a.n, b.n, "multiplying matrices of different sizes");
    let n = a.n;
    let mut c = Matrix::zeros(n);
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a.get(i, k) * b.get(k, j);
            }
            c.data[i * n + j] = s;
        }
    }
    c
}

/// The largest relative difference `|x - y| / |y|` of two elements at the
/// same place (BOTS' `compare_matrix` measure; an element `y = 0` counts
/// `|x|`).
///
/// # Panics
/// If the sizes differ.
pub fn max_relative_error(x: &Matrix, y: &Matrix) -> f64 {
    assert_eq!(x.n, y.n, "comparing matrices of different sizes");
    x.data
        .iter()
        .zip(&y.data)
        .map(|(&u, &v)| {
            let d = (u - v).abs();
            if v == 0.0 {
                d
            } else {
                d / v.abs()
            }
        })
        .fold(0.0, f64::max)
}

/// The sequential reference (BOTS' `OptimizedStrassenMultiply_seq`): the
/// same recursion, the seven products one after the other.
///
/// # Panics
/// As [`multiply`].
pub fn strassen_seq(a: &Matrix, b: &Matrix, cutoff: usize) -> Matrix {
    let n = tasks::check_sizes(a, b, cutoff);
    let mut c = vec![0.0; n * n];
    strassen_seq_aux(n, &mut c, a.view(), b.view(), cutoff);
    Matrix { n, data: c }
}

/// [`strassen`] without tasks.
fn strassen_seq_aux(n: usize, c: &mut [f64], a: View, b: View, cutoff: usize) {
    if n <= cutoff {
        multiply_block(n, c, a, b);
        return;
    }
    let q = n / 2;
    let [a11, a12, a21, a22] = quadrants(a, q);
    let [b11, b12, b21, b22] = quadrants(b, q);
    let mut s = vec![0.0; 8 * q * q];
    sums(q, &mut s, [a11, a12, a21, a22], [b11, b12, b21, b22]);
    let [s1, s2, s3, s4, s5, s6, s7, s8] = sum_views(&s, q);
    let mut products = vec![0.0; 7 * q * q];
    let [m2, m5, t1, p22, p11, p12, p21] = split_products(&mut products, q);
    strassen_seq_aux(q, m2, a11, b11, cutoff);
    strassen_seq_aux(q, m5, s1, s5, cutoff);
    strassen_seq_aux(q, t1, s2, s6, cutoff);
    strassen_seq_aux(q, p22, s3, s7, cutoff);
    strassen_seq_aux(q, p11, a12, b21, cutoff);
    strassen_seq_aux(q, p12, s4, b22, cutoff);
    strassen_seq_aux(q, p21, a22, s8, cutoff);
    combine(q, c, &products);
}

/// The task code of strassen, analysed by `#[task_program]`: the recursion
/// with its seven tasks, and the kernels it calls.
#[prescient::task_program]
pub mod tasks {
    use super::{Matrix, View};
    use prescient::scope;

    /// `a · b` by Strassen's algorithm with the seven products of every
    /// level as tasks, multiplying blocks of at most `cutoff × cutoff`
    /// directly (BOTS' `strassen_main_par`; BOTS' cut-off is
    /// [`BOTS_CUTOFF`](super::BOTS_CUTOFF)).
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what
    /// the tests measure) or on the global runtime.
    ///
    /// # Panics
    /// If the sizes differ, are not a power of two, or `cutoff` is 0.
    pub fn multiply(a: &Matrix, b: &Matrix, cutoff: usize) -> Matrix {
        let n: usize = check_sizes(a, b, cutoff);
        let mut c: Vec<f64> = vec![0.0; n * n];
        strassen(n, &mut c, a.view(), b.view(), cutoff);
        Matrix { n, data: c }
    }

    /// The common size of `a` and `b`, checked as [`multiply`] requires.
    ///
    /// # Panics
    /// See [`multiply`].
    pub fn check_sizes(a: &Matrix, b: &Matrix, cutoff: usize) -> usize {
        assert_eq!(a.n, b.n, "multiplying matrices of different sizes");
        assert!(
            a.n.is_power_of_two(),
            "strassen: size {} is not a power of two",
            a.n
        );
        assert!(cutoff > 0, "strassen: cut-off 0");
        a.n
    }

    /// `c = a · b` for `n × n` blocks (`c` contiguous, row-major): above
    /// `cutoff`, Strassen's seven products as seven tasks of a scope and the
    /// combination of their results (BOTS' `OptimizedStrassenMultiply_par`);
    /// at most `cutoff`, [`multiply_block`].
    pub fn strassen(n: usize, c: &mut [f64], a: View, b: View, cutoff: usize) {
        if n <= cutoff {
            multiply_block(n, c, a, b);
            return;
        }
        let q: usize = n / 2;
        let [a11, a12, a21, a22] = quadrants(a, q);
        let [b11, b12, b21, b22] = quadrants(b, q);
        let mut s: Vec<f64> = vec![0.0; 8 * q * q];
        sums(q, &mut s, [a11, a12, a21, a22], [b11, b12, b21, b22]);
        let [s1, s2, s3, s4, s5, s6, s7, s8] = sum_views(&s, q);
        let mut products: Vec<f64> = vec![0.0; 7 * q * q];
        let [m2, m5, t1, p22, p11, p12, p21] = split_products(&mut products, q);
        scope(|sc| {
            sc.spawn(move |_| strassen(n / 2, m2, a11, b11, cutoff));
            sc.spawn(move |_| strassen(n / 2, m5, s1, s5, cutoff));
            sc.spawn(move |_| strassen(n / 2, t1, s2, s6, cutoff));
            sc.spawn(move |_| strassen(n / 2, p22, s3, s7, cutoff));
            sc.spawn(move |_| strassen(n / 2, p11, a12, b21, cutoff));
            sc.spawn(move |_| strassen(n / 2, p12, s4, b22, cutoff));
            sc.spawn(move |_| strassen(n / 2, p21, a22, s8, cutoff));
        });
        combine(q, c, &products);
    }

    /// `c = a · b` for `n × n` blocks by the `i-k-j` loop order: each row of
    /// `c` accumulates rows of `b` scaled by the elements of `a`'s row, so
    /// the inner loop runs along contiguous rows of `b` and `c`.
    pub fn multiply_block(n: usize, c: &mut [f64], a: View, b: View) {
        for (i, c_row) in c.chunks_exact_mut(n).enumerate() {
            c_row.fill(0.0);
            let a_row = &a.data[i * a.stride..i * a.stride + n];
            for (k, &a_ik) in a_row.iter().enumerate() {
                let b_row = &b.data[k * b.stride..k * b.stride + n];
                for (c_ij, &b_kj) in c_row.iter_mut().zip(b_row) {
                    *c_ij += a_ik * b_kj;
                }
            }
        }
    }

    /// The four `q × q` quadrants of the `2q × 2q` block `m`: `[m11, m12,
    /// m21, m22]`.
    pub fn quadrants(m: View, q: usize) -> [View; 4] {
        let at = |r: usize, c: usize| View {
            data: &m.data[r * m.stride + c..],
            stride: m.stride,
        };
        [at(0, 0), at(0, q), at(q, 0), at(q, q)]
    }

    /// The eight sums `S1 … S8` of the quadrants `a = [a11, a12, a21, a22]`
    /// and `b` (see the module docs) into `s`, eight contiguous `q × q`
    /// blocks, in BOTS' order of operations.
    pub fn sums(q: usize, s: &mut [f64], a: [View; 4], b: [View; 4]) {
        let [a11, a12, a21, a22] = a;
        let [b11, b12, b21, b22] = b;
        let mut blocks = s.chunks_exact_mut(q * q);
        let mut next = || blocks.next().expect("eight q × q blocks");
        let (s1, s2, s3, s4) = (next(), next(), next(), next());
        let (s5, s6, s7, s8) = (next(), next(), next(), next());
        for r in 0..q {
            let (ra, rb) = (r * a11.stride, r * b11.stride);
            for j in 0..q {
                let t = r * q + j;
                let (x11, x12) = (a11.data[ra + j], a12.data[ra + j]);
                let (x21, x22) = (a21.data[ra + j], a22.data[ra + j]);
                let (y11, y12) = (b11.data[rb + j], b12.data[rb + j]);
                let (y21, y22) = (b21.data[rb + j], b22.data[rb + j]);
                s1[t] = x21 + x22;
                s2[t] = s1[t] - x11;
                s4[t] = x12 - s2[t];
                s5[t] = y12 - y11;
                s6[t] = y22 - s5[t];
                s8[t] = s6[t] - y21;
                s3[t] = x11 - x21;
                s7[t] = y22 - y12;
            }
        }
    }

    /// The eight sums written by [`sums`] as views: `[S1, …, S8]`.
    pub fn sum_views(s: &[f64], q: usize) -> [View<'_>; 8] {
        let block = |i: usize| View {
            data: &s[i * q * q..(i + 1) * q * q],
            stride: q,
        };
        [
            block(0),
            block(1),
            block(2),
            block(3),
            block(4),
            block(5),
            block(6),
            block(7),
        ]
    }

    /// The product buffer split into the seven `q × q` outputs of the
    /// tasks: `[M2, M5, T1, P22, P11, P12, P21]`.
    pub fn split_products(products: &mut [f64], q: usize) -> [&mut [f64]; 7] {
        let mut blocks = products.chunks_exact_mut(q * q);
        let mut next = || blocks.next().expect("seven q × q blocks");
        [next(), next(), next(), next(), next(), next(), next()]
    }

    /// `C` from the seven products in `products` (`[M2, M5, T1, P22, P11,
    /// P12, P21]`, each `q × q`), `c` being `2q × 2q` and contiguous, in
    /// BOTS' order of operations (see the module docs).
    pub fn combine(q: usize, c: &mut [f64], products: &[f64]) {
        let qq = q * q;
        let block = |i: usize| &products[i * qq..(i + 1) * qq];
        let (m2, m5, t1s, p22) = (block(0), block(1), block(2), block(3));
        let (p11, p12, p21) = (block(4), block(5), block(6));
        let (top, bottom) = c.split_at_mut(q * 2 * q);
        for ((r, top_row), bottom_row) in top
            .chunks_exact_mut(2 * q)
            .enumerate()
            .zip(bottom.chunks_exact_mut(2 * q))
        {
            let (c11, c12) = top_row.split_at_mut(q);
            let (c21, c22) = bottom_row.split_at_mut(q);
            for j in 0..q {
                let t = r * q + j;
                let t1 = t1s[t] + m2[t];
                let t2 = p22[t] + t1;
                c11[j] = p11[t] + m2[t];
                c12[j] = p12[t] + (m5[t] + t1);
                c22[j] = m5[t] + t2;
                c21[j] = -p21[t] + t2;
            }
        }
    }
}
