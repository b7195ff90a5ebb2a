//! BOTS `fft`, annotated with `#[task_program]`: the discrete Fourier
//! transform of `n = 2^k` complex points by a recursive fast Fourier
//! transform.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `fft` (Matteo Frigo's
//! Cilk program), in its parallel structure, with a simpler arithmetic core.
//! BOTS computes the twiddle table `W` with a divide-and-conquer of tasks
//! (`compute_w_coefficients`), then runs a recursive Cooley–Tukey transform
//! (`fft_aux`): unshuffle the input into `r` interleaved sub-sequences (a
//! loop split in halves by tasks down to 128 elements), transform them as `r`
//! tasks spawned in a loop, and combine them with the twiddle factors
//! (another loop split in halves by tasks down to 128). For a power-of-two
//! `n`, BOTS picks a radix of 16 or 8 per level (its `factor`; any prime
//! factor for other sizes) and ends the recursion in unrolled codelets of 2
//! to 32 points; this port is radix 2 throughout, decimation in time, so its
//! `fft_aux` forks two sub-transforms per level where BOTS spawns 8 or 16 in
//! a loop, and its recursion ends in a plain sequential transform of at most
//! [`FFT_CUTOFF`] (32) points:
//!
//! * [`twiddle_table`] fills `W[k] = e^(-2πik/n)`, `k < n/2`, splitting the
//!   table in halves with a [`prescient::join`] above [`LOOP_CUTOFF`];
//! * [`fft_aux`] unshuffles the even-indexed points into the first half of
//!   its output and the odd-indexed ones into the second half
//!   ([`unshuffle`], split in halves above [`LOOP_CUTOFF`]), transforms both
//!   halves as the two closures of a `join` (BOTS: `r = 2` tasks), and
//!   combines them with the butterflies `X[k] = E[k] + W^k·O[k]`,
//!   `X[k + n/2] = E[k] - W^k·O[k]` ([`combine`], split in halves above
//!   [`LOOP_CUTOFF`]);
//! * at most [`FFT_CUTOFF`] points, [`fft_serial`] runs the same recursion
//!   without tasks, down to a two-point butterfly.
//!
//! As in BOTS the transform ping-pongs between two buffers (the input is
//! used as scratch). Every element goes through the same floating-point
//! operations in the same order whether a loop is split or not, so the
//! parallel transform equals the sequential reference [`fft_seq`] bit for
//! bit; the tests also compare it with the naive `O(n²)` DFT ([`dft_naive`])
//! on a small size and transform it back ([`ifft`]). BOTS' input is the
//! constant `1 + i` (whose transform is zero but for one point); here it is
//! pseudo-random ([`input`]), which checks every point.
//!
//! **What the analysis finds.** Four task contexts — [`fft_aux`],
//! [`unshuffle`], [`combine`] and [`twiddle_table`] — each with one `join`
//! whose two closures call the function again: two recursive parallel paths
//! in each, ρ = 2 (the minimum over contexts; `fft_aux` reaches the loops'
//! recursions too and counts more), and no spawn in a loop, λ = 0. The tasks
//! are small (a call, or a loop of run-time length counted as 100
//! iterations), far below the 1M-operation coarse band. Both sets of
//! decision trees give what they give fib: CF'17's queue policy `DEF`
//! (ρ = 2 ≤ 5, fine-grained), queue capacity 4 and 256019 dependency buckets
//! (ρ > 0); the calibrated trees' (`PARAMS`) `BF`, capacity 32 (effort 7 <
//! 7667: fine or opaque tasks, BF/32) and the same buckets. Unlike
//! fib the recursion depth is bounded: every recursive call passes its length
//! parameter halved (`fft_aux(n / 2, …)`) and the recursive functions make no
//! call the analysis cannot see, so the stack estimate is the frames of the
//! levels a halving recursion is charged (at most 65 for a `usize` halved to
//! 0, charged 16: the estimate is what every stack pre-faults) rather than
//! the conservative 8 MiB; the `stack-memory` table sets the commitment
//! against the deepest task stack of a run. (BOTS' loop of spawns
//! would give λ > 0; with ρ > 0 that changes nothing in CF'17's decision
//! trees, and the calibrated ones do not read λ.)
//!
//! The kernel is written for that analysis: the length is passed explicitly
//! (BOTS does too) and halved in the recursive calls, slices are split by
//! the module functions [`halves`] and [`halves_ref`] rather than by calling
//! `split_at_mut` in the recursive functions (a method call on a value is
//! invisible to the analyzer, and one inside a recursion makes its depth
//! unknowable), and the loops with iterator chains sit in non-recursive
//! functions ([`unshuffle_serial`], [`combine_serial`]).
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here.

use std::ops::{Add, Mul, Sub};

pub use tasks::{
    combine, combine_serial, fft, fft_aux, fft_serial, halves, halves_ref, twiddle, twiddle_serial,
    twiddle_table, unshuffle, unshuffle_serial, ANALYSIS, PARAMS,
};

/// The paper's problem size: `2^24` points (BOTS' default is `2^25`). Not run
/// by the tests.
pub const PAPER_LOG2: u32 = 24;

/// The size the integration tests transform under both build profiles:
/// `2^16` points, enough for many levels of tasks above both cut-offs.
pub const TEST_LOG2: u32 = 16;

/// The size the tests compare with the naive `O(n²)` DFT: `2^8` points.
pub const NAIVE_LOG2: u32 = 8;

/// The transform length at or below which [`fft_aux`] runs [`fft_serial`]
/// instead of forking (BOTS' recursion ends in 32-point codelets).
pub const FFT_CUTOFF: usize = 32;

/// The loop length at or below which [`unshuffle`], [`combine`] and
/// [`twiddle_table`] run their loop instead of splitting it (BOTS' 128).
pub const LOOP_CUTOFF: usize = 128;

/// A complex number of two `f64`s (BOTS' `COMPLEX`).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Complex {
    /// The real part.
    pub re: f64,
    /// The imaginary part.
    pub im: f64,
}

impl Complex {
    /// Zero.
    pub const ZERO: Complex = Complex { re: 0.0, im: 0.0 };

    /// `re + i·im`.
    pub const fn new(re: f64, im: f64) -> Complex {
        Complex { re, im }
    }

    /// The complex conjugate.
    pub fn conj(self) -> Complex {
        Complex::new(self.re, -self.im)
    }

    /// `self · f` for a real `f`.
    pub fn scale(self, f: f64) -> Complex {
        Complex::new(self.re * f, self.im * f)
    }

    /// The modulus `|self|`.
    pub fn abs(self) -> f64 {
        self.re.hypot(self.im)
    }
}

impl Add for Complex {
    type Output = Complex;

    fn add(self, o: Complex) -> Complex {
        Complex::new(self.re + o.re, self.im + o.im)
    }
}

impl Sub for Complex {
    type Output = Complex;

    fn sub(self, o: Complex) -> Complex {
        Complex::new(self.re - o.re, self.im - o.im)
    }
}

impl Mul for Complex {
    type Output = Complex;

    fn mul(self, o: Complex) -> Complex {
        Complex::new(
            self.re * o.re - self.im * o.im,
            self.re * o.im + self.im * o.re,
        )
    }
}

/// `n` deterministic pseudo-random points, both parts uniform in `[-1, 1)`
/// (SplitMix64 from `seed`).
pub fn input(n: usize, seed: u64) -> Vec<Complex> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // 53 random bits as a float in [0, 1), mapped to [-1, 1).
        (z >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    (0..n)
        .map(|_| {
            let re = next();
            Complex::new(re, next())
        })
        .collect()
}

/// The sequential reference: the same transform without tasks — the
/// twiddle table filled by one loop, then [`fft_serial`] over the whole
/// input (the recursion [`fft_aux`] runs below [`FFT_CUTOFF`]).
///
/// # Panics
/// If the length of `input` is not a power of two.
pub fn fft_seq(input: &[Complex]) -> Vec<Complex> {
    let n = input.len();
    assert!(n.is_power_of_two(), "fft: {n} points, not a power of two");
    let mut w = vec![Complex::ZERO; n / 2];
    twiddle_serial(&mut w, 0, n);
    let mut scratch = input.to_vec();
    let mut out = vec![Complex::ZERO; n];
    fft_serial(n, &mut scratch, &mut out, &w, 1);
    out
}

/// The inverse transform computed with the forward transform `transform`
/// (`fft` or `fft_seq`): `conj(transform(conj(x))) / n`.
pub fn ifft(spectrum: &[Complex], transform: impl Fn(&[Complex]) -> Vec<Complex>) -> Vec<Complex> {
    let conjugated: Vec<Complex> = spectrum.iter().map(|z| z.conj()).collect();
    let scale = 1.0 / spectrum.len() as f64;
    transform(&conjugated)
        .into_iter()
        .map(|z| z.conj().scale(scale))
        .collect()
}

/// The DFT by its definition, `X[k] = Σ_j x[j]·e^(-2πijk/n)`: `O(n²)`, for
/// checking small sizes (the exponent is reduced modulo `n` first, so every
/// factor is as accurate as a twiddle).
pub fn dft_naive(input: &[Complex]) -> Vec<Complex> {
    let n = input.len();
    (0..n)
        .map(|k| {
            input
                .iter()
                .enumerate()
                .fold(Complex::ZERO, |acc, (j, &x)| {
                    acc + x * twiddle((j * k) % n, n)
                })
        })
        .collect()
}

/// The largest `|a[i] - b[i]|`, relative to the largest `|b[i]|` (0 for
/// empty or all-zero `b`).
///
/// # Panics
/// If the lengths differ.
pub fn max_relative_error(a: &[Complex], b: &[Complex]) -> f64 {
    assert_eq!(a.len(), b.len(), "comparing transforms of different sizes");
    let scale = b.iter().map(|z| z.abs()).fold(0.0, f64::max);
    if scale == 0.0 {
        return 0.0;
    }
    let err = a
        .iter()
        .zip(b)
        .map(|(&x, &y)| (x - y).abs())
        .fold(0.0, f64::max);
    err / scale
}

/// The task code of fft, analysed by `#[task_program]`: the parallel
/// transform, its loops, and the sequential kernels they end in.
#[prescient::task_program]
pub mod tasks {
    use super::{Complex, FFT_CUTOFF, LOOP_CUTOFF};
    use prescient::join;

    /// The DFT of `input`, whose length must be a power of two: the twiddle
    /// table and the transform, in parallel (BOTS' `fft`).
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what
    /// the tests measure) or on the global runtime.
    ///
    /// # Panics
    /// If the length of `input` is not a power of two.
    pub fn fft(input: &[Complex]) -> Vec<Complex> {
        let n: usize = input.len();
        assert!(n.is_power_of_two(), "fft: {n} points, not a power of two");
        let mut w: Vec<Complex> = vec![Complex::ZERO; n / 2];
        twiddle_table(n / 2, &mut w, 0, n);
        let mut scratch: Vec<Complex> = input.to_vec();
        let mut out: Vec<Complex> = vec![Complex::ZERO; n];
        fft_aux(n, &mut scratch, &mut out, &w, 1);
        out
    }

    /// `e^(-2πik/n)`, the `k`-th power of the `n`-th root of unity that the
    /// forward transform uses.
    pub fn twiddle(k: usize, n: usize) -> Complex {
        let (sin, cos) = (-2.0 * std::f64::consts::PI * k as f64 / n as f64).sin_cos();
        Complex { re: cos, im: sin }
    }

    /// Fills `w[j] = twiddle(k0 + j, n)` for the `len` entries of `w`,
    /// splitting the table in two halves with a `join` above
    /// [`LOOP_CUTOFF`] (BOTS' `compute_w_coefficients`).
    pub fn twiddle_table(len: usize, w: &mut [Complex], k0: usize, n: usize) {
        if len <= LOOP_CUTOFF {
            twiddle_serial(w, k0, n);
            return;
        }
        let (lo, hi) = halves(w, len / 2);
        join(
            || twiddle_table(len / 2, lo, k0, n),
            || twiddle_table(len / 2, hi, k0 + len / 2, n),
        );
    }

    /// The loop of [`twiddle_table`]: `w[j] = twiddle(k0 + j, n)` for every
    /// entry of `w`.
    pub fn twiddle_serial(w: &mut [Complex], k0: usize, n: usize) {
        for (j, x) in w.iter_mut().enumerate() {
            *x = twiddle(k0 + j, n);
        }
    }

    /// The DFT of `inp[..n]` into `out[..n]` (`n` a power of two), in
    /// parallel; `inp` is overwritten. `w` is the twiddle table of the
    /// whole transform and `stride` the step between this level's twiddles
    /// in it (`n · stride` is the whole transform's length).
    ///
    /// Unshuffles `inp` into the halves of `out`, transforms each half back
    /// into the halves of `inp` with a `join`, and combines them into `out`;
    /// at most [`FFT_CUTOFF`] points, [`fft_serial`] (BOTS' `fft_aux` with
    /// `r = 2`).
    pub fn fft_aux(
        n: usize,
        inp: &mut [Complex],
        out: &mut [Complex],
        w: &[Complex],
        stride: usize,
    ) {
        if n <= FFT_CUTOFF {
            fft_serial(n, inp, out, w, stride);
            return;
        }
        let (out_even, out_odd) = halves(out, n / 2);
        unshuffle(n / 2, inp, out_even, out_odd);
        let (in_even, in_odd) = halves(inp, n / 2);
        join(
            || fft_aux(n / 2, out_even, in_even, w, 2 * stride),
            || fft_aux(n / 2, out_odd, in_odd, w, 2 * stride),
        );
        combine(n / 2, in_even, in_odd, w, stride, out_even, out_odd);
    }

    /// [`fft_aux`] without tasks, down to two points: the transform below
    /// [`FFT_CUTOFF`], and over a whole input the sequential reference.
    pub fn fft_serial(
        n: usize,
        inp: &mut [Complex],
        out: &mut [Complex],
        w: &[Complex],
        stride: usize,
    ) {
        if n <= 2 {
            // One point is its own transform; two points take the butterfly
            // whose twiddle is 1.
            if n == 1 {
                out[0] = inp[0];
            } else {
                out[0] = inp[0] + inp[1];
                out[1] = inp[0] - inp[1];
            }
            return;
        }
        let (out_even, out_odd) = halves(out, n / 2);
        unshuffle_serial(inp, out_even, out_odd);
        let (in_even, in_odd) = halves(inp, n / 2);
        fft_serial(n / 2, out_even, in_even, w, 2 * stride);
        fft_serial(n / 2, out_odd, in_odd, w, 2 * stride);
        combine_serial(in_even, in_odd, w, stride, out_even, out_odd);
    }

    /// Moves the even-indexed points of `inp` (`2 · len` of them) to `even`
    /// and the odd-indexed ones to `odd` (`len` each), splitting the loop in
    /// halves with a `join` above [`LOOP_CUTOFF`] (BOTS' `fft_unshuffle_2`).
    pub fn unshuffle(len: usize, inp: &[Complex], even: &mut [Complex], odd: &mut [Complex]) {
        if len <= LOOP_CUTOFF {
            unshuffle_serial(inp, even, odd);
            return;
        }
        let (inp_lo, inp_hi) = halves_ref(inp, len);
        let (even_lo, even_hi) = halves(even, len / 2);
        let (odd_lo, odd_hi) = halves(odd, len / 2);
        join(
            || unshuffle(len / 2, inp_lo, even_lo, odd_lo),
            || unshuffle(len / 2, inp_hi, even_hi, odd_hi),
        );
    }

    /// The loop of [`unshuffle`]: `even[i] = inp[2i]`, `odd[i] = inp[2i + 1]`.
    pub fn unshuffle_serial(inp: &[Complex], even: &mut [Complex], odd: &mut [Complex]) {
        for ((pair, e), o) in inp.chunks_exact(2).zip(even).zip(odd) {
            *e = pair[0];
            *o = pair[1];
        }
    }

    /// The butterflies of one level over `len` points of each half:
    /// `lo[k] = even[k] + W·odd[k]` and `hi[k] = even[k] - W·odd[k]` with
    /// `W = w[k · stride]`, splitting the loop in halves with a `join` above
    /// [`LOOP_CUTOFF`] (BOTS' `fft_twiddle_2`).
    pub fn combine(
        len: usize,
        even: &[Complex],
        odd: &[Complex],
        w: &[Complex],
        stride: usize,
        lo: &mut [Complex],
        hi: &mut [Complex],
    ) {
        if len <= LOOP_CUTOFF {
            combine_serial(even, odd, w, stride, lo, hi);
            return;
        }
        let (even_lo, even_hi) = halves_ref(even, len / 2);
        let (odd_lo, odd_hi) = halves_ref(odd, len / 2);
        let (_, w_hi) = halves_ref(w, len / 2 * stride);
        let (lo_lo, lo_hi) = halves(lo, len / 2);
        let (hi_lo, hi_hi) = halves(hi, len / 2);
        join(
            || combine(len / 2, even_lo, odd_lo, w, stride, lo_lo, hi_lo),
            || combine(len / 2, even_hi, odd_hi, w_hi, stride, lo_hi, hi_hi),
        );
    }

    /// The loop of [`combine`].
    pub fn combine_serial(
        even: &[Complex],
        odd: &[Complex],
        w: &[Complex],
        stride: usize,
        lo: &mut [Complex],
        hi: &mut [Complex],
    ) {
        let factors = w.iter().step_by(stride);
        for ((((l, h), &e), &o), &f) in lo.iter_mut().zip(hi).zip(even).zip(odd).zip(factors) {
            let t = f * o;
            *l = e + t;
            *h = e - t;
        }
    }

    /// `s` split at `mid` into two mutable halves (a module function, so the
    /// analysis sees the recursive functions call nothing it cannot see).
    pub fn halves(s: &mut [Complex], mid: usize) -> (&mut [Complex], &mut [Complex]) {
        s.split_at_mut(mid)
    }

    /// `s` split at `mid` (see [`halves`]).
    pub fn halves_ref(s: &[Complex], mid: usize) -> (&[Complex], &[Complex]) {
        s.split_at(mid)
    }
}
