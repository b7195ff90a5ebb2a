// The OpenMP peer: every benchmark program of the fork-join, dataflow,
// par-loops and cf17 tables written with OpenMP tasks and loops, built twice by
// `benches/build.rs` — by GCC against libgomp (`prescient-peer-omp-gcc`) and by
// Clang against LLVM's libomp (`prescient-peer-omp-llvm`). The inputs,
// sequential kernels and checks are the shared ones in kernels/, which mirror
// the Rust programs; this file holds only the parallel structure, which is the
// Rust version's:
//
// * a `join(a, b)` (prescient::join: b is offered to thieves, a runs on the
//   calling thread) is `#pragma omp task` for b, a called inline, `taskwait`;
// * a `scope` with k spawns is k `#pragma omp task`s and a `taskwait` (BOTS'
//   own form of nqueens, sort's quarters, strassen's products, health's
//   villages and sparselu's phases);
// * a dataflow task with in/out/inout accesses is a `#pragma omp task` with
//   the same `depend(in/out/inout)` on the first element of each tile, all
//   submitted by one thread inside `parallel` + `single`;
// * a parallel loop is `parallel for`: the sum with `reduction(+)`, the
//   Mandelbrot rows `schedule(dynamic, 1)` (one row per chunk: rows cost very
//   differently), the stencil rows the default static schedule; the sorts a
//   task merge sort with the leaves and merge grain of `prescient::par_sort`.
//
// Where a program's task code is shared with oneTBB (fft), `OmpJoin::join` is
// its join. Tasks are tied (the default) and no task has an `if` or `final` clause: the
// Rust programs have no cut-off but the ones written in their code (cilksort's
// and strassen's sizes), which are the same here. Thread count:
// `omp_set_num_threads`; binding and wait policy are each runtime's default.

#include <omp.h>

#include <memory>

#include "kernels/alignment.hpp"
#include "kernels/cf17.hpp"
#include "kernels/dataflow.hpp"
#include "kernels/fft.hpp"
#include "kernels/fork_join.hpp"
#include "kernels/loops.hpp"
#include "kernels/search.hpp"
#include "peer.hpp"

using namespace kernels;
using peer::black_box;

namespace {

// ---- fork-join ----

uint64_t fib_omp(uint64_t n) {
    if (n < 2) return n;
    uint64_t a, b;
#pragma omp task shared(b) firstprivate(n)
    b = fib_omp(black_box(n - 2));
    a = fib_omp(black_box(n - 1));
#pragma omp taskwait
    return a + b;
}

struct FibOmp : Fib {
    using Fib::Fib;
    void par() { result = fib_omp(black_box(n)); }
};

// One join at every node, each side summing its child if it has one.
uint64_t sum_omp(const Node* node) {
    uint64_t left, right;
#pragma omp task shared(right) firstprivate(node)
    right = node->right ? sum_omp(black_box(node->right)) : 0;
    left = node->left ? sum_omp(black_box(node->left)) : 0;
#pragma omp taskwait
    return node->value + left + right;
}

struct TreeOmp : Tree {
    using Tree::Tree;
    void par() { result = sum_omp(root); }
};

// ---- dataflow: one parallel region per run, the tasks submitted by one thread ----

struct TwoWaveOmp : TwoWave {
    using TwoWave::TwoWave;
    void par() {
        std::vector<double> values(tasks, 0.0);
        double* v = values.data();
        size_t n = tasks, steps = size;
#pragma omp parallel
#pragma omp single
        {
            for (size_t i = 0; i < n; i++) {
#pragma omp task depend(out : v[i]) firstprivate(i)
                v[i] = chain(two_wave_seed(i), steps);
            }
            for (size_t i = 0; i < n; i++) {
#pragma omp task depend(inout : v[i]) firstprivate(i)
                v[i] = chain(v[i], steps);
            }
        }
        result = std::move(values);
    }
};

// The dataflow kernels copy their input inside the timed run, as the Rust
// runs do; `setup` frees the previous run's result before the clock, so the
// copy's allocation gets that memory back from malloc. (The Rust runs copy
// into the previous run's buffers with `clone_from` instead.)
struct CholeskyOmp : Cholesky {
    static constexpr bool kSetup = true;
    using Cholesky::Cholesky;
    void setup() { result = Tiled{}; }
    void par() {
        Tiled m = original;
        size_t nb = m.nb, bs = m.bs;
#pragma omp parallel
#pragma omp single
        for (size_t k = 0; k < nb; k++) {
            double* akk = m.tile(k, k);
#pragma omp task depend(inout : akk[0])
            potrf(akk, bs);
            for (size_t i = k + 1; i < nb; i++) {
                double* aik = m.tile(i, k);
#pragma omp task depend(in : akk[0]) depend(inout : aik[0])
                trsm(akk, aik, bs);
            }
            for (size_t i = k + 1; i < nb; i++) {
                double* aik = m.tile(i, k);
                for (size_t j = k + 1; j < i; j++) {
                    double* ajk = m.tile(j, k);
                    double* aij = m.tile(i, j);
#pragma omp task depend(in : aik[0], ajk[0]) depend(inout : aij[0])
                    gemm_nt(aik, ajk, aij, bs);
                }
                double* aii = m.tile(i, i);
#pragma omp task depend(in : aik[0]) depend(inout : aii[0])
                syrk(aik, aii, bs);
            }
        }
        result = std::move(m);
    }
};

struct MatmulOmp : Matmul {
    static constexpr bool kSetup = true;
    using Matmul::Matmul;
    void setup() { result = MatmulProblem{}; }
    void par() {
        MatmulProblem p = original;
        size_t nb = p.nb, bs = p.bs, tile = bs * bs;
        double *a = p.a.data(), *b = p.b.data(), *c = p.c.data();
#pragma omp parallel
#pragma omp single
        for (size_t i = 0; i < nb; i++)
            for (size_t j = 0; j < nb; j++)
                for (size_t k = 0; k < nb; k++) {
                    double* aik = a + (i * nb + k) * tile;
                    double* bkj = b + (k * nb + j) * tile;
                    double* cij = c + (i * nb + j) * tile;
#pragma omp task depend(in : aik[0], bkj[0]) depend(inout : cij[0])
                    gemm(aik, bkj, cij, bs);
                }
        result = std::move(p);
    }
};

struct SparseluDataflowOmp : SparseluDataflow {
    static constexpr bool kSetup = true;
    using SparseluDataflow::SparseluDataflow;
    void setup() { result = SparseMatrix{}; }
    void par() {
        SparseMatrix m = original;
        size_t nb = m.nb, bs = m.bs;
#pragma omp parallel
#pragma omp single
        for (size_t kk = 0; kk < nb; kk++) {
            float* diag = m.block(kk, kk);
#pragma omp task depend(inout : diag[0])
            lu0(diag, bs);
            for (size_t jj = kk + 1; jj < nb; jj++)
                if (m.present[kk * nb + jj]) {
                    float* col = m.block(kk, jj);
#pragma omp task depend(in : diag[0]) depend(inout : col[0])
                    fwd(diag, col, bs);
                }
            for (size_t ii = kk + 1; ii < nb; ii++)
                if (m.present[ii * nb + kk]) {
                    float* row = m.block(ii, kk);
#pragma omp task depend(in : diag[0]) depend(inout : row[0])
                    bdiv(diag, row, bs);
                }
            for (size_t ii = kk + 1; ii < nb; ii++) {
                if (!m.present[ii * nb + kk]) continue;
                for (size_t jj = kk + 1; jj < nb; jj++)
                    if (m.present[kk * nb + jj]) {
                        m.present[ii * nb + jj] = 1;  // allocate_clean_block
                        float* row = m.block(ii, kk);
                        float* col = m.block(kk, jj);
                        float* inner = m.block(ii, jj);
#pragma omp task depend(in : row[0], col[0]) depend(inout : inner[0])
                        bmod(row, col, inner, bs);
                    }
            }
        }
        result = std::move(m);
    }
};

// ---- par-loops: one parallel region (a `parallel for`) per run ----

struct SumOfSquaresOmp : SumOfSquares {
    using SumOfSquares::SumOfSquares;
    void par() {
        const double* d = data.data();
        size_t n = data.size();
        double s = 0.0;
#pragma omp parallel for reduction(+ : s)
        for (size_t i = 0; i < n; i++) s += d[i] * d[i];
        result = s;
    }
};

struct MandelbrotOmp : Mandelbrot {
    using Mandelbrot::Mandelbrot;
    void par() {
        size_t m = size;
        uint32_t* img = image.data();
#pragma omp parallel for schedule(dynamic, 1)
        for (size_t r = 0; r < m; r++) mandelbrot_row(m, r, img + r * m);
    }
};

struct StencilOmp : Stencil {
    using Stencil::Stencil;
    void par() {
        size_t s = size;
        const double* in = input.data();
        double* out = grid.data();
#pragma omp parallel for
        for (size_t r = 0; r < s; r++) stencil_row(in, s, r, out + r * s);
    }
};

// `prescient::par_sort`'s merge sort (runtime/src/sort.rs): halves sorted
// with a join down to leaves of max(4096, ceil(len / (4 threads))) elements
// sorted by the library sort, each pair of halves moved to scratch and merged
// back by a parallel merge (the longer run cut at its middle, the other at the
// matching point, the two pairs merged with a join) down to 4096 elements.
constexpr size_t kMinLeaf = 4096, kLeavesPerWorker = 4, kMergeLeaf = 4096;

void leaf_sort(uint64_t* v, size_t len, bool stable) {
    if (stable)
        std::stable_sort(v, v + len);
    else
        std::sort(v, v + len);
}

void merge_omp(const uint64_t* l, size_t nl, const uint64_t* r, size_t nr, uint64_t* dest) {
    if (nl + nr <= kMergeLeaf || nl == 0 || nr == 0) {
        // Stable: on equal elements the left run's go first.
        while (nl > 0 && nr > 0) {
            if (*r < *l) {
                *dest++ = *r++;
                nr--;
            } else {
                *dest++ = *l++;
                nl--;
            }
        }
        std::memcpy(dest, l, nl * sizeof *l);
        std::memcpy(dest + nl, r, nr * sizeof *r);
        return;
    }
    size_t lcut, rcut;
    if (nl >= nr) {
        lcut = nl / 2;
        rcut = size_t(std::lower_bound(r, r + nr, l[lcut]) - r);
    } else {
        rcut = nr / 2;
        lcut = size_t(std::upper_bound(l, l + nl, r[rcut]) - l);
    }
#pragma omp task
    merge_omp(l + lcut, nl - lcut, r + rcut, nr - rcut, dest + lcut + rcut);
    merge_omp(l, lcut, r, rcut, dest);
#pragma omp taskwait
}

void sort_into_place_omp(uint64_t* v, uint64_t* scratch, size_t len, size_t leaf, bool stable) {
    if (len <= leaf) return leaf_sort(v, len, stable);
    size_t mid = len / 2;
#pragma omp task
    sort_into_place_omp(v + mid, scratch + mid, len - mid, leaf, stable);
    sort_into_place_omp(v, scratch, mid, leaf, stable);
#pragma omp taskwait
    std::memcpy(scratch, v, len * sizeof *v);
    merge_omp(scratch, mid, scratch + mid, len - mid, v);
}

struct ParSortOmp : ParSort {
    using ParSort::ParSort;
    void par() {
        uint64_t* out = v.data();
        size_t len = v.size();
        bool stable_leaves = stable;
#pragma omp parallel
#pragma omp single
        {
            std::copy(input.begin(), input.end(), out);
            size_t workers = size_t(omp_get_num_threads());
            size_t leaf = workers <= 1 ? len : std::max(kMinLeaf, (len + kLeavesPerWorker * workers - 1) / (kLeavesPerWorker * workers));
            if (len <= kMinLeaf || len <= leaf) {
                leaf_sort(out, len, stable_leaves);
            } else {
                std::unique_ptr<uint64_t[]> scratch(new uint64_t[len]);
                sort_into_place_omp(out, scratch.get(), len, leaf, stable_leaves);
            }
        }
    }
};

// ---- cf17: every rep inside one parallel region, as the Rust child ----

uint64_t nqueens_omp(int n, int j, const uint8_t* a) {
    if (j == n) return 1;
    uint64_t counts[kMaxBoard] = {0};
    for (int i = 0; i < n; i++) {
#pragma omp task firstprivate(i) shared(counts)
        {
            uint8_t b[kMaxBoard];
            std::memcpy(b, a, size_t(j));
            b[j] = uint8_t(i);
            if (queens_ok(j + 1, b)) counts[i] = nqueens_omp(n, j + 1, b);
        }
    }
#pragma omp taskwait
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) sum += counts[i];
    return sum;
}

struct NQueensOmp : NQueens {
    using NQueens::NQueens;
    void par() {
        const uint8_t empty[1] = {0};
        result = nqueens_omp(black_box(n), 0, empty);
    }
};

void cilkmerge_omp(const Elm* a, size_t na, const Elm* b, size_t nb, Elm* dest) {
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
#pragma omp task
    cilkmerge_omp(a + split1 + 1, na - split1 - 1, b + split2, nb - split2, dest + split1 + split2 + 1);
    cilkmerge_omp(a, split1, b, split2, dest);
#pragma omp taskwait
}

void cilksort_omp(Elm* low, Elm* tmp, size_t size) {
    if (size < kQuickSize) {
        seqquick(low, size);
        return;
    }
    size_t quarter = size / 4;
    Elm *a = low, *b = a + quarter, *c = b + quarter, *d = c + quarter;
    Elm *ta = tmp, *tb = ta + quarter, *tc = tb + quarter, *td = tc + quarter;
#pragma omp task
    cilksort_omp(a, ta, quarter);
#pragma omp task
    cilksort_omp(b, tb, quarter);
#pragma omp task
    cilksort_omp(c, tc, quarter);
#pragma omp task
    cilksort_omp(d, td, size - 3 * quarter);
#pragma omp taskwait
#pragma omp task
    cilkmerge_omp(c, quarter, d, size - 3 * quarter, tc);
    cilkmerge_omp(a, quarter, b, quarter, ta);
#pragma omp taskwait
    cilkmerge_omp(ta, 2 * quarter, tc, size - 2 * quarter, a);
}

struct CilkSortOmp : CilkSort {
    using CilkSort::CilkSort;
    void par() {
        std::vector<Elm> tmp(a.size(), 0);
        cilksort_omp(a.data(), tmp.data(), a.size());
    }
};

void strassen_omp(size_t n, double* c, View a, View b, size_t cutoff) {
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
    double* out = products.data();
    for (int p = 0; p < 7; p++) {
        View l = left[p], r = right[p];
        double* product = out + p * q * q;
#pragma omp task firstprivate(l, r, product)
        strassen_omp(q, product, l, r, cutoff);
    }
#pragma omp taskwait
    strassen_combine(q, c, products.data());
}

struct StrassenOmp : Strassen {
    using Strassen::Strassen;
    void par() {
        c.assign(n * n, 0.0);
        strassen_omp(n, c.data(), View{a.data(), n}, View{b.data(), n}, cutoff);
    }
};

void sim_village_omp(Village& v, const Simulation& sim) {
    const Simulation* s = &sim;
    for (Village& child : v.children) {
        Village* c = &child;
#pragma omp task firstprivate(c, s)
        sim_village_omp(*c, *s);
    }
    village_before_children_join(v, sim);
#pragma omp taskwait
    village_after_children_join(v, sim);
}

struct HealthOmp : Health {
    using Health::Health;
    void par() {
        for (int32_t t = 0; t < sim.time; t++) sim_village_omp(top, sim);
    }
};

// BOTS' sparselu_par_call: per diagonal block, fwd and bdiv tasks, taskwait,
// bmod tasks, taskwait.
struct SparseluOmp : Sparselu {
    using Sparselu::Sparselu;
    void par() {
        size_t nb = m.nb, bs = m.bs;
        for (size_t kk = 0; kk < nb; kk++) {
            float* diag = m.block(kk, kk);
            lu0(diag, bs);
            for (size_t jj = kk + 1; jj < nb; jj++)
                if (m.present[kk * nb + jj]) {
                    float* col = m.block(kk, jj);
#pragma omp task firstprivate(col)
                    fwd(diag, col, bs);
                }
            for (size_t ii = kk + 1; ii < nb; ii++)
                if (m.present[ii * nb + kk]) {
                    float* row = m.block(ii, kk);
#pragma omp task firstprivate(row)
                    bdiv(diag, row, bs);
                }
#pragma omp taskwait
            for (size_t ii = kk + 1; ii < nb; ii++) {
                if (!m.present[ii * nb + kk]) continue;
                for (size_t jj = kk + 1; jj < nb; jj++)
                    if (m.present[kk * nb + jj]) {
                        m.present[ii * nb + jj] = 1;  // allocate_clean_block
                        float* row = m.block(ii, kk);
                        float* col = m.block(kk, jj);
                        float* inner = m.block(ii, jj);
#pragma omp task firstprivate(row, col, inner)
                        bmod(row, col, inner, bs);
                    }
            }
#pragma omp taskwait
        }
    }
};

// prescient::join as OpenMP tasks: b deferred, a inline, taskwait.
struct OmpJoin {
    template <class A, class B>
    static void join(A&& a, B&& b) {
        auto* deferred = &b;
#pragma omp task firstprivate(deferred)
        (*deferred)();
        a();
#pragma omp taskwait
    }
};

// ((D(m-1, n) | D(m, n-1)) | D(m-1, n-1)): the outer join's deferred side is
// a task; the inner join waits in a taskgroup, so only for its own task.
uint64_t delannoy_omp(uint64_t m, uint64_t n) {
    if (m == 0 || n == 0) return 1;
    uint64_t a, b, c;
#pragma omp task shared(c) firstprivate(m, n)
    c = delannoy_omp(m - 1, n - 1);
#pragma omp taskgroup
    {
#pragma omp task shared(b) firstprivate(m, n)
        b = delannoy_omp(m, n - 1);
        a = delannoy_omp(m - 1, n);
    }
#pragma omp taskwait
    return a + b + c;
}

struct DelannoyOmp : Delannoy {
    using Delannoy::Delannoy;
    void par() { result = delannoy_omp(black_box(m), black_box(n)); }
};

int64_t knapsack_omp(const Item* items, size_t n, int64_t c, int64_t v, std::atomic<int64_t>* best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    Item e = items[0];
    int64_t ub = v + c * e.value / e.weight;
    if (ub < best->load(std::memory_order_relaxed)) return INT64_MIN;
    int64_t without, with;
#pragma omp task shared(with) firstprivate(items, n, c, v, best, e)
    with = knapsack_omp(items + 1, n - 1, c - e.weight, v + e.value, best);
    without = knapsack_omp(items + 1, n - 1, c, v, best);
#pragma omp taskwait
    int64_t result = std::max(without, with);
    if (result > best->load(std::memory_order_relaxed)) fetch_max(*best, result);
    return result;
}

struct KnapsackOmp : Knapsack {
    using Knapsack::Knapsack;
    void par() {
        std::atomic<int64_t> best{INT64_MIN};
        result = knapsack_omp(items.data(), items.size(), capacity, 0, &best);
    }
};

// A task per child, each child's state computed by the spawning thread.
uint64_t uts_omp(const UtsTree* tree, const UtsNode& parent) {
    uint32_t n = parent.num_children;
    if (n == 0) return 1;
    std::vector<uint64_t> counts(n, 0);
    uint64_t* slots = counts.data();
    for (uint32_t i = 0; i < n; i++) {
        UtsNode child = uts_child(*tree, parent, i);
#pragma omp task firstprivate(child, i, tree, slots)
        slots[i] = uts_omp(tree, child);
    }
#pragma omp taskwait
    uint64_t size = 1;
    for (uint64_t c : counts) size += c;
    return size;
}

struct UtsOmp : Uts {
    using Uts::Uts;
    void par() { result = uts_omp(&tree, start); }
};

// A task per shape and start position, each on copies of the parent's
// extents and board.
uint64_t add_cell_omp(const Floorplan* fp, size_t id, std::array<int32_t, 2> footprint, const Board* board,
                      const Extents* cells, FpBest* best) {
    std::atomic<uint64_t> nnc{0};
    std::atomic<uint64_t>* counted = &nnc;
    uint64_t nnl = 0;
    int32_t nws[kMaxStarts][2];
    for (size_t shape = 0; shape < fp->cells[id].alt.size(); shape++) {
        int32_t rows = fp->cells[id].alt[shape][0], cols = fp->cells[id].alt[shape][1];
        size_t nn = fp_starts(*fp, id, shape, nws, *cells);
        nnl += nn;
        for (size_t k = 0; k < nn; k++) {
            int32_t top = nws[k][0], lhs = nws[k][1];
#pragma omp task firstprivate(fp, id, footprint, board, cells, best, rows, cols, top, lhs, counted)
            {
                Extents cl = *cells;
                cl[id] = Extent{top, top + rows - 1, lhs, lhs + cols - 1};
                Board b = *board;
                if (fp_lay_down(id, b, cl)) {
                    std::array<int32_t, 2> fpr = {std::max(footprint[0], cl[id].bot + 1),
                                                  std::max(footprint[1], cl[id].rhs + 1)};
                    int32_t area = fpr[0] * fpr[1];
                    size_t next = fp->cells[id].next;
                    if (next == 0) {
                        best->record(area, fpr, b);
                    } else if (area < best->bound.load(std::memory_order_relaxed)) {
                        uint64_t examined = add_cell_omp(fp, next, fpr, &b, &cl, best);
                        counted->fetch_add(examined, std::memory_order_relaxed);
                    }
                }
            }
        }
    }
#pragma omp taskwait
    return nnc.load() + nnl;
}

struct FloorplanOmp : FloorplanWork {
    using FloorplanWork::FloorplanWork;
    void par() {
        FpBest best;
        Extents cells = fp_initial_extents();
        Board board{};
        add_cell_omp(&fp, 1, {0, 0}, &board, &cells, &best);
        result = best.solution;
    }
};

struct FftOmp : Fft {
    using Fft::Fft;
    void par() { result = FftTasks<OmpJoin>::fft(points); }
};

// A task per pair, spawned by one thread in the loops (BOTS' form).
struct AlignmentOmp : Alignment {
    using Alignment::Alignment;
    void par() {
        size_t n = seqs.size();
        std::vector<int32_t> out(n * n, 0);
        int32_t* cells = out.data();
        const Sequence* s = seqs.data();
        const Scoring* sc = &scoring;
        for (size_t si = 0; si < n; si++)
            for (size_t sj = si + 1; sj < n; sj++) {
#pragma omp task firstprivate(si, sj, cells, s, sc, n)
                cells[si * n + sj] = pair_score(*sc, s[si], s[sj]);
            }
#pragma omp taskwait
        scores = std::move(out);
    }
};

// ---- the runtime's hooks ----

std::string version() {
#if defined(__clang__)
    return std::string("LLVM libomp, clang ") + __clang_version__ + ", _OPENMP " + std::to_string(_OPENMP);
#else
    return std::string("GNU libgomp, gcc ") + __VERSION__ + ", _OPENMP " + std::to_string(_OPENMP);
#endif
}

void set_threads(int threads) {
    omp_set_dynamic(0);
    omp_set_num_threads(threads);
}

void enclose(const std::function<void()>& body) {
#pragma omp parallel
#pragma omp single
    body();
}

void idle(peer::Context& cx, const peer::Runtime&) {
    peer::run_idle(cx, [] {
        uint64_t r = 0;
#pragma omp parallel
#pragma omp single
        r = fib_omp(15);
        return r;
    });
}

using peer::drive;
using peer::Entry;

const std::vector<peer::Program> kPrograms = {
    {"fib", "N", drive<FibOmp, Entry::Once>},
    {"tree", "NODES", drive<TreeOmp, Entry::Once>},
    {"two-wave", "TASKS SIZE", drive<TwoWaveOmp, Entry::PerRun>},
    {"cholesky", "NB BS", drive<CholeskyOmp, Entry::PerRun>},
    {"matmul", "NB BS", drive<MatmulOmp, Entry::PerRun>},
    {"sparselu-dataflow", "NB BS", drive<SparseluDataflowOmp, Entry::PerRun>},
    {"sum-of-squares", "N", drive<SumOfSquaresOmp, Entry::PerRun>},
    {"mandelbrot", "SIZE", drive<MandelbrotOmp, Entry::PerRun>},
    {"stencil", "SIZE", drive<StencilOmp, Entry::PerRun>},
    {"par-sort", "N random|nearly-sorted stable|unstable", drive<ParSortOmp, Entry::PerRun>},
    {"nqueens", "N", drive<NQueensOmp, Entry::Once>},
    {"sort", "N", drive<CilkSortOmp, Entry::Once>},
    {"strassen", "N CUTOFF", drive<StrassenOmp, Entry::Once>},
    {"health", "FILE [STEPS]", drive<HealthOmp, Entry::Once>},
    {"sparselu", "NB BS", drive<SparseluOmp, Entry::Once>},
    {"alignment", "FILE [COUNT]", drive<AlignmentOmp, Entry::Once>},
    {"delannoy", "M N", drive<DelannoyOmp, Entry::Once>},
    {"fft", "LOG2", drive<FftOmp, Entry::Once>},
    {"knapsack", "FILE", drive<KnapsackOmp, Entry::Once>},
    {"uts", "FILE ROOT_CHILDREN|all START|root", drive<UtsOmp, Entry::Once>},
    {"floorplan", "FILE [CELLS]", drive<FloorplanOmp, Entry::Once>},
    {"idle", "MS", idle},
};

}  // namespace

int main(int argc, char** argv) {
#if defined(__clang__)
    const char* name = "omp-llvm";
#else
    const char* name = "omp-gcc";
#endif
    peer::Runtime rt{name, version, set_threads, enclose};
    return peer::main(argc, argv, rt, kPrograms);
}
