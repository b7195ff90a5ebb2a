// The fork-join table's programs for the C/C++ peers: their inputs, sequential
// references and checks. Mirrors `benches/src/programs/fib.rs` and
// `benches/src/programs/tree.rs`; each runtime adds `par()` (the fork of each
// join) in omp.cpp / tbb.cpp.

#pragma once

#include "../peer.hpp"

namespace kernels {

// fib(n) iteratively: the expected result (`programs::fib::expected`).
inline uint64_t fib_expected(uint64_t n) {
    uint64_t a = 0, b = 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t next = a + b;
        a = b;
        b = next;
    }
    return a;
}

// `fib_seq`: plain recursion, black_box on each recursive argument. Two
// more barriers keep GCC to one call per step, as the Rust reference makes:
// noinline (GCC inlines a recursive function into itself, several levels
// deep; LLVM does not), and black_box on the sum (else GCC turns the second
// call into a loop with an accumulator).
__attribute__((noinline)) inline uint64_t fib_seq(uint64_t n) {
    if (n < 2) return n;
    return peer::black_box(fib_seq(peer::black_box(n - 1)) + fib_seq(peer::black_box(n - 2)));
}

// `fib N`: fib(N) with a join at every level (the fork-join table's fib, and
// the cf17 table's, whose task code is the same recursion).
struct Fib : peer::Workload {
    uint64_t n, expected, result = 0;
    explicit Fib(const peer::Context& cx) {
        cx.expect_args(1);
        n = cx.u64(0, "N");
        if (n > 93) throw peer::UsageError("fib: N above 93 overflows 64 bits");
        expected = fib_expected(n);
    }
    void seq() { result = fib_seq(peer::black_box(n)); }
    std::string check() const { return peer::expect_eq("fib", result, expected); }
    std::string checksum() const { return peer::checksum_of_u64(result); }
};

// A node of the balanced tree (`programs::tree::Node`: 24 bytes, one heap
// block per node, as a `Box<Node>`).
struct Node {
    uint64_t value;
    Node* left;
    Node* right;
};

inline uint64_t middle(uint64_t from, uint64_t to) { return from + (to - from) / 2; }

inline Node* leaf(uint64_t value) { return new Node{value, nullptr, nullptr}; }

// `Node::grow_level`: gives the nodes `depth` levels below `node` (which holds
// the middle of from..=to) their children; whether it added any.
inline bool grow_level(Node* node, uint64_t from, uint64_t to, uint32_t depth) {
    uint64_t value = node->value;
    if (depth == 0) {
        if (value > from) node->left = leaf(middle(from, value - 1));
        if (value < to) node->right = leaf(middle(value + 1, to));
        return value > from || value < to;
    }
    bool grown = false;
    if (node->left) grown |= grow_level(node->left, from, value - 1, depth - 1);
    if (node->right) grown |= grow_level(node->right, value + 1, to, depth - 1);
    return grown;
}

// `Node::balanced(nodes)`: the values 1..=nodes, allocated level by level
// (`Layout::LevelOrder`, the suite's default).
inline Node* balanced(uint64_t nodes) {
    Node* root = leaf(middle(1, nodes));
    uint32_t depth = 0;
    while (grow_level(root, 1, nodes, depth)) depth++;
    return root;
}

// `sum_seq`: plain recursion, black_box on each child (and, as fib_seq, no
// inlining into itself and black_box on the sum).
__attribute__((noinline)) inline uint64_t sum_seq(const Node* node) {
    uint64_t left = node->left ? sum_seq(peer::black_box(node->left)) : 0;
    uint64_t right = node->right ? sum_seq(peer::black_box(node->right)) : 0;
    return peer::black_box(node->value + left + right);
}

// `tree NODES`: the sum of a balanced tree of NODES nodes, a join at every
// node (the suite's tree1k is 1023 nodes, tree16m 16777215).
struct Tree : peer::Workload {
    uint64_t nodes, expected, result = 0;
    Node* root;
    explicit Tree(const peer::Context& cx) {
        cx.expect_args(1);
        nodes = cx.u64(0, "NODES");
        if (nodes < 1 || nodes > (uint64_t(1) << 32)) throw peer::UsageError("tree: NODES must be 1 to 2^32");
        expected = nodes * (nodes + 1) / 2;
        root = balanced(nodes);  // never freed: the process is about to exit
    }
    void seq() { result = sum_seq(root); }
    std::string check() const { return peer::expect_eq("tree", result, expected); }
    std::string checksum() const { return peer::checksum_of_u64(result); }
};

}  // namespace kernels
