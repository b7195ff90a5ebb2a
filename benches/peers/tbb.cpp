// The oneTBB peer (`prescient-peer-tbb`): every benchmark program of the
// fork-join, dataflow, par-loops and cf17 tables written with oneTBB, built by
// `benches/build.rs` against the distribution's libtbb. The inputs, sequential
// kernels and checks are the shared ones in kernels/, which mirror the Rust
// programs; this file holds only the parallel structure, which is the Rust
// version's in TBB's idiom:
//
// * a `join(a, b)` is `tbb::parallel_invoke(b, a)` (`tbb_join` below): oneTBB's
//   two-function parallel_invoke spawns its first function and runs its
//   second on the calling thread, and prescient::join runs a on the calling
//   thread and offers b — the order matters to knapsack's branch and bound,
//   whose search depends on which branch sets the bound first;
// * a `scope` with k spawns is a `tbb::task_group` with k `run`s and a `wait`
//   (nqueens, sort's quarters, strassen's products, health's villages,
//   sparselu's phases);
// * a dataflow program is a `tbb::flow::graph` of `continue_node`s, one per
//   task, with an edge from each task a task's accesses depend on (the last
//   writer of what it reads or writes, and the readers since of what it
//   writes): the dependences Prescient and OpenMP's `depend` find at run time,
//   found here as the graph is built (the build is timed with the run);
// * a parallel loop is `parallel_reduce` (the sum, grain 4096 as
//   `for_chunks_reduce`'s chunks), `parallel_for` over rows (grain one row) or
//   `tbb::parallel_sort` (unstable only: oneTBB has no stable parallel sort).
//
// Thread count: a `tbb::global_control` of max_allowed_parallelism for the
// process's life; binding is TBB's default.

#include <tbb/blocked_range.h>
#include <tbb/flow_graph.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <tbb/parallel_reduce.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_group.h>
#include <tbb/version.h>

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

// prescient::join(a, b) in oneTBB: a on the calling thread, b offered.
template <class A, class B>
void tbb_join(A&& a, B&& b) {
    tbb::parallel_invoke(b, a);
}

// ---- fork-join ----

uint64_t fib_tbb(uint64_t n) {
    if (n < 2) return n;
    uint64_t a, b;
    tbb_join([&] { a = fib_tbb(black_box(n - 1)); }, [&] { b = fib_tbb(black_box(n - 2)); });
    return a + b;
}

struct FibTbb : Fib {
    using Fib::Fib;
    void par() { result = fib_tbb(black_box(n)); }
};

uint64_t sum_tbb(const Node* node) {
    uint64_t left, right;
    tbb_join([&] { left = node->left ? sum_tbb(black_box(node->left)) : 0; },
                         [&] { right = node->right ? sum_tbb(black_box(node->right)) : 0; });
    return node->value + left + right;
}

struct TreeTbb : Tree {
    using Tree::Tree;
    void par() { result = sum_tbb(root); }
};

// ---- dataflow: a flow graph built from each task's accesses ----

// Builds a flow graph task by task from the tiles each task reads and writes
// (`inout` is both), then runs it: the graph's roots are started once every
// node and edge exists, and `wait_for_all` returns when every task ran.
class DependencyGraph {
  public:
    explicit DependencyGraph(size_t tiles) : last_writer_(tiles, -1), readers_(tiles) {}

    template <class F>
    void task(std::initializer_list<size_t> reads, std::initializer_list<size_t> writes, F body) {
        int self = int(nodes_.size());
        nodes_.push_back(std::make_unique<Node>(graph_, [body](const tbb::flow::continue_msg&) { body(); }));
        preds_.clear();
        for (size_t r : reads) {
            if (last_writer_[r] >= 0) preds_.push_back(last_writer_[r]);
            readers_[r].push_back(self);
        }
        for (size_t w : writes) {
            if (last_writer_[w] >= 0) preds_.push_back(last_writer_[w]);
            for (int reader : readers_[w])
                if (reader != self) preds_.push_back(reader);
            readers_[w].clear();
            last_writer_[w] = self;
        }
        std::sort(preds_.begin(), preds_.end());
        preds_.erase(std::unique(preds_.begin(), preds_.end()), preds_.end());
        for (int p : preds_) tbb::flow::make_edge(*nodes_[size_t(p)], *nodes_.back());
        if (preds_.empty()) roots_.push_back(self);
    }

    void run() {
        for (int r : roots_) nodes_[size_t(r)]->try_put(tbb::flow::continue_msg());
        graph_.wait_for_all();
    }

  private:
    using Node = tbb::flow::continue_node<tbb::flow::continue_msg>;
    tbb::flow::graph graph_;
    std::vector<std::unique_ptr<Node>> nodes_;
    std::vector<int> last_writer_;
    std::vector<std::vector<int>> readers_;
    std::vector<int> roots_, preds_;
};

struct TwoWaveTbb : TwoWave {
    using TwoWave::TwoWave;
    void par() {
        std::vector<double> values(tasks, 0.0);
        double* v = values.data();
        size_t steps = size;
        DependencyGraph g(tasks);
        for (size_t i = 0; i < tasks; i++) g.task({}, {i}, [v, i, steps] { v[i] = chain(two_wave_seed(i), steps); });
        for (size_t i = 0; i < tasks; i++) g.task({i}, {i}, [v, i, steps] { v[i] = chain(v[i], steps); });
        g.run();
        result = std::move(values);
    }
};

// As in omp.cpp: a run copies the input (the Rust runs clone it); `setup`
// frees the previous result before the clock.
struct CholeskyTbb : Cholesky {
    static constexpr bool kSetup = true;
    using Cholesky::Cholesky;
    void setup() { result = Tiled{}; }
    void par() {
        Tiled m = original;
        size_t nb = m.nb, bs = m.bs;
        auto at = [nb](size_t i, size_t j) { return i * nb + j; };
        DependencyGraph g(nb * nb);
        for (size_t k = 0; k < nb; k++) {
            double* akk = m.tile(k, k);
            g.task({at(k, k)}, {at(k, k)}, [=] { potrf(akk, bs); });
            for (size_t i = k + 1; i < nb; i++) {
                double* aik = m.tile(i, k);
                g.task({at(k, k), at(i, k)}, {at(i, k)}, [=] { trsm(akk, aik, bs); });
            }
            for (size_t i = k + 1; i < nb; i++) {
                double* aik = m.tile(i, k);
                for (size_t j = k + 1; j < i; j++) {
                    double *ajk = m.tile(j, k), *aij = m.tile(i, j);
                    g.task({at(i, k), at(j, k), at(i, j)}, {at(i, j)}, [=] { gemm_nt(aik, ajk, aij, bs); });
                }
                double* aii = m.tile(i, i);
                g.task({at(i, k), at(i, i)}, {at(i, i)}, [=] { syrk(aik, aii, bs); });
            }
        }
        g.run();
        result = std::move(m);
    }
};

struct MatmulTbb : Matmul {
    static constexpr bool kSetup = true;
    using Matmul::Matmul;
    void setup() { result = MatmulProblem{}; }
    void par() {
        MatmulProblem p = original;
        size_t nb = p.nb, bs = p.bs, tile = bs * bs, n2 = nb * nb;
        // Tiles 0..n2 are A's, n2..2 n2 B's, 2 n2..3 n2 C's.
        DependencyGraph g(3 * n2);
        for (size_t i = 0; i < nb; i++)
            for (size_t j = 0; j < nb; j++)
                for (size_t k = 0; k < nb; k++) {
                    double* aik = &p.a[(i * nb + k) * tile];
                    double* bkj = &p.b[(k * nb + j) * tile];
                    double* cij = &p.c[(i * nb + j) * tile];
                    size_t c_tile = 2 * n2 + i * nb + j;
                    g.task({i * nb + k, n2 + k * nb + j, c_tile}, {c_tile}, [=] { gemm(aik, bkj, cij, bs); });
                }
        g.run();
        result = std::move(p);
    }
};

struct SparseluDataflowTbb : SparseluDataflow {
    static constexpr bool kSetup = true;
    using SparseluDataflow::SparseluDataflow;
    void setup() { result = SparseMatrix{}; }
    void par() {
        SparseMatrix m = original;
        size_t nb = m.nb, bs = m.bs;
        auto at = [nb](size_t i, size_t j) { return i * nb + j; };
        DependencyGraph g(nb * nb);
        for (size_t kk = 0; kk < nb; kk++) {
            float* diag = m.block(kk, kk);
            g.task({at(kk, kk)}, {at(kk, kk)}, [=] { lu0(diag, bs); });
            for (size_t jj = kk + 1; jj < nb; jj++)
                if (m.present[at(kk, jj)]) {
                    float* col = m.block(kk, jj);
                    g.task({at(kk, kk), at(kk, jj)}, {at(kk, jj)}, [=] { fwd(diag, col, bs); });
                }
            for (size_t ii = kk + 1; ii < nb; ii++)
                if (m.present[at(ii, kk)]) {
                    float* row = m.block(ii, kk);
                    g.task({at(kk, kk), at(ii, kk)}, {at(ii, kk)}, [=] { bdiv(diag, row, bs); });
                }
            for (size_t ii = kk + 1; ii < nb; ii++) {
                if (!m.present[at(ii, kk)]) continue;
                for (size_t jj = kk + 1; jj < nb; jj++)
                    if (m.present[at(kk, jj)]) {
                        m.present[at(ii, jj)] = 1;  // allocate_clean_block
                        float *row = m.block(ii, kk), *col = m.block(kk, jj), *inner = m.block(ii, jj);
                        g.task({at(ii, kk), at(kk, jj), at(ii, jj)}, {at(ii, jj)}, [=] { bmod(row, col, inner, bs); });
                    }
            }
        }
        g.run();
        result = std::move(m);
    }
};

// ---- par-loops ----

struct SumOfSquaresTbb : SumOfSquares {
    using SumOfSquares::SumOfSquares;
    void par() {
        const double* d = data.data();
        result = tbb::parallel_reduce(
            tbb::blocked_range<size_t>(0, data.size(), kSumChunk), 0.0,
            [d](const tbb::blocked_range<size_t>& r, double acc) {
                double s = 0.0;
                for (size_t i = r.begin(); i != r.end(); i++) s += d[i] * d[i];
                return acc + s;
            },
            [](double a, double b) { return a + b; });
    }
};

struct MandelbrotTbb : Mandelbrot {
    using Mandelbrot::Mandelbrot;
    void par() {
        size_t m = size;
        uint32_t* img = image.data();
        tbb::parallel_for(tbb::blocked_range<size_t>(0, m, 1), [m, img](const tbb::blocked_range<size_t>& r) {
            for (size_t row = r.begin(); row != r.end(); row++) mandelbrot_row(m, row, img + row * m);
        });
    }
};

struct StencilTbb : Stencil {
    using Stencil::Stencil;
    void par() {
        size_t s = size;
        const double* in = input.data();
        double* out = grid.data();
        tbb::parallel_for(tbb::blocked_range<size_t>(0, s, 1), [s, in, out](const tbb::blocked_range<size_t>& r) {
            for (size_t row = r.begin(); row != r.end(); row++) stencil_row(in, s, row, out + row * s);
        });
    }
};

struct ParSortTbb : ParSort {
    explicit ParSortTbb(const peer::Context& cx) : ParSort(cx) {
        if (stable) throw peer::UsageError("par-sort: oneTBB has no stable parallel sort (KIND unstable only)");
    }
    void par() {
        std::copy(input.begin(), input.end(), v.begin());
        tbb::parallel_sort(v.begin(), v.end());
    }
};

// ---- cf17 ----

uint64_t nqueens_tbb(int n, int j, const uint8_t* a) {
    if (j == n) return 1;
    uint64_t counts[kMaxBoard] = {0};
    tbb::task_group g;
    for (int i = 0; i < n; i++) {
        g.run([&counts, n, j, a, i] {
            uint8_t b[kMaxBoard];
            std::memcpy(b, a, size_t(j));
            b[j] = uint8_t(i);
            if (queens_ok(j + 1, b)) counts[i] = nqueens_tbb(n, j + 1, b);
        });
    }
    g.wait();
    uint64_t sum = 0;
    for (int i = 0; i < n; i++) sum += counts[i];
    return sum;
}

struct NQueensTbb : NQueens {
    using NQueens::NQueens;
    void par() {
        const uint8_t empty[1] = {0};
        result = nqueens_tbb(black_box(n), 0, empty);
    }
};

void cilkmerge_tbb(const Elm* a, size_t na, const Elm* b, size_t nb, Elm* dest) {
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
    tbb_join([=] { cilkmerge_tbb(a, split1, b, split2, dest); },
                         [=] {
                             cilkmerge_tbb(a + split1 + 1, na - split1 - 1, b + split2, nb - split2,
                                           dest + split1 + split2 + 1);
                         });
}

void cilksort_tbb(Elm* low, Elm* tmp, size_t size) {
    if (size < kQuickSize) {
        seqquick(low, size);
        return;
    }
    size_t quarter = size / 4;
    Elm *a = low, *b = a + quarter, *c = b + quarter, *d = c + quarter;
    Elm *ta = tmp, *tb = ta + quarter, *tc = tb + quarter, *td = tc + quarter;
    tbb::task_group g;
    g.run([=] { cilksort_tbb(a, ta, quarter); });
    g.run([=] { cilksort_tbb(b, tb, quarter); });
    g.run([=] { cilksort_tbb(c, tc, quarter); });
    g.run([=] { cilksort_tbb(d, td, size - 3 * quarter); });
    g.wait();
    tbb_join([=] { cilkmerge_tbb(a, quarter, b, quarter, ta); },
                         [=] { cilkmerge_tbb(c, quarter, d, size - 3 * quarter, tc); });
    cilkmerge_tbb(ta, 2 * quarter, tc, size - 2 * quarter, a);
}

struct CilkSortTbb : CilkSort {
    using CilkSort::CilkSort;
    void par() {
        std::vector<Elm> tmp(a.size(), 0);
        cilksort_tbb(a.data(), tmp.data(), a.size());
    }
};

void strassen_tbb(size_t n, double* c, View a, View b, size_t cutoff) {
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
    tbb::task_group g;
    for (int p = 0; p < 7; p++) {
        View l = left[p], r = right[p];
        double* product = out + p * q * q;
        g.run([=] { strassen_tbb(q, product, l, r, cutoff); });
    }
    g.wait();
    strassen_combine(q, c, products.data());
}

struct StrassenTbb : Strassen {
    using Strassen::Strassen;
    void par() {
        c.assign(n * n, 0.0);
        strassen_tbb(n, c.data(), View{a.data(), n}, View{b.data(), n}, cutoff);
    }
};

void sim_village_tbb(Village& v, const Simulation& sim) {
    tbb::task_group g;
    for (Village& child : v.children) {
        Village* c = &child;
        g.run([c, &sim] { sim_village_tbb(*c, sim); });
    }
    village_before_children_join(v, sim);
    g.wait();
    village_after_children_join(v, sim);
}

struct HealthTbb : Health {
    using Health::Health;
    void par() {
        for (int32_t t = 0; t < sim.time; t++) sim_village_tbb(top, sim);
    }
};

struct SparseluTbb : Sparselu {
    using Sparselu::Sparselu;
    void par() {
        size_t nb = m.nb, bs = m.bs;
        for (size_t kk = 0; kk < nb; kk++) {
            float* diag = m.block(kk, kk);
            lu0(diag, bs);
            {
                tbb::task_group g;
                for (size_t jj = kk + 1; jj < nb; jj++)
                    if (m.present[kk * nb + jj]) {
                        float* col = m.block(kk, jj);
                        g.run([=] { fwd(diag, col, bs); });
                    }
                for (size_t ii = kk + 1; ii < nb; ii++)
                    if (m.present[ii * nb + kk]) {
                        float* row = m.block(ii, kk);
                        g.run([=] { bdiv(diag, row, bs); });
                    }
                g.wait();
            }
            tbb::task_group g;
            for (size_t ii = kk + 1; ii < nb; ii++) {
                if (!m.present[ii * nb + kk]) continue;
                for (size_t jj = kk + 1; jj < nb; jj++)
                    if (m.present[kk * nb + jj]) {
                        m.present[ii * nb + jj] = 1;  // allocate_clean_block
                        float *row = m.block(ii, kk), *col = m.block(kk, jj), *inner = m.block(ii, jj);
                        g.run([=] { bmod(row, col, inner, bs); });
                    }
            }
            g.wait();
        }
    }
};

struct TbbJoin {
    template <class A, class B>
    static void join(A&& a, B&& b) {
        tbb_join(a, b);
    }
};

uint64_t delannoy_tbb(uint64_t m, uint64_t n) {
    if (m == 0 || n == 0) return 1;
    uint64_t a, b, c;
    tbb_join(
        [&] { tbb_join([&] { a = delannoy_tbb(m - 1, n); }, [&] { b = delannoy_tbb(m, n - 1); }); },
        [&] { c = delannoy_tbb(m - 1, n - 1); });
    return a + b + c;
}

struct DelannoyTbb : Delannoy {
    using Delannoy::Delannoy;
    void par() { result = delannoy_tbb(black_box(m), black_box(n)); }
};

int64_t knapsack_tbb(const Item* items, size_t n, int64_t c, int64_t v, std::atomic<int64_t>* best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    Item e = items[0];
    int64_t ub = v + c * e.value / e.weight;
    if (ub < best->load(std::memory_order_relaxed)) return INT64_MIN;
    int64_t without, with;
    tbb_join([&] { without = knapsack_tbb(items + 1, n - 1, c, v, best); },
                         [&] { with = knapsack_tbb(items + 1, n - 1, c - e.weight, v + e.value, best); });
    int64_t result = std::max(without, with);
    if (result > best->load(std::memory_order_relaxed)) fetch_max(*best, result);
    return result;
}

struct KnapsackTbb : Knapsack {
    using Knapsack::Knapsack;
    void par() {
        std::atomic<int64_t> best{INT64_MIN};
        result = knapsack_tbb(items.data(), items.size(), capacity, 0, &best);
    }
};

uint64_t uts_tbb(const UtsTree* tree, const UtsNode& parent) {
    uint32_t n = parent.num_children;
    if (n == 0) return 1;
    std::vector<uint64_t> counts(n, 0);
    uint64_t* slots = counts.data();
    tbb::task_group g;
    for (uint32_t i = 0; i < n; i++) {
        UtsNode child = uts_child(*tree, parent, i);
        g.run([=] { slots[i] = uts_tbb(tree, child); });
    }
    g.wait();
    uint64_t size = 1;
    for (uint64_t c : counts) size += c;
    return size;
}

struct UtsTbb : Uts {
    using Uts::Uts;
    void par() { result = uts_tbb(&tree, start); }
};

uint64_t add_cell_tbb(const Floorplan* fp, size_t id, std::array<int32_t, 2> footprint, const Board* board,
                      const Extents* cells, FpBest* best) {
    std::atomic<uint64_t> nnc{0};
    std::atomic<uint64_t>* counted = &nnc;
    uint64_t nnl = 0;
    int32_t nws[kMaxStarts][2];
    tbb::task_group g;
    for (size_t shape = 0; shape < fp->cells[id].alt.size(); shape++) {
        int32_t rows = fp->cells[id].alt[shape][0], cols = fp->cells[id].alt[shape][1];
        size_t nn = fp_starts(*fp, id, shape, nws, *cells);
        nnl += nn;
        for (size_t k = 0; k < nn; k++) {
            int32_t top = nws[k][0], lhs = nws[k][1];
            g.run([=] {
                Extents cl = *cells;
                cl[id] = Extent{top, top + rows - 1, lhs, lhs + cols - 1};
                Board b = *board;
                if (!fp_lay_down(id, b, cl)) return;
                std::array<int32_t, 2> fpr = {std::max(footprint[0], cl[id].bot + 1),
                                              std::max(footprint[1], cl[id].rhs + 1)};
                int32_t area = fpr[0] * fpr[1];
                size_t next = fp->cells[id].next;
                if (next == 0) {
                    best->record(area, fpr, b);
                } else if (area < best->bound.load(std::memory_order_relaxed)) {
                    uint64_t examined = add_cell_tbb(fp, next, fpr, &b, &cl, best);
                    counted->fetch_add(examined, std::memory_order_relaxed);
                }
            });
        }
    }
    g.wait();
    return nnc.load() + nnl;
}

struct FloorplanTbb : FloorplanWork {
    using FloorplanWork::FloorplanWork;
    void par() {
        FpBest best;
        Extents cells = fp_initial_extents();
        Board board{};
        add_cell_tbb(&fp, 1, {0, 0}, &board, &cells, &best);
        result = best.solution;
    }
};

struct FftTbb : Fft {
    using Fft::Fft;
    void par() { result = FftTasks<TbbJoin>::fft(points); }
};

struct AlignmentTbb : Alignment {
    using Alignment::Alignment;
    void par() {
        size_t n = seqs.size();
        std::vector<int32_t> out(n * n, 0);
        int32_t* cells = out.data();
        const Sequence* s = seqs.data();
        const Scoring* sc = &scoring;
        tbb::task_group g;
        for (size_t si = 0; si < n; si++)
            for (size_t sj = si + 1; sj < n; sj++) g.run([=] { cells[si * n + sj] = pair_score(*sc, s[si], s[sj]); });
        g.wait();
        scores = std::move(out);
    }
};

// ---- the runtime's hooks ----

std::unique_ptr<tbb::global_control> parallelism;

std::string version() {
    return std::string("oneTBB ") + TBB_runtime_version() + " (interface " + std::to_string(TBB_runtime_interface_version()) +
           "), g++ " + __VERSION__;
}

void set_threads(int threads) {
    parallelism = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, size_t(threads));
}

void enclose(const std::function<void()>& body) { body(); }

void idle(peer::Context& cx, const peer::Runtime&) {
    peer::run_idle(cx, [] { return fib_tbb(15); });
}

using peer::drive;
using peer::Entry;

const std::vector<peer::Program> kPrograms = {
    {"fib", "N", drive<FibTbb, Entry::Once>},
    {"tree", "NODES", drive<TreeTbb, Entry::Once>},
    {"two-wave", "TASKS SIZE", drive<TwoWaveTbb, Entry::PerRun>},
    {"cholesky", "NB BS", drive<CholeskyTbb, Entry::PerRun>},
    {"matmul", "NB BS", drive<MatmulTbb, Entry::PerRun>},
    {"sparselu-dataflow", "NB BS", drive<SparseluDataflowTbb, Entry::PerRun>},
    {"sum-of-squares", "N", drive<SumOfSquaresTbb, Entry::PerRun>},
    {"mandelbrot", "SIZE", drive<MandelbrotTbb, Entry::PerRun>},
    {"stencil", "SIZE", drive<StencilTbb, Entry::PerRun>},
    {"par-sort", "N random|nearly-sorted unstable", drive<ParSortTbb, Entry::PerRun>},
    {"nqueens", "N", drive<NQueensTbb, Entry::Once>},
    {"sort", "N", drive<CilkSortTbb, Entry::Once>},
    {"strassen", "N CUTOFF", drive<StrassenTbb, Entry::Once>},
    {"health", "FILE [STEPS]", drive<HealthTbb, Entry::Once>},
    {"sparselu", "NB BS", drive<SparseluTbb, Entry::Once>},
    {"alignment", "FILE [COUNT]", drive<AlignmentTbb, Entry::Once>},
    {"delannoy", "M N", drive<DelannoyTbb, Entry::Once>},
    {"fft", "LOG2", drive<FftTbb, Entry::Once>},
    {"knapsack", "FILE", drive<KnapsackTbb, Entry::Once>},
    {"uts", "FILE ROOT_CHILDREN|all START|root", drive<UtsTbb, Entry::Once>},
    {"floorplan", "FILE [CELLS]", drive<FloorplanTbb, Entry::Once>},
    {"idle", "MS", idle},
};

}  // namespace

int main(int argc, char** argv) {
    peer::Runtime rt{"tbb", version, set_threads, enclose};
    return peer::main(argc, argv, rt, kPrograms);
}
