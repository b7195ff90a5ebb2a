// The dataflow table's programs for the C/C++ peers: inputs, tile kernels,
// sequential references and checks, loop for loop those of
// `benches/src/dataflow/{two_wave,cholesky,matmul,sparselu}.rs`. The kernels
// are `noinline` where the Rust ones are `#[inline(never)]`, and every peer
// calls them in the reference's order per tile, so results are compared bit for
// bit. Each runtime adds `par()` (one task per kernel call, with the same
// in/out/inout accesses) in omp.cpp / tbb.cpp / starpu.cpp.
//
// As in the Rust table (`tables::dataflow::measure::Bench::kernel`), a timed run
// includes copying the input (the Rust runs clone it) and the sequential
// reference's time includes the same copy.

#pragma once

#include <cmath>

#include "../peer.hpp"

#define PEER_NOINLINE __attribute__((noinline))

namespace kernels {

// `dataflow::unit_random`: SplitMix64 to a double in [-1, 1).
inline double unit_random(uint64_t& state) {
    state += 0x9E3779B97F4A7C15ull;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return double(z >> 11) / double(uint64_t(1) << 52) - 1.0;
}

// ---- two-wave ----

// `two_wave::chain`: `iterations` dependent steps of x = x a + b.
PEER_NOINLINE inline double chain(double x, size_t iterations) {
    for (size_t i = 0; i < iterations; i++) x = x * 0.9999999 + 1e-7;
    return x;
}

inline double two_wave_seed(size_t i) { return double(i) * 1e-3; }

inline std::vector<double> two_wave_sequential(size_t tasks, size_t size) {
    std::vector<double> values(tasks, 0.0);
    for (size_t i = 0; i < tasks; i++) values[i] = chain(two_wave_seed(i), size);
    for (size_t i = 0; i < tasks; i++) values[i] = chain(values[i], size);
    return values;
}

// `two-wave TASKS SIZE`: two waves of TASKS tasks of SIZE chain steps, task i
// of wave 2 `inout` the value task i of wave 1 wrote (`out`).
struct TwoWave : peer::Workload {
    size_t tasks, size;
    std::vector<double> reference, result;
    explicit TwoWave(const peer::Context& cx) {
        cx.expect_args(2);
        tasks = cx.u64(0, "TASKS");
        size = cx.u64(1, "SIZE");
        if (tasks < 1 || tasks > (size_t(1) << 28)) throw peer::UsageError("two-wave: TASKS must be 1 to 2^28");
        reference = two_wave_sequential(tasks, size);
    }
    void seq() { result = two_wave_sequential(tasks, size); }
    std::string check() const { return peer::expect_same("two-wave", result, reference); }
    std::string checksum() const { return peer::checksum_of(result); }
};

// ---- cholesky ----

// A tiled n x n matrix (`cholesky::Tiled`): nb x nb tiles of bs x bs, tile
// (i, j) contiguous and row-major at (i nb + j) bs^2.
struct Tiled {
    size_t nb, bs;
    std::vector<double> data;
    double* tile(size_t i, size_t j) { return &data[(i * nb + j) * bs * bs]; }
    const double* tile(size_t i, size_t j) const { return &data[(i * nb + j) * bs * bs]; }
    void set(size_t r, size_t c, double v) { data[((r / bs) * nb + c / bs) * bs * bs + (r % bs) * bs + c % bs] = v; }
};

// `cholesky::generate`: symmetric, diagonally dominant.
inline Tiled cholesky_generate(size_t nb, size_t bs, uint64_t seed) {
    size_t n = nb * bs;
    Tiled m{nb, bs, std::vector<double>(n * n, 0.0)};
    uint64_t state = seed;
    for (size_t r = 0; r < n; r++) {
        for (size_t c = 0; c <= r; c++) {
            double v = unit_random(state);
            m.set(r, c, v);
            m.set(c, r, v);
        }
        m.set(r, r, double(n) + 1.0);
    }
    return m;
}

// `cholesky::potrf`: column by column, each element a dot product over the
// row prefixes k < j, k ascending.
PEER_NOINLINE inline void potrf(double* a, size_t bs) {
    for (size_t j = 0; j < bs; j++) {
        double* row_j = a + j * bs;
        double d = row_j[j];
        for (size_t k = 0; k < j; k++) d -= row_j[k] * row_j[k];
        d = std::sqrt(d);
        row_j[j] = d;
        for (size_t i = j + 1; i < bs; i++) {
            double* row_i = a + i * bs;
            double s = row_i[j];
            for (size_t k = 0; k < j; k++) s -= row_i[k] * row_j[k];
            row_i[j] = s / d;
        }
    }
}

// `cholesky::trsm`: four rows of B at a time, each with its own accumulator,
// then the rows left over one at a time.
PEER_NOINLINE inline void trsm(const double* l, double* b, size_t bs) {
    size_t r = 0;
    for (; r + 4 <= bs; r += 4) {
        double* b0 = b + r * bs;
        double *b1 = b0 + bs, *b2 = b1 + bs, *b3 = b2 + bs;
        for (size_t j = 0; j < bs; j++) {
            const double* l_j = l + j * bs;
            double s0 = b0[j], s1 = b1[j], s2 = b2[j], s3 = b3[j];
            for (size_t k = 0; k < j; k++) {
                double y = l_j[k];
                s0 -= b0[k] * y;
                s1 -= b1[k] * y;
                s2 -= b2[k] * y;
                s3 -= b3[k] * y;
            }
            b0[j] = s0 / l_j[j];
            b1[j] = s1 / l_j[j];
            b2[j] = s2 / l_j[j];
            b3[j] = s3 / l_j[j];
        }
    }
    for (; r < bs; r++) {
        double* row = b + r * bs;
        for (size_t j = 0; j < bs; j++) {
            const double* l_j = l + j * bs;
            double s = row[j];
            for (size_t k = 0; k < j; k++) s -= row[k] * l_j[k];
            row[j] = s / l_j[j];
        }
    }
}

// `cholesky::sub_dots`: c[r][j + t] -= sum_k a[r][k] b[t][k] for r < R, t < J,
// k ascending, each element with its own accumulator.
template <size_t R, size_t J>
inline void sub_dots(const double* const (&a)[R], const double* const (&b)[J], double* const (&c)[R], size_t j,
                     size_t n) {
    double s[R][J];
    for (size_t r = 0; r < R; r++)
        for (size_t t = 0; t < J; t++) s[r][t] = c[r][j + t];
    for (size_t k = 0; k < n; k++) {
        for (size_t r = 0; r < R; r++) {
            double x = a[r][k];
            for (size_t t = 0; t < J; t++) s[r][t] -= x * b[t][k];
        }
    }
    for (size_t r = 0; r < R; r++)
        for (size_t t = 0; t < J; t++) c[r][j + t] = s[r][t];
}

// `cholesky::gemm_nt_rows`: the R rows a of A and c of C against B, four
// columns at a time, then the columns left over one at a time.
template <size_t R>
inline void gemm_nt_rows(const double* const (&a)[R], const double* b, double* const (&c)[R], size_t bs) {
    size_t j = 0;
    for (; j + 4 <= bs; j += 4) {
        const double* b_rows[4] = {b + j * bs, b + (j + 1) * bs, b + (j + 2) * bs, b + (j + 3) * bs};
        sub_dots<R, 4>(a, b_rows, c, j, bs);
    }
    for (; j < bs; j++) {
        const double* b_rows[1] = {b + j * bs};
        sub_dots<R, 1>(a, b_rows, c, j, bs);
    }
}

// `cholesky::gemm_nt`: C -= A B^T in blocks of two rows of C by four
// columns, the row and columns left over in smaller blocks.
PEER_NOINLINE inline void gemm_nt(const double* a, const double* b, double* c, size_t bs) {
    size_t i = 0;
    for (; i + 2 <= bs; i += 2) {
        const double* a_rows[2] = {a + i * bs, a + (i + 1) * bs};
        double* const c_rows[2] = {c + i * bs, c + (i + 1) * bs};
        gemm_nt_rows<2>(a_rows, b, c_rows, bs);
    }
    if (i < bs) {
        const double* a_rows[1] = {a + i * bs};
        double* const c_rows[1] = {c + i * bs};
        gemm_nt_rows<1>(a_rows, b, c_rows, bs);
    }
}

PEER_NOINLINE inline void syrk(const double* a, double* c, size_t bs) { gemm_nt(a, a, c, bs); }

inline void cholesky_sequential(Tiled& m) {
    size_t nb = m.nb, bs = m.bs;
    for (size_t k = 0; k < nb; k++) {
        potrf(m.tile(k, k), bs);
        for (size_t i = k + 1; i < nb; i++) trsm(m.tile(k, k), m.tile(i, k), bs);
        for (size_t i = k + 1; i < nb; i++) {
            for (size_t j = k + 1; j < i; j++) gemm_nt(m.tile(i, k), m.tile(j, k), m.tile(i, j), bs);
            syrk(m.tile(i, k), m.tile(i, i), bs);
        }
    }
}

// `cholesky NB BS`: blocked Cholesky of the table's matrix (seed 42).
struct Cholesky : peer::Workload {
    Tiled original, reference, result;
    explicit Cholesky(const peer::Context& cx) {
        cx.expect_args(2);
        size_t nb = cx.u64(0, "NB"), bs = cx.u64(1, "BS");
        if (nb < 1 || bs < 1 || nb * bs > 65536) throw peer::UsageError("cholesky: NB and BS must be positive, NB BS at most 65536");
        original = cholesky_generate(nb, bs, 42);
        reference = original;
        cholesky_sequential(reference);
    }
    void seq() {
        result = original;
        cholesky_sequential(result);
    }
    // `cholesky::check`: the lower triangle of tiles, exactly.
    std::string check() const {
        size_t nb = reference.nb, tile = reference.bs * reference.bs;
        if (result.data.size() != reference.data.size()) return "cholesky: wrong size";
        for (size_t i = 0; i < nb; i++)
            for (size_t j = 0; j <= i; j++)
                if (std::memcmp(result.tile(i, j), reference.tile(i, j), tile * sizeof(double)) != 0)
                    return "cholesky: tile (" + std::to_string(i) + ", " + std::to_string(j) + ") differs from the reference";
        return "";
    }
    std::string checksum() const { return peer::checksum_of(result.data); }
};

// ---- matmul ----

struct MatmulProblem {
    size_t nb, bs;
    std::vector<double> a, b, c;
};

// `matmul::generate`: A then B from one stream, C zero.
inline MatmulProblem matmul_generate(size_t nb, size_t bs, uint64_t seed) {
    size_t len = nb * nb * bs * bs;
    MatmulProblem p{nb, bs, std::vector<double>(len), std::vector<double>(len), std::vector<double>(len, 0.0)};
    uint64_t state = seed;
    for (size_t i = 0; i < len; i++) p.a[i] = unit_random(state);
    for (size_t i = 0; i < len; i++) p.b[i] = unit_random(state);
    return p;
}

// `matmul::gemm`: C += A B on tiles, i-k-j, two rows of C at a time (the
// last row alone when bs is odd).
PEER_NOINLINE inline void gemm(const double* a, const double* b, double* c, size_t bs) {
    size_t i = 0;
    for (; i + 2 <= bs; i += 2) {
        const double *a0 = a + i * bs, *a1 = a0 + bs;
        double *c0 = c + i * bs, *c1 = c0 + bs;
        for (size_t k = 0; k < bs; k++) {
            double a0k = a0[k], a1k = a1[k];
            const double* b_k = b + k * bs;
            for (size_t j = 0; j < bs; j++) {
                double b_kj = b_k[j];
                c0[j] += a0k * b_kj;
                c1[j] += a1k * b_kj;
            }
        }
    }
    if (i < bs) {
        const double* a_i = a + i * bs;
        double* c_i = c + i * bs;
        for (size_t k = 0; k < bs; k++) {
            double a_ik = a_i[k];
            const double* b_k = b + k * bs;
            for (size_t j = 0; j < bs; j++) c_i[j] += a_ik * b_k[j];
        }
    }
}

inline void matmul_sequential(MatmulProblem& p) {
    size_t nb = p.nb, tile = p.bs * p.bs;
    for (size_t i = 0; i < nb; i++)
        for (size_t j = 0; j < nb; j++)
            for (size_t k = 0; k < nb; k++)
                gemm(&p.a[(i * nb + k) * tile], &p.b[(k * nb + j) * tile], &p.c[(i * nb + j) * tile], p.bs);
}

// `matmul NB BS`: C += A B on NB x NB tiles of BS (seed 7).
struct Matmul : peer::Workload {
    MatmulProblem original, reference, result;
    explicit Matmul(const peer::Context& cx) {
        cx.expect_args(2);
        size_t nb = cx.u64(0, "NB"), bs = cx.u64(1, "BS");
        if (nb < 1 || bs < 1 || nb * bs > 65536) throw peer::UsageError("matmul: NB and BS must be positive, NB BS at most 65536");
        original = matmul_generate(nb, bs, 7);
        reference = original;
        matmul_sequential(reference);
    }
    void seq() {
        result = original;
        matmul_sequential(result);
    }
    std::string check() const { return peer::expect_same("matmul C", result.c, reference.c); }
    std::string checksum() const { return peer::checksum_of(result.c); }
};

// ---- sparselu (BOTS kernels, shared with the cf17 sparselu) ----

// `sparselu::Matrix`: nb x nb blocks of bs x bs f32 in one allocation, block
// (i, j) at (i nb + j) bs^2, and which blocks are present.
struct SparseMatrix {
    size_t nb, bs;
    std::vector<float> blocks;
    std::vector<uint8_t> present;
    float* block(size_t i, size_t j) { return &blocks[(i * nb + j) * bs * bs]; }
};

// BOTS `genmat` (`sparselu::generate`).
inline SparseMatrix sparselu_generate(size_t nb, size_t bs) {
    SparseMatrix m{nb, bs, std::vector<float>(nb * nb * bs * bs, 0.0f), std::vector<uint8_t>(nb * nb, 0)};
    int64_t init_val = 1325;
    for (size_t ii = 0; ii < nb; ii++) {
        for (size_t jj = 0; jj < nb; jj++) {
            bool null_entry = false;
            if (ii < jj && ii % 3 != 0) null_entry = true;
            if (ii > jj && jj % 3 != 0) null_entry = true;
            if (ii % 2 == 1 || jj % 2 == 1) null_entry = true;
            if (ii == jj || ii + 1 == jj || jj + 1 == ii) null_entry = false;
            if (!null_entry) {
                m.present[ii * nb + jj] = 1;
                float* block = m.block(ii, jj);
                for (size_t k = 0; k < bs * bs; k++) {
                    init_val = (3125 * init_val) % 65536;
                    block[k] = float((double(init_val) - 32768.0) / 16384.0);
                }
            }
        }
    }
    return m;
}

// `sparselu::lu0`: BOTS's loops (k, i > k, j > k) over row slices.
PEER_NOINLINE inline void lu0(float* diag, size_t bs) {
    for (size_t k = 0; k < bs; k++) {
        const float* pivot_row = diag + k * bs;
        for (size_t i = k + 1; i < bs; i++) {
            float* row = diag + i * bs;
            row[k] /= pivot_row[k];
            float factor = row[k];
            for (size_t j = k + 1; j < bs; j++) row[j] -= factor * pivot_row[j];
        }
    }
}

// `sparselu::bdiv`: BOTS's loops (i, k, j > k) over row slices.
PEER_NOINLINE inline void bdiv(const float* diag, float* row, size_t bs) {
    for (size_t i = 0; i < bs; i++) {
        float* row_i = row + i * bs;
        for (size_t k = 0; k < bs; k++) {
            const float* diag_k = diag + k * bs;
            row_i[k] /= diag_k[k];
            float factor = row_i[k];
            for (size_t j = k + 1; j < bs; j++) row_i[j] -= factor * diag_k[j];
        }
    }
}

// `sparselu::bmod`: BOTS's i, j, k loops in i, k, j order (each element's
// updates still in k order), over rows.
PEER_NOINLINE inline void bmod(const float* row, const float* col, float* inner, size_t bs) {
    for (size_t i = 0; i < bs; i++) {
        const float* row_i = row + i * bs;
        float* inner_i = inner + i * bs;
        for (size_t k = 0; k < bs; k++) {
            float row_ik = row_i[k];
            const float* col_k = col + k * bs;
            for (size_t j = 0; j < bs; j++) inner_i[j] -= row_ik * col_k[j];
        }
    }
}

// `sparselu::fwd`: BOTS's j, k, i > k loops in k, i > k, j order (each
// element's updates still in k order), over rows.
PEER_NOINLINE inline void fwd(const float* diag, float* col, size_t bs) {
    for (size_t k = 0; k < bs; k++) {
        const float* col_k = col + k * bs;
        for (size_t i = k + 1; i < bs; i++) {
            float diag_ik = diag[i * bs + k];
            float* col_i = col + i * bs;
            for (size_t j = 0; j < bs; j++) col_i[j] -= diag_ik * col_k[j];
        }
    }
}

// BOTS `sparselu_seq_call` (`sparselu::sequential`).
inline void sparselu_sequential(SparseMatrix& m) {
    size_t nb = m.nb, bs = m.bs;
    for (size_t kk = 0; kk < nb; kk++) {
        lu0(m.block(kk, kk), bs);
        for (size_t jj = kk + 1; jj < nb; jj++)
            if (m.present[kk * nb + jj]) fwd(m.block(kk, kk), m.block(kk, jj), bs);
        for (size_t ii = kk + 1; ii < nb; ii++)
            if (m.present[ii * nb + kk]) bdiv(m.block(kk, kk), m.block(ii, kk), bs);
        for (size_t ii = kk + 1; ii < nb; ii++) {
            if (!m.present[ii * nb + kk]) continue;
            for (size_t jj = kk + 1; jj < nb; jj++)
                if (m.present[kk * nb + jj]) {
                    m.present[ii * nb + jj] = 1;  // allocate_clean_block
                    bmod(m.block(ii, kk), m.block(kk, jj), m.block(ii, jj), bs);
                }
        }
    }
}

inline std::string sparselu_compare(const SparseMatrix& got, const SparseMatrix& reference) {
    std::string e = peer::expect_same("sparselu block presence", got.present, reference.present);
    if (!e.empty()) return e;
    return peer::expect_same("sparselu blocks", got.blocks, reference.blocks);
}

// The checksum of a factorisation: its blocks' f32 bits, then the presence
// map as bytes.
inline std::string sparselu_checksum(const SparseMatrix& m) {
    peer::Fnv1a h;
    h.values(m.blocks.data(), m.blocks.size());
    h.values(m.present.data(), m.present.size());
    return h.hex();
}

inline void check_sparselu_size(size_t nb, size_t bs) {
    if (nb < 1 || bs < 1 || nb > 4096 || bs > 4096 || nb * nb * bs * bs > (size_t(1) << 31))
        throw peer::UsageError("sparselu: NB and BS must be positive and NB^2 BS^2 at most 2^31");
}

// `sparselu-dataflow NB BS`: BOTS SparseLU with dependencies instead of
// taskwaits (`dataflow::sparselu`).
struct SparseluDataflow : peer::Workload {
    SparseMatrix original, reference, result;
    explicit SparseluDataflow(const peer::Context& cx) {
        cx.expect_args(2);
        size_t nb = cx.u64(0, "NB"), bs = cx.u64(1, "BS");
        check_sparselu_size(nb, bs);
        original = sparselu_generate(nb, bs);
        reference = original;
        sparselu_sequential(reference);
    }
    void seq() {
        result = original;
        sparselu_sequential(result);
    }
    std::string check() const { return sparselu_compare(result, reference); }
    std::string checksum() const { return sparselu_checksum(result); }
};

}  // namespace kernels
