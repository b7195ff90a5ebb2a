//! Sum of a balanced binary tree: the benchmark Spice and chili publish.
//!
//! The tree has the shape and the values of Spice's benchmark tree
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
//!
//! # Memory layout
//! Where the allocator puts the nodes decides how fast a traversal order is
//! once the tree outgrows the caches, and the runners do not traverse in the
//! same order: rayon and the sequential reference run the left side of a
//! join first, chili runs the right side first. chili's and Spice's Rust
//! builders allocate each node after its subtrees ([`Layout::PostOrder`]), so
//! that a right-first traversal walks memory backwards sequentially; on the
//! 16M-node tree that makes it about twice as fast as a left-first one, which
//! would show up as a negative "overhead per join". The suite therefore
//! allocates level by level ([`Layout::LevelOrder`], the default): a
//! left-first and a right-first traversal are mirror images there, and both
//! find siblings side by side. The other layouts stay available to reproduce
//! the published setups (`suite --tree-layout post-order`).

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

/// The order in which the nodes of a tree are allocated (see the module
/// docs). The tree's shape and values are the same in every layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Level by level, left to right: neutral between left-first and
    /// right-first traversals. The suite's default.
    LevelOrder,
    /// Each node before its left, then its right subtree (Spice's Zig
    /// builder): favours left-first traversals.
    PreOrder,
    /// Each node after its left, then its right subtree (chili's and Spice's
    /// Rust builders): favours right-first traversals.
    PostOrder,
}

impl Layout {
    /// The layout the suite uses unless told otherwise.
    pub const DEFAULT: Layout = Layout::LevelOrder;

    /// Every layout.
    pub const ALL: [Layout; 3] = [Layout::LevelOrder, Layout::PreOrder, Layout::PostOrder];

    /// The layout's name on the command line and in reports.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::LevelOrder => "level-order",
            Layout::PreOrder => "pre-order",
            Layout::PostOrder => "post-order",
        }
    }

    /// Parses a [`name`](Self::name).
    pub fn parse(name: &str) -> Option<Layout> {
        Layout::ALL.into_iter().find(|l| l.name() == name)
    }
}

impl std::fmt::Display for Layout {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The middle value of `from..=to`, as Spice computes it.
const fn middle(from: u64, to: u64) -> u64 {
    from + (to - from) / 2
}

impl Node {
    /// A balanced tree of `nodes` nodes holding the values `1..=nodes`, in
    /// [`Layout::DEFAULT`].
    ///
    /// # Panics
    /// If `nodes` is zero.
    pub fn balanced(nodes: u64) -> Box<Node> {
        Node::balanced_in(nodes, Layout::DEFAULT)
    }

    /// A balanced tree of `nodes` nodes holding the values `1..=nodes`,
    /// allocated in `layout`.
    ///
    /// # Panics
    /// If `nodes` is zero.
    pub fn balanced_in(nodes: u64, layout: Layout) -> Box<Node> {
        assert!(nodes >= 1, "a tree has at least one node");
        match layout {
            Layout::LevelOrder => {
                let mut root = Node::leaf(middle(1, nodes));
                let mut depth = 0;
                while root.grow_level(1, nodes, depth) {
                    depth += 1;
                }
                root
            }
            Layout::PreOrder => Node::pre_order(1, nodes),
            Layout::PostOrder => Box::new(Node::post_order(1, nodes)),
        }
    }

    fn leaf(value: u64) -> Box<Node> {
        Box::new(Node {
            value,
            left: None,
            right: None,
        })
    }

    /// Gives the nodes `depth` levels below this one (which holds the middle
    /// of `from..=to`) their children, left to right; whether it added any.
    /// Called for depth 0, 1, 2, … it allocates the tree level by level, in
    /// O(n) in all (the walk down to level `d` visits `2^d` nodes).
    fn grow_level(&mut self, from: u64, to: u64, depth: u32) -> bool {
        let value = self.value;
        if depth == 0 {
            if value > from {
                self.left = Some(Node::leaf(middle(from, value - 1)));
            }
            if value < to {
                self.right = Some(Node::leaf(middle(value + 1, to)));
            }
            return value > from || value < to;
        }
        let mut grown = false;
        if let Some(left) = self.left.as_deref_mut() {
            grown |= left.grow_level(from, value - 1, depth - 1);
        }
        if let Some(right) = self.right.as_deref_mut() {
            grown |= right.grow_level(value + 1, to, depth - 1);
        }
        grown
    }

    /// Spice's Zig builder: the node first, then its subtrees.
    fn pre_order(from: u64, to: u64) -> Box<Node> {
        let mut node = Node::leaf(middle(from, to));
        let value = node.value;
        if value > from {
            node.left = Some(Node::pre_order(from, value - 1));
        }
        if value < to {
            node.right = Some(Node::pre_order(value + 1, to));
        }
        node
    }

    /// Spice's Rust `make_balanced_tree(from, to)` (chili's builder has the
    /// same order): the subtrees first, the node's box last.
    fn post_order(from: u64, to: u64) -> Node {
        let value = middle(from, to);
        Node {
            value,
            left: (value > from).then(|| Box::new(Node::post_order(from, value - 1))),
            right: (value < to).then(|| Box::new(Node::post_order(value + 1, to))),
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
    use crate::programs::test_pools::{in_chili, in_each_prescient, in_rayon};

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

    /// The values in the order of a left-first walk, `0` for a missing child.
    fn walk(node: Option<&Node>, values: &mut Vec<u64>) {
        match node {
            None => values.push(0),
            Some(node) => {
                values.push(node.value);
                walk(node.left.as_deref(), values);
                walk(node.right.as_deref(), values);
            }
        }
    }

    #[test]
    fn layouts_share_shape_and_values() {
        for n in SIZES {
            let mut reference = None;
            for layout in Layout::ALL {
                let tree = Node::balanced_in(n, layout);
                let mut values = Vec::new();
                walk(Some(&tree), &mut values);
                assert_eq!(sum_seq(&tree), expected(n), "{layout} n = {n}");
                match &reference {
                    None => reference = Some(values),
                    Some(r) => assert_eq!(r, &values, "{layout} n = {n}"),
                }
            }
        }
        for layout in Layout::ALL {
            assert_eq!(Layout::parse(layout.name()), Some(layout));
        }
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
        in_each_prescient(|| {
            for n in SIZES {
                let tree = Node::balanced(n);
                assert_eq!(sum_prescient(&tree), expected(n), "n = {n}");
            }
        });
    }

    #[test]
    fn rayon_matches_sequential() {
        in_rayon(|| {
            for n in SIZES {
                let tree = Node::balanced(n);
                assert_eq!(sum_rayon(&tree), expected(n), "n = {n}");
            }
        });
    }

    #[test]
    fn chili_matches_sequential() {
        in_chili(|scope| {
            for n in SIZES {
                let tree = Node::balanced(n);
                assert_eq!(sum_chili(scope, &tree), expected(n), "n = {n}");
            }
        });
    }
}
