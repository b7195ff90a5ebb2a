// The CF'17 table's search programs for the C/C++ peers — delannoy, knapsack
// (branch and bound), UTS (an unbalanced tree of SHA-1 states) and floorplan
// (branch and bound over cell placements) — function for function
// `benches/src/annotated/{delannoy,knapsack,uts,floorplan}.rs`: inputs,
// sequential references, the shared helpers of the task code, and the checks.
// Each runtime adds the task code in omp.cpp / tbb.cpp.

#pragma once

#include <array>
#include <atomic>
#include <cmath>
#include <fstream>
#include <mutex>

#include "../peer.hpp"

namespace kernels {

// ---- delannoy (annotated/delannoy.rs) ----

// noinline and black_box on the sum, as fib_seq: one call per step, as the
// Rust reference makes.
__attribute__((noinline)) inline uint64_t delannoy_seq(uint64_t m, uint64_t n) {
    if (m == 0 || n == 0) return 1;
    return peer::black_box(delannoy_seq(peer::black_box(m - 1), n) + delannoy_seq(m, peer::black_box(n - 1)) +
                           delannoy_seq(peer::black_box(m - 1), peer::black_box(n - 1)));
}

// `delannoy_dp`: D(m, n) by the row recurrence, or 0 if it overflows 64 bits.
inline uint64_t delannoy_dp(uint64_t m, uint64_t n) {
    std::vector<uint64_t> row(n + 1, 1);
    for (uint64_t i = 0; i < m; i++) {
        uint64_t diagonal = row[0];
        for (uint64_t j = 1; j <= n; j++) {
            uint64_t up = row[j], s;
            if (__builtin_add_overflow(up, row[j - 1], &s) || __builtin_add_overflow(s, diagonal, &s)) return 0;
            row[j] = s;
            diagonal = up;
        }
    }
    return row[n];
}

// `delannoy M N`: D(M, N) by the three-way recursion, checked against the
// dynamic program.
struct Delannoy : peer::Workload {
    uint64_t m, n, expected, result = 0;
    explicit Delannoy(const peer::Context& cx) {
        cx.expect_args(2);
        m = cx.u64(0, "M");
        n = cx.u64(1, "N");
        if (m > 20 || n > 20) throw peer::UsageError("delannoy: M and N at most 20");
        expected = delannoy_dp(m, n);
    }
    void seq() { result = delannoy_seq(peer::black_box(m), peer::black_box(n)); }
    std::string check() const { return peer::expect_eq("delannoy", result, expected); }
    std::string checksum() const { return peer::checksum_of_u64(result); }
};

// ---- knapsack (annotated/knapsack.rs) ----

struct Item {
    int64_t value, weight;
};

// `read_instance`: the count, the capacity, then value and weight per item;
// sorted by density, densest first (stable, as `slice::sort_by`).
inline std::vector<Item> read_knapsack(const std::string& path, int64_t* capacity) {
    std::ifstream in(path);
    if (!in) throw peer::UsageError("knapsack: cannot read " + path);
    int64_t n = 0;
    if (!(in >> n >> *capacity) || n < 0 || n > 100000) throw peer::UsageError("knapsack: bad header in " + path);
    std::vector<Item> items(static_cast<size_t>(n));
    for (Item& it : items)
        if (!(in >> it.value >> it.weight) || it.weight <= 0 || it.value < 0)
            throw peer::UsageError("knapsack: bad item in " + path);
    std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
        return __int128(a.value) * b.weight > __int128(b.value) * a.weight;
    });
    return items;
}

inline int64_t knapsack_search_seq(const Item* items, size_t n, int64_t c, int64_t v, int64_t* best) {
    if (c < 0) return INT64_MIN;
    if (n == 0 || c == 0) return v;
    const Item& e = items[0];
    int64_t ub = v + c * e.value / e.weight;
    if (ub < *best) return INT64_MIN;
    int64_t without = knapsack_search_seq(items + 1, n - 1, c, v, best);
    int64_t with = knapsack_search_seq(items + 1, n - 1, c - e.weight, v + e.value, best);
    int64_t result = std::max(without, with);
    *best = std::max(*best, result);
    return result;
}

inline int64_t knapsack_dp(const std::vector<Item>& items, int64_t capacity) {
    if (capacity < 0) return 0;
    std::vector<int64_t> best(size_t(capacity) + 1, 0);
    for (const Item& it : items) {
        int64_t w = it.weight;
        for (int64_t c = capacity; c >= w; c--) best[size_t(c)] = std::max(best[size_t(c)], best[size_t(c - w)] + it.value);
    }
    return best[size_t(capacity)];
}

// `knapsack FILE`: BOTS' branch and bound over the instance, checked against
// the dynamic program.
struct Knapsack : peer::Workload {
    std::vector<Item> items;
    int64_t capacity = 0, expected, result = 0;
    explicit Knapsack(const peer::Context& cx) {
        cx.expect_args(1);
        items = read_knapsack(cx.text(0, "FILE"), &capacity);
        if (capacity > (int64_t(1) << 26)) throw peer::UsageError("knapsack: capacity above 2^26");
        expected = knapsack_dp(items, capacity);
    }
    void seq() {
        int64_t best = INT64_MIN;
        result = knapsack_search_seq(items.data(), items.size(), capacity, 0, &best);
    }
    std::string check() const { return peer::expect_eq("knapsack", result, expected); }
    std::string checksum() const { return peer::checksum_of_u64(uint64_t(result)); }
};

// The task version's shared bound: a relaxed load, and a relaxed fetch-max
// where the result beats it (`AtomicI64::fetch_max`).
inline void fetch_max(std::atomic<int64_t>& best, int64_t v) {
    int64_t cur = best.load(std::memory_order_relaxed);
    while (v > cur && !best.compare_exchange_weak(cur, v, std::memory_order_relaxed)) {
    }
}

// ---- uts (annotated/uts.rs) ----

typedef std::array<uint8_t, 20> UtsState;

inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// GCC's -O3 vectorisation of this function (its message schedule and byte
// loads) made uts' SHA-1 2.5 times slower than without it, and than Clang's
// or LLVM's code for the same loops (docs/measurements.md, "The C/C++
// peers"): GCC compiles it unvectorised, so that the GCC-built peers run the
// kernel as fast as the others.
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((optimize("no-tree-vectorize")))
#endif
inline void sha1_compress(uint32_t h[5], const uint8_t* block) {
    uint32_t w[80];
    for (int t = 0; t < 16; t++)
        w[t] = uint32_t(block[4 * t]) << 24 | uint32_t(block[4 * t + 1]) << 16 | uint32_t(block[4 * t + 2]) << 8 |
               uint32_t(block[4 * t + 3]);
    for (int t = 16; t < 80; t++) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    for (int t = 0; t < 80; t++) {
        uint32_t f, k;
        if (t < 20)
            f = (b & c) | (~b & d), k = 0x5a827999;
        else if (t < 40)
            f = b ^ c ^ d, k = 0x6ed9eba1;
        else if (t < 60)
            f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
        else
            f = b ^ c ^ d, k = 0xca62c1d6;
        uint32_t temp = rotl(a, 5) + f + e + k + w[t];
        e = d;
        d = c;
        c = rotl(b, 30);
        b = a;
        a = temp;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

// `sha1`: the digest of a message (at most 64 bytes here).
inline UtsState sha1(const uint8_t* message, size_t len) {
    uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    size_t full = len / 64 * 64;
    for (size_t off = 0; off < full; off += 64) sha1_compress(h, message + off);
    uint8_t last[128] = {0};
    size_t tail = len - full;
    std::memcpy(last, message + full, tail);
    last[tail] = 0x80;
    size_t blocks = tail < 56 ? 1 : 2;
    uint64_t bits = uint64_t(len) * 8;
    for (int i = 0; i < 8; i++) last[blocks * 64 - 1 - i] = uint8_t(bits >> (8 * i));
    for (size_t b = 0; b < blocks; b++) sha1_compress(h, last + 64 * b);
    UtsState digest;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 4; j++) digest[size_t(4 * i + j)] = uint8_t(h[i] >> (24 - 8 * j));
    return digest;
}

inline UtsState rng_init(int32_t seed) {
    uint8_t message[20] = {0};
    for (int j = 0; j < 4; j++) message[16 + j] = uint8_t(uint32_t(seed) >> (24 - 8 * j));
    return sha1(message, 20);
}

inline UtsState rng_spawn(const UtsState& parent, uint32_t spawn_number) {
    uint8_t message[24];
    std::memcpy(message, parent.data(), 20);
    for (int j = 0; j < 4; j++) message[20 + j] = uint8_t(spawn_number >> (24 - 8 * j));
    return sha1(message, 24);
}

inline uint32_t rng_rand(const UtsState& s) {
    return (uint32_t(s[16]) << 24 | uint32_t(s[17]) << 16 | uint32_t(s[18]) << 8 | uint32_t(s[19])) & 0x7fffffff;
}

struct UtsTree {
    double root_branching, non_leaf_prob;
    uint32_t non_leaf_children;
    int32_t root_seed;
    uint32_t compute_granularity;
    uint64_t expected_size;
};

struct UtsNode {
    uint32_t height, num_children;
    UtsState state;
};

constexpr uint32_t kMaxNumChildren = 100;

inline uint32_t uts_num_children(const UtsTree& t, uint32_t height, const UtsState& state) {
    if (height == 0) return uint32_t(std::max(std::floor(t.root_branching), 0.0));
    uint32_t n = double(rng_rand(state)) / 2147483648.0 < t.non_leaf_prob ? t.non_leaf_children : 0;
    return std::min(n, kMaxNumChildren);
}

inline UtsNode uts_root(const UtsTree& t) {
    UtsState s = rng_init(t.root_seed);
    return UtsNode{0, uts_num_children(t, 0, s), s};
}

// `child`: the i-th child's state, computed `compute_granularity` times.
inline UtsNode uts_child(const UtsTree& t, const UtsNode& parent, uint32_t i) {
    UtsState s = rng_spawn(parent.state, i);
    for (uint32_t g = 1; g < t.compute_granularity; g++) s = rng_spawn(*peer::black_box(&parent.state), i);
    uint32_t height = parent.height + 1;
    return UtsNode{height, uts_num_children(t, height, s), s};
}

inline uint64_t uts_search_seq(const UtsTree& t, const UtsNode& node) {
    uint64_t size = 1;
    for (uint32_t i = 0; i < node.num_children; i++) size += uts_search_seq(t, uts_child(t, node, i));
    return size;
}

// `read_tree`: b_0, the non-leaf probability and branching, the root seed,
// the granularity, then the expected size (depth and leaves not used here).
inline UtsTree read_uts(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw peer::UsageError("uts: cannot read " + path);
    UtsTree t{};
    int64_t granularity = 0;
    int64_t children = 0;
    if (!(in >> t.root_branching >> t.non_leaf_prob >> children >> t.root_seed >> granularity >> t.expected_size) ||
        children < 0 || children > INT32_MAX)
        throw peer::UsageError("uts: bad tree parameters in " + path);
    t.non_leaf_children = uint32_t(children);
    t.compute_granularity = uint32_t(std::min<int64_t>(std::max<int64_t>(granularity, 1), UINT32_MAX));
    return t;
}

// `uts FILE ROOT_CHILDREN START`: the size of the tree of FILE, its root's
// branching set to ROOT_CHILDREN (`all`: the file's), searched from START
// (`root`, or the subtree of that root child). The whole tree is checked
// against the file's size, a cut against the sequential search.
struct Uts : peer::Workload {
    UtsTree tree;
    UtsNode start;
    uint64_t expected, result = 0;
    explicit Uts(const peer::Context& cx) {
        cx.expect_args(3);
        tree = read_uts(cx.text(0, "FILE"));
        bool whole = cx.text(1, "ROOT_CHILDREN") == "all";
        if (!whole) tree.root_branching = double(cx.u64(1, "ROOT_CHILDREN"));
        start = uts_root(tree);
        if (cx.text(2, "START") != "root") {
            uint64_t i = cx.u64(2, "START");
            if (i >= start.num_children) throw peer::UsageError("uts: START is not a root child");
            start = uts_child(tree, start, uint32_t(i));
            whole = false;
        }
        expected = whole ? tree.expected_size : uts_search_seq(tree, start);
    }
    void seq() { result = uts_search_seq(tree, start); }
    std::string check() const { return peer::expect_eq("uts", result, expected); }
    std::string checksum() const { return peer::checksum_of_u64(result); }
};

// ---- floorplan (annotated/floorplan.rs) ----

constexpr int kRows = 64, kCols = 64, kMaxCells = 32, kMaxStarts = kRows + 1;

typedef std::array<std::array<uint8_t, kCols>, kRows> Board;

struct Extent {
    int32_t top, bot, lhs, rhs;
};

typedef std::array<Extent, kMaxCells + 1> Extents;

struct FpCell {
    std::vector<std::array<int32_t, 2>> alt;
    int left = -1, above = -1;  // -1: none
    size_t next = 0;
};

struct Floorplan {
    std::vector<FpCell> cells;  // cells[0] is the origin
    bool has_solution = false;
    int32_t solution = 0;
};

struct FpSolution {
    int32_t area = kRows * kCols;
    std::array<int32_t, 2> footprint = {0, 0};
    Board board{};
};

// `parse_floorplan`.
inline Floorplan read_floorplan(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw peer::UsageError("floorplan: cannot read " + path);
    auto next = [&]() {
        long v;
        if (!(in >> v)) throw peer::UsageError("floorplan: " + path + " ends early or holds a non-integer");
        return v;
    };
    Floorplan fp;
    long n = next();
    if (n < 1 || n > kMaxCells) throw peer::UsageError("floorplan: 1 to 32 cells expected");
    fp.cells.resize(1);
    for (long i = 1; i <= n; i++) {
        FpCell c;
        long shapes = next();
        if (shapes < 0 || shapes > 1000) throw peer::UsageError("floorplan: bad shape count");
        for (long s = 0; s < shapes; s++) {
            long rows = next(), cols = next();
            if (rows < 1 || cols < 1) throw peer::UsageError("floorplan: empty shape");
            c.alt.push_back({int32_t(rows), int32_t(cols)});
        }
        long left = next(), above = next(), following = next();
        if (left >= i || above >= i) throw peer::UsageError("floorplan: a cell names a later one");
        if (following < 0 || following > n) throw peer::UsageError("floorplan: bad next cell");
        c.left = left < 0 ? -1 : int(left);
        c.above = above < 0 ? -1 : int(above);
        c.next = size_t(following);
        fp.cells.push_back(std::move(c));
    }
    long solution;
    if (in >> solution) {
        fp.has_solution = true;
        fp.solution = int32_t(solution);
    }
    return fp;
}

inline Extents fp_initial_extents() {
    Extents cells{};
    cells[0] = Extent{0, 0, -1, -1};
    return cells;
}

// `starts`: the top-left corners where shape `shape` of cell `id` may go.
inline size_t fp_starts(const Floorplan& fp, size_t id, size_t shape, int32_t nws[kMaxStarts][2], const Extents& cells) {
    int32_t rows = fp.cells[id].alt[shape][0], cols = fp.cells[id].alt[shape][1];
    int left = fp.cells[id].left, above = fp.cells[id].above;
    if (left >= 0 && above >= 0) {
        Extent l = cells[size_t(left)], a = cells[size_t(above)];
        int32_t top = a.bot + 1, lhs = l.rhs + 1, bot = top + rows, rhs = lhs + cols;
        if (top <= l.bot && bot >= l.top && lhs <= a.rhs && rhs >= a.lhs) {
            nws[0][0] = top;
            nws[0][1] = lhs;
            return 1;
        }
        return 0;
    }
    if (left >= 0) {
        Extent l = cells[size_t(left)];
        int32_t top = std::max(l.top - rows + 1, 0), bot = std::min(l.bot, int32_t(kRows));
        size_t n = bot - top + 1 > 0 ? std::min(size_t(bot - top + 1), size_t(kMaxStarts)) : 0;
        for (size_t k = 0; k < n; k++) nws[k][0] = top + int32_t(k), nws[k][1] = l.rhs + 1;
        return n;
    }
    if (above >= 0) {
        Extent a = cells[size_t(above)];
        int32_t lhs = std::max(a.lhs - cols + 1, 0), rhs = std::min(a.rhs, int32_t(kCols));
        size_t n = rhs - lhs + 1 > 0 ? std::min(size_t(rhs - lhs + 1), size_t(kMaxStarts)) : 0;
        for (size_t k = 0; k < n; k++) nws[k][0] = a.bot + 1, nws[k][1] = lhs + int32_t(k);
        return n;
    }
    return 0;
}

// `lay_down`: marks cell id's squares, false if one is taken or off the board.
inline bool fp_lay_down(size_t id, Board& board, const Extents& cells) {
    Extent e = cells[id];
    if (e.top < 0 || e.lhs < 0 || e.bot >= kRows || e.rhs >= kCols) return false;
    for (int32_t r = e.top; r <= e.bot; r++)
        for (int32_t c = e.lhs; c <= e.rhs; c++) {
            uint8_t& square = board[size_t(r)][size_t(c)];
            if (square != 0) return false;
            square = uint8_t(id);
        }
    return true;
}

inline void fp_add_cell_seq(const Floorplan& fp, size_t id, std::array<int32_t, 2> footprint, const Board& board,
                            Extents& cells, FpSolution& best) {
    int32_t nws[kMaxStarts][2];
    for (size_t shape = 0; shape < fp.cells[id].alt.size(); shape++) {
        int32_t rows = fp.cells[id].alt[shape][0], cols = fp.cells[id].alt[shape][1];
        size_t nn = fp_starts(fp, id, shape, nws, cells);
        for (size_t k = 0; k < nn; k++) {
            int32_t top = nws[k][0], lhs = nws[k][1];
            cells[id] = Extent{top, top + rows - 1, lhs, lhs + cols - 1};
            Board b = board;
            if (!fp_lay_down(id, b, cells)) continue;
            std::array<int32_t, 2> fpr = {std::max(footprint[0], cells[id].bot + 1),
                                          std::max(footprint[1], cells[id].rhs + 1)};
            int32_t area = fpr[0] * fpr[1];
            size_t next = fp.cells[id].next;
            if (next == 0) {
                if (area < best.area) best = FpSolution{area, fpr, b};
            } else if (area < best.area) {
                fp_add_cell_seq(fp, next, fpr, b, cells, best);
            }
        }
    }
}

// `Solution::is_placement_of`: the board places every cell in one of its
// shapes, inside the footprint.
inline bool fp_is_placement(const FpSolution& s, const Floorplan& fp) {
    int32_t rows = s.footprint[0], cols = s.footprint[1];
    if (rows * cols != s.area) return false;
    for (size_t id = 1; id < fp.cells.size(); id++) {
        int32_t top = INT32_MAX, bot = -1, lhs = INT32_MAX, rhs = -1, count = 0;
        for (int32_t i = 0; i < kRows; i++)
            for (int32_t j = 0; j < kCols; j++)
                if (s.board[size_t(i)][size_t(j)] == id) {
                    if (i >= rows || j >= cols) return false;
                    top = std::min(top, i), bot = std::max(bot, i);
                    lhs = std::min(lhs, j), rhs = std::max(rhs, j);
                    count++;
                }
        int32_t h = bot - top + 1, w = rhs - lhs + 1;
        bool shape = false;
        for (const auto& a : fp.cells[id].alt) shape |= a[0] == h && a[1] == w;
        if (count == 0 || h * w != count || !shape) return false;
    }
    return true;
}

// The task version's best solution: a bound read without the lock, the
// solution under it (`floorplan::Best`, `record`).
struct FpBest {
    std::atomic<int32_t> bound{kRows * kCols};
    std::mutex lock;
    FpSolution solution;
    void record(int32_t area, std::array<int32_t, 2> footprint, const Board& board) {
        if (area < bound.load(std::memory_order_relaxed)) {
            std::lock_guard<std::mutex> guard(lock);
            if (area < solution.area) {
                solution.area = area;
                solution.footprint = footprint;
                solution.board = board;
                bound.store(area, std::memory_order_relaxed);
            }
        }
    }
};

// `floorplan FILE [CELLS]`: the smallest area placing the cells of FILE (its
// first CELLS, the last placed last, if given), checked against the area the
// file records or, for a cut, the sequential search's, and for being a
// placement. The checksum is the area's (a placement of that area is not
// unique).
struct FloorplanWork : peer::Workload {
    Floorplan fp;
    int32_t area;
    FpSolution result;
    explicit FloorplanWork(const peer::Context& cx) {
        if (cx.args.size() != 1 && cx.args.size() != 2) throw peer::UsageError("floorplan: takes FILE [CELLS]");
        fp = read_floorplan(cx.text(0, "FILE"));
        if (cx.args.size() == 2) {
            size_t cells = cx.u64(1, "CELLS");
            if (cells < 1 || cells >= fp.cells.size()) throw peer::UsageError("floorplan: CELLS out of range");
            fp.cells.resize(cells + 1);
            for (FpCell& c : fp.cells)
                if (c.next > cells) c.next = 0;
            fp.has_solution = false;
        }
        if (fp.has_solution) {
            area = fp.solution;
        } else {
            seq();
            area = result.area;
        }
    }
    void seq() {
        FpSolution best;
        Extents cells = fp_initial_extents();
        Board board{};
        fp_add_cell_seq(fp, 1, {0, 0}, board, cells, best);
        result = best;
    }
    std::string check() const {
        std::string e = peer::expect_eq("floorplan area", result.area, area);
        if (!e.empty()) return e;
        return fp_is_placement(result, fp) ? "" : "floorplan: the board is not a placement of the cells";
    }
    std::string checksum() const { return peer::checksum_of_u64(uint64_t(result.area)); }
};

}  // namespace kernels
