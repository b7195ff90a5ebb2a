// The par-loops table's programs for the C/C++ peers: inputs, the per-row
// kernels and the sequential loops of `benches/src/tables/par_loops.rs`. Each
// runtime adds `par()` (its parallel loop) in omp.cpp / tbb.cpp. As in the Rust
// table, a timed sort run copies the input first, and every run writes its
// result into an output buffer allocated once.

#pragma once

#include <cmath>

#include "../peer.hpp"

namespace kernels {

// `par_loops::SUM_CHUNK`: elements per chunk of the sum (its grain).
constexpr size_t kSumChunk = 4096;

// `par_loops::sum_input`: n values in [0, 1).
inline std::vector<double> sum_input(size_t n) {
    std::vector<double> v(n);
    for (size_t i = 0; i < n; i++) v[i] = double(i % 1000) / 1000.0;
    return v;
}

// `par_loops::sum_of_squares`: the sequential loop, in index order.
inline double sum_of_squares(const double* data, size_t n) {
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += data[i] * data[i];
    return s;
}

// `sum-of-squares N`: the sum of x^2 over N doubles. A parallel sum groups the
// additions otherwise, so (as in the Rust table) it is checked against the
// sequential sum to a relative 1e-9; the checksum is that of the sequential
// sum, which the Rust reference must equal bit for bit.
struct SumOfSquares : peer::Workload {
    std::vector<double> data;
    double reference, result = 0;
    explicit SumOfSquares(const peer::Context& cx) {
        cx.expect_args(1);
        size_t n = cx.u64(0, "N");
        if (n < 1 || n > (size_t(1) << 32)) throw peer::UsageError("sum-of-squares: N must be 1 to 2^32");
        data = sum_input(n);
        reference = sum_of_squares(data.data(), n);
    }
    void seq() { result = sum_of_squares(peer::black_box(data.data()), data.size()); }
    std::string check() const {
        double error = std::fabs(result - reference) / std::max(std::fabs(reference), 2.2250738585072014e-308);
        if (error < 1e-9) return "";
        return "sum-of-squares: " + std::to_string(result) + " vs the sequential " + std::to_string(reference);
    }
    std::string checksum() const {
        peer::Fnv1a h;
        h.value(reference);
        return h.hex();
    }
};

// `par_loops::MANDELBROT_ITERATIONS`.
constexpr uint32_t kMandelbrotIterations = 256;

// `par_loops::mandelbrot_row`: row `row` of a size x size image of
// [-2, 0.5] x [-1.25, 1.25].
inline void mandelbrot_row(size_t size, size_t row, uint32_t* pixels) {
    double scale = 2.5 / double(size);
    double ci = -1.25 + double(row) * scale;
    for (size_t x = 0; x < size; x++) {
        double cr = -2.0 + double(x) * scale;
        double zr = 0.0, zi = 0.0;
        uint32_t n = 0;
        while (n < kMandelbrotIterations && zr * zr + zi * zi <= 4.0) {
            double t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            n++;
        }
        pixels[x] = n;
    }
}

// `mandelbrot SIZE`: a SIZE x SIZE image, one row per chunk.
struct Mandelbrot : peer::Workload {
    size_t size;
    std::vector<uint32_t> reference, image;
    explicit Mandelbrot(const peer::Context& cx) {
        cx.expect_args(1);
        size = cx.u64(0, "SIZE");
        if (size < 1 || size > 65536) throw peer::UsageError("mandelbrot: SIZE must be 1 to 65536");
        reference.assign(size * size, 0);
        for (size_t r = 0; r < size; r++) mandelbrot_row(size, r, &reference[r * size]);
        image.assign(size * size, 0);
    }
    void seq() {
        for (size_t r = 0; r < size; r++) mandelbrot_row(size, r, &image[r * size]);
    }
    std::string check() const { return peer::expect_same("mandelbrot", image, reference); }
    std::string checksum() const { return peer::checksum_of(image); }
};

// `par_loops::stencil_input`: a smooth field with some noise.
inline std::vector<double> stencil_input(size_t size) {
    std::vector<double> v(size * size);
    for (size_t k = 0; k < size * size; k++)
        v[k] = std::sin(double(k / size) * 0.01) + std::cos(double(k % size) * 0.02) + double(k % 7);
    return v;
}

// `par_loops::stencil_row`: one sweep of the 5-point stencil over row `row`.
inline void stencil_row(const double* input, size_t size, size_t row, double* out) {
    if (row == 0 || row + 1 == size) {
        std::memcpy(out, input + row * size, size * sizeof(double));
        return;
    }
    out[0] = input[row * size];
    out[size - 1] = input[row * size + size - 1];
    const double* above = input + (row - 1) * size;
    const double* here = input + row * size;
    const double* below = input + (row + 1) * size;
    for (size_t c = 1; c < size - 1; c++) out[c] = 0.2 * (here[c] + here[c - 1] + here[c + 1] + above[c] + below[c]);
}

// `stencil SIZE`: one sweep over a SIZE x SIZE grid, one output row per chunk.
struct Stencil : peer::Workload {
    size_t size;
    std::vector<double> input, reference, grid;
    explicit Stencil(const peer::Context& cx) {
        cx.expect_args(1);
        size = cx.u64(0, "SIZE");
        if (size < 2 || size > 65536) throw peer::UsageError("stencil: SIZE must be 2 to 65536");
        input = stencil_input(size);
        reference.assign(size * size, 0.0);
        for (size_t r = 0; r < size; r++) stencil_row(input.data(), size, r, &reference[r * size]);
        grid.assign(size * size, 0.0);
    }
    void seq() {
        for (size_t r = 0; r < size; r++) stencil_row(input.data(), size, r, &grid[r * size]);
    }
    std::string check() const { return peer::expect_same("stencil", grid, reference); }
    std::string checksum() const { return peer::checksum_of(grid); }
};

// `par_loops::sort_input`: n random u64 (xorshift), or 0..n with 1 % of the
// elements swapped with random others.
inline std::vector<uint64_t> sort_input(size_t n, bool nearly_sorted) {
    uint64_t state = 0x9E3779B97F4A7C15ull;
    auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::vector<uint64_t> v(n);
    if (!nearly_sorted) {
        for (size_t i = 0; i < n; i++) v[i] = next();
        return v;
    }
    for (size_t i = 0; i < n; i++) v[i] = i;
    for (size_t k = 0; k < n / 100; k++) {
        size_t a = size_t(next() % n);
        size_t b = size_t(next() % n);
        std::swap(v[a], v[b]);
    }
    return v;
}

// `par-sort N SHAPE KIND`: sorts a copy of N u64 (SHAPE `random` or
// `nearly-sorted`), stably or not (KIND `stable` or `unstable`; the
// sequential forms are std::stable_sort and std::sort, the C++ library's
// `slice::sort` and `sort_unstable`).
struct ParSort : peer::Workload {
    std::vector<uint64_t> input, reference, v;
    bool stable;
    explicit ParSort(const peer::Context& cx) {
        cx.expect_args(3);
        size_t n = cx.u64(0, "N");
        if (n < 1 || n > (size_t(1) << 32)) throw peer::UsageError("par-sort: N must be 1 to 2^32");
        bool nearly = cx.choice(1, "SHAPE", {"random", "nearly-sorted"}) == "nearly-sorted";
        stable = cx.choice(2, "KIND", {"stable", "unstable"}) == "stable";
        input = sort_input(n, nearly);
        reference = input;
        std::sort(reference.begin(), reference.end());
        v.assign(n, 0);
    }
    void seq() {
        std::copy(input.begin(), input.end(), v.begin());
        if (stable)
            std::stable_sort(v.begin(), v.end());
        else
            std::sort(v.begin(), v.end());
    }
    std::string check() const { return peer::expect_same("par-sort", v, reference); }
    std::string checksum() const { return peer::checksum_of(v); }
};

}  // namespace kernels
