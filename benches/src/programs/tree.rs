//! Sum of a balanced binary tree: the benchmark Spice and chili publish.
//!
//! The tree is built as Spice's benchmark builds it
//! (`make_balanced_tree(from, to)`): the root holds the middle value of
//! `from..=to`, its subtrees the lower and the upper half. [`Node::balanced`]
//! with `n` nodes holds the values `1..=n`, so the sum is
//! [`expected(n)`](expected) `= n (n + 1) / 2`; with `n = 2^k - 1` (the
//! suite's 1 023 and 16 777 215 nodes, chili's sizes) the tree is perfect.
//!
//! The parallel sums are written as chili's published benchmark writes them:
//! one join at *every* node, each side summing its child if there is one, so
//! a tree of `n` nodes makes exactly [`joins(n)`](joins) `= n` joins (half of
//! them at leaves, forking two empty sides). Per node the work is one load
//! and two additions: nearly pure join overhead.

use std::hint::black_box;

/// The small tree of the suite: 1 023 nodes (`2^10 - 1`), which fits in L1
/// cache and finishes in microseconds. Adding threads must not make it slower.
pub const NODES_1K: u64 = (1 << 10) - 1;

/// The large tree of the suite: 16 777 215 nodes (`2^24 - 1`), about 400 MiB
/// of nodes.
pub const NODES_16M: u64 = (1 << 24) - 1;

/// A node of the tree.
#[derive(Debug)]
pub struct Node {
    /// The value summed.
    pub value: u64,
    /// The subtree of smaller values.
    pub left: Option<Box<Node>>,
    /// The subtree of larger values.
    pub right: Option<Box<Node>>,
}

impl Node {
    /// A balanced tree of `nodes` nodes holding the values `1..=nodes`.
    ///
    /// # Panics
    /// If `nodes` is zero.
    pub fn balanced(nodes: u64) -> Node {
        assert!(nodes >= 1, "a tree has at least one node");
        Node::range(1, nodes)
    }

    /// Spice's `make_balanced_tree(from, to)`: the middle value of
    /// `from..=to` at the root, the lower and upper halves below.
    fn range(from: u64, to: u64) -> Node {
        let value = from + (to - from) / 2;
        Node {
            value,
            left: (value > from).then(|| Box::new(Node::range(from, value - 1))),
            right: (value < to).then(|| Box::new(Node::range(value + 1, to))),
        }
    }
}

/// The sum of a tree of `nodes` nodes built by [`Node::balanced`]:
/// `nodes (nodes + 1) / 2`.
pub const fn expected(nodes: u64) -> u64 {
    nodes * (nodes + 1) / 2
}

/// The number of joins a parallel sum of a tree of `nodes` nodes makes: one
/// per node.
pub const fn joins(nodes: u64) -> u64 {
    nodes
}

/// The sequential reference: plain recursion, no runtime.
pub fn sum_seq(node: &Node) -> u64 {
    let left = node
        .left
        .as_deref()
        .map_or(0, |child| sum_seq(black_box(child)));
    let right = node
        .right
        .as_deref()
        .map_or(0, |child| sum_seq(black_box(child)));
    node.value + left + right
}

/// Forks the two subtrees with [`prescient::join`], at every node.
pub fn sum_prescient(node: &Node) -> u64 {
    let (left, right) = prescient::join(
        || {
            node.left
                .as_deref()
                .map_or(0, |child| sum_prescient(black_box(child)))
        },
        || {
            node.right
                .as_deref()
                .map_or(0, |child| sum_prescient(black_box(child)))
        },
    );
    node.value + left + right
}

/// Forks the two subtrees with [`rayon::join`], at every node.
pub fn sum_rayon(node: &Node) -> u64 {
    let (left, right) = rayon::join(
        || {
            node.left
                .as_deref()
                .map_or(0, |child| sum_rayon(black_box(child)))
        },
        || {
            node.right
                .as_deref()
                .map_or(0, |child| sum_rayon(black_box(child)))
        },
    );
    node.value + left + right
}

/// Forks the two subtrees with chili's [`Scope::join`](chili::Scope::join),
/// at every node (chili's own benchmark).
pub fn sum_chili(scope: &mut chili::Scope<'_>, node: &Node) -> u64 {
    let (left, right) = scope.join(
        |s| {
            node.left
                .as_deref()
                .map_or(0, |child| sum_chili(s, black_box(child)))
        },
        |s| {
            node.right
                .as_deref()
                .map_or(0, |child| sum_chili(s, black_box(child)))
        },
    );
    node.value + left + right
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(node: &Node) -> u64 {
        1 + node.left.as_deref().map_or(0, count) + node.right.as_deref().map_or(0, count)
    }

    fn depth(node: &Node) -> u32 {
        1 + node
            .left
            .as_deref()
            .map_or(0, depth)
            .max(node.right.as_deref().map_or(0, depth))
    }

    const SIZES: [u64; 7] = [1, 2, 3, 10, 100, 1000, NODES_1K];

    #[test]
    fn tree_has_the_nodes_and_the_sum() {
        for n in SIZES {
            let tree = Node::balanced(n);
            assert_eq!(count(&tree), n, "n = {n}");
            assert_eq!(sum_seq(&tree), expected(n), "n = {n}");
        }
        assert_eq!(joins(NODES_1K), 1023);
        assert_eq!(expected(NODES_16M), 140_737_479_966_720);
    }

    #[test]
    fn perfect_sizes_give_perfect_trees() {
        for k in 1..=10 {
            let tree = Node::balanced((1 << k) - 1);
            assert_eq!(depth(&tree), k);
        }
        let tree = Node::balanced(NODES_1K);
        assert_eq!(tree.value, 512);
    }

    #[test]
    fn prescient_matches_sequential() {
        for params in crate::suite::Runner::PRESCIENT_PARAMS {
            let rt = prescient::Runtime::builder()
                .params(params)
                .num_workers(2)
                .build()
                .expect("runtime builds");
            for n in SIZES {
                let tree = Node::balanced(n);
                assert_eq!(rt.run(|| sum_prescient(&tree)), expected(n), "n = {n}");
            }
        }
    }

    #[test]
    fn rayon_matches_sequential() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .expect("rayon pool builds");
        for n in SIZES {
            let tree = Node::balanced(n);
            assert_eq!(pool.install(|| sum_rayon(&tree)), expected(n), "n = {n}");
        }
    }

    #[test]
    fn chili_matches_sequential() {
        let pool = chili::ThreadPool::with_config(chili::Config {
            thread_count: std::num::NonZeroUsize::new(2),
            ..Default::default()
        });
        let mut scope = pool.scope();
        for n in SIZES {
            let tree = Node::balanced(n);
            assert_eq!(sum_chili(&mut scope, &tree), expected(n), "n = {n}");
        }
    }
}
