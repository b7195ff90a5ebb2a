// The CF'17 table's programs for the C/C++ peers (BOTS and Cilk programs):
// inputs, sequential kernels, references and checks, function for function
// those of `benches/src/annotated/*.rs` (the same cut-offs, kernels and loop
// orders, so results compare bit for bit). Each runtime adds the task code in
// omp.cpp / tbb.cpp, forking where the Rust task code forks: a `join(a, b)`
// offers b as a task and runs a, a `scope` with spawns makes one task per spawn
// and waits for them (BOTS' `#pragma omp task` ... `taskwait`).
//
// As in `cf17::workloads`, an in-place program copies its input before the
// clock starts (`setup`), and the references are the programs' known answers
// where the Rust workloads use them (fib's closed form, nqueens' table, sort's
// identity), else the sequential reference computed once in this process.

#pragma once

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "../peer.hpp"
#include "dataflow.hpp"

namespace kernels {

// ---- nqueens (annotated/nqueens.rs) ----

constexpr int kMaxBoard = 32;
constexpr uint64_t kQueenSolutions[14] = {1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596};

// `ok`: no two queens of a[0..n) attack each other (every pair, as BOTS).
inline bool queens_ok(int n, const uint8_t* a) {
    for (int i = 0; i < n; i++) {
        int p = a[i];
        for (int j = i + 1; j < n; j++) {
            int q = a[j], d = j - i;
            if (q == p || q == p + d || q + d == p) return false;
        }
    }
    return true;
}

// `nqueens_seq`'s `place`: a growing placement, no tasks (BOTS' nqueens_ser).
inline uint64_t queens_place(int n, std::vector<uint8_t>& a) {
    if (int(a.size()) == n) return 1;
    uint64_t solutions = 0;
    for (int i = 0; i < n; i++) {
        a.push_back(uint8_t(i));
        if (queens_ok(int(a.size()), a.data())) solutions += queens_place(n, a);
        a.pop_back();
    }
    return solutions;
}

inline uint64_t nqueens_seq(int n) {
    std::vector<uint8_t> a;
    a.reserve(n);
    return queens_place(n, a);
}

// `nqueens N`: the placements of N queens, a task per column of every row
// (no cut-off).
struct NQueens : peer::Workload {
    int n;
    uint64_t expected, result = 0;
    explicit NQueens(const peer::Context& cx) {
        cx.expect_args(1);
        uint64_t v = cx.u64(0, "N");
        if (v < 1 || v > 14) throw peer::UsageError("nqueens: N must be 1 to 14 (the known solution counts)");
        n = int(v);
        expected = kQueenSolutions[n - 1];
    }
    void seq() { result = nqueens_seq(peer::black_box(n)); }
    std::string check() const { return peer::expect_eq("nqueens", result, expected); }
    std::string checksum() const { return peer::checksum_of_u64(result); }
};

// ---- sort: BOTS cilksort (annotated/sort.rs) ----

typedef int64_t Elm;
constexpr size_t kQuickSize = 2048;     // BOTS_QUICKSIZE
constexpr size_t kMergeSize = 2048;     // BOTS_MERGESIZE
constexpr size_t kInsertionSize = 20;   // BOTS_INSERTIONSIZE

inline Elm med3(Elm a, Elm b, Elm c) {
    if (a < b) {
        if (b < c) return b;
        if (a < c) return c;
        return a;
    }
    if (b > c) return b;
    if (a > c) return c;
    return a;
}

// `seqpart` on v[0..len) (len >= 2).
inline size_t seqpart(Elm* v, size_t len) {
    size_t high = len - 1;
    Elm pivot = med3(v[0], v[high], v[high / 2]);
    size_t curr_low = 0, curr_high = high;
    for (;;) {
        while (v[curr_high] > pivot) curr_high--;
        while (v[curr_low] < pivot) curr_low++;
        if (curr_low >= curr_high) break;
        Elm l = v[curr_low], h = v[curr_high];
        v[curr_high] = l;
        v[curr_low] = h;
        curr_high--;
        curr_low++;
    }
    return curr_high < high ? curr_high : curr_high - 1;
}

inline void insertion_sort(Elm* v, size_t len) {
    for (size_t q = 1; q < len; q++) {
        Elm a = v[q];
        size_t p = q;
        while (p > 0 && v[p - 1] > a) {
            v[p] = v[p - 1];
            p--;
        }
        v[p] = a;
    }
}

inline void seqquick(Elm* v, size_t len) {
    while (len > kInsertionSize) {
        size_t p = seqpart(v, len);
        seqquick(v, p + 1);
        v += p + 1;
        len -= p + 1;
    }
    insertion_sort(v, len);
}

// `seqmerge`: on equal keys b's goes first.
inline void seqmerge(const Elm* a, size_t na, const Elm* b, size_t nb, Elm* dest) {
    size_t i = 0, j = 0;
    // Branch-free, as LLVM compiles the Rust loop (GCC keeps the branch of
    // the if/else form, mispredicted on random keys: about 15 % slower).
    while (i < na && j < nb) {
        Elm x = a[i], y = b[j];
        bool take_a = x < y;
        *dest++ = take_a ? x : y;
        i += take_a;
        j += !take_a;
    }
    if (i < na)
        std::memcpy(dest, a + i, (na - i) * sizeof(Elm));
    else
        std::memcpy(dest, b + j, (nb - j) * sizeof(Elm));
}

// `binsplit`: the number of keys of b below val.
inline size_t binsplit(Elm val, const Elm* b, size_t nb) {
    size_t low = 0, high = nb;
    while (low < high) {
        size_t mid = low + (high - low) / 2;
        if (b[mid] < val)
            low = mid + 1;
        else
            high = mid;
    }
    return low;
}

inline void cilkmerge_seq(const Elm* a, size_t na, const Elm* b, size_t nb, Elm* dest) {
    if (nb > na) {
        std::swap(a, b);
        std::swap(na, nb);
    }
    if (nb == 0) {
        std::memcpy(dest, a, na * sizeof(Elm));
        return;
    }
    if (nb <= kMergeSize) {
        seqmerge(a, na, b, nb, dest);
        return;
    }
    size_t split1 = na / 2;
    size_t split2 = binsplit(a[split1], b, nb);
    dest[split1 + split2] = a[split1];
    cilkmerge_seq(a, split1, b, split2, dest);
    cilkmerge_seq(a + split1 + 1, na - split1 - 1, b + split2, nb - split2, dest + split1 + split2 + 1);
}

inline void cilksort_seq(Elm* low, Elm* tmp, size_t size) {
    if (size < kQuickSize) {
        seqquick(low, size);
        return;
    }
    size_t quarter = size / 4;
    Elm *a = low, *b = a + quarter, *c = b + quarter, *d = c + quarter;
    Elm *ta = tmp, *tb = ta + quarter, *tc = tb + quarter, *td = tc + quarter;
    cilksort_seq(a, ta, quarter);
    cilksort_seq(b, tb, quarter);
    cilksort_seq(c, tc, quarter);
    cilksort_seq(d, td, size - 3 * quarter);
    cilkmerge_seq(a, quarter, b, quarter, ta);
    cilkmerge_seq(c, quarter, d, size - 3 * quarter, tc);
    cilkmerge_seq(ta, 2 * quarter, tc, size - 2 * quarter, a);
}

// BOTS' input: 0..n scrambled by n swaps with an LCG (`sort::bots_input`).
inline std::vector<Elm> bots_sort_input(size_t n) {
    std::vector<Elm> v(n);
    for (size_t i = 0; i < n; i++) v[i] = Elm(i);
    uint64_t state = 1;
    for (size_t i = 0; i < n; i++) {
        state = state * 1103515245ull + 12345ull;
        std::swap(v[i], v[size_t(state % n)]);
    }
    return v;
}

// `sort N`: cilksort of BOTS' scrambled 0..N, checked to be 0..N.
struct CilkSort : peer::Workload {
    static constexpr bool kSetup = true;
    std::vector<Elm> keys, a;
    explicit CilkSort(const peer::Context& cx) {
        cx.expect_args(1);
        size_t n = cx.u64(0, "N");
        if (n < 1 || n > (size_t(1) << 32)) throw peer::UsageError("sort: N must be 1 to 2^32");
        keys = bots_sort_input(n);
    }
    void setup() { a = keys; }
    void seq() {
        std::vector<Elm> tmp(a.size(), 0);
        cilksort_seq(a.data(), tmp.data(), a.size());
    }
    std::string check() const {
        for (size_t i = 0; i < a.size(); i++)
            if (a[i] != Elm(i)) return "sort: key " + std::to_string(i) + " is " + std::to_string(a[i]);
        return "";
    }
    std::string checksum() const { return peer::checksum_of(a); }
};

// ---- strassen (annotated/strassen.rs) ----

// A read-only square block: element (r, c) at data[r stride + c].
struct View {
    const double* data;
    size_t stride;
};

// `Matrix::random`: SplitMix64 to [0, 1).
inline std::vector<double> strassen_random(size_t n, uint64_t seed) {
    std::vector<double> v(n * n);
    uint64_t state = seed;
    for (size_t i = 0; i < n * n; i++) {
        state += 0x9e3779b97f4a7c15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        v[i] = double(z >> 11) / double(uint64_t(1) << 53);
    }
    return v;
}

// `multiply_block`: c = a b by i-k-j.
inline void multiply_block(size_t n, double* c, View a, View b) {
    for (size_t i = 0; i < n; i++) {
        double* c_row = c + i * n;
        std::fill(c_row, c_row + n, 0.0);
        const double* a_row = a.data + i * a.stride;
        for (size_t k = 0; k < n; k++) {
            double a_ik = a_row[k];
            const double* b_row = b.data + k * b.stride;
            for (size_t j = 0; j < n; j++) c_row[j] += a_ik * b_row[j];
        }
    }
}

inline void quadrants(View m, size_t q, View out[4]) {
    out[0] = View{m.data, m.stride};
    out[1] = View{m.data + q, m.stride};
    out[2] = View{m.data + q * m.stride, m.stride};
    out[3] = View{m.data + q * m.stride + q, m.stride};
}

// `sums`: S1..S8 into s (eight q x q blocks), in BOTS' order of operations.
inline void strassen_sums(size_t q, double* s, const View a[4], const View b[4]) {
    size_t qq = q * q;
    double *s1 = s, *s2 = s + qq, *s3 = s + 2 * qq, *s4 = s + 3 * qq;
    double *s5 = s + 4 * qq, *s6 = s + 5 * qq, *s7 = s + 6 * qq, *s8 = s + 7 * qq;
    for (size_t r = 0; r < q; r++) {
        size_t ra = r * a[0].stride, rb = r * b[0].stride;
        for (size_t j = 0; j < q; j++) {
            size_t t = r * q + j;
            double x11 = a[0].data[ra + j], x12 = a[1].data[ra + j];
            double x21 = a[2].data[ra + j], x22 = a[3].data[ra + j];
            double y11 = b[0].data[rb + j], y12 = b[1].data[rb + j];
            double y21 = b[2].data[rb + j], y22 = b[3].data[rb + j];
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

// `combine`: C from [M2, M5, T1, P22, P11, P12, P21].
inline void strassen_combine(size_t q, double* c, const double* products) {
    size_t qq = q * q;
    const double *m2 = products, *m5 = products + qq, *t1s = products + 2 * qq, *p22 = products + 3 * qq;
    const double *p11 = products + 4 * qq, *p12 = products + 5 * qq, *p21 = products + 6 * qq;
    for (size_t r = 0; r < q; r++) {
        double* c11 = c + r * 2 * q;
        double* c12 = c11 + q;
        double* c21 = c + (q + r) * 2 * q;
        double* c22 = c21 + q;
        for (size_t j = 0; j < q; j++) {
            size_t t = r * q + j;
            double t1 = t1s[t] + m2[t];
            double t2 = p22[t] + t1;
            c11[j] = p11[t] + m2[t];
            c12[j] = p12[t] + (m5[t] + t1);
            c22[j] = m5[t] + t2;
            c21[j] = -p21[t] + t2;
        }
    }
}

// The operands of the seven products of one level: [(A11, B11), (S1, S5),
// (S2, S6), (S3, S7), (A12, B21), (S4, B22), (A22, S8)] into
// [M2, M5, T1, P22, P11, P12, P21].
inline void strassen_operands(size_t q, const View a[4], const View b[4], const double* s, View left[7], View right[7]) {
    size_t qq = q * q;
    auto sv = [&](int i) { return View{s + i * qq, q}; };
    left[0] = a[0], right[0] = b[0];
    left[1] = sv(0), right[1] = sv(4);
    left[2] = sv(1), right[2] = sv(5);
    left[3] = sv(2), right[3] = sv(6);
    left[4] = a[1], right[4] = b[2];
    left[5] = sv(3), right[5] = b[3];
    left[6] = a[3], right[6] = sv(7);
}

inline void strassen_seq(size_t n, double* c, View a, View b, size_t cutoff) {
    if (n <= cutoff) {
        multiply_block(n, c, a, b);
        return;
    }
    size_t q = n / 2;
    View aq[4], bq[4], left[7], right[7];
    quadrants(a, q, aq);
    quadrants(b, q, bq);
    std::vector<double> s(8 * q * q, 0.0);
    strassen_sums(q, s.data(), aq, bq);
    strassen_operands(q, aq, bq, s.data(), left, right);
    std::vector<double> products(7 * q * q, 0.0);
    for (int p = 0; p < 7; p++) strassen_seq(q, products.data() + p * q * q, left[p], right[p], cutoff);
    strassen_combine(q, c, products.data());
}

// `strassen N CUTOFF`: Strassen's product of two random N x N matrices (seeds
// 1 and 2), blocks of at most CUTOFF multiplied directly; compared bit for bit
// with the sequential reference.
struct Strassen : peer::Workload {
    size_t n, cutoff;
    std::vector<double> a, b, reference, c;
    explicit Strassen(const peer::Context& cx) {
        cx.expect_args(2);
        n = cx.u64(0, "N");
        cutoff = cx.u64(1, "CUTOFF");
        if (n < 1 || n > 32768 || (n & (n - 1)) != 0) throw peer::UsageError("strassen: N must be a power of two up to 32768");
        if (cutoff < 1) throw peer::UsageError("strassen: CUTOFF must be positive");
        a = strassen_random(n, 1);
        b = strassen_random(n, 2);
        reference.assign(n * n, 0.0);
        strassen_seq(n, reference.data(), View{a.data(), n}, View{b.data(), n}, cutoff);
    }
    void seq() {
        c.assign(n * n, 0.0);
        strassen_seq(n, c.data(), View{a.data(), n}, View{b.data(), n}, cutoff);
    }
    std::string check() const { return peer::expect_same("strassen", c, reference); }
    std::string checksum() const { return peer::checksum_of(c); }
};

// ---- sparselu (annotated/sparselu.rs: BOTS' taskwait version) ----

// `sparselu NB BS`: BOTS SparseLU, two phases of tasks per diagonal block.
struct Sparselu : peer::Workload {
    static constexpr bool kSetup = true;
    SparseMatrix original, reference, m;
    explicit Sparselu(const peer::Context& cx) {
        cx.expect_args(2);
        size_t nb = cx.u64(0, "NB"), bs = cx.u64(1, "BS");
        check_sparselu_size(nb, bs);
        original = sparselu_generate(nb, bs);
        reference = original;
        sparselu_sequential(reference);
    }
    void setup() { m = original; }
    void seq() { sparselu_sequential(m); }
    std::string check() const { return sparselu_compare(m, reference); }
    std::string checksum() const { return sparselu_checksum(m); }
};

}  // namespace kernels

#include "health.hpp"
