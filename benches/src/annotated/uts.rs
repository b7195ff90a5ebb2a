//! BOTS `uts` (Unbalanced Tree Search), annotated with `#[task_program]`:
//! count the nodes of an implicit, randomly shaped tree.
//!
//! A Rust port of the Barcelona OpenMP Tasks Suite's `uts` (UTS 2.1 by
//! Olivier, Huan, Liu, Prins, Dinan, Sadayappan and Tseng, adapted to OpenMP
//! tasks by Stephen Olivier), in its variant without a cut-off. The tree is
//! never stored: a node is its height and a 20-byte random state, and the
//! state decides how many children the node has and what their states are.
//! BOTS' UTS knows one tree type, the binomial tree (a Galton–Watson
//! process): the root has `⌊b₀⌋` children; every other node has `m` children
//! with probability `q` and none otherwise. With `q · m` just below 1 the
//! expected subtree size `1 / (1 − q · m)` is large and its variance
//! enormous: the tree is deep, narrow and very unbalanced, which is what the
//! benchmark is for.
//!
//! **The random numbers.** UTS' splittable generator is SHA-1 (Brian
//! Gladman's `brg_sha1`, [`sha1`] here): the root's state is the SHA-1 of 16
//! zero bytes followed by the root seed in big-endian order
//! ([`rng_init`]); child `i`'s state is the SHA-1 of the parent's 20-byte
//! state followed by `i` as 4 big-endian bytes ([`rng_spawn`]); a node's
//! random number is its state's last four bytes, big-endian, with the sign
//! bit cleared ([`rng_rand`]), as a probability `r / 2³¹`. A node below the
//! root is a non-leaf iff that probability is below `q`. The counts are thus
//! fixed by the input, whatever the schedule: BOTS' `test.input` ([`test`](fn@test),
//! `b₀ = 2000, q = 0.124875, m = 8`, seed 42) has 4 112 897 nodes, the value
//! its first line states and BOTS checks; this port counts exactly that, and
//! the stated 30 399 117 of [`tiny`] and 111 345 631 of [`small`] as well
//! (checked once in release, 4.7 s and 17 s sequentially on the development
//! host; the tests count [`test`](fn@test)'s tree).
//!
//! **Parallel structure.** BOTS' `parTreeSearch`: a node computes its
//! children one after the other in a loop — SHA-1 of the child's state, its
//! number of children — and spawns one task per child (`#pragma omp task` in
//! a `for`, here [`prescient::scope`]'s spawn in a `for`) that counts the
//! child's subtree into the child's slot of a counts array; the scope waits
//! for them (`taskwait`) and the node returns `1 +` their sum.
//!
//! **What the analysis finds.** One task context, [`par_tree_search`], with
//! one spawn site inside the loop over the children (λ = 1) whose task calls
//! `par_tree_search` again: one recursive parallel path, ρ = 1. As for
//! nqueens, ρ > 0 keeps CF'17's capacity tree off its loop branch: UTS is
//! classified as recursive, and CF'17's trees would give `DEF` (ρ ≤ 5 and a
//! small effort: the SHA-1 work sits in [`child`], outside the module, an
//! opaque call to the analysis), capacity 4 and 256019 dependency buckets.
//! The calibrated trees (`PARAMS`) give `BF` and capacity 32 (effort 4 <
//! 7667: fine or opaque tasks, BF/32), with the same buckets. The recursion follows the tree's
//! depth (1572 levels for `test.input`), which the analysis cannot bound, so
//! the stack estimate is the conservative 8 MiB.
//!
//! **Differences from BOTS.** No cut-off, so no `depth` argument; the counts
//! array is a `Vec` (BOTS: a variable-length array on the stack) and a leaf
//! returns 1 before creating one (BOTS runs its empty loop and `taskwait`);
//! BOTS' node array `n[numChildren]` becomes one node value moved into each
//! task; the leaf count and maximum depth that BOTS' statistics print (never
//! computed by its task version) are left out; SHA-1 is a plain Rust
//! implementation of the standard (FIPS 180-4), byte-for-byte the digest
//! `brg_sha1` computes, so the trees are BOTS' trees.
//!
//! The annotated module is [`tasks`]; its [`PARAMS`] and [`ANALYSIS`] are
//! re-exported here. The sequential reference [`tree_search_seq`] counts the
//! same tree by plain recursion; every run must equal it, and on BOTS' inputs
//! the count the input file states.
//!
//! Inputs: BOTS' `test.input`, `tiny.input` and `small.input` in
//! `benches/data/uts/` ([`test`](fn@test), [`tiny`], [`small`]; see `SOURCE.md`
//! there).

use std::hint::black_box;
use std::path::{Path, PathBuf};

pub use tasks::{par_tree_search, parallel_uts, ANALYSIS, PARAMS};

/// BOTS' test workload: 4 112 897 nodes, depth 1572.
pub fn test() -> PathBuf {
    crate::data::input("uts/test.input")
}

/// BOTS' tiny workload: about 30 million nodes.
pub fn tiny() -> PathBuf {
    crate::data::input("uts/tiny.input")
}

/// BOTS' small workload: 111 345 631 nodes, depth 17844.
pub fn small() -> PathBuf {
    crate::data::input("uts/small.input")
}

/// The root branching factor of the tree the integration tests count under
/// both build profiles: [`test`](fn@test)'s tree with the root's 2000 children cut to
/// the first 100, the first 100 subtrees of the full tree
/// ([`TEST_ROOT_100_NODES`] nodes). Child 100 onwards would not do for a
/// quick test: the subtrees of children 100 to 127 hold 2.38 million nodes.
pub const TEST_ROOT_CHILDREN: f64 = 100.0;

/// The node count of [`test`](fn@test)'s tree cut to [`TEST_ROOT_CHILDREN`] root
/// children (computed with [`tree_search_seq`], whose SHA-1 and full count
/// are checked against the standard's test vectors and BOTS' stated count).
pub const TEST_ROOT_100_NODES: u64 = 6797;

/// The cap on the children of a node below the root (BOTS'
/// `MAXNUMCHILDREN`).
pub const MAX_NUM_CHILDREN: u32 = 100;

/// The size in bytes of a node's random state (a SHA-1 digest).
pub const STATE_BYTES: usize = 20;

/// A node's random state.
pub type State = [u8; STATE_BYTES];

/// The SHA-1 digest of `message` (FIPS 180-4): the hash UTS' generator
/// (`brg_sha1`) is built on.
pub fn sha1(message: &[u8]) -> State {
    let mut h: [u32; 5] = [
        0x6745_2301,
        0xefcd_ab89,
        0x98ba_dcfe,
        0x1032_5476,
        0xc3d2_e1f0,
    ];
    let bit_length = (message.len() as u64).wrapping_mul(8);
    let mut chunks = message.chunks_exact(64);
    for block in &mut chunks {
        compress(&mut h, block);
    }
    // The tail, the 0x80 byte, zeros and the 64-bit length: one or two blocks.
    let tail = chunks.remainder();
    let mut last = [0u8; 128];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    let blocks = if tail.len() < 56 { 1 } else { 2 };
    last[blocks * 64 - 8..blocks * 64].copy_from_slice(&bit_length.to_be_bytes());
    for block in last[..blocks * 64].chunks_exact(64) {
        compress(&mut h, block);
    }
    let mut digest = [0u8; STATE_BYTES];
    for (bytes, word) in digest.chunks_exact_mut(4).zip(h) {
        bytes.copy_from_slice(&word.to_be_bytes());
    }
    digest
}

/// SHA-1's compression function on one 64-byte block.
fn compress(h: &mut [u32; 5], block: &[u8]) {
    let mut w = [0u32; 80];
    for (word, bytes) in w.iter_mut().zip(block.chunks_exact(4)) {
        *word = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
    }
    for t in 16..80 {
        w[t] = (w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]).rotate_left(1);
    }
    let [mut a, mut b, mut c, mut d, mut e] = *h;
    for (t, &wt) in w.iter().enumerate() {
        let (f, k) = match t {
            0..=19 => ((b & c) | (!b & d), 0x5a82_7999),
            20..=39 => (b ^ c ^ d, 0x6ed9_eba1),
            40..=59 => ((b & c) | (b & d) | (c & d), 0x8f1b_bcdc),
            _ => (b ^ c ^ d, 0xca62_c1d6),
        };
        let temp = a
            .rotate_left(5)
            .wrapping_add(f)
            .wrapping_add(e)
            .wrapping_add(k)
            .wrapping_add(wt);
        e = d;
        d = c;
        c = b.rotate_left(30);
        b = a;
        a = temp;
    }
    for (x, y) in h.iter_mut().zip([a, b, c, d, e]) {
        *x = x.wrapping_add(y);
    }
}

/// The root's state for seed `seed` (UTS' `rng_init`): the SHA-1 of 16 zero
/// bytes and the seed's 4 bytes, big-endian.
pub fn rng_init(seed: i32) -> State {
    let mut message = [0u8; 20];
    message[16..].copy_from_slice(&seed.to_be_bytes());
    sha1(&message)
}

/// The state of child `spawn_number` of a node of state `parent` (UTS'
/// `rng_spawn`): the SHA-1 of the parent's state and the child's number as 4
/// bytes, big-endian.
pub fn rng_spawn(parent: &State, spawn_number: u32) -> State {
    let mut message = [0u8; 24];
    message[..20].copy_from_slice(parent);
    message[20..].copy_from_slice(&spawn_number.to_be_bytes());
    sha1(&message)
}

/// A node's random number in `0 .. 2³¹` (UTS' `rng_rand`): the state's last
/// four bytes, big-endian, without the sign bit.
pub fn rng_rand(state: &State) -> u32 {
    u32::from_be_bytes([state[16], state[17], state[18], state[19]]) & 0x7fff_ffff
}

/// A random number as a probability in `[0, 1)` (UTS' `rng_toProb`).
pub fn to_prob(r: u32) -> f64 {
    f64::from(r) / 2_147_483_648.0
}

/// The parameters of a binomial UTS tree and the statistics BOTS' input file
/// states for it (BOTS' `uts_read_file`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tree {
    /// The root's branching factor `b₀` (the root has `⌊b₀⌋` children).
    pub root_branching: f64,
    /// The probability `q` that a node below the root has children.
    pub non_leaf_prob: f64,
    /// The number `m` of children of such a node.
    pub non_leaf_children: u32,
    /// The root's seed.
    pub root_seed: i32,
    /// SHA-1 evaluations per child (UTS' `computeGranularity`, at least 1):
    /// repeated work, the same state each time.
    pub compute_granularity: u32,
    /// The node count the input file states (BOTS' check).
    pub expected_size: u64,
    /// The depth the input file states (informative, unchecked).
    pub expected_depth: u64,
    /// The leaf count the input file states (informative, unchecked).
    pub expected_leaves: u64,
}

/// A node of the implicit tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// The node's depth (the root's is 0).
    pub height: u32,
    /// The number of its children.
    pub num_children: u32,
    /// Its random state.
    pub state: State,
}

impl Tree {
    /// The same tree with the root's branching factor replaced: with a
    /// smaller one, the first `⌊b⌋` of the original root's subtrees.
    pub fn with_root_branching(self, b: f64) -> Tree {
        Tree {
            root_branching: b,
            ..self
        }
    }

    /// The number of children of a node (UTS' `uts_numChildren`): `⌊b₀⌋` for
    /// the root, else `m` if its random number as a probability is below `q`
    /// and 0 otherwise, capped at [`MAX_NUM_CHILDREN`].
    pub fn num_children(&self, height: u32, state: &State) -> u32 {
        if height == 0 {
            // ⌊b₀⌋, never more than ⌈b₀⌉ (BOTS' check, a no-op for b₀ ≥ 0).
            return self.root_branching.floor().max(0.0) as u32;
        }
        let n = if to_prob(rng_rand(state)) < self.non_leaf_prob {
            self.non_leaf_children
        } else {
            0
        };
        n.min(MAX_NUM_CHILDREN)
    }

    /// The root node (UTS' `uts_initRoot` and `getNumRootChildren`).
    pub fn root(&self) -> Node {
        let state = rng_init(self.root_seed);
        Node {
            height: 0,
            num_children: self.num_children(0, &state),
            state,
        }
    }
}

/// Child `i` of `parent` (the body of BOTS' loop over the children): its
/// state by [`rng_spawn`] (`compute_granularity` times, the same result each
/// time) and its number of children.
pub fn child(tree: &Tree, parent: &Node, i: u32) -> Node {
    let mut state = rng_spawn(&parent.state, i);
    for _ in 1..tree.compute_granularity {
        state = rng_spawn(black_box(&parent.state), i);
    }
    let height = parent.height + 1;
    Node {
        height,
        num_children: tree.num_children(height, &state),
        state,
    }
}

pub use super::input::ReadError;

/// Parses an input in BOTS' format: eight white-space separated fields, `b₀
/// q m seed granularity size depth leaves` (BOTS' `fscanf` in
/// `uts_read_file`); the comment lines after them are ignored. A granularity
/// below 1 is raised to 1, as BOTS does.
pub fn parse_tree(text: &str) -> Result<Tree, ReadError> {
    let mut words = text.split_whitespace();
    let mut field = |what: &str| {
        words
            .next()
            .ok_or_else(|| ReadError::Format(format!("missing {what}")))
    };
    fn parse<T: std::str::FromStr>(word: &str, what: &str) -> Result<T, ReadError> {
        word.parse()
            .map_err(|_| ReadError::Format(format!("bad {what}: {word:?}")))
    }
    let root_branching = parse(field("b_0")?, "b_0")?;
    let non_leaf_prob = parse(field("the non-leaf probability")?, "probability")?;
    let non_leaf_children = parse(field("the non-leaf branching factor")?, "branching factor")?;
    let root_seed = parse(field("the root seed")?, "root seed")?;
    let granularity: i64 = parse(field("the compute granularity")?, "granularity")?;
    let expected_size = parse(field("the tree size")?, "tree size")?;
    let expected_depth = parse(field("the tree depth")?, "tree depth")?;
    let expected_leaves = parse(field("the leaf count")?, "leaf count")?;
    Ok(Tree {
        root_branching,
        non_leaf_prob,
        non_leaf_children,
        root_seed,
        compute_granularity: u32::try_from(granularity.max(1)).unwrap_or(u32::MAX),
        expected_size,
        expected_depth,
        expected_leaves,
    })
}

/// Reads and parses an input file in BOTS' format (see [`parse_tree`]).
pub fn read_tree(path: impl AsRef<Path>) -> Result<Tree, ReadError> {
    let text = std::fs::read_to_string(path).map_err(ReadError::Io)?;
    parse_tree(&text)
}

/// The sequential reference: the number of nodes of the subtree of `node`,
/// by plain recursion in the same order.
pub fn tree_search_seq(tree: &Tree, node: &Node) -> u64 {
    let mut size = 1;
    for i in 0..node.num_children {
        size += tree_search_seq(tree, &child(tree, node, i));
    }
    size
}

/// The task code of UTS, analysed by `#[task_program]`.
#[prescient::task_program]
pub mod tasks {
    use super::{Node, Tree};
    use prescient::scope;

    /// The number of nodes of the subtree of `parent` (BOTS'
    /// `parTreeSearch`): the children are computed in a loop, one task per
    /// child counts the child's subtree, and the node returns one plus their
    /// counts.
    pub fn par_tree_search(tree: &Tree, parent: &Node) -> u64 {
        let n = parent.num_children as usize;
        if n == 0 {
            return 1;
        }
        let mut counts = vec![0u64; n];
        scope(|s| {
            for (i, count) in counts.iter_mut().enumerate() {
                let child = super::child(tree, parent, i as u32);
                s.spawn(move |_| {
                    *count = par_tree_search(tree, &child);
                });
            }
        });
        1 + counts.iter().sum::<u64>()
    }

    /// The number of nodes of `tree` (BOTS' `parallel_uts`).
    ///
    /// Works from any thread: inside a runtime built from [`PARAMS`] (what the
    /// tests and the suite measure) or on the global runtime.
    pub fn parallel_uts(tree: &Tree) -> u64 {
        par_tree_search(tree, &tree.root())
    }
}
