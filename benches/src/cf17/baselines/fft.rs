//! fft under rayon and chili: [`crate::annotated::fft`]'s radix-2 transform
//! with the same cut-offs ([`FFT_CUTOFF`], [`LOOP_CUTOFF`]) and sequential
//! kernels ([`fft_serial`], [`twiddle_serial`], [`unshuffle_serial`],
//! [`combine_serial`]), every `prescient::join` replaced by `rayon::join` or
//! chili's `Scope::join`. Both equal the sequential reference bit for bit.

use super::chili_join;

use crate::annotated::fft::{
    combine_serial, fft_serial, halves, halves_ref, twiddle_serial, unshuffle_serial, Complex,
    FFT_CUTOFF, LOOP_CUTOFF,
};

/// The DFT of `input` (a power-of-two length) under rayon: the twiddle table
/// and the transform, each forked with `rayon::join`.
///
/// # Panics
/// If the length of `input` is not a power of two.
pub fn fft_rayon(input: &[Complex]) -> Vec<Complex> {
    let n = input.len();
    assert!(n.is_power_of_two(), "fft: {n} points, not a power of two");
    let mut w = vec![Complex::ZERO; n / 2];
    rayon_twiddle_table(n / 2, &mut w, 0, n);
    let mut scratch = input.to_vec();
    let mut out = vec![Complex::ZERO; n];
    rayon_fft_aux(n, &mut scratch, &mut out, &w, 1);
    out
}

/// The task version's `twiddle_table` with `rayon::join`.
fn rayon_twiddle_table(len: usize, w: &mut [Complex], k0: usize, n: usize) {
    if len <= LOOP_CUTOFF {
        twiddle_serial(w, k0, n);
        return;
    }
    let (lo, hi) = halves(w, len / 2);
    rayon::join(
        || rayon_twiddle_table(len / 2, lo, k0, n),
        || rayon_twiddle_table(len / 2, hi, k0 + len / 2, n),
    );
}

/// The task version's `fft_aux` with `rayon::join`.
fn rayon_fft_aux(n: usize, inp: &mut [Complex], out: &mut [Complex], w: &[Complex], stride: usize) {
    if n <= FFT_CUTOFF {
        fft_serial(n, inp, out, w, stride);
        return;
    }
    let (out_even, out_odd) = halves(out, n / 2);
    rayon_unshuffle(n / 2, inp, out_even, out_odd);
    let (in_even, in_odd) = halves(inp, n / 2);
    rayon::join(
        || rayon_fft_aux(n / 2, out_even, in_even, w, 2 * stride),
        || rayon_fft_aux(n / 2, out_odd, in_odd, w, 2 * stride),
    );
    rayon_combine(n / 2, in_even, in_odd, w, stride, out_even, out_odd);
}

/// The task version's `unshuffle` with `rayon::join`.
fn rayon_unshuffle(len: usize, inp: &[Complex], even: &mut [Complex], odd: &mut [Complex]) {
    if len <= LOOP_CUTOFF {
        unshuffle_serial(inp, even, odd);
        return;
    }
    let (inp_lo, inp_hi) = halves_ref(inp, len);
    let (even_lo, even_hi) = halves(even, len / 2);
    let (odd_lo, odd_hi) = halves(odd, len / 2);
    rayon::join(
        || rayon_unshuffle(len / 2, inp_lo, even_lo, odd_lo),
        || rayon_unshuffle(len / 2, inp_hi, even_hi, odd_hi),
    );
}

/// The task version's `combine` with `rayon::join`.
fn rayon_combine(
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
    rayon::join(
        || rayon_combine(len / 2, even_lo, odd_lo, w, stride, lo_lo, hi_lo),
        || rayon_combine(len / 2, even_hi, odd_hi, w_hi, stride, lo_hi, hi_hi),
    );
}

/// The DFT of `input` (a power-of-two length) on a chili scope: the twiddle
/// table and the transform, each forked with `Scope::join`.
///
/// # Panics
/// If the length of `input` is not a power of two.
pub fn fft_chili(scope: &mut chili::Scope<'_>, input: &[Complex]) -> Vec<Complex> {
    let n = input.len();
    assert!(n.is_power_of_two(), "fft: {n} points, not a power of two");
    let mut w = vec![Complex::ZERO; n / 2];
    chili_twiddle_table(scope, n / 2, &mut w, 0, n);
    let mut scratch = input.to_vec();
    let mut out = vec![Complex::ZERO; n];
    chili_fft_aux(scope, n, &mut scratch, &mut out, &w, 1);
    out
}

/// The task version's `twiddle_table` with chili's join.
fn chili_twiddle_table(
    scope: &mut chili::Scope<'_>,
    len: usize,
    w: &mut [Complex],
    k0: usize,
    n: usize,
) {
    if len <= LOOP_CUTOFF {
        twiddle_serial(w, k0, n);
        return;
    }
    let (lo, hi) = halves(w, len / 2);
    chili_join(
        scope,
        |s| chili_twiddle_table(s, len / 2, lo, k0, n),
        |s| chili_twiddle_table(s, len / 2, hi, k0 + len / 2, n),
    );
}

/// The task version's `fft_aux` with chili's join.
fn chili_fft_aux(
    scope: &mut chili::Scope<'_>,
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
    chili_unshuffle(scope, n / 2, inp, out_even, out_odd);
    let (in_even, in_odd) = halves(inp, n / 2);
    chili_join(
        scope,
        |s| chili_fft_aux(s, n / 2, out_even, in_even, w, 2 * stride),
        |s| chili_fft_aux(s, n / 2, out_odd, in_odd, w, 2 * stride),
    );
    chili_combine(
        scope,
        n / 2,
        [in_even, in_odd],
        w,
        stride,
        out_even,
        out_odd,
    );
}

/// The task version's `unshuffle` with chili's join.
fn chili_unshuffle(
    scope: &mut chili::Scope<'_>,
    len: usize,
    inp: &[Complex],
    even: &mut [Complex],
    odd: &mut [Complex],
) {
    if len <= LOOP_CUTOFF {
        unshuffle_serial(inp, even, odd);
        return;
    }
    let (inp_lo, inp_hi) = halves_ref(inp, len);
    let (even_lo, even_hi) = halves(even, len / 2);
    let (odd_lo, odd_hi) = halves(odd, len / 2);
    chili_join(
        scope,
        |s| chili_unshuffle(s, len / 2, inp_lo, even_lo, odd_lo),
        |s| chili_unshuffle(s, len / 2, inp_hi, even_hi, odd_hi),
    );
}

/// The task version's `combine` with chili's join (`halves_in` holds its
/// `even` and `odd` inputs).
fn chili_combine(
    scope: &mut chili::Scope<'_>,
    len: usize,
    halves_in: [&[Complex]; 2],
    w: &[Complex],
    stride: usize,
    lo: &mut [Complex],
    hi: &mut [Complex],
) {
    let [even, odd] = halves_in;
    if len <= LOOP_CUTOFF {
        combine_serial(even, odd, w, stride, lo, hi);
        return;
    }
    let (even_lo, even_hi) = halves_ref(even, len / 2);
    let (odd_lo, odd_hi) = halves_ref(odd, len / 2);
    let (_, w_hi) = halves_ref(w, len / 2 * stride);
    let (lo_lo, lo_hi) = halves(lo, len / 2);
    let (hi_lo, hi_hi) = halves(hi, len / 2);
    chili_join(
        scope,
        |s| chili_combine(s, len / 2, [even_lo, odd_lo], w, stride, lo_lo, hi_lo),
        |s| chili_combine(s, len / 2, [even_hi, odd_hi], w_hi, stride, lo_hi, hi_hi),
    );
}
