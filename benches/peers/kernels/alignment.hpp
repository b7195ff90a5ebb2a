// BOTS `alignment` for the C/C++ peers: every pair of protein sequences
// aligned (Myers and Miller's linear-space dynamic program with Gonnet's 250
// matrix) and scored by its identity, function for function the Rust kernel of
// `benches/src/annotated/alignment.rs` (itself a port of BOTS' C `pairalign`,
// with its branch-free recurrences), so each score equals the Rust one. The
// task code (one task per pair, spawned by one thread in a loop, BOTS' form)
// is in omp.cpp / tbb.cpp.

#pragma once

#include <cmath>
#include <fstream>

#include "../peer.hpp"

namespace kernels {

constexpr size_t kNumRes = 32;
constexpr uint8_t kGapPos1 = kNumRes - 2, kGapPos2 = kNumRes - 1;
constexpr size_t kMaxLen = size_t(1) << 18;
constexpr char kCodes[] = "ABCDEFGHIKLMNPQRSTUVWXYZ-";
constexpr char kGon250Order[] = "ABCDEFGHIKLMNPQRSTVWXYZ";

// Gonnet 250, the lower triangle row by row in kGon250Order.
constexpr int32_t kGon250[276] = {
    24,
    0, 0,
    5, 0, 115,
    -3, 0, -32, 47,
    0, 0, -30, 27, 36,
    -23, 0, -8, -45, -39, 70,
    5, 0, -20, 1, -8, -52, 66,
    -8, 0, -13, 4, 4, -1, -14, 60,
    -8, 0, -11, -38, -27, 10, -45, -22, 40,
    -4, 0, -28, 5, 12, -33, -11, 6, -21, 32,
    -12, 0, -15, -40, -28, 20, -44, -19, 28, -21, 40,
    -7, 0, -9, -30, -20, 16, -35, -13, 25, -14, 28, 43,
    -3, 0, -18, 22, 9, -31, 4, 12, -28, 8, -30, -22, 38,
    3, 0, -31, -7, -5, -38, -16, -11, -26, -6, -23, -24, -9, 76,
    -2, 0, -24, 9, 17, -26, -10, 12, -19, 15, -16, -10, 7, -2, 27,
    -6, 0, -22, -3, 4, -32, -10, 6, -24, 27, -22, -17, 3, -9, 15, 47,
    11, 0, 1, 5, 2, -28, 4, -2, -18, 1, -21, -14, 9, 4, 2, -2, 22,
    6, 0, -5, 0, -1, -22, -11, -3, -6, 1, -13, -6, 5, 1, 0, -2, 15, 25,
    1, 0, 0, -29, -19, 1, -33, -20, 31, -17, 18, 16, -22, -18, -15, -20, -10, 0, 34,
    -36, 0, -10, -52, -43, 36, -40, -8, -18, -35, -7, -10, -36, -50, -27, -16, -33, -35, -26, 142,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    -22, 0, -5, -28, -27, 51, -40, 22, -7, -21, 0, -2, -14, -31, -17, -18, -19, -19, -11, 41, 0, 78,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

// `code_of`: a residue's code, '-' the second gap code; -1 if none.
inline int code_of(char symbol) {
    if (symbol == '-') return kGapPos2;
    for (int i = 0; kCodes[i]; i++)
        if (kCodes[i] == symbol) return i;
    return -1;
}

// A sequence's codes, with a leading 0 so that residue i is codes[i].
struct Sequence {
    std::vector<uint8_t> codes;
    size_t len() const { return codes.size() - 1; }
    size_t residue_count() const {
        size_t n = 0;
        for (size_t i = 1; i < codes.size(); i++) n += codes[i] != kGapPos1 && codes[i] != kGapPos2;
        return n;
    }
};

// `parse_sequences`: "Number of sequences is N", then FASTA records whose
// residue lines keep only the known codes.
inline std::vector<Sequence> read_sequences(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw peer::UsageError("alignment: cannot read " + path);
    std::string line;
    std::getline(in, line);
    const std::string prefix = "Number of sequences is";
    size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line.compare(start, prefix.size(), prefix) != 0)
        throw peer::UsageError("alignment: bad header line in " + path);
    char* end = nullptr;
    long count = std::strtol(line.c_str() + start + prefix.size(), &end, 10);
    if (count < 0) throw peer::UsageError("alignment: bad sequence count in " + path);
    std::vector<std::vector<uint8_t>> residues;
    bool open = false;
    while (std::getline(in, line)) {
        if (!line.empty() && line[0] == '>') {
            residues.emplace_back();
            open = true;
        } else if (open) {
            for (char c : line)
                if (c == '-' || (c != '\0' && std::strchr(kCodes, c))) residues.back().push_back(uint8_t(c));
        }
    }
    if (residues.size() < size_t(count)) throw peer::UsageError("alignment: fewer sequences than the header says");
    residues.resize(size_t(count));
    std::vector<Sequence> out;
    for (const auto& r : residues) {
        Sequence s;
        s.codes.push_back(0);
        for (uint8_t c : r) s.codes.push_back(uint8_t(code_of(char(c))));
        out.push_back(std::move(s));
    }
    return out;
}

struct Scoring {
    int32_t matrix[kNumRes][kNumRes];
    int32_t mat_avscore;
    double pw_go_penalty = 10.0, pw_ge_penalty = 0.1, gap_open_scale = 1.0;

    // `Scoring::protein`: Gonnet 250 scaled by 10, and its mean off-diagonal
    // score.
    Scoring() {
        std::memset(matrix, 0, sizeof matrix);
        const int32_t* entry = kGon250;
        int diagonal = 0;
        for (int i = 0; kGon250Order[i]; i++)
            for (int j = 0; j <= i; j++) {
                int32_t k = *entry++ * 10;
                int ti = code_of(kGon250Order[i]), tj = code_of(kGon250Order[j]);
                matrix[ti][tj] = k;
                matrix[tj][ti] = k;
                diagonal += ti == tj;
            }
        int32_t maxres = diagonal - 1, off_diagonal = 0;
        for (size_t i = 0; i < std::strlen(kCodes) - 1; i++)
            for (size_t j = 0; j < i; j++) off_diagonal += matrix[i][j];
        mat_avscore = -(off_diagonal / ((maxres * maxres - maxres) / 2));
    }
    const int32_t* row(uint8_t a) const { return matrix[a % kNumRes]; }
    int32_t score(uint8_t a, uint8_t b) const { return matrix[a % kNumRes][b % kNumRes]; }
    void gap_penalties(size_t n, size_t m, int32_t* g, int32_t* gh) const {
        double gg = pw_go_penalty + std::log(double(std::min(n, m)));
        double open = mat_avscore <= 0 ? 2.0 * 100.0 * gg : double(2 * mat_avscore) * gg * gap_open_scale;
        *g = int32_t(open);
        *gh = int32_t(100.0 * pw_ge_penalty);
    }
};

struct Pair {
    const uint8_t* a;
    const uint8_t* b;
    const Scoring* scoring;
    int32_t g, gh;
};

// The edit script (`Script`).
struct Script {
    std::vector<int32_t> ops{0};
    int32_t last = 0;
    void del(int32_t k) {
        if (last < 0) {
            ops.back() -= k;
            last = ops.back();
        } else {
            ops.push_back(-k);
            last = -k;
        }
    }
    void add(int32_t k) {
        if (last < 0) {
            int32_t deletion = last;
            ops.back() = k;
            ops.push_back(deletion);
        } else {
            ops.push_back(k);
            last = k;
        }
    }
    void matched() {
        ops.push_back(0);
        last = 0;
    }
};

struct AlignRows {
    std::vector<int32_t> hh, dd, rr, ss;
    explicit AlignRows(size_t m) : hh(m + 1), dd(m + 1), rr(m + 1), ss(m + 1) {}
};

inline int32_t imax(int32_t a, int32_t b) { return a > b ? a : b; }

inline int32_t gap_cost(int32_t open, int32_t gh, size_t k) { return k == 0 ? 0 : open + gh * int32_t(k); }

inline void forward_pass(const Pair& pair, size_t n, size_t m, int32_t* maxscore_out, size_t* se1_out, size_t* se2_out) {
    int32_t g = pair.g, gh = pair.gh;
    std::vector<int32_t> hs(m + 1, 0), ds(m + 1, -g);
    const uint8_t* b = pair.b + 1;
    int32_t maxscore = 0;
    size_t se1 = 0, se2 = 0;
    for (size_t i = 0; i < n; i++) {
        const int32_t* row = pair.scoring->row(pair.a[1 + i]);
        int32_t x = 0, p = 0, f = -g, row_max = maxscore;
        size_t row_j = 0;
        for (size_t j = 0; j < m; j++) {
            int32_t& h = hs[1 + j];
            int32_t& d = ds[1 + j];
            f = imax(f, x - g) - gh;
            d = imax(d, h - g) - gh;
            x = imax(p + row[b[j] % kNumRes], imax(d, 0));
            int32_t hh = imax(x, f);
            p = h;
            h = hh;
            if (hh > row_max) row_max = hh, row_j = j + 1;
        }
        if (row_max > maxscore) maxscore = row_max, se1 = i + 1, se2 = row_j;
    }
    *maxscore_out = maxscore, *se1_out = se1, *se2_out = se2;
}

inline void reverse_pass(const Pair& pair, size_t se1, size_t se2, int32_t maxscore, size_t* sb1_out, size_t* sb2_out) {
    int32_t g = pair.g, gh = pair.gh;
    std::vector<int32_t> hs(se2 + 1, -1), ds(se2 + 1, -1);
    const uint8_t* b = pair.b + 1;
    int32_t cost = 0;
    size_t sb1 = 1, sb2 = 1;
    for (size_t i = se1; i >= 1; i--) {
        const int32_t* row = pair.scoring->row(pair.a[i]);
        int32_t x = -1, f = -1, p = i == se1 ? 0 : -1;
        bool done = false;
        for (size_t j = se2; j-- > 0;) {
            int32_t& h = hs[1 + j];
            int32_t& d = ds[1 + j];
            f = imax(f, x - g) - gh;
            d = imax(d, h - g) - gh;
            x = imax(p + row[b[j] % kNumRes], d);
            int32_t hh = imax(x, f);
            p = h;
            h = hh;
            if (hh > cost) {
                cost = hh, sb1 = i, sb2 = j + 1;
                if (cost >= maxscore) {
                    done = true;
                    break;
                }
            }
        }
        if (done) break;
    }
    *sb1_out = sb1, *sb2_out = sb2;
}

// `diff`: Myers and Miller's divide and conquer over a[a0+1..=a0+m] and
// b[b0+1..=b0+n], writing the edit script; returns the score.
inline int32_t diff(const Pair& pair, size_t a0, size_t b0, size_t m, size_t n, int32_t tb, int32_t te, Script& script,
                    AlignRows& rows) {
    int32_t g = pair.g, gh = pair.gh;
    if (n == 0) {
        if (m > 0) script.del(int32_t(m));
        return -gap_cost(tb, gh, m);
    }
    if (m <= 1) {
        if (m == 0) {
            script.add(int32_t(n));
            return -gap_cost(tb, gh, n);
        }
        int32_t midh = std::max(-(tb + gh) - gap_cost(te, gh, n), -(te + gh) - gap_cost(tb, gh, n));
        size_t midj = 0;
        for (size_t j = 1; j <= n; j++) {
            int32_t hh = pair.scoring->score(pair.a[a0 + 1], pair.b[b0 + j]) - gap_cost(te, gh, n - j) -
                         gap_cost(tb, gh, j - 1);
            if (hh > midh) midh = hh, midj = j;
        }
        if (midj == 0) {
            script.del(1);
            script.add(int32_t(n));
        } else {
            if (midj > 1) script.add(int32_t(midj - 1));
            script.matched();
            if (midj < n) script.add(int32_t(n - midj));
        }
        return midh;
    }
    size_t midi = m / 2;
    int32_t *h = rows.hh.data(), *dd = rows.dd.data(), *rr = rows.rr.data(), *ss = rows.ss.data();
    const uint8_t* b = pair.b + b0;
    h[0] = 0;
    int32_t t = -tb;
    for (size_t j = 1; j <= n; j++) {
        t -= gh;
        h[j] = t;
        dd[j] = t - g;
    }
    t = -tb;
    for (size_t i = 1; i <= midi; i++) {
        const int32_t* row = pair.scoring->row(pair.a[a0 + i]);
        int32_t s = h[0];
        t -= gh;
        h[0] = t;
        int32_t x = t, f = t - g;
        for (size_t j = 1; j <= n; j++) {
            f = imax(f, x - g) - gh;
            int32_t e = imax(dd[j], h[j] - g) - gh;
            x = imax(s + row[b[j] % kNumRes], e);
            s = h[j];
            h[j] = imax(x, f);
            dd[j] = e;
        }
    }
    dd[0] = h[0];
    rr[n] = 0;
    t = -te;
    for (size_t j = n; j-- > 0;) {
        t -= gh;
        rr[j] = t;
        ss[j] = t - g;
    }
    t = -te;
    for (size_t i = m; i-- > midi;) {
        const int32_t* row = pair.scoring->row(pair.a[a0 + i + 1]);
        int32_t s = rr[n];
        t -= gh;
        rr[n] = t;
        int32_t x = t, f = t - g;
        for (size_t j = n; j-- > 0;) {
            f = imax(f, x - g) - gh;
            int32_t e = imax(ss[j], rr[j] - g) - gh;
            x = imax(s + row[b[j + 1] % kNumRes], e);
            s = rr[j];
            rr[j] = imax(x, f);
            ss[j] = e;
        }
    }
    ss[n] = rr[n];
    int32_t midh = h[0] + rr[0];
    size_t midj = 0;
    bool in_deletion = false;
    for (size_t j = 0; j <= n; j++) {
        int32_t hh = h[j] + rr[j];
        if (hh > midh || (hh == midh && h[j] != dd[j] && rr[j] == ss[j])) midh = hh, midj = j;
    }
    for (size_t j = n + 1; j-- > 0;) {
        int32_t hh = dd[j] + ss[j] + g;
        if (hh > midh) midh = hh, midj = j, in_deletion = true;
    }
    if (in_deletion) {
        diff(pair, a0, b0, midi - 1, midj, tb, 0, script, rows);
        script.del(2);
        diff(pair, a0 + midi + 1, b0 + midj, m - midi - 1, n - midj, 0, te, script, rows);
    } else {
        diff(pair, a0, b0, midi, midj, tb, g, script, rows);
        diff(pair, a0 + midi, b0 + midj, m - midi, n - midj, g, te, script, rows);
    }
    return midh;
}

inline size_t tracepath(const Pair& pair, size_t sb1, size_t sb2, const Script& script) {
    size_t i1 = sb1, i2 = sb2, identical = 0;
    for (size_t k = 1; k < script.ops.size(); k++) {
        int32_t op = script.ops[k];
        if (op == 0) {
            uint8_t c1 = pair.a[i1], c2 = pair.b[i2];
            if (c1 != kGapPos1 && c1 != kGapPos2 && c1 == c2) identical++;
            i1++, i2++;
        } else if (op > 0) {
            i2 += size_t(op);
        } else {
            i1 += size_t(-int64_t(op));
        }
    }
    return identical;
}

// `pair_score`: the percentage of identical residues of the best local
// alignment of a and b.
inline int32_t pair_score(const Scoring& scoring, const Sequence& a, const Sequence& b) {
    size_t n = a.len(), m = b.len();
    if (n == 0 || m == 0) return 1;
    int32_t g, gh;
    scoring.gap_penalties(n, m, &g, &gh);
    Pair pair{a.codes.data(), b.codes.data(), &scoring, g, gh};
    int32_t maxscore;
    size_t se1, se2, sb1, sb2;
    forward_pass(pair, n, m, &maxscore, &se1, &se2);
    reverse_pass(pair, se1, se2, maxscore, &sb1, &sb2);
    Script script;
    AlignRows rows(m);
    diff(pair, sb1 - 1, sb2 - 1, se1 + 1 - sb1, se2 + 1 - sb2, 0, 0, script, rows);
    size_t identical = tracepath(pair, sb1, sb2, script);
    size_t len1 = a.residue_count(), len2 = b.residue_count();
    if (len1 == 0 || len2 == 0) return 0;
    return int32_t(100.0 * double(identical) / double(std::min(len1, len2)));
}

// `pairalign_seq`: the scores of every pair si < sj, in row order.
inline std::vector<int32_t> pairalign_seq(const std::vector<Sequence>& seqs, const Scoring& scoring) {
    size_t n = seqs.size();
    std::vector<int32_t> scores(n * n, 0);
    for (size_t si = 0; si < n; si++)
        for (size_t sj = si + 1; sj < n; sj++) scores[si * n + sj] = pair_score(scoring, seqs[si], seqs[sj]);
    return scores;
}

// `alignment FILE [COUNT]`: every pair of the first COUNT (default all)
// sequences of FILE, checked against the sequential scores.
struct Alignment : peer::Workload {
    std::vector<Sequence> seqs;
    Scoring scoring;
    std::vector<int32_t> reference, scores;
    explicit Alignment(const peer::Context& cx) {
        if (cx.args.size() != 1 && cx.args.size() != 2) throw peer::UsageError("alignment: takes FILE [COUNT]");
        seqs = read_sequences(cx.text(0, "FILE"));
        if (cx.args.size() == 2) {
            size_t count = cx.u64(1, "COUNT");
            if (count < seqs.size()) seqs.resize(count);
        }
        for (const Sequence& s : seqs)
            if (s.len() > kMaxLen) throw peer::UsageError("alignment: a sequence longer than 2^18 residues");
        reference = pairalign_seq(seqs, scoring);
    }
    void seq() { scores = pairalign_seq(seqs, scoring); }
    std::string check() const { return peer::expect_same("alignment scores", scores, reference); }
    std::string checksum() const { return peer::checksum_of(scores); }
};

}  // namespace kernels
