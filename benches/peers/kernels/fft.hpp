// Cilk's / BOTS' `fft` for the C/C++ peers: a radix-2 recursive FFT whose
// unshuffle and combine loops are themselves halved recursively, function for
// function `benches/src/annotated/fft.rs` (the same cut-offs, the same complex
// arithmetic in the same order, the same twiddle factors from libm's sin and
// cos), so a parallel transform equals the sequential one bit for bit. Each
// runtime adds the forks (fft_aux's two halves, and the halves of twiddle,
// unshuffle and combine above the loop cut-off) in omp.cpp / tbb.cpp.

#pragma once

#include <cmath>

#include "../peer.hpp"

namespace kernels {

constexpr size_t kFftCutoff = 32;    // FFT_CUTOFF
constexpr size_t kLoopCutoff = 128;  // LOOP_CUTOFF

struct Complex {
    double re, im;
};

inline Complex operator+(Complex a, Complex b) { return Complex{a.re + b.re, a.im + b.im}; }
inline Complex operator-(Complex a, Complex b) { return Complex{a.re - b.re, a.im - b.im}; }
inline Complex operator*(Complex a, Complex b) { return Complex{a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re}; }

// `fft::input`: SplitMix64 to [-1, 1), real then imaginary part.
inline std::vector<Complex> fft_input(size_t n, uint64_t seed) {
    uint64_t state = seed;
    auto next = [&state] {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        return double(z >> 11) / double(uint64_t(1) << 53) * 2.0 - 1.0;
    };
    std::vector<Complex> v(n);
    for (size_t i = 0; i < n; i++) {
        double re = next();
        v[i] = Complex{re, next()};
    }
    return v;
}

// `twiddle`: e^{-2 pi i k / n}, sin and cos called separately as Rust's
// `sin_cos` does (volatile function pointers keep the compiler from merging
// them into one `sincos` call, whose last bit may differ).
inline Complex twiddle(size_t k, size_t n) {
    static double (*volatile sin_fn)(double) = std::sin;
    static double (*volatile cos_fn)(double) = std::cos;
    double x = -2.0 * M_PI * double(k) / double(n);
    return Complex{cos_fn(x), sin_fn(x)};
}

inline void twiddle_serial(Complex* w, size_t len, size_t k0, size_t n) {
    for (size_t j = 0; j < len; j++) w[j] = twiddle(k0 + j, n);
}

inline void unshuffle_serial(const Complex* in, Complex* even, Complex* odd, size_t len) {
    for (size_t j = 0; j < len; j++) {
        even[j] = in[2 * j];
        odd[j] = in[2 * j + 1];
    }
}

// `combine_serial`: lo[j] = e + f o, hi[j] = e - f o with f = w[j stride].
inline void combine_serial(const Complex* even, const Complex* odd, const Complex* w, size_t stride, Complex* lo,
                           Complex* hi, size_t len) {
    for (size_t j = 0; j < len; j++) {
        Complex t = w[j * stride] * odd[j];
        lo[j] = even[j] + t;
        hi[j] = even[j] - t;
    }
}

inline void fft_serial(size_t n, Complex* in, Complex* out, const Complex* w, size_t stride) {
    if (n <= 2) {
        if (n == 1) {
            out[0] = in[0];
        } else {
            out[0] = in[0] + in[1];
            out[1] = in[0] - in[1];
        }
        return;
    }
    size_t h = n / 2;
    unshuffle_serial(in, out, out + h, h);
    fft_serial(h, out, in, w, 2 * stride);
    fft_serial(h, out + h, in + h, w, 2 * stride);
    combine_serial(in, in + h, w, stride, out, out + h, h);
}

// `fft_seq`: twiddles, a copy of the input as scratch, the serial transform.
inline std::vector<Complex> fft_seq(const std::vector<Complex>& input) {
    size_t n = input.size();
    std::vector<Complex> w(n / 2, Complex{0, 0});
    twiddle_serial(w.data(), n / 2, 0, n);
    std::vector<Complex> scratch = input;
    std::vector<Complex> out(n, Complex{0, 0});
    fft_serial(n, scratch.data(), out.data(), w.data(), 1);
    return out;
}

// `fft LOG2`: the transform of 2^LOG2 pseudo-random points (seed 1).
struct Fft : peer::Workload {
    std::vector<Complex> points, reference, result;
    explicit Fft(const peer::Context& cx) {
        cx.expect_args(1);
        uint64_t log2 = cx.u64(0, "LOG2");
        if (log2 < 1 || log2 > 28) throw peer::UsageError("fft: LOG2 must be 1 to 28");
        points = fft_input(size_t(1) << log2, 1);
        reference = fft_seq(points);
    }
    void seq() { result = fft_seq(points); }
    std::string check() const {
        if (result.size() != reference.size() ||
            std::memcmp(result.data(), reference.data(), result.size() * sizeof(Complex)) != 0)
            return "fft: the transform differs from the sequential reference's";
        return "";
    }
    std::string checksum() const {
        peer::Fnv1a h;
        h.values(result.data(), result.size());
        return h.hex();
    }
};

}  // namespace kernels

namespace kernels {

// The task code of `fft::tasks`, for a runtime's `Join::join(a, b)` (a runs
// on the calling thread, b may run elsewhere; both are done when it returns).
template <class Join>
struct FftTasks {
    static void twiddle_table(size_t len, Complex* w, size_t k0, size_t n) {
        if (len <= kLoopCutoff) return twiddle_serial(w, len, k0, n);
        size_t h = len / 2;
        Join::join([=] { twiddle_table(h, w, k0, n); }, [=] { twiddle_table(h, w + h, k0 + h, n); });
    }

    static void unshuffle(size_t len, const Complex* in, Complex* even, Complex* odd) {
        if (len <= kLoopCutoff) return unshuffle_serial(in, even, odd, len);
        size_t h = len / 2;
        Join::join([=] { unshuffle(h, in, even, odd); }, [=] { unshuffle(h, in + len, even + h, odd + h); });
    }

    static void combine(size_t len, const Complex* even, const Complex* odd, const Complex* w, size_t stride, Complex* lo,
                        Complex* hi) {
        if (len <= kLoopCutoff) return combine_serial(even, odd, w, stride, lo, hi, len);
        size_t h = len / 2;
        const Complex* w_hi = w + h * stride;
        Join::join([=] { combine(h, even, odd, w, stride, lo, hi); },
                   [=] { combine(h, even + h, odd + h, w_hi, stride, lo + h, hi + h); });
    }

    static void fft_aux(size_t n, Complex* in, Complex* out, const Complex* w, size_t stride) {
        if (n <= kFftCutoff) return fft_serial(n, in, out, w, stride);
        size_t h = n / 2;
        unshuffle(h, in, out, out + h);
        Join::join([=] { fft_aux(h, out, in, w, 2 * stride); }, [=] { fft_aux(h, out + h, in + h, w, 2 * stride); });
        combine(h, in, in + h, w, stride, out, out + h);
    }

    // `fft::fft`: the twiddles, a copy of the input, the transform.
    static std::vector<Complex> fft(const std::vector<Complex>& input) {
        size_t n = input.size();
        std::vector<Complex> w(n / 2, Complex{0, 0});
        twiddle_table(n / 2, w.data(), 0, n);
        std::vector<Complex> scratch = input;
        std::vector<Complex> out(n, Complex{0, 0});
        fft_aux(n, scratch.data(), out.data(), w.data(), 1);
        return out;
    }
};

}  // namespace kernels
